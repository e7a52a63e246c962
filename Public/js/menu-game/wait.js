// The waiting room: the live submission count over the group's WebSocket, polling every few
// seconds while the socket is down; members go to the results the moment the host closes.
import { api, ApiError, config, setCookie, t } from './common.js';

const pin = config.pin;
const count = document.getElementById('submission-count');
const liveStatus = document.getElementById('live-status');
const closeButton = document.getElementById('close-game');
const restartButton = document.getElementById('restart-game');
const POLL_INTERVAL = 3000;
const RECONNECT_DELAY = 5000;

let leaving = false;
let pollTimer = null;

function goToResults() {
  if (leaving) return;
  leaving = true;
  location.assign(`/play/groups/${pin}/result`);
}

function apply(state) {
  if (typeof state.submissionCount === 'number') count.textContent = String(state.submissionCount);
  if (state.isClosed || state.type === 'closed') goToResults();
}

async function poll() {
  try {
    const response = await fetch(`/api/v1/menu-game/groups/${pin}`, { headers: { Accept: 'application/json', 'X-Device-Token': config.device } });
    if (response.ok) apply(await response.json());
  } catch {
    // Offline for a moment; the next poll tries again.
  }
}

function startPolling() {
  if (pollTimer || leaving) return;
  liveStatus.textContent = t('menu_game.wait.polling');
  poll();
  pollTimer = setInterval(poll, POLL_INTERVAL);
}

function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
}

function connect() {
  if (leaving) return;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  let socket;
  try {
    socket = new WebSocket(`${scheme}://${location.host}/api/v1/menu-game/groups/${pin}/live?token=${encodeURIComponent(config.device)}`);
  } catch {
    startPolling();
    return;
  }
  socket.addEventListener('open', () => {
    stopPolling();
    liveStatus.textContent = t('menu_game.wait.live');
  });
  socket.addEventListener('message', (event) => {
    try { apply(JSON.parse(event.data)); } catch { /* not ours */ }
  });
  socket.addEventListener('close', () => {
    if (leaving) return;
    startPolling();
    setTimeout(connect, RECONNECT_DELAY);
  });
}

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
    leaving = true;
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

// Leaving the page stops reconnecting; coming back to it from the back/forward cache resumes.
window.addEventListener('pagehide', () => { leaving = true; });
window.addEventListener('pageshow', (event) => {
  if (!event.persisted) return;
  leaving = false;
  connect();
});
connect();
