// /mates: the people searching around the map's centre as face pins (within the radius the
// server searches), filtered by gender; "my location"; the same people as a list when asked
// or when Leaflet is missing; and the one floating button that follows my state (search,
// searching, matched → the chat), which changes live when a match happens elsewhere.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { distanceText } from '../shared/format.js';
import { createMap, findMe, fitStage, hasLeaflet } from '../shared/map.js';
import { API, avatarURL, MATE_DISTANCE, pathForState, personCard, rememberPosition, watchState } from './common.js';

const settings = config.map || {};
const stage = document.querySelector('.map-stage');
const mapBox = document.getElementById('map');
const list = document.getElementById('people-list');
const statusLine = document.getElementById('map-status');
const locateButton = document.getElementById('locate');
const toggleButton = document.getElementById('view-toggle');
const fab = document.getElementById('state-fab');
const filterButtons = [...document.querySelectorAll('.gender-filter [data-gender]')];

let map = null;
let pins = null;
let hereMarker = null;
let mode = 'map';
let gender = 'all';
let people = [];
let myPosition = null;
let latestRequest = 0;
let state = config.state;

/** The map's own status line (`#map-status`): the last message stays. */
function status(text) {
  say(text, { line: statusLine, clearAfter: 0 });
}

function origin() {
  if (map) return [map.getCenter().lat, map.getCenter().lng];
  return myPosition || settings.center;
}

function shown() {
  return gender === 'all' ? people : people.filter((person) => person.gender === gender);
}

// ---- The floating button ------------------------------------------------------------------

const FAB_ICONS = { idle: '🔍', searching: '📡', matched: '💬' };

/** The button's icon, name and target follow my state; idle carries where to search from. */
function showState(next) {
  state = next;
  if (!fab) return;
  const name = next?.state || 'idle';
  fab.dataset.state = name;
  fab.className = `fab state-${name}`;
  fab.querySelector('.fab-icon').textContent = FAB_ICONS[name] || '🔍';
  // The unread lines of my match, on the chat button.
  const unread = name === 'matched' ? next.unreadCount || 0 : 0;
  const badge = fab.querySelector('.fab-badge');
  if (badge) {
    badge.hidden = unread === 0;
    badge.textContent = unread > 99 ? '99+' : String(unread);
  }
  const label = t(`mates.js.state.${name}`);
  fab.setAttribute('aria-label', unread > 0 ? `${label} · ${t('mates.js.state.unread', { count: unread })}` : label);
  let path = pathForState(next);
  if (name === 'idle') {
    const [lat, lon] = myPosition || origin();
    path += `?lat=${lat.toFixed(6)}&lon=${lon.toFixed(6)}`;
  }
  fab.href = path;
}

fab?.addEventListener('click', () => {
  const point = myPosition || origin();
  if (point) rememberPosition(point);
});

// ---- Pins and the list --------------------------------------------------------------------

function pinFor(person) {
  const L = window.L;
  const icon = L.divIcon({
    className: `mate-pin gender-${person.gender}`,
    html: `<img src="${avatarURL(person.avatar)}" alt="">`,
    iconSize: [52, 52],
    iconAnchor: [26, 48],
    popupAnchor: [0, -44],
  });
  const marker = L.marker([0, 0], { icon, title: person.nickname, keyboard: true });
  const popup = element('div', 'mate-popup');
  popup.append(element('strong', null, person.nickname));
  if (person.distanceMeters != null) popup.append(element('span', 'muted', ` · ${distanceText(person.distanceMeters, MATE_DISTANCE)}`));
  const topics = element('p', 'mate-popup-topics', (person.topics || []).join(' · ') || t('mates.js.card.any_topic'));
  popup.append(topics);
  marker.bindPopup(popup);
  return marker;
}

function render() {
  const visible = shown();
  if (pins) {
    pins.clearLayers();
    // The area searched: the server's radius around the map's centre.
    if (config.radiusMeters) {
      pins.addLayer(window.L.circle(origin(), {
        radius: config.radiusMeters, color: '#15803d', weight: 1.5, fillOpacity: 0.06, interactive: false,
      }));
    }
    // Nearby answers carry distances, not positions: pins stand around the centre at their
    // distance, spread by a stable angle from their id, never at anyone's real spot.
    const [lat, lon] = origin();
    for (const person of visible) {
      const angle = (parseInt(person.id.replace(/-/g, '').slice(0, 8), 16) % 360) * (Math.PI / 180);
      const meters = Math.max(person.distanceMeters ?? 0, 40);
      const north = (meters * Math.cos(angle)) / 111320;
      const east = (meters * Math.sin(angle)) / (111320 * Math.cos((lat * Math.PI) / 180));
      pins.addLayer(pinFor(person).setLatLng([lat + north, lon + east]));
    }
  }
  list.replaceChildren(...visible.map((person) => personCard(person)));
  const count = visible.length;
  status(count ? t('mates.js.home.count', { count }) : t('mates.js.home.none'));
}

async function load() {
  // Without a birth year nobody can be shown (ages are how people filter): the page says so.
  if (config.profile && config.profile.birthYear == null) {
    status('');
    return;
  }
  const request = ++latestRequest;
  const [lat, lon] = origin();
  status(t('mates.js.home.loading'));
  let answer;
  try {
    answer = await api('GET', `${API}/nearby?lat=${lat.toFixed(6)}&lon=${lon.toFixed(6)}`);
  } catch (error) {
    if (request === latestRequest) status(error.message);
    return;
  }
  if (request !== latestRequest) return;
  people = answer?.people || [];
  render();
}

// ---- Filter, modes, my location -----------------------------------------------------------

for (const button of filterButtons) {
  button.addEventListener('click', () => {
    gender = button.dataset.gender;
    for (const other of filterButtons) other.setAttribute('aria-checked', String(other === button));
    render();
  });
}

function setMode(next) {
  mode = next;
  document.body.classList.toggle('map-list-mode', mode === 'list');
  if (mapBox) mapBox.hidden = mode === 'list';
  list.hidden = mode !== 'list';
  if (toggleButton) toggleButton.textContent = t(mode === 'list' ? 'mates.js.home.show_map' : 'mates.js.home.show_list');
  fitStage(stage, { map, statusLine, active: mode === 'map' });
}

toggleButton?.addEventListener('click', () => setMode(mode === 'list' ? 'map' : 'list'));

locateButton?.addEventListener('click', async () => {
  const found = await findMe(locateButton, status, {
    unsupported: t('mates.js.map.locate_unsupported'), locating: t('mates.js.map.locating'),
    denied: t('mates.js.map.locate_denied'), failed: t('mates.js.map.locate_failed'),
  });
  if (!found) return;
  myPosition = rememberPosition(found);
  showState(state);
  if (map) {
    if (!hereMarker) {
      hereMarker = window.L.circleMarker(found, {
        radius: 8, weight: 3, color: '#ffffff', fillColor: '#1d4ed8', fillOpacity: 1, interactive: false,
      }).addTo(map);
    } else {
      hereMarker.setLatLng(found);
    }
    map.setView(found, Math.max(map.getZoom(), 15)); // the move reloads
  } else {
    load();
  }
});

// ---- Start --------------------------------------------------------------------------------

if (hasLeaflet() && mapBox) {
  fitStage(stage, { statusLine });
  map = createMap(mapBox, settings, { zoomIn: t('mates.js.map.zoom_in'), zoomOut: t('mates.js.map.zoom_out') });
  pins = window.L.layerGroup().addTo(map);
  let timer = null;
  map.on('moveend', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      load();
      showState(state);
    }, 300);
  });
  window.addEventListener('resize', () => fitStage(stage, { map, statusLine, active: mode === 'map' }));
  setMode('map');
} else {
  document.body.classList.add('map-no-leaflet');
  if (toggleButton) toggleButton.hidden = true;
  setMode('list');
}
showState(state);
load();
watchState(state, (next, previous) => {
  showState(next);
  // Matched elsewhere (someone accepted my request): the chat is where I belong now.
  if (next.state === 'matched' && (previous?.state !== 'matched' || previous?.matchId !== next.matchId)) location.assign(pathForState(next));
});
