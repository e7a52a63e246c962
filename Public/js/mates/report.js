// /mates/report/{match}: what went wrong with the person I met (one or more categories and a
// comment), sent once through `POST /reports`. Refusals show above the button.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { say } from '../shared/dom.js';
import { API, fieldError } from './common.js';

const form = document.getElementById('report-form');
const errorLine = document.getElementById('report-error');
const sendButton = document.getElementById('send-report');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const categories = [...form.querySelectorAll('input[name=category]:checked')].map((box) => box.value);
  if (!categories.length) {
    fieldError(errorLine, t('mates.js.report.pick_one'));
    return;
  }
  const comment = document.getElementById('report-comment').value.trim();
  sendButton.disabled = true;
  try {
    await api('POST', `${API}/reports`, { userId: config.user, categories, comment });
    fieldError(errorLine, '');
    say(t('mates.js.report.sent'));
    location.assign(`/mates/chat/${config.match.id}`);
  } catch (error) {
    fieldError(errorLine, error.message);
    sendButton.disabled = error.code === 'already_reported';
  }
});
