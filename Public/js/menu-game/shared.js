// A shared menu's page (`/play/menus/{id}`): 카카오맵 and 네이버지도's searches for the menu as a phone
// opens them (the apps first, their mobile pages else), and the places to eat it near the reader —
// at once when the browser already may tell where they are, else after they ask (nearby.js).
import { t } from '../shared/config.js';
import { followAppLinks, knownPosition, listPlaces, locate, mapLinks } from './nearby.js';

const card = document.getElementById('shared-menu');
const menuID = card.dataset.menu;
const query = card.dataset.query;
const locateButton = document.getElementById('nearby-locate');
const status = document.getElementById('nearby-status');
const places = {
  section: document.getElementById('nearby-places-section'),
  list: document.getElementById('nearby-places'),
  empty: document.getElementById('nearby-places-empty'),
  t,
};
places.empty.dataset.none = places.empty.textContent;

/** The searches near `position` when known: the app's scheme on a phone, the web page as the href. */
function pointLinks(position) {
  const links = mapLinks(query, position);
  for (const [id, link] of [['nearby-kakao', links.kakao], ['shared-menu-nearby', links.kakao], ['nearby-naver', links.naver]]) {
    const anchor = document.getElementById(id);
    anchor.href = link.web;
    if (link.app) anchor.dataset.app = link.app;
  }
}

function show(position) {
  locateButton.hidden = true;
  pointLinks(position);
  listPlaces(menuID, position, places);
}

followAppLinks(card);
pointLinks(null);
locateButton.addEventListener('click', async () => {
  const position = await locate(locateButton, status, t);
  if (position) show(position);
});
knownPosition().then((position) => { if (position) show(position); });
