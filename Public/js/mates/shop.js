// /mates/shop: faces and backgrounds. Tapping one shows it on my card (a preview); "wear" puts
// on what is previewed, if I own it; "buy" sends an App Store purchase to the server. In the
// browser there is no App Store: a development server (the test verifier) takes a test
// transaction so the whole path can be tried; otherwise buying happens in the app.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { API, avatarURL, backgroundURL } from './common.js';

const card = document.getElementById('mate-card');
const wearButton = document.getElementById('wear');
let collection = config.collection || { avatars: [0], backgrounds: [0], avatar: 0, background: 0 };
/** What the card shows now: what I wear, or what I tapped. */
const preview = { avatar: collection.avatar, background: collection.background };

function owns(kind, index) {
  return (kind === 'avatar' ? collection.avatars : collection.backgrounds).includes(index);
}

function showPreview() {
  card.querySelector('.mate-card-avatar').src = avatarURL(preview.avatar);
  card.querySelector('.mate-card-background').src = backgroundURL(preview.background);
  const changed = preview.avatar !== collection.avatar || preview.background !== collection.background;
  const wearable = owns('avatar', preview.avatar) && owns('background', preview.background);
  wearButton.disabled = !changed || !wearable;
  wearButton.textContent = t(changed && !wearable ? 'mates.js.shop.buy_first' : 'mates.js.shop.wear');
  for (const item of document.querySelectorAll('.shop-item')) {
    const selected = Number(item.dataset.index) === preview[item.dataset.kind];
    item.classList.toggle('selected', selected);
    item.querySelector('.shop-preview-button').setAttribute('aria-pressed', String(selected));
  }
}

function markOwned(item) {
  item.classList.add('owned');
  item.querySelector('.buy')?.replaceWith(element('span', 'owned-label', t('mates.js.shop.owned')));
}

for (const item of document.querySelectorAll('.shop-item')) {
  const kind = item.dataset.kind;
  const index = Number(item.dataset.index);
  item.querySelector('.shop-preview-button').addEventListener('click', () => {
    preview[kind] = index;
    showPreview();
  });
  item.querySelector('.buy')?.addEventListener('click', async (event) => {
    const button = event.currentTarget;
    if (!config.testPurchases) {
      say(t('mates.js.shop.in_app'));
      return;
    }
    button.disabled = true;
    try {
      // The development server's verifier takes `test:{product}:{transaction}` for a purchase.
      const transaction = `web-${Date.now()}-${Math.random().toString(16).slice(2, 10)}`;
      const bought = await api('POST', `${API}/shop/purchases`, { signedTransaction: `test:${item.dataset.product}:${transaction}` });
      collection = bought.collection;
      markOwned(item);
      preview[kind] = index;
      showPreview();
      say(t('mates.js.shop.bought', { name: item.dataset.name }));
    } catch (error) {
      say(error.message);
      button.disabled = false;
    }
  });
}

wearButton.addEventListener('click', async () => {
  wearButton.disabled = true;
  try {
    collection = await api('PUT', `${API}/profile/appearance`, { avatar: preview.avatar, background: preview.background });
    card.dataset.avatar = String(collection.avatar);
    card.dataset.background = String(collection.background);
    say(t('mates.js.shop.worn'));
  } catch (error) {
    say(error.message);
  }
  showPreview();
});

showPreview();
