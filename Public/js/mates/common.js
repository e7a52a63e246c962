// What the mates pages share: field errors, faces and backgrounds, a person's card (nearby,
// requested me), the topic chips, and following my state (searching, matched…) as it changes
// elsewhere. `element()`, the status line (`say()`) and distances are in ../shared/.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { distanceText } from '../shared/format.js';

export const API = '/api/v1/mates';

/** Shows `message` in a field's error line (`hidden` when empty) and marks `field` invalid. */
export function fieldError(errorLine, message, field) {
  if (!errorLine) return;
  errorLine.textContent = message || '';
  errorLine.hidden = !message;
  if (field) {
    if (message) field.setAttribute('aria-invalid', 'true');
    else field.removeAttribute('aria-invalid');
  }
}

export function avatarURL(index) { return `/images/mates/avatar-${Number(index) || 0}.svg`; }
export function backgroundURL(index) { return `/images/mates/background-${Number(index) || 0}.svg`; }

/** Where a page goes for a state: the search, the nearby list, or the chat of the match. */
export function pathForState(state) {
  if (state?.state === 'matched' && state.matchId) return `/mates/chat/${String(state.matchId).toLowerCase()}`;
  if (state?.state === 'searching') return '/mates/nearby';
  return '/mates/search';
}

/** A mate's distance: "350 m", "1.2 km", and one decimal past 10 km too ("12.5 km"). */
export const MATE_DISTANCE = { kilometerDigits: 1 };

/** The six reputation counters with their names, those above zero highlighted. */
function reputationList(counts) {
  const list = element('ul', 'reputation-grid');
  const names = ['good_manners', 'punctual', 'quick_reply', 'kind', 'skilled', 'worthwhile'];
  names.forEach((name, index) => {
    const count = counts?.[index] || 0;
    const item = element('li', count > 0 ? 'reputation earned' : 'reputation');
    item.append(element('span', null, t(`mates.js.reputation.${name}`)), element('strong', null, String(count)));
    list.append(item);
  });
  return list;
}

/**
 * A person as the nearby and requested-me tabs show them: their card (background and face), the
 * name, the distance, their topics, and a collapsible part with their reputation; `action` is
 * the button under it ("ask" or "accept"), made by the caller.
 */
export function personCard(person, action) {
  const item = element('li', 'mate-row');
  item.dataset.id = person.id;
  const card = element('div', 'mate-card small');
  const background = element('img', 'mate-card-background');
  background.src = backgroundURL(person.background);
  background.alt = '';
  const face = element('img', 'mate-card-avatar');
  face.src = avatarURL(person.avatar);
  face.alt = '';
  card.append(background, face);

  const heading = element('div', 'mate-heading');
  heading.append(element('strong', 'mate-name', person.nickname));
  if (person.distanceMeters != null) heading.append(element('span', 'mate-distance', distanceText(person.distanceMeters, MATE_DISTANCE)));

  const topics = element('ul', 'chip-list');
  for (const topic of person.topics || []) topics.append(element('li', 'chip', topic));
  if (!person.topics?.length) topics.append(element('li', 'chip muted', t('mates.js.card.any_topic')));

  const details = element('details', 'mate-details');
  details.append(element('summary', null, t('mates.js.card.reputation')), reputationList(person.reputation));
  item.append(card, heading, topics, details);
  if (action) item.append(action);
  return item;
}

/**
 * Editable topic chips in `list` (each chip has a remove button), added from `input` by
 * `addButton` or Enter. `limits`: `{max, maxCharacters}`. `onChange(topics)` hears every change.
 * Returns `{ topics(), add(topic), has(topic) }`.
 */
export function topicChips(list, input, addButton, limits, onChange = () => {}, onError = say) {
  let topics = [...list.querySelectorAll('li')].map((item) => item.textContent.trim()).filter(Boolean);

  function render() {
    list.replaceChildren(...topics.map((topic) => {
      const chip = element('li', 'chip removable');
      chip.append(element('span', null, topic));
      const remove = element('button', 'chip-remove', '×');
      remove.type = 'button';
      remove.setAttribute('aria-label', t('mates.js.topics.remove', { topic }));
      remove.addEventListener('click', () => {
        topics = topics.filter((item) => item !== topic);
        render();
        onChange(topics);
        input?.focus();
      });
      chip.append(remove);
      return chip;
    }));
  }

  function has(topic) {
    return topics.some((item) => item.toLocaleLowerCase() === topic.toLocaleLowerCase());
  }

  /** Adds `raw`; says why not (too many, too long, already there) and returns false when it cannot. */
  function add(raw) {
    const topic = (raw || '').trim().replace(/\s+/g, ' ');
    if (!topic) return false;
    if ([...topic].length > limits.maxCharacters) {
      onError(t('mates.js.topics.too_long', { max: limits.maxCharacters }));
      return false;
    }
    if (has(topic)) {
      onError(t('mates.js.topics.already', { topic }));
      return false;
    }
    if (topics.length >= limits.max) {
      onError(t('mates.js.topics.too_many', { max: limits.max }));
      return false;
    }
    topics.push(topic);
    render();
    onChange(topics);
    return true;
  }

  function addFromInput() {
    if (add(input.value)) input.value = '';
    input.focus();
  }

  addButton?.addEventListener('click', (event) => {
    event.preventDefault();
    addFromInput();
  });
  input?.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      addFromInput();
    }
  });
  render();
  return { topics: () => [...topics], add, has };
}

/**
 * Follows my state while the page is open: at once when the inbox says something about mates
 * (the bell's socket, `inbox:notification`), and every `interval` ms otherwise. `onChange(state)`
 * hears each new state (a change of `state` or of the match).
 */
export function watchState(initial, onChange, interval = 4000) {
  let current = initial;
  let checking = false;
  async function check() {
    if (checking || document.hidden) return;
    checking = true;
    try {
      const state = await api('GET', `${API}/state`);
      if (state && (state.state !== current?.state || state.matchId !== current?.matchId || state.unreadCount !== current?.unreadCount)) {
        const previous = current;
        current = state;
        onChange(state, previous);
      }
    } catch { /* the next round tries again */ } finally {
      checking = false;
    }
  }
  document.addEventListener('inbox:notification', (event) => {
    if (event.detail?.service === 'mates') check();
  });
  const timer = setInterval(check, interval);
  return { check, stop: () => clearInterval(timer) };
}

/** Where the browser is, when it says so quickly; otherwise `fallback` (the page's start point). */
export function currentPosition(fallback) {
  const saved = sessionStorage.getItem('mates.position');
  const start = saved ? JSON.parse(saved) : fallback;
  if (!('geolocation' in navigator)) return Promise.resolve(start);
  return new Promise((resolve) => {
    navigator.geolocation.getCurrentPosition(
      (position) => resolve(rememberPosition([position.coords.latitude, position.coords.longitude])),
      () => resolve(start),
      { enableHighAccuracy: true, timeout: 5000, maximumAge: 60000 },
    );
  });
}

/** Keeps where I searched from for this tab, so the nearby list measures from the same place. */
export function rememberPosition(point) {
  sessionStorage.setItem('mates.position', JSON.stringify(point));
  return point;
}
