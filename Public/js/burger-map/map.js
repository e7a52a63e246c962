// The burger map (/map): burger pins and cluster bubbles for the part of the map on screen,
// reloaded a moment after it stops moving; a pin opens a bottom sheet about its place. The same
// places as a list sorted by distance, when asked for or when Leaflet is missing (list mode).
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, say as sayIn } from '../shared/dom.js';
import { distanceText } from '../shared/format.js';
import { createMap, findMe, fitStage as fitMapStage, hasLeaflet as leafletLoaded } from '../shared/map.js';

const settings = config.map || {};
const search = (settings.q || '').trim();
const PLACES = '/api/v1/burger-map/places';
/** The API refuses boxes wider or taller than this (degrees); a zoomed-out view asks for its middle. */
const MAX_SPAN = 10;

const stage = document.querySelector('.map-stage');
const mapBox = document.getElementById('map');
const locateButton = document.getElementById('locate');
const toggleButton = document.getElementById('view-toggle');
const list = document.getElementById('place-list');
const sheet = document.getElementById('place-sheet');
const sheetBody = document.getElementById('sheet-body');
const sheetClose = document.getElementById('sheet-close');
const statusLine = document.getElementById('map-status');

const numbers = new Intl.NumberFormat(config.language || 'ko');
const hasLeaflet = leafletLoaded() && Boolean(mapBox);

let map = null;
let mode = 'map';
/** The device's position once `#locate` found it: list distances are measured from it. */
let myPosition = null;
/** Each request takes the next number; an answer whose number is not the latest is stale. */
let latestRequest = 0;

/** The map's own status line (`#map-status`): the last message stays. */
function say(text) {
  delete statusLine.dataset.nothingFound;
  sayIn(text, { line: statusLine, clearAfter: 0 });
  statusChanged();
}

/** The map ends where the status line starts: when the line grows or shrinks, the map follows. */
let statusHeight = null;
function statusChanged() {
  const height = statusLine?.offsetHeight ?? 0;
  if (height === statusHeight) return;
  statusHeight = height;
  fitStage();
}

/**
 * Nothing matches the search: say so, with the ways on — every burger place again, or the same
 * words in 카카오맵, which has every kind of restaurant (this map has burger places only).
 */
function sayNothingFound(text) {
  // Said already (a reload after the map fitted itself): the same links stay, not new ones.
  if (statusLine.dataset.nothingFound === text && statusLine.querySelector('#map-clear-search')) return;
  say(text);
  statusLine.dataset.nothingFound = text;
  const everything = element('a', 'map-status-link', t('burger_map.js.map.clear_search'));
  everything.href = '/map';
  everything.id = 'map-clear-search';
  const elsewhere = element('a', 'map-status-link', t('burger_map.js.map.search_kakao', { q: search }));
  elsewhere.href = `https://map.kakao.com/link/search/${encodeURIComponent(search)}`;
  elsewhere.rel = 'noopener';
  elsewhere.id = 'map-search-kakao';
  statusLine.append(element('br'), everything, ' · ', elsewhere);
  statusChanged();
}

function placeURL(place) {
  return `/map/places/${encodeURIComponent(place.id)}`;
}

/** "★★★★☆ 4.3 · 12 reviews", or "no reviews yet"; the stars are one image for screen readers. */
function ratingLine(place) {
  const line = element('p', 'place-rating');
  if (!place.reviewCount || place.averageRating == null) {
    line.append(element('span', 'no-reviews', t('burger_map.js.map.no_reviews')));
    return line;
  }
  const average = place.averageRating.toFixed(1);
  const full = Math.round(place.averageRating);
  const stars = element('span', 'stars', '★'.repeat(full) + '☆'.repeat(5 - full));
  stars.setAttribute('role', 'img');
  stars.setAttribute('aria-label', t('burger_map.js.map.stars', { rating: average }));
  line.append(stars, ' ', element('span', 'average', average), ' · ',
    element('span', 'review-count', t('burger_map.js.map.reviews', { count: numbers.format(place.reviewCount) })));
  return line;
}

function searchParam() {
  return search ? `&q=${encodeURIComponent(search)}` : '';
}

// ---- The bottom sheet ---------------------------------------------------------------------

/** What had focus before the sheet opened (a pin), to return to when it closes. */
let sheetOpener = null;
let selectedId = null;

function openSheet(place, opener) {
  if (!sheet || !sheetBody) return;
  // Leaflet may report one tap or Enter twice; the first opener is the one to go back to.
  if (sheet.hidden) sheetOpener = opener || document.activeElement;
  selectPin(place.id);

  const title = element('h2', 'sheet-title');
  title.id = 'sheet-title';
  title.tabIndex = -1;
  const name = element('a', null, place.name);
  name.href = placeURL(place);
  title.append(name);

  const parts = [];
  if (place.photoURL) {
    const photo = element('img', 'sheet-photo');
    photo.src = place.photoURL;
    photo.alt = t('burger_map.js.map.photo_alt', { name: place.name });
    photo.loading = 'lazy';
    parts.push(photo);
  }
  const text = element('div', 'sheet-text');
  text.append(title, ratingLine(place), element('p', 'sheet-address', place.address));
  parts.push(text);
  const link = element('a', 'button primary wide sheet-link', t('burger_map.js.map.see_place'));
  link.href = placeURL(place);

  const card = element('div', 'sheet-place');
  card.append(...parts);
  sheetBody.replaceChildren(card, link);
  sheet.setAttribute('aria-labelledby', title.id);
  sheet.hidden = false;
  title.focus({ preventScroll: true });
}

/** Closes the sheet; focus goes back to its pin unless something else just took it (`restoreFocus`). */
function closeSheet({ restoreFocus = true } = {}) {
  if (!sheet || sheet.hidden) return;
  sheet.hidden = true;
  selectPin(null);
  const back = sheetOpener;
  sheetOpener = null;
  if (!restoreFocus) return;
  // The pin may be gone (the box reloaded meanwhile): then the map itself takes focus.
  if (back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
  else if (mode === 'map' && map) map.getContainer().focus({ preventScroll: true });
}

sheetClose?.addEventListener('click', () => closeSheet());
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && sheet && !sheet.hidden) {
    event.preventDefault();
    closeSheet();
  }
});

// ---- Map mode -----------------------------------------------------------------------------

/** Pins on the map by place id, kept across reloads so a focused pin stays put. */
const pins = new Map();
let pinLayer = null;
let clusterLayer = null;
let hereMarker = null;
/** Whether the search was already looked up everywhere (once), and whether it found anything. */
let fittedToSearch = false;
let searchFoundNothing = false;

function selectPin(id) {
  selectedId = id;
  for (const [pinId, marker] of pins) marker.getElement()?.classList.toggle('is-selected', pinId === id);
}

/** Enter or Space on a focused marker does what a tap does (Leaflet only handles the tap). */
function onActivate(marker, action) {
  marker.getElement()?.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    event.preventDefault();
    event.stopPropagation();
    action();
  });
}

function pinFor(place) {
  const marker = window.L.marker([place.lat, place.lon], {
    icon: window.L.divIcon({
      className: 'burger-pin', html: '<span aria-hidden="true">🍔</span>',
      iconSize: [44, 44], iconAnchor: [22, 22],
    }),
    title: place.name, riseOnHover: true,
  });
  marker.on('click', () => openSheet(place, marker.getElement()));
  marker.on('add', () => {
    const icon = marker.getElement();
    icon.setAttribute('role', 'button');
    icon.setAttribute('aria-label', place.name);
    icon.classList.toggle('is-selected', place.id === selectedId);
    onActivate(marker, () => openSheet(place, icon));
  });
  return marker;
}

/** Bubble sizes step with the count's digits: 1–9, 10–99, 100 and more. */
function bubbleFor(cluster) {
  const size = cluster.count < 10 ? 36 : cluster.count < 100 ? 44 : 54;
  const tier = cluster.count < 10 ? 'small' : cluster.count < 100 ? 'medium' : 'large';
  const label = t('burger_map.js.map.cluster', { count: numbers.format(cluster.count) });
  const marker = window.L.marker([cluster.lat, cluster.lon], {
    icon: window.L.divIcon({
      className: `cluster-bubble cluster-${tier}`,
      html: `<span aria-hidden="true">${numbers.format(cluster.count)}</span>`,
      iconSize: [size, size], iconAnchor: [size / 2, size / 2],
    }),
    title: label, zIndexOffset: 1000,
  });
  const zoomIn = () => map.setView([cluster.lat, cluster.lon], Math.min(map.getZoom() + 2, map.getMaxZoom()));
  marker.on('click', zoomIn);
  marker.on('add', () => {
    marker.getElement().setAttribute('role', 'button');
    marker.getElement().setAttribute('aria-label', label);
    onActivate(marker, zoomIn);
  });
  return marker;
}

/** The box on screen as the API wants it, clamped to the world and to at most MAX_SPAN a side. */
function visibleBox() {
  const bounds = map.getBounds();
  const center = map.getCenter();
  const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
  const side = (low, high, middle, limit) => {
    if (high - low <= MAX_SPAN) return [low, high];
    const from = clamp(middle - MAX_SPAN / 2, -limit, limit - MAX_SPAN);
    return [from, from + MAX_SPAN];
  };
  const [west, east] = side(clamp(bounds.getWest(), -180, 180), clamp(bounds.getEast(), -180, 180), center.lng, 180);
  const [south, north] = side(clamp(bounds.getSouth(), -90, 90), clamp(bounds.getNorth(), -90, 90), center.lat, 90);
  return window.L.latLngBounds([south, west], [north, east]).toBBoxString();
}

async function loadBox() {
  const request = ++latestRequest;
  say(t('burger_map.js.map.loading'));
  let answer;
  try {
    answer = await api('GET', `${PLACES}?bbox=${visibleBox()}${searchParam()}`);
  } catch (error) {
    if (request === latestRequest) say(error.message);
    return;
  }
  if (request !== latestRequest || mode !== 'map') return;
  const items = answer?.items || [];
  const clusters = answer?.clusters || [];

  // Keep the pins still in the box (one may have focus), drop the others, add the new ones.
  const wanted = new Set(items.map((place) => place.id));
  for (const [id, marker] of pins) {
    if (!wanted.has(id)) {
      pinLayer.removeLayer(marker);
      pins.delete(id);
    }
  }
  for (const place of items) {
    if (pins.has(place.id)) continue;
    const marker = pinFor(place);
    pins.set(place.id, marker);
    pinLayer.addLayer(marker);
  }
  clusterLayer.clearLayers();
  for (const cluster of clusters) clusterLayer.addLayer(bubbleFor(cluster));

  const count = items.length + clusters.reduce((sum, cluster) => sum + cluster.count, 0);
  if (count > 0) {
    say(search ? t('burger_map.js.map.count_search', { q: search, count: numbers.format(count) })
      : t('burger_map.js.map.count', { count: numbers.format(count) }));
  } else if (search && !fittedToSearch) {
    await showSearchElsewhere(request);
  } else if (searchFoundNothing) {
    sayNothingFound(t('burger_map.js.map.no_match', { q: search }));
  } else if (search) {
    sayNothingFound(t('burger_map.js.map.no_match_here', { q: search }));
  } else {
    say(t('burger_map.js.map.none_here'));
  }
}

/** A search with nothing in the box opened: move the map to where its places are, once. */
async function showSearchElsewhere(request) {
  fittedToSearch = true;
  let answer;
  try {
    answer = await api('GET', `${PLACES}/search?q=${encodeURIComponent(search)}&limit=50`);
  } catch (error) {
    if (request === latestRequest) say(error.message);
    return;
  }
  if (request !== latestRequest) return;
  const found = answer?.items || [];
  if (!found.length) {
    searchFoundNothing = true;
    sayNothingFound(t('burger_map.js.map.no_match', { q: search }));
    return;
  }
  // The move ends in `moveend`, which loads the new box.
  map.fitBounds(window.L.latLngBounds(found.map((place) => [place.lat, place.lon])), { padding: [48, 48], maxZoom: 15 });
}

/** The stage fills the screen down to the tab bar while the map shows. */
function fitStage() {
  fitMapStage(stage, { map, statusLine, active: mode === 'map' });
}

let reloadTimer = null;

function startMap() {
  const L = window.L;
  fitStage(); // before the map exists: sizing it afterwards would move it and load twice
  map = createMap(mapBox, settings, {
    zoomIn: t('burger_map.js.map.zoom_in'), zoomOut: t('burger_map.js.map.zoom_out'), map: t('burger_map.js.map.map_label'),
  });
  pinLayer = L.layerGroup().addTo(map);
  clusterLayer = L.layerGroup().addTo(map);

  map.on('moveend', () => {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(loadBox, 300);
  });
  map.on('click', () => closeSheet());
  window.addEventListener('resize', fitStage);
}

// ---- List mode ----------------------------------------------------------------------------

function placeRow(place) {
  const row = element('li', 'place-row');
  const link = element('a', 'place-row-link');
  link.href = placeURL(place);
  const thumb = place.photoURL ? element('img', 'place-thumb') : element('span', 'place-thumb placeholder', '🍔');
  if (place.photoURL) {
    thumb.src = place.photoURL;
    thumb.alt = '';
    thumb.loading = 'lazy';
  } else {
    thumb.setAttribute('aria-hidden', 'true');
  }
  const main = element('span', 'place-row-main');
  const rating = ratingLine(place);
  const meta = element('span', 'place-meta');
  meta.append(...rating.childNodes);
  main.append(element('span', 'place-name', place.name), meta, element('span', 'place-address', place.address));
  link.append(thumb, main);
  if (place.distanceMeters != null) link.append(element('span', 'place-distance', distanceText(place.distanceMeters)));
  row.append(link);
  return row;
}

async function loadList() {
  const request = ++latestRequest;
  const origin = myPosition || (map ? [map.getCenter().lat, map.getCenter().lng] : settings.center || [37.5665, 126.978]);
  say(t('burger_map.js.map.loading'));
  list.setAttribute('aria-busy', 'true');
  let answer;
  try {
    answer = await api('GET', `${PLACES}?near=${origin[0].toFixed(6)},${origin[1].toFixed(6)}&limit=50${searchParam()}`);
  } catch (error) {
    if (request === latestRequest) {
      say(error.message);
      list.removeAttribute('aria-busy');
    }
    return;
  }
  if (request !== latestRequest || mode !== 'list') return;
  const items = answer?.items || [];
  list.replaceChildren(...items.map(placeRow));
  list.removeAttribute('aria-busy');
  if (!items.length) {
    if (search) sayNothingFound(t('burger_map.js.map.no_match', { q: search }));
    else say(t('burger_map.js.map.none_near'));
  } else {
    const key = myPosition ? 'burger_map.js.map.list_from_me'
      : map ? 'burger_map.js.map.list_from_center' : 'burger_map.js.map.list_nearest';
    say(t(key, { count: numbers.format(items.length) }));
  }
}

// ---- Switching modes, and "my location" ---------------------------------------------------

function setMode(next) {
  mode = next;
  closeSheet({ restoreFocus: false }); // the toggle that was pressed keeps focus
  document.body.classList.toggle('map-list-mode', mode === 'list');
  if (mapBox) mapBox.hidden = mode === 'list';
  if (list) list.hidden = mode !== 'list';
  if (toggleButton) {
    toggleButton.textContent = mode === 'list' ? t('burger_map.js.map.show_map') : t('burger_map.js.map.show_list');
  }
  fitStage();
  if (mode === 'list') loadList();
  else if (map) loadBox();
}

toggleButton?.addEventListener('click', () => setMode(mode === 'list' ? 'map' : 'list'));

function showHere(lat, lon) {
  if (!map) return;
  if (!hereMarker) {
    hereMarker = window.L.circleMarker([lat, lon], {
      radius: 8, weight: 3, color: '#ffffff', fillColor: '#1d4ed8', fillOpacity: 1, interactive: false,
    }).addTo(map);
  } else {
    hereMarker.setLatLng([lat, lon]);
  }
  map.setView([lat, lon], Math.max(map.getZoom(), 15));
}

locateButton?.addEventListener('click', async () => {
  const found = await findMe(locateButton, say, {
    unsupported: t('burger_map.js.map.locate_unsupported'), locating: t('burger_map.js.map.locating'),
    denied: t('burger_map.js.map.locate_denied'), failed: t('burger_map.js.map.locate_failed'),
  });
  if (!found) return;
  myPosition = found;
  // On the map the move itself reloads the box; the list is measured from the new spot.
  showHere(...myPosition);
  if (mode === 'list') loadList();
});

// ---- Start --------------------------------------------------------------------------------

if (hasLeaflet) {
  startMap();
  setMode('map');
} else {
  // No map library (absent or failed to load): the list is the page, and there is no map to go back to.
  document.body.classList.add('map-no-leaflet');
  if (toggleButton) toggleButton.hidden = true;
  setMode('list');
}
