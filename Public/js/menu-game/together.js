// Together tab: joining by PIN checks the PIN first and shows a wrong one beside the field,
// without leaving the page. (Without this script the form posts and the server does the same.)
import { api, ApiError } from '../shared/api.js';
import { t } from '../shared/config.js';

const form = document.getElementById('join-form');
const input = document.getElementById('pin');
const message = document.getElementById('pin-error');

function showError(text) {
  message.textContent = text;
  message.hidden = false;
  input.setAttribute('aria-invalid', 'true');
  input.focus();
}

form?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const pin = input.value.trim();
  if (!/^[1-9][0-9]{5}$/.test(pin)) {
    showError(t('menu_game.together.wrong_pin'));
    return;
  }
  const button = form.querySelector('button[type=submit]');
  button.disabled = true;
  try {
    const group = await api('GET', `/api/v1/menu-game/groups/${pin}`);
    location.assign(group.isClosed ? `/play/groups/${pin}/result` : `/play/groups/${pin}/game`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showError(error.message);
    button.disabled = false;
  }
});

input?.addEventListener('input', () => {
  message.hidden = true;
  input.removeAttribute('aria-invalid');
});
