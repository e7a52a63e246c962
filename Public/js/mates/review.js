// /mates/review/{match}: six picks (good manners, on time, …) and a comment for the person I
// met, sent once through `POST /reviews`; refusals (not ended yet, already reviewed) show above
// the button in the page's language.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { say } from '../shared/dom.js';
import { API, fieldError } from './common.js';

const form = document.getElementById('review-form');
const errorLine = document.getElementById('review-error');
const sendButton = document.getElementById('send-review');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const picked = new Set([...form.querySelectorAll('input[name=pick]:checked')].map((box) => Number(box.value)));
  const reputation = [0, 1, 2, 3, 4, 5].map((index) => (picked.has(index) ? 1 : 0));
  const comment = document.getElementById('review-comment').value.trim();
  if ([...comment].length > (config.maxComment || 500)) {
    fieldError(errorLine, t('mates.js.review.too_long', { max: config.maxComment || 500 }));
    return;
  }
  sendButton.disabled = true;
  try {
    await api('POST', `${API}/reviews`, { matchId: config.match.id, reputation, comment });
    fieldError(errorLine, '');
    say(t('mates.js.review.sent'));
    // The review's page again: it now thanks the person and leads back to the chat.
    location.assign(location.pathname);
  } catch (error) {
    fieldError(errorLine, error.message);
    sendButton.disabled = error.code === 'already_reviewed';
  }
});
