// The result screen: the winning menu with its three keywords, "next rank" at most twice, the
// player count for groups, restaurants nearby (our map when it has the menu, 카카오맵 and 네이버지도
// always: nearby.js), and share. A group's results come inside the
// page; a solo game's from the session storage the game page filled.
import { config, t } from '../shared/config.js';
import { flash, share } from '../shared/dom.js';
import { imagePath, nameSizeClass } from './common.js';
import { followAppLinks, knownPosition, listPlaces, locate, showNearby } from './nearby.js';

const result = config.mode === 'group' ? config.result : JSON.parse(sessionStorage.getItem('wwe.soloResult') || 'null');
const view = document.getElementById('result-view');
const rankLabel = document.getElementById('result-rank');
const image = document.getElementById('result-image');
const name = document.getElementById('result-name');
const keywords = document.getElementById('result-keywords');
const players = document.getElementById('result-players');
const nextRank = document.getElementById('next-rank');
const nearby = document.getElementById('find-nearby');
const nearbyKakao = document.getElementById('nearby-kakao');
const nearbyNaver = document.getElementById('nearby-naver');
const nearbyElsewhere = document.getElementById('nearby-elsewhere');
const nearbyLocate = document.getElementById('nearby-locate');
const nearbyStatus = document.getElementById('nearby-status');
const placesSection = document.getElementById('nearby-places-section');
const placesList = document.getElementById('nearby-places');
const placesEmpty = document.getElementById('nearby-places-empty');
placesEmpty.dataset.none = placesEmpty.textContent;
/** Where the person is, once known: the list follows the menu shown. */
let position = null;
const shareButton = document.getElementById('share-result');
const shareStatus = document.getElementById('share-status');
const firstLabel = rankLabel.textContent;

/** The app shows the winner and lets the person look at two more. */
const SHOWN = 3;
let rank = 0;

function show() {
  const menu = result.menus[rank];
  const lastRank = Math.min(SHOWN, result.menus.length) - 1;
  rankLabel.textContent = rank === 0 ? firstLabel : t('menu_game.result.rank', { n: rank + 1 });
  image.src = imagePath(menu.imageURL);
  image.alt = menu.displayName;
  name.textContent = menu.displayName;
  name.className = `result-name ${nameSizeClass(menu.displayName)}`;
  keywords.replaceChildren(...menu.keywords.map((keyword) => {
    const item = document.createElement('li');
    item.textContent = `#${config.keywords?.[keyword] ?? keyword}`;
    return item;
  }));
  showNearby(menu.displayName, {
    primary: nearby, kakao: nearbyKakao, naver: nearbyNaver,
    ourMapLabel: (count) => t('menu_game.nearby.our_map', { count }),
    elsewhereLabel: t('menu_game.result.find_nearby'),
  });
  if (position) listPlaces(menu.id, position, { section: placesSection, list: placesList, empty: placesEmpty, t });
  const left = lastRank - rank;
  nextRank.hidden = left <= 0;
  nextRank.textContent = t('menu_game.result.next_rank', { left });
}

if (!result?.menus?.length) {
  document.getElementById('result-missing').hidden = false;
  for (const element of [rankLabel, image.parentElement, nextRank, nearby, nearbyElsewhere, nearbyLocate, shareButton]) element.hidden = true;
} else {
  followAppLinks(view);
  if (config.mode === 'group') {
    players.textContent = t('menu_game.result.players', { count: result.playerCount });
    players.hidden = false;
  }
  nextRank.addEventListener('click', () => {
    rank += 1;
    show();
    name.focus({ preventScroll: true });
  });
  shareButton.addEventListener('click', async () => {
    const menu = result.menus[rank];
    const outcome = await share({
      title: menu.displayName,
      text: t('menu_game.result.share_text', { name: menu.displayName }),
      // The menu's own page: a messenger shows its card, and it leads to the game.
      url: `${location.origin}/play/menus/${encodeURIComponent(menu.id)}`,
    });
    if (outcome === 'copied') flash(shareStatus, t('menu_game.result.copied'));
  });
  nearbyLocate.addEventListener('click', async () => {
    position = await locate(nearbyLocate, nearbyStatus, t);
    if (!position) return;
    nearbyLocate.hidden = true;
    listPlaces(result.menus[rank].id, position, { section: placesSection, list: placesList, empty: placesEmpty, t });
  });
  // A browser that already may tell where the person is: the list at once, no prompt.
  knownPosition().then((known) => {
    if (!known) return;
    position = known;
    nearbyLocate.hidden = true;
    listPlaces(result.menus[rank].id, position, { section: placesSection, list: placesList, empty: placesEmpty, t });
  });
  name.tabIndex = -1;
  show();
  view.classList.add('ready');
}
