// /mates/nearby, while I search: two tabs of cards — the people searching near me ("ask") and
// those who asked me ("accept"). Refresh, change topics, stop searching. The list follows what
// happens elsewhere: a new request appears at once (the inbox's socket), and when someone
// accepts me — or I accept — the page goes to our chat.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { API, currentPosition, pathForState, personCard, watchState } from './common.js';

const tabs = [...document.querySelectorAll('.nearby-tabs [role=tab]')];
const refreshButton = document.getElementById('refresh');
const stopButton = document.getElementById('stop-search');

let position = null;
/** The people I asked in this visit: their button stays "asked". */
const asked = new Set();

// ---- Tabs ---------------------------------------------------------------------------------

function select(tab, focus = false) {
  for (const other of tabs) {
    const selected = other === tab;
    other.setAttribute('aria-selected', String(selected));
    other.tabIndex = selected ? 0 : -1;
    document.getElementById(other.getAttribute('aria-controls')).hidden = !selected;
  }
  if (focus) tab.focus();
  const name = tab.id.replace('tab-', '');
  history.replaceState(null, '', name === 'requested' ? '?tab=requested' : location.pathname);
}

tabs.forEach((tab, index) => {
  tab.addEventListener('click', () => select(tab));
  tab.addEventListener('keydown', (event) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    select(tabs[(index + step + tabs.length) % tabs.length], true);
  });
});
select(tabs.find((tab) => tab.getAttribute('aria-selected') === 'true') || tabs[0]);

// ---- Cards --------------------------------------------------------------------------------

/** "Ask" on a nearby card, "accept" on a requested one: both are a request to that person; the
 * second (they asked first) is the match. */
function actionButton(person, kind) {
  const button = element('button', kind === 'accept' ? 'button primary wide' : 'button wide');
  button.type = 'button';
  button.dataset.action = kind;
  const done = kind === 'ask' && asked.has(person.id);
  button.textContent = t(done ? 'mates.js.nearby.asked' : `mates.js.nearby.${kind}`);
  button.disabled = done;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const answer = await api('POST', `${API}/requests`, { to: person.id });
      if (answer?.matched) {
        say(t('mates.js.nearby.matched', { name: person.nickname }));
        location.assign(pathForState(answer.state));
        return;
      }
      asked.add(person.id);
      button.textContent = t('mates.js.nearby.asked');
      say(t('mates.js.nearby.asked_said', { name: person.nickname }));
    } catch (error) {
      say(error.message);
      // Gone or taken meanwhile: the list is no longer true.
      if (error.status === 404 || error.status === 409) load();
      else button.disabled = false;
    }
  });
  return button;
}

function fill(name, people, kind) {
  const list = document.getElementById(`${name}-list`);
  list.replaceChildren(...people.map((person) => personCard(person, actionButton(person, kind))));
  document.getElementById(`${name}-empty`).hidden = people.length > 0;
  document.getElementById(`count-${name}`).textContent = people.length ? String(people.length) : '';
}

let loading = false;

async function load() {
  if (loading) return;
  loading = true;
  refreshButton.setAttribute('aria-busy', 'true');
  try {
    position ??= await currentPosition(config.start);
    const answer = await api('GET', `${API}/nearby?lat=${position[0].toFixed(6)}&lon=${position[1].toFixed(6)}`);
    fill('nearby', answer?.people || [], 'ask');
    fill('requested', answer?.requestedMe || [], 'accept');
  } catch (error) {
    say(error.message);
  } finally {
    loading = false;
    refreshButton.removeAttribute('aria-busy');
  }
}

refreshButton.addEventListener('click', async () => {
  await load();
  say(t('mates.js.nearby.refreshed'));
});

stopButton.addEventListener('click', async () => {
  stopButton.disabled = true;
  try {
    await api('DELETE', `${API}/queue`);
    location.assign('/mates');
  } catch (error) {
    say(error.message);
    stopButton.disabled = false;
  }
});

// Someone asked me: the inbox hears it first.
document.addEventListener('inbox:notification', (event) => {
  if (event.detail?.kind === 'mates_request') load();
});

watchState(config.state, (state, previous) => {
  if (state.state === 'matched') {
    if (previous?.state === 'matched' && previous?.matchId === state.matchId) return;  // only its unread count moved
    say(t('mates.js.nearby.matched', { name: state.with?.nickname || '' }));
    location.assign(pathForState(state));
  } else if (state.state === 'idle') {
    location.assign('/mates');
  }
});

load();
// The list changes as people come and go; a quiet refresh keeps it near the truth.
setInterval(() => { if (!document.hidden) load(); }, 20000);
