// The waiting room: the live submission count over the group's WebSocket, polling every few
// seconds while the socket is down; members go to the results the moment the host closes.
import { api, ApiError } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { setCookie } from '../shared/dom.js';
import { follow } from '../shared/live.js';

const pin = config.pin;
const count = document.getElementById('submission-count');
const liveStatus = document.getElementById('live-status');
const closeButton = document.getElementById('close-game');
const restartButton = document.getElementById('restart-game');

function goToResults() {
  if (live.stopped) return;
  live.stop();
  location.assign(`/play/groups/${pin}/result`);
}

function apply(state) {
  if (typeof state.submissionCount === 'number') count.textContent = String(state.submissionCount);
  if (state.isClosed || state.type === 'closed') goToResults();
}

/** The group's state by plain fetch: a failed poll stays quiet (no network-trouble view). */
async function poll() {
  try {
    const response = await fetch(`/api/v1/menu-game/groups/${pin}`, { headers: { Accept: 'application/json', 'X-Device-Token': config.device } });
    if (response.ok) apply(await response.json());
  } catch {
    // Offline for a moment; the next poll tries again.
  }
}

// Stops on leaving the page and resumes after a back/forward-cache restore (see live.js).
const live = follow(`/api/v1/menu-game/groups/${pin}/live?token=${encodeURIComponent(config.device)}`, {
  onMessage: apply,
  poll,
  onStatus: (status) => { liveStatus.textContent = t(status === 'live' ? 'menu_game.wait.live' : 'menu_game.wait.polling'); },
  interval: 3000,
  reconnectDelay: 5000,
});

closeButton?.addEventListener('click', async () => {
  closeButton.disabled = true;
  try {
    await api('POST', `/api/v1/menu-game/groups/${pin}/close`);
    goToResults();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    liveStatus.textContent = error.message;
    closeButton.disabled = false;
  }
});

restartButton?.addEventListener('click', async () => {
  restartButton.disabled = true;
  try {
    await api('DELETE', `/api/v1/menu-game/groups/${pin}/submission`);
    setCookie('wwe_waiting', '', 0);
    live.stop();
    location.assign('/play/together');
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'game_closed') goToResults();
    else {
      liveStatus.textContent = error.message;
      restartButton.disabled = false;
    }
  }
});
