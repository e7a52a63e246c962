// /mates/profile: gender, birth year, topics as chips, "let others find me", and the age range
// with two handles on one track; saved together through `PUT /profile`. Errors appear above
// the button in the page's language; nothing is saved until the server says so.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { say } from '../shared/dom.js';
import { API, fieldError, topicChips } from './common.js';

const form = document.getElementById('profile-form');
const errorLine = document.getElementById('profile-error');
const saveButton = document.getElementById('save-profile');
const minHandle = document.getElementById('age-min');
const maxHandle = document.getElementById('age-max');
const ageValue = document.getElementById('age-value');
const fill = document.getElementById('age-fill');
const [lowest, highest] = config.ages || [14, 100];

const chips = topicChips(
  document.getElementById('my-topics'), document.getElementById('topic-input'), document.getElementById('topic-add'),
  { max: config.maxTopics || 8, maxCharacters: config.maxTopicCharacters || 20 },
  () => fieldError(errorLine, ''),
  (message) => fieldError(errorLine, message),
);

/** The two handles never cross: the one being moved stops at the other. */
function showAges(moved) {
  let low = Number(minHandle.value);
  let high = Number(maxHandle.value);
  if (low > high) {
    if (moved === minHandle) low = high;
    else high = low;
    minHandle.value = String(low);
    maxHandle.value = String(high);
  }
  ageValue.textContent = t('mates.js.profile.ages', { min: low, max: high });
  const span = highest - lowest;
  fill.style.left = `${((low - lowest) / span) * 100}%`;
  fill.style.right = `${((highest - high) / span) * 100}%`;
  // The lower handle stays on top when both sit at the right end, so it can still be moved.
  minHandle.style.zIndex = low >= highest - 1 ? '3' : '';
}

minHandle.addEventListener('input', () => showAges(minHandle));
maxHandle.addEventListener('input', () => showAges(maxHandle));
showAges();

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const birthYear = form.elements.birthYear.value;
  const body = {
    gender: form.querySelector('input[name=gender]:checked')?.value || 'unspecified',
    topics: chips.topics(),
    searchable: document.getElementById('searchable').checked,
    ageMin: Number(minHandle.value),
    ageMax: Number(maxHandle.value),
  };
  if (birthYear) body.birthYear = Number(birthYear);
  saveButton.disabled = true;
  try {
    await api('PUT', `${API}/profile`, body);
    fieldError(errorLine, '');
    say(t('mates.js.profile.saved'));
    if (new URLSearchParams(location.search).has('welcome') && birthYear) location.assign('/mates');
  } catch (error) {
    fieldError(errorLine, error.message);
  } finally {
    saveButton.disabled = false;
  }
});

if (new URLSearchParams(location.search).has('welcome')) say(t('mates.js.profile.welcome'));
