// A group's lobby: copy the PIN, share the join link, and watch the room fill (who joined, who
// answered) over the group's WebSocket, polling while it is down. When the host opens the
// result, everyone still here goes to it.
import { config, t } from '../shared/config.js';
import { copyText, flash, share } from '../shared/dom.js';
import { followGroup, showRoom } from './room.js';

const status = document.getElementById('copy-status');

document.getElementById('copy-pin')?.addEventListener('click', async () => {
  if (await copyText(config.pin)) flash(status, t('menu_game.together.copied'));
});

document.getElementById('share-link')?.addEventListener('click', async () => {
  const outcome = await share({ title: document.title, text: `PIN ${config.pin}`, url: config.shareURL });
  if (outcome === 'copied') flash(status, t('menu_game.together.copied'));
});

function apply(state) {
  showRoom(state);
  if (state.isClosed || state.type === 'closed') {
    live.stop();
    location.assign(`/play/groups/${config.pin}/result`);
  }
}

const live = followGroup({ onState: apply, interval: 5000 });
