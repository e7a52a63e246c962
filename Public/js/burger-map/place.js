// A burger place's page (/map/places/{id}): the "been there" and "want to go" toggles (they change
// at once and change back if the server refuses), a small map around the place when Leaflet is
// on the page, and the place's reviews loaded page by page as the list's end scrolls into view.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { say } from '../shared/dom.js';
import { errorMessage, formatNumber, pager, reviewCard } from './cards.js';
import '../shared/share-button.js';

const place = config.place || {};
/** The place's id from the config block, else from the address (/map/places/{id}). */
const placeId = String(place.id || location.pathname.split('/').filter(Boolean).pop() || '').toLowerCase();
const PLACE_API = `/api/v1/burger-map/places/${encodeURIComponent(placeId)}`;

// ---- Marks: "been there" and "want to go" ----

/** Signed out, the server renders links to log in instead of buttons: those need nothing. */
const toggles = [...document.querySelectorAll('button.mark-toggle[data-kind]')];

function showMark(button, pressed, count) {
  button.setAttribute('aria-pressed', pressed ? 'true' : 'false');
  const counter = button.querySelector('.count');
  if (counter) {
    counter.textContent = formatNumber(count);
    counter.dataset.value = String(count);
  }
}

function countOf(button) {
  const counter = button.querySelector('.count');
  return Number(counter?.dataset.value ?? counter?.textContent.replace(/\D/g, '')) || 0;
}

/** The server's answer is the place detail: every toggle shows its counts and my marks. */
function showDetail(detail) {
  for (const button of toggles) {
    const kind = button.dataset.kind;
    const count = kind === 'eaten' ? detail.eatenCount : detail.wantCount;
    showMark(button, (detail.myMarks || []).includes(kind), count ?? countOf(button));
  }
}

for (const button of toggles) {
  button.addEventListener('click', async () => {
    // One request per toggle at a time: a second tap meanwhile would race the first.
    if (button.getAttribute('aria-busy') === 'true') return;
    const kind = button.dataset.kind;
    const wasPressed = button.getAttribute('aria-pressed') === 'true';
    const wasCount = countOf(button);
    showMark(button, !wasPressed, Math.max(0, wasCount + (wasPressed ? -1 : 1)));
    button.setAttribute('aria-busy', 'true');
    try {
      const detail = await api(wasPressed ? 'DELETE' : 'PUT', `${PLACE_API}/marks/${encodeURIComponent(kind)}`);
      if (detail) showDetail(detail);
    } catch (error) {
      showMark(button, wasPressed, wasCount);
      say(errorMessage(error, t('burger_map.js.place.mark_failed')));
    } finally {
      button.removeAttribute('aria-busy');
    }
  });
}

// ---- The small map ----

const mapBox = document.getElementById('place-map');
if (mapBox) {
  const lat = Number(mapBox.dataset.lat);
  const lon = Number(mapBox.dataset.lon);
  const settings = config.map || {};
  if (typeof window.L === 'undefined' || !settings.tileURL || !Number.isFinite(lat) || !Number.isFinite(lon)) {
    mapBox.hidden = true;
  } else {
    try {
      showSmallMap(mapBox, lat, lon, settings);
    } catch {
      mapBox.hidden = true;
    }
  }
}

/** A still map (no dragging or zooming, so it never traps a scrolling thumb) with one pin. */
function showSmallMap(box, lat, lon, settings) {
  const L = window.L;
  box.classList.add('is-live');
  const map = L.map(box, {
    center: [lat, lon], zoom: settings.zoom || 16,
    dragging: false, touchZoom: false, scrollWheelZoom: false, doubleClickZoom: false,
    boxZoom: false, keyboard: false, zoomControl: false, attributionControl: true, tap: false,
  });
  L.tileLayer(settings.tileURL, { attribution: settings.attribution || '', maxZoom: 19 }).addTo(map);
  const icon = L.divIcon({ className: 'burger-pin', html: '', iconSize: [44, 44], iconAnchor: [22, 22] });
  const marker = L.marker([lat, lon], { icon, keyboard: false, interactive: false }).addTo(map);
  // The pin's emoji is set as text, never as markup.
  const pin = marker.getElement();
  if (pin) {
    pin.textContent = '🍔';
    pin.setAttribute('aria-hidden', 'true');
  }
}

// ---- The place's reviews ----

const reviews = document.getElementById('place-reviews');
if (reviews) {
  pager(reviews, document.getElementById('place-reviews-more'), {
    render: (review) => reviewCard(review),
    emptyElement: document.getElementById('place-reviews-empty'),
  });
}
