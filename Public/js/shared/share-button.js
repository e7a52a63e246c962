// Every "🔗 공유하기" button a page has (`ShareButton` on the server: `data-share-url`, `-title`,
// `-text`, `data-copied`): the share sheet where the browser has one, else the link copied and
// said in the status line after the button. Hidden until this script runs.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { flash, share } from './dom.js';

for (const button of document.querySelectorAll('button[data-share-url]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const outcome = await share({ title: button.dataset.shareTitle, text: button.dataset.shareText, url: button.dataset.shareUrl });
    if (outcome === 'copied') flash(document.getElementById(`${button.id}-status`), button.dataset.copied);
  });
}
