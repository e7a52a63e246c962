// The waiting room: the live submission count and room (who is in, who answered) over the
// group's WebSocket, polling every few seconds while the socket is down; members go to the
// results the moment the host closes.
import { api, ApiError } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { setCookie } from '../shared/dom.js';
import { followGroup, showRoom } from './room.js';

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
  showRoom(state);
  if (state.isClosed || state.type === 'closed') goToResults();
}

// Stops on leaving the page and resumes after a back/forward-cache restore (see live.js).
const live = followGroup({
  onState: apply,
  onStatus: (status) => { liveStatus.textContent = t(status === 'live' ? 'menu_game.wait.live' : 'menu_game.wait.polling'); },
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
