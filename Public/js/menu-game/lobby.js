// A group's lobby: copy the PIN, share the join link.
import { config, t } from '../shared/config.js';
import { copyText, flash, share } from '../shared/dom.js';

const status = document.getElementById('copy-status');

document.getElementById('copy-pin')?.addEventListener('click', async () => {
  if (await copyText(config.pin)) flash(status, t('menu_game.together.copied'));
});

document.getElementById('share-link')?.addEventListener('click', async () => {
  const outcome = await share({ title: document.title, text: `PIN ${config.pin}`, url: config.shareURL });
  if (outcome === 'copied') flash(status, t('menu_game.together.copied'));
});
