// "Where can I eat this near me?" for any menu: our own map when it has places for it, and always
// 카카오맵 and 네이버지도's search for the menu, through their public link formats — the app's
// scheme on a phone (falling back to the mobile web page when no app answers), the web page
// elsewhere — near the person when the browser already may tell where they are (never asked here).
import { config } from '../shared/config.js';
import { distanceText } from '../shared/format.js';
import { createMap, findMe, hasLeaflet } from '../shared/map.js';

const APP_NAME = location.origin;

/** Phones and tablets, where the map apps live. */
export function isPhone() {
  return navigator.userAgentData?.mobile ?? /Android|iPhone|iPad|iPod/i.test(navigator.userAgent);
}

/** Kakao Map's and Naver Map's search for `query` (near `position`, `{lat, lng}`, when known). */
export function mapLinks(query, position, phone = isPhone()) {
  const q = encodeURIComponent(query);
  const near = position ? `${position.lat.toFixed(6)},${position.lng.toFixed(6)}` : null;
  const kakaoWeb = phone
    ? `https://m.map.kakao.com/scheme/search?q=${q}${near ? `&p=${near}` : ''}`
    : `https://map.kakao.com/link/search/${q}`;
  const naverWeb = `https://map.naver.com/p/search/${q}`;
  return {
    kakao: { web: kakaoWeb, app: phone ? `kakaomap://search?q=${q}${near ? `&p=${near}` : ''}` : null },
    naver: { web: naverWeb, app: phone ? `nmap://search?query=${q}&appname=${encodeURIComponent(APP_NAME)}` : null },
  };
}

/** The position, only when the person has already let this site know it (no prompt). */
export async function knownPosition() {
  try {
    const permission = await navigator.permissions?.query({ name: 'geolocation' });
    if (permission?.state !== 'granted') return null;
    return await new Promise((resolve) => {
      navigator.geolocation.getCurrentPosition(
        (found) => resolve({ lat: found.coords.latitude, lng: found.coords.longitude }),
        () => resolve(null), { maximumAge: 5 * 60 * 1000, timeout: 4000 });
    });
  } catch {
    return null;
  }
}

/** How many of our map's places match `query`, up to 20 (0 when the map cannot say: this check is
 * quiet, the page's network-trouble view is for what the person asked for). */
export async function ourPlaces(query) {
  try {
    const response = await fetch(`/api/v1/burger-map/places/search?q=${encodeURIComponent(query)}&limit=20`,
      { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (!response.ok) return 0;
    return (await response.json()).items?.length ?? 0;
  } catch {
    return 0;
  }
}

/** Points `anchor` at `link`: the web page as its href (it works without the app), and on a phone
 * the app's scheme to try first (`followAppLinks`). */
function pointAt(anchor, link) {
  anchor.href = link.web;
  if (link.app) anchor.dataset.app = link.app;
  else delete anchor.dataset.app;
}

/**
 * A click on a link with `data-app` tries the map app first and goes to the web page when no app
 * took over (the page is still visible a moment later). Set up once per page.
 */
export function followAppLinks(root = document) {
  root.addEventListener('click', (event) => {
    const anchor = event.target.closest?.('a[data-app]');
    if (!anchor?.dataset.app) return;
    event.preventDefault();
    const web = anchor.href;
    const fallback = setTimeout(() => { if (document.visibilityState === 'visible') location.href = web; }, 1500);
    document.addEventListener('visibilitychange', () => clearTimeout(fallback), { once: true });
    location.href = anchor.dataset.app;
  });
}

let asked = 0;

/**
 * Fills the nearby links for `query`: `kakao` and `naver` always search there; `primary` opens our
 * map with its count when it has places for the query, else 카카오맵's search. The answer of a query
 * asked before a newer one (the person moved to the next rank meanwhile) is dropped.
 */
export async function showNearby(query, { primary, kakao, naver, ourMapLabel, elsewhereLabel }) {
  const mine = ++asked;
  const draw = (position, count) => {
    if (mine !== asked) return;
    const links = mapLinks(query, position);
    pointAt(kakao, links.kakao);
    pointAt(naver, links.naver);
    if (count > 0) {
      primary.href = `/map?q=${encodeURIComponent(query)}`;
      delete primary.dataset.app;
      primary.textContent = `📍 ${ourMapLabel(count)}`;
    } else {
      pointAt(primary, links.kakao);
      primary.textContent = `📍 ${elsewhereLabel}`;
    }
  };
  draw(null, 0);
  const [position, count] = await Promise.all([knownPosition(), ourPlaces(query)]);
  draw(position, count);
}

/** The position, asking the person (the browser's prompt) with `button` busy meanwhile, and
 * `status` saying why not when it cannot be had (shared/map.js `findMe`). `{lat, lng}` or null. */
export async function locate(button, status, t) {
  const found = await findMe(button, (text) => { status.textContent = text || ''; }, {
    locating: t('menu_game.nearby.locating'), denied: t('menu_game.nearby.denied'),
    failed: t('menu_game.nearby.failed'), unsupported: t('menu_game.nearby.unsupported'),
  });
  if (!found) return null;
  status.textContent = '';
  return { lat: found[0], lng: found[1] };
}

/** The places to eat `menuID` near `position` (ours first for a burger, then Kakao's), or null
 * when the server could not say. */
export async function placesNear(menuID, position) {
  try {
    const url = `/api/v1/menu-game/menus/${encodeURIComponent(menuID)}/nearby?lat=${position.lat.toFixed(6)}&lon=${position.lng.toFixed(6)}`;
    const response = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

let listed = 0;

/**
 * Lists the places to eat `menuID` near `position` in `list` (name and page, distance, address,
 * phone), our own marked; `empty` says when there are none (or when they could not be read). The
 * answer of a menu asked before a newer one is dropped.
 */
export async function listPlaces(menuID, position, { section, list, empty, t }) {
  const mine = ++listed;
  const answer = await placesNear(menuID, position);
  if (mine !== listed) return;
  const places = answer?.places ?? [];
  list.replaceChildren(...places.map((place) => {
    const item = document.createElement('li');
    item.className = `nearby-place nearby-place-${place.source}`;
    const link = document.createElement('a');
    // Only a web address is a link (the server checks Kakao's too).
    if (/^https?:\/\//i.test(place.url)) link.href = place.url;
    link.className = 'nearby-place-name';
    link.textContent = place.name;
    if (place.source !== 'burger_map') link.rel = 'noopener';
    const distance = document.createElement('span');
    distance.className = 'nearby-place-distance';
    distance.textContent = distanceText(place.distanceMeters);
    const heading = document.createElement('p');
    heading.className = 'nearby-place-heading';
    heading.append(link, ' ', distance);
    if (place.source === 'burger_map') {
      const ours = document.createElement('span');
      ours.className = 'badge';
      ours.textContent = t('menu_game.nearby.ours');
      heading.append(' ', ours);
    }
    const address = document.createElement('p');
    address.className = 'nearby-place-address';
    address.textContent = place.address;
    item.append(heading, address);
    if (place.phone) {
      const call = document.createElement('a');
      call.href = `tel:${place.phone.replace(/[^0-9+]/g, '')}`;
      call.className = 'nearby-place-phone';
      call.textContent = `📞 ${place.phone}`;
      call.setAttribute('aria-label', `${t('menu_game.nearby.call')} ${place.name} ${place.phone}`);
      item.append(call);
    }
    return item;
  }));
  empty.textContent = answer ? empty.dataset.none ?? empty.textContent : t('menu_game.nearby.unavailable');
  empty.hidden = places.length > 0;
  section.hidden = false;
  pin(places, position, { list, t });
}

let pinsMap = null;
let pinsLayer = null;

/** Numbered pins of `places` on a small map above the list (the numbers the list shows too), and
 * the person's position; nothing where the map library did not load. */
function pin(places, position, { list, t }) {
  const box = document.getElementById('nearby-map');
  if (!box || !config.map?.leaflet || !hasLeaflet() || places.length === 0) {
    if (box) box.hidden = true;
    return;
  }
  const L = window.L;
  box.hidden = false;
  if (!pinsMap) pinsMap = createMap(box, config.map, { map: t('menu_game.nearby.map') });
  pinsLayer?.remove();
  pinsLayer = L.layerGroup().addTo(pinsMap);
  const here = L.circleMarker([position.lat, position.lng], { radius: 7, color: '#1d4ed8', fillOpacity: 0.9 })
    .bindTooltip(t('menu_game.nearby.here'));
  here.addTo(pinsLayer);
  const bounds = [[position.lat, position.lng]];
  places.forEach((place, index) => {
    const number = String(index + 1);
    list.children[index]?.setAttribute('data-pin', number);
    const icon = L.divIcon({ className: `nearby-pin nearby-pin-${place.source}`, html: `<span>${number}</span>`, iconSize: [28, 28] });
    const marker = L.marker([place.lat, place.lon], { icon, title: place.name, alt: place.name, keyboard: true });
    const link = document.createElement('a');
    if (/^https?:\/\//i.test(place.url)) link.href = place.url;
    link.textContent = place.name;
    marker.bindPopup(link).addTo(pinsLayer);
    bounds.push([place.lat, place.lon]);
  });
  pinsMap.invalidateSize();
  pinsMap.fitBounds(bounds, { padding: [24, 24], maxZoom: 16 });
}

