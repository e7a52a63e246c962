// Writing a review (/map/write, `?place=` starts with that place chosen): pick a place by
// searching as you type, or register a new one (name, address, a position tapped on a small map or
// taken from the device); stars, title, text with a counter; one to five photos, shrunk in the
// browser to at most 1600 px JPEG, previewed, removable and reorderable. Every field is checked
// here before anything is sent, and the server's refusals land beside the field they are about.
//
// Posting is three steps: the new place (if any), each photo, then the review. What a step made
// is kept (the place's id, each photo's id), so a retry after a refusal sends only what is left.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api, ApiError } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, flash } from '../shared/dom.js';

const API = '/api/v1/burger-map';
/** The server's rules (BurgerMapRules.swift): characters after trimming. */
const LIMITS = { placeName: 60, address: 120, title: 60, text: 2000, photos: 5 };
const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
/** The longer side of an uploaded photo, and the upload limit it must stay under. */
const MAX_SIDE = 1600;
const MAX_BYTES = 5 * 1024 * 1024;
const SEARCH_DELAY = 250;

const $ = (id) => document.getElementById(id);
const form = $('review-form');
const placeID = $('place-id');
const chosen = $('chosen-place');
const picker = document.querySelector('.place-picker');
const search = $('place-search');
const results = $('place-results');
const newPlaceToggle = $('new-place-toggle');
const newPlace = $('new-place');
const newName = $('new-place-name');
const newAddress = $('new-place-address');
const mapBox = $('new-place-map');
const useLocation = $('use-location');
const latInput = $('new-place-lat');
const lonInput = $('new-place-lon');
const ratings = [...document.querySelectorAll('input[name=rating]')];
const title = $('review-title');
const text = $('review-text');
const textCounter = $('text-counter');
const photoInput = $('photo-input');
const previews = $('photo-previews');
const photoCounter = $('photo-counter');
const formError = $('form-error');
const postButton = $('post-review');
const pageStatus = $('page-status');

const numbers = new Intl.NumberFormat(config.language || 'ko');
const hasLeaflet = typeof window.L !== 'undefined' && Boolean(mapBox);

function say(message) {
  flash(pageStatus, message);
}

/**
 * Characters as the server counts them (Swift's `count`: what a reader sees as one character, so
 * an emoji with skin tone is one), after trimming like the server does.
 */
const segmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(config.language || 'ko') : null;
function characters(value) {
  const trimmed = value.trim();
  if (!segmenter) return [...trimmed].length;
  let count = 0;
  for (const _ of segmenter.segment(trimmed)) count += 1;
  return count;
}

// --- Inline errors ---

/** The error paragraph of each field, and the control its message is about by default. */
const errorFields = {
  place: { box: $('error-place'), control: () => search },
  rating: { box: $('error-rating'), control: () => ratings.find((radio) => radio.checked) || ratings[ratings.length - 1] },
  title: { box: $('error-title'), control: () => title },
  text: { box: $('error-text'), control: () => text },
  photos: { box: $('error-photos'), control: () => photoInput },
};

/** The controls an error marks invalid (a rating error marks all five stars). */
function invalidControls(field, control) {
  if (field === 'rating') return ratings;
  return control ? [control] : [];
}

/** Shows `message` under `field` and marks `control` (default: the field's own) invalid. */
function showError(field, message, control = errorFields[field].control()) {
  const { box } = errorFields[field];
  if (box) box.textContent = message;
  for (const node of invalidControls(field, control)) {
    node.setAttribute('aria-invalid', 'true');
    describeBy(node, box?.id);
  }
  return control;
}

function clearError(field) {
  const { box } = errorFields[field];
  if (box) box.textContent = '';
  const marked = field === 'place' ? [search, newName, newAddress, latInput, lonInput, useLocation, $('change-place')] : invalidControls(field, errorFields[field].control());
  for (const node of marked) node?.removeAttribute('aria-invalid');
}

/** Adds `id` to the control's aria-describedby unless it is there (the server names most already). */
function describeBy(node, id) {
  if (!node || !id) return;
  const ids = (node.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
  if (!ids.includes(id)) node.setAttribute('aria-describedby', [...ids, id].join(' '));
}

// --- Choosing a place ---

let searchTimer = null;
let latestSearch = 0;

function choosePlace(place) {
  // A search still waiting or on its way would bring the list back: drop it.
  clearTimeout(searchTimer);
  latestSearch += 1;
  placeID.value = place.id;
  chosen.querySelector('.chosen-name').textContent = place.name;
  chosen.querySelector('.chosen-address').textContent = place.address || '';
  chosen.hidden = false;
  if (picker) picker.hidden = true;
  setNewPlaceOpen(false);
  results.replaceChildren();
  clearError('place');
  say(t('burger_map.js.write.chosen', { name: place.name }));
  // Focus stays inside the field: the button that undoes the choice.
  $('change-place')?.focus();
}

function changePlace() {
  placeID.value = '';
  chosen.hidden = true;
  if (picker) picker.hidden = false;
  search.focus();
}

/** One row per match: a button with the name and address (and the place's rating line). */
function resultRow(place) {
  const item = document.createElement('li');
  const button = element('button', 'place-option');
  button.type = 'button';
  button.dataset.id = place.id;
  button.append(element('strong', 'place-option-name', place.name));
  if (place.address) button.append(element('span', 'place-option-address', place.address));
  button.addEventListener('click', () => choosePlace(place));
  item.append(button);
  return item;
}

/** Searches a moment after the typing stops; an answer to an older query is dropped. */
async function runSearch() {
  const query = search.value.trim();
  const request = ++latestSearch;
  if (!query) {
    results.replaceChildren();
    return;
  }
  try {
    const page = await api('GET', `${API}/places/search?q=${encodeURIComponent(query)}&limit=8`);
    if (request !== latestSearch) return;
    const items = page?.items || [];
    results.replaceChildren(...items.map(resultRow));
    if (items.length === 0) {
      const none = element('li', 'place-results-empty', t('burger_map.js.write.search_none', { q: query }));
      results.append(none);
    }
    say(items.length ? t('burger_map.js.write.search_count', { count: numbers.format(items.length) })
      : t('burger_map.js.write.search_none', { q: query }));
  } catch (error) {
    if (request !== latestSearch) return;
    results.replaceChildren(element('li', 'place-results-empty', error instanceof ApiError ? error.message : String(error)));
  }
}

function setNewPlaceOpen(open) {
  newPlace.hidden = !open;
  newPlaceToggle?.setAttribute('aria-expanded', String(open));
  if (open) startPositionMap();
}

function toggleNewPlace() {
  const open = newPlace.hidden;
  setNewPlaceOpen(open);
  if (!open) return;
  clearError('place');
  // What was typed in the search is most likely the new place's name.
  if (!newName.value.trim() && search.value.trim()) newName.value = search.value.trim();
  newName.focus();
}

// --- The new place's position ---

let positionMap = null;
let positionPin = null;

/** The position as numbers, or null while either is empty or not a number. */
function position() {
  if (latInput.value === '' || lonInput.value === '') return null;
  const lat = Number(latInput.value);
  const lon = Number(lonInput.value);
  return Number.isFinite(lat) && Number.isFinite(lon) ? { lat, lon } : null;
}

function positionInRange({ lat, lon }) {
  return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;
}

/** Six decimals is about 10 cm: plenty for a shop's door. */
function setPosition(lat, lon, { pan = false } = {}) {
  latInput.value = lat.toFixed(6);
  lonInput.value = lon.toFixed(6);
  clearError('place');
  if (positionMap) {
    const at = [lat, lon];
    if (positionPin) positionPin.setLatLng(at);
    else positionPin = window.L.marker(at, { icon: pinIcon(), keyboard: false, interactive: false }).addTo(positionMap);
    if (pan) positionMap.setView(at, Math.max(positionMap.getZoom(), 17));
  }
}

function pinIcon() {
  // A text pin: Leaflet's default marker image path does not survive every packaging.
  return window.L.divIcon({ className: 'position-pin', html: '📍', iconSize: [32, 32], iconAnchor: [16, 30] });
}

/** The small map, made the first time the fieldset opens (Leaflet needs a visible box to size). */
function startPositionMap() {
  if (!hasLeaflet || positionMap) return;
  const L = window.L;
  const settings = config.map || {};
  positionMap = L.map(mapBox, {
    center: settings.center || [37.5665, 126.978],
    zoom: settings.zoom ?? 13,
    minZoom: 3,
    maxBounds: [[-85, -180], [85, 180]],
    maxBoundsViscosity: 1,
  });
  if (settings.tileURL) {
    L.tileLayer(settings.tileURL, { attribution: settings.attribution || '', maxZoom: 19, noWrap: true }).addTo(positionMap);
  }
  positionMap.on('click', (event) => {
    const at = event.latlng.wrap();
    setPosition(at.lat, at.lng);
    say(t('burger_map.js.write.position_set'));
  });
  // Keyboard users move the map with the arrow keys (Leaflet); Enter drops the pin in its middle.
  mapBox.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.target !== mapBox) return;
    event.preventDefault();
    const at = positionMap.getCenter().wrap();
    setPosition(at.lat, at.lng);
    say(t('burger_map.js.write.position_set'));
  });
  const known = position();
  if (known) setPosition(known.lat, known.lon, { pan: true });
  // With the map the pin is the position: the numbers are the form's, not the writer's to read.
  const numbers = newPlace.querySelector('.position-fields');
  if (numbers) numbers.hidden = true;
}

/**
 * The address typed (or found with 우편번호 찾기) moves the pin there when Kakao knows it, for the
 * writer to confirm or move; without Kakao the writer places the pin on the map.
 */
async function locateAddress() {
  const address = newAddress.value.trim();
  if (address.length < 2) return;
  let answer;
  try {
    // 우편번호 찾기 adds the neighbourhood in brackets ("… 110 (태평로1가)"); the search wants the address.
    const query = address.replace(/\s*\([^)]*\)\s*$/, '');
    answer = await api('GET', `${API}/geocode?address=${encodeURIComponent(query)}`);
  } catch {
    return;
  }
  if (newAddress.value.trim() !== address) return; // typed on meanwhile
  if (answer.match) {
    startPositionMap();
    setPosition(answer.match.lat, answer.match.lon, { pan: true });
    say(t('burger_map.js.write.address_located'));
  } else {
    say(t(answer.kakao === 'ok' ? 'burger_map.js.write.address_not_found' : 'burger_map.js.write.pin_it'));
  }
}

/**
 * Without Leaflet the map box goes away, and the position comes from "use my location" or is
 * typed: the number inputs stop being read-only so the form still works on any device.
 */
function withoutMap() {
  if (mapBox) mapBox.hidden = true;
  const hint = newPlace.querySelector('.hint');
  if (hint) hint.textContent = t('burger_map.js.write.position_hint_no_map');
  for (const input of [latInput, lonInput]) {
    input.readOnly = false;
    input.inputMode = 'decimal';
    input.addEventListener('input', () => clearError('place'));
  }
  latInput.min = '-90';
  latInput.max = '90';
  lonInput.min = '-180';
  lonInput.max = '180';
}

function locate() {
  if (!navigator.geolocation) {
    showError('place', t('burger_map.js.write.locate_unsupported'), useLocation);
    return;
  }
  clearError('place');
  useLocation.disabled = true;
  say(t('burger_map.js.write.locating'));
  navigator.geolocation.getCurrentPosition((found) => {
    useLocation.disabled = false;
    setPosition(found.coords.latitude, found.coords.longitude, { pan: true });
    say(t('burger_map.js.write.located'));
  }, (failure) => {
    useLocation.disabled = false;
    const key = failure.code === failure.PERMISSION_DENIED ? 'locate_denied' : 'locate_failed';
    showError('place', t(`burger_map.js.write.${key}`), useLocation);
    useLocation.focus();
  }, { enableHighAccuracy: true, timeout: 15000, maximumAge: 60000 });
}

// --- Rating ---

/**
 * The stars are rendered 5…1 and laid out right to left (so CSS can light "this star and the ones
 * before it"); the arrow keys would then run backwards, so they are steered here: right and up
 * always mean more stars.
 */
function onRatingKey(event) {
  const step = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[event.key];
  if (!step) return;
  event.preventDefault();
  const value = Math.min(5, Math.max(1, Number(event.target.value) + step));
  const next = ratings.find((radio) => Number(radio.value) === value);
  if (!next) return;
  next.checked = true;
  next.focus();
  clearError('rating');
}

// --- Text counter ---

function updateTextCounter() {
  const count = characters(text.value);
  textCounter.textContent = `${numbers.format(count)} / ${numbers.format(LIMITS.text)}`;
  textCounter.classList.toggle('over', count > LIMITS.text);
}

// --- Photos ---

/**
 * Each photo: the resized JPEG, its preview address, its size, and the id the server gave it once
 * uploaded (kept across retries, so a photo is uploaded once).
 */
let photos = [];
/** The photos still being decoded and redrawn; posting waits for them. */
let preparing = Promise.resolve();

/** Decodes an image file (the browser turns it upright from its EXIF orientation). */
async function decode(file) {
  if (typeof createImageBitmap === 'function') return createImageBitmap(file);
  const url = URL.createObjectURL(file);
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    return image;
  } finally {
    URL.revokeObjectURL(url);
  }
}

function toBlob(canvas, quality) {
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', quality));
}

/** The image redrawn at most MAX_SIDE px on its longer side as a JPEG (white under transparency). */
async function shrink(file) {
  const source = await decode(file);
  const width = source.width || source.naturalWidth;
  const height = source.height || source.naturalHeight;
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.imageSmoothingQuality = 'high';
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  source.close?.();
  // 0.85 keeps a 1600 px photo well under the limit; a very busy one gets a second, rougher try.
  let blob = await toBlob(canvas, 0.85);
  if (blob && blob.size > MAX_BYTES) blob = await toBlob(canvas, 0.7);
  if (!blob) throw new Error('encode');
  if (blob.size > MAX_BYTES) throw new RangeError('too large');
  return { blob, width: canvas.width, height: canvas.height };
}

async function addFiles(files) {
  clearError('photos');
  const problems = [];
  const room = LIMITS.photos - photos.length;
  const accepted = files.slice(0, Math.max(0, room));
  if (files.length > accepted.length) {
    problems.push(t('burger_map.js.write.photos_too_many', { max: LIMITS.photos, count: files.length - accepted.length }));
  }
  // Reserve the slots at once, so a second pick while these decode cannot go past five.
  const slots = accepted.map((file) => ({ file, pending: true }));
  photos.push(...slots);
  renderPhotos();
  for (const slot of slots) {
    const { file } = slot;
    if (!PHOTO_TYPES.includes(file.type)) {
      problems.push(t('burger_map.js.write.photo_type', { name: file.name }));
      photos = photos.filter((photo) => photo !== slot);
      continue;
    }
    try {
      Object.assign(slot, await shrink(file), { pending: false, uploadedId: null });
      slot.url = URL.createObjectURL(slot.blob);
    } catch (error) {
      const key = error instanceof RangeError ? 'photo_too_large' : 'photo_unreadable';
      problems.push(t(`burger_map.js.write.${key}`, { name: file.name }));
      photos = photos.filter((photo) => photo !== slot);
    }
    renderPhotos();
  }
  if (problems.length) showError('photos', problems.join(' '));
}

function movePhoto(index, step) {
  const target = index + step;
  if (target < 0 || target >= photos.length) return;
  [photos[index], photos[target]] = [photos[target], photos[index]];
  renderPhotos();
  // Keep the keyboard on the moved photo: the same arrow if it can go on, else the other one.
  const item = previews.children[target];
  const same = item?.querySelector(step < 0 ? '.photo-left' : '.photo-right');
  const other = item?.querySelector(step < 0 ? '.photo-right' : '.photo-left');
  (same && !same.disabled ? same : other)?.focus();
  say(t('burger_map.js.write.photo_moved', { number: target + 1 }));
}

function removePhoto(index) {
  const [gone] = photos.splice(index, 1);
  if (gone?.url) URL.revokeObjectURL(gone.url);
  renderPhotos();
  clearError('photos');
  const next = previews.children[Math.min(index, photos.length - 1)];
  (next?.querySelector('.photo-remove') || photoInput).focus();
  say(t('burger_map.js.write.photo_removed'));
}

function photoButton(className, label, symbol, onClick) {
  const button = element('button', className, symbol);
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.addEventListener('click', onClick);
  return button;
}

/** Redraws the previews from `photos`, the counter, and whether the picker can take more. */
function renderPhotos() {
  const items = photos.map((photo, index) => {
    const item = element('li', 'photo-preview');
    const number = index + 1;
    if (photo.pending) {
      item.classList.add('pending');
      item.append(element('span', 'photo-pending', t('burger_map.js.write.preparing')));
      return item;
    }
    const image = document.createElement('img');
    image.src = photo.url;
    image.width = photo.width;
    image.height = photo.height;
    image.alt = t('burger_map.js.write.photo_alt', { number });
    item.append(image);
    if (index === 0) item.append(element('span', 'photo-cover', t('burger_map.js.write.photo_cover')));
    const left = photoButton('photo-left', t('burger_map.js.write.photo_left', { number }), '←', () => movePhoto(index, -1));
    const right = photoButton('photo-right', t('burger_map.js.write.photo_right', { number }), '→', () => movePhoto(index, 1));
    left.disabled = index === 0;
    right.disabled = index === photos.length - 1;
    const remove = photoButton('photo-remove', t('burger_map.js.write.photo_remove', { number }), '✕', () => removePhoto(index));
    const controls = element('div', 'photo-controls');
    controls.append(left, right);
    item.append(remove, controls);
    return item;
  });
  previews.replaceChildren(...items);
  photoCounter.textContent = `${numbers.format(photos.length)} / ${numbers.format(LIMITS.photos)}`;
  photoInput.disabled = photos.length >= LIMITS.photos;
}

function onPhotosChosen() {
  const files = [...photoInput.files];
  // Emptied so that choosing the same file again (after removing it) fires `change` again.
  photoInput.value = '';
  if (files.length === 0) return;
  // One pick after another, in order; a failure of one never blocks the next (or the post).
  preparing = preparing.then(() => addFiles(files)).catch(() => {});
}

// --- Checking ---

/** The place the review is for: `{id}`, or `{draft}` for a new one. */
function placeChoice() {
  if (placeID.value) return { id: placeID.value };
  if (!newPlace.hidden) {
    return { draft: { name: newName.value.trim(), address: newAddress.value.trim(), position: position() } };
  }
  return null;
}

/** Every field checked in order; each problem shown beside its field. Returns the first bad control. */
function check() {
  let first = null;
  const note = (control) => { first ??= control; };
  for (const field of Object.keys(errorFields)) clearError(field);
  formError.textContent = '';

  const place = placeChoice();
  if (!place) {
    note(showError('place', t('burger_map.js.write.place_required'), search));
  } else if (place.draft) {
    const { name, address, position: at } = place.draft;
    if (characters(name) < 1 || characters(name) > LIMITS.placeName) {
      note(showError('place', t('burger_map.js.write.name_required', { max: LIMITS.placeName }), newName));
    } else if (characters(address) < 1 || characters(address) > LIMITS.address) {
      note(showError('place', t('burger_map.js.write.address_required', { max: LIMITS.address }), newAddress));
    } else if (!at) {
      const key = hasLeaflet ? 'position_required' : 'position_required_no_map';
      note(showError('place', t(`burger_map.js.write.${key}`), hasLeaflet ? useLocation : latInput));
    } else if (!positionInRange(at)) {
      note(showError('place', t('burger_map.js.write.position_invalid'), hasLeaflet ? useLocation : latInput));
    }
  }
  if (!ratings.some((radio) => radio.checked)) note(showError('rating', t('burger_map.js.write.rating_required')));
  const titleLength = characters(title.value);
  if (titleLength < 1) note(showError('title', t('burger_map.js.write.title_required')));
  else if (titleLength > LIMITS.title) note(showError('title', t('burger_map.js.write.title_too_long', { max: LIMITS.title })));
  if (characters(text.value) > LIMITS.text) {
    note(showError('text', t('burger_map.js.write.text_too_long', { max: numbers.format(LIMITS.text) })));
  }
  if (photos.length < 1) note(showError('photos', t('burger_map.js.write.photos_required')));
  return first;
}

/** The field a server error code is about (`invalid_review_title` → title), or null. */
function fieldOfCode(code = '') {
  if (code.includes('title')) return 'title';
  if (code.includes('rating')) return 'rating';
  if (code.includes('text')) return 'text';
  if (code.includes('photo') || code.includes('image')) return 'photos';
  if (/place|name|address|coordinate/.test(code)) return 'place';
  return null;
}

/** A refusal from the server, beside its field when it names one, else above the button. */
function showServerError(error, { photoNumber } = {}) {
  const message = error instanceof ApiError ? error.message : String(error);
  const field = error instanceof ApiError ? fieldOfCode(error.code) : null;
  if (!field) {
    formError.textContent = message;
    return null;
  }
  let control;
  if (field === 'place' && placeID.value) {
    control = $('change-place'); // the chosen place is gone (unknown_place): offer to choose again
  } else if (field === 'place' && !newPlace.hidden) {
    control = /address/.test(error.code) ? newAddress : /coordinate/.test(error.code) ? (hasLeaflet ? useLocation : latInput) : newName;
  }
  const shown = photoNumber ? t('burger_map.js.write.photo_failed', { number: photoNumber, message }) : message;
  return showError(field, shown, control);
}

// --- Posting ---

let posting = false;
/** The place registered by an earlier try, with what it was registered from. */
let registered = null;

async function placeIdForPost(place) {
  if (place.id) return place.id;
  const { name, address, position: { lat, lon } } = place.draft;
  const key = JSON.stringify([name, address, lat, lon]);
  if (registered?.key === key) return registered.id;
  say(t('burger_map.js.write.saving_place'));
  // 201 for a new place, 200 when one of that name is already within 20 m: both give its id.
  const answer = await api('POST', `${API}/places`, { name, address, lat, lon });
  registered = { key, id: answer.id };
  return answer.id;
}

async function uploadPhotos() {
  const waiting = photos.filter((photo) => !photo.uploadedId);
  for (const [index, photo] of photos.entries()) {
    if (photo.uploadedId) continue;
    say(t('burger_map.js.write.uploading', { number: waiting.indexOf(photo) + 1, count: waiting.length }));
    const body = new FormData();
    body.append('file', photo.blob, `photo-${index + 1}.jpg`);
    try {
      photo.uploadedId = (await api('POST', `${API}/photos`, body)).id;
    } catch (error) {
      error.photoNumber = index + 1;
      throw error;
    }
  }
  return photos.map((photo) => photo.uploadedId);
}

/** Busy: the button is disabled (and says "posting" once the checks passed), the form aria-busy. */
function setPosting(busy, label = postButton.dataset.label) {
  posting = busy;
  postButton.disabled = busy;
  form.setAttribute('aria-busy', String(busy));
  postButton.textContent = label;
}

async function onSubmit(event) {
  event.preventDefault();
  // Set before the first await: a second tap while this one runs finds it and does nothing.
  if (posting) return;
  setPosting(true);
  try {
    await preparing;
    const bad = check();
    if (bad) {
      bad.focus();
      return;
    }
    setPosting(true, t('burger_map.js.write.posting'));
    const placeId = await placeIdForPost(placeChoice());
    const photoIds = await uploadPhotos();
    say(t('burger_map.js.write.posting'));
    const review = await api('POST', `${API}/reviews`, {
      placeId,
      title: title.value.trim(),
      rating: Number(ratings.find((radio) => radio.checked).value),
      text: text.value.trim(),
      photoIds,
    });
    posting = 'done'; // the button stays disabled while the next page loads
    location.assign(`/map/reviews/${encodeURIComponent(review.id)}?posted=1`);
  } catch (error) {
    // A photo the server no longer takes (gone after a day unused, say): upload them all afresh.
    if (error instanceof ApiError && error.code === 'invalid_photo') {
      for (const photo of photos) photo.uploadedId = null;
    }
    // The registered place vanished meanwhile: register it again next time.
    if (error instanceof ApiError && error.code === 'unknown_place') registered = null;
    const control = showServerError(error, { photoNumber: error.photoNumber });
    (control || formError).focus?.();
  } finally {
    if (posting !== 'done') setPosting(false);
  }
}

// --- Start ---

function start() {
  if (!form) return;
  postButton.dataset.label = postButton.textContent;
  formError.tabIndex = -1; // focusable from the script when an error has no field

  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    clearError('place');
    searchTimer = setTimeout(runSearch, SEARCH_DELAY);
  });
  // Enter in the search box searches now instead of posting the form.
  search.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    clearTimeout(searchTimer);
    runSearch();
  });
  $('change-place')?.addEventListener('click', changePlace);
  newPlaceToggle?.addEventListener('click', toggleNewPlace);
  for (const input of [newName, newAddress]) input.addEventListener('input', () => clearError('place'));
  newAddress.addEventListener('change', locateAddress);
  useLocation.addEventListener('click', locate);
  describeBy(latInput, 'error-place');
  describeBy(lonInput, 'error-place');
  describeBy(useLocation, 'error-place');
  if (!hasLeaflet) withoutMap();

  for (const radio of ratings) {
    radio.addEventListener('keydown', onRatingKey);
    radio.addEventListener('change', () => clearError('rating'));
  }
  title.addEventListener('input', () => clearError('title'));
  text.addEventListener('input', () => {
    updateTextCounter();
    clearError('text');
  });
  updateTextCounter();

  photoInput.addEventListener('change', onPhotosChosen);
  renderPhotos();

  form.addEventListener('submit', onSubmit);
}

start();
