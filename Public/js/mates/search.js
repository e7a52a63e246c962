// /mates/search: what to do together. The topics most wanted nearby and the topics the people
// nearby want can be picked; my own are chips to add and remove; "search" starts (or moves) my
// search from where I am and opens the nearby list.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element } from '../shared/dom.js';
import { API, currentPosition, fieldError, pathForState, rememberPosition, topicChips } from './common.js';

const errorLine = document.getElementById('search-error');
const startButton = document.getElementById('start-search');
const recommended = document.getElementById('recommended-topics');
const others = document.getElementById('others-topics');
const topicsStatus = document.getElementById('topics-status');
const input = document.getElementById('topic-input');

const chips = topicChips(
  document.getElementById('my-topics'), input, null,
  { max: config.maxTopics || 8, maxCharacters: config.maxTopicCharacters || 20 },
  () => { fieldError(errorLine, ''); markPicked(); },
  (message) => fieldError(errorLine, message),
);

document.getElementById('topic-form').addEventListener('submit', (event) => {
  event.preventDefault();
  if (chips.add(input.value)) input.value = '';
  input.focus();
});

/** Topics already among mine are shown as picked (pressed) in the suggestion lists. */
function markPicked() {
  for (const button of document.querySelectorAll('.pickable button')) {
    button.setAttribute('aria-pressed', String(chips.has(button.dataset.topic)));
  }
}

function suggestion(topic, kind) {
  const item = element('li');
  const button = element('button', `chip pick-chip ${kind}`, topic);
  button.type = 'button';
  button.dataset.topic = topic;
  button.addEventListener('click', () => {
    if (!chips.has(topic)) chips.add(topic);
    markPicked();
  });
  item.append(button);
  return item;
}

let position = config.start;

async function loadSuggestions() {
  position = await currentPosition(config.start);
  let answer;
  try {
    answer = await api('GET', `${API}/nearby?lat=${position[0].toFixed(6)}&lon=${position[1].toFixed(6)}`);
  } catch (error) {
    topicsStatus.textContent = error.message;
    return;
  }
  const top = answer?.recommendedTopics || [];
  const wanted = [];
  for (const person of answer?.people || []) {
    for (const topic of person.topics || []) {
      if (!wanted.some((item) => item.toLocaleLowerCase() === topic.toLocaleLowerCase())) wanted.push(topic);
    }
  }
  recommended.replaceChildren(...top.map((topic) => suggestion(topic, 'recommended')));
  others.replaceChildren(...wanted.slice(0, 24).map((topic) => suggestion(topic, 'wanted')));
  topicsStatus.textContent = top.length || wanted.length ? '' : t('mates.js.search.nothing_nearby');
  markPicked();
}

startButton.addEventListener('click', async () => {
  startButton.disabled = true;
  startButton.setAttribute('aria-busy', 'true');
  try {
    const point = rememberPosition(position);
    const state = await api('POST', `${API}/queue`, { lat: point[0], lon: point[1], topics: chips.topics() });
    location.assign(pathForState(state));
  } catch (error) {
    fieldError(errorLine, error.message);
    errorLine.scrollIntoView({ block: 'center' });
    startButton.disabled = false;
    startButton.removeAttribute('aria-busy');
  }
});

loadSuggestions();
