// The map pages' common parts (the burger map, the mates' home): a Leaflet map set up the same
// way everywhere, the stage that fills the screen down to the tab bar, "my location", and
// distances (from format.js). Pages without Leaflet (none installed, or it failed to load) show
// their list instead: `hasLeaflet()` says which.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).

/** Seoul City Hall: where a map opens when the page names no centre. */
export const DEFAULT_CENTER = [37.5665, 126.978];

export function hasLeaflet() {
  return typeof window.L !== 'undefined';
}

/**
 * A Leaflet map in `box` from the page's map settings (`MapLibrary.configValue` on the server:
 * `center`, `zoom`, `tileURL`, `attribution`): one world without copies, zoom buttons with
 * `labels.zoomIn` / `labels.zoomOut`, the attribution bottom left (floating buttons take the
 * bottom right), and `labels.map` as the map's name when the page gave none.
 */
export function createMap(box, settings, labels = {}) {
  const L = window.L;
  const map = L.map(box, {
    center: settings.center || DEFAULT_CENTER,
    zoom: settings.zoom ?? 13,
    minZoom: 3,
    maxBounds: [[-85, -180], [85, 180]],
    maxBoundsViscosity: 1,
    zoomControl: false,
    attributionControl: false,
  });
  L.control.zoom({ zoomInTitle: labels.zoomIn || '+', zoomOutTitle: labels.zoomOut || '−' }).addTo(map);
  L.control.attribution({ position: 'bottomleft' }).addTo(map);
  if (settings.tileURL) {
    L.tileLayer(settings.tileURL, { attribution: settings.attribution || '', maxZoom: 19, noWrap: true }).addTo(map);
  }
  if (labels.map && !box.hasAttribute('aria-label')) box.setAttribute('aria-label', labels.map);
  return map;
}

/**
 * Sizes `stage` to fill the screen from its top down to the tab bar (when that is fixed at the
 * bottom), leaving room for `statusLine` when it comes right after the stage. With `active`
 * false (list mode) the stage takes its natural height.
 */
export function fitStage(stage, { map = null, statusLine = null, active = true } = {}) {
  if (!stage) return;
  if (!active) {
    stage.style.height = '';
    return;
  }
  const box = stage.getBoundingClientRect();
  const bar = document.querySelector('nav.tab-bar');
  const barHeight = bar && getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().height : 0;
  const below = statusLine && (stage.compareDocumentPosition(statusLine) & Node.DOCUMENT_POSITION_FOLLOWING)
    ? Math.max(0, statusLine.getBoundingClientRect().bottom - box.bottom) : 0;
  const height = window.innerHeight - (box.top + window.scrollY) - barHeight - below - 8;
  stage.style.height = `${Math.max(280, Math.round(height))}px`;
  map?.invalidateSize();
}

/** 350 m, 1.2 km, 35 km: kept here for the map pages, written in format.js. */
export { distanceText } from './format.js';

/**
 * Asks the browser where it is, with `button` busy meanwhile. Resolves to `[lat, lon]`, or to
 * null after saying why not through `say` (`texts.unsupported`, `texts.denied`, `texts.failed`;
 * `texts.locating` while it looks).
 */
export function findMe(button, say, texts) {
  if (!('geolocation' in navigator)) {
    say(texts.unsupported);
    return Promise.resolve(null);
  }
  if (button) {
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
  }
  say(texts.locating);
  const done = () => {
    if (!button) return;
    button.disabled = false;
    button.removeAttribute('aria-busy');
  };
  return new Promise((resolve) => {
    navigator.geolocation.getCurrentPosition((position) => {
      done();
      resolve([position.coords.latitude, position.coords.longitude]);
    }, (error) => {
      done();
      say(error.code === error.PERMISSION_DENIED ? texts.denied : texts.failed);
      resolve(null);
    }, { enableHighAccuracy: true, timeout: 10000, maximumAge: 60000 });
  });
}
