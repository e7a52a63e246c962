// A group's room, live: who is in and who has answered. The server draws the list first
// (MenuGamePages+Room.swift); `showRoom` draws it again from the socket's `members`, with the
// same classes, and says aloud who just joined or answered. A guest may name themself.
import { api, ApiError } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element } from '../shared/dom.js';
import { follow } from '../shared/live.js';

const list = document.getElementById('room-list');
const size = document.getElementById('room-size');
const empty = document.getElementById('room-empty');
const news = document.getElementById('room-news');

let you = config.you || null;
/** What the list showed last: member id → answered, to tell who is new. */
let shown = new Map(Array.from(list?.querySelectorAll('[data-member]') ?? [], (item) => [item.dataset.member, item.classList.contains('answered')]));

function displayName(member) {
  return member.name ?? t('menu_game.room.guest', { number: member.guestNumber ?? 0 });
}

function memberItem(member) {
  const name = displayName(member);
  const item = element('li', `room-member${member.answered ? ' answered' : ''}`);
  item.dataset.member = member.id;
  if (member.profileImageURL) {
    const image = element('img', 'avatar small');
    image.src = member.profileImageURL;
    image.alt = '';
    item.append(image);
  } else {
    // A guest with no name wears their number; anyone else the first letter of their name.
    const initial = element('span', 'avatar small placeholder', member.name === null ? String(member.guestNumber ?? '') : Array.from(name)[0] ?? '');
    initial.setAttribute('aria-hidden', 'true');
    item.append(initial);
  }
  item.append(element('span', 'member-name', name));
  if (member.isGuest && member.name !== null) item.append(element('span', 'tag', t('menu_game.room.guest_tag')));
  if (member.isHost) item.append(element('span', 'tag', t('menu_game.room.host')));
  if (member.id === you) item.append(element('span', 'tag you', t('menu_game.room.you')));
  item.append(element('span', 'member-state', member.answered ? `✅ ${t('menu_game.room.answered')}` : `⏳ ${t('menu_game.room.choosing')}`));
  return item;
}

/** Draws the room from a state or change message (`members`, and `you` when it says). */
export function showRoom(state) {
  if (!list || !Array.isArray(state.members)) return;
  if (state.you !== undefined) you = state.you;
  const lines = [];
  for (const member of state.members) {
    if (member.id === you) continue;
    if (!shown.has(member.id)) lines.push(t('menu_game.room.joined', { name: displayName(member) }));
    else if (member.answered && !shown.get(member.id)) lines.push(t('menu_game.room.answered_now', { name: displayName(member) }));
  }
  list.replaceChildren(...state.members.map(memberItem));
  shown = new Map(state.members.map((member) => [member.id, member.answered]));
  if (size) size.textContent = String(state.members.length);
  if (empty) empty.hidden = state.members.length > 0;
  if (news && lines.length) news.textContent = lines.join('. ');
}

const nameForm = document.getElementById('guest-name-form');
const nameInput = document.getElementById('guest-name');
const nameStatus = document.getElementById('guest-name-status');

nameForm?.addEventListener('submit', async (event) => {
  event.preventDefault();
  nameInput.removeAttribute('aria-invalid');
  try {
    const state = await api('PUT', `/api/v1/menu-game/groups/${config.pin}/member`, { guestName: nameInput.value });
    showRoom(state);
    nameStatus.classList.remove('field-error');
    nameStatus.textContent = t('menu_game.room.name_saved');
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    nameInput.setAttribute('aria-invalid', 'true');
    nameStatus.classList.add('field-error');
    nameStatus.textContent = error.message;
  }
});

/**
 * Follows the group's socket (`onState` hears every message), polling its state every
 * `interval` ms while the socket is down; a failed poll stays quiet and the next one tries again.
 * Returns live.js's handle.
 */
export function followGroup({ onState, onStatus = () => {}, interval = 3000 }) {
  async function poll() {
    try {
      const response = await fetch(`/api/v1/menu-game/groups/${config.pin}`, { headers: { Accept: 'application/json', 'X-Device-Token': config.device } });
      if (response.ok) onState(await response.json());
    } catch {
      // Offline for a moment.
    }
  }
  function onMessage(message) {
    onState(message);
    // A room too big for one message says only that it changed: read it.
    if (message.membersChanged && !Array.isArray(message.members)) poll();
  }
  return follow(`/api/v1/menu-game/groups/${config.pin}/live?token=${encodeURIComponent(config.device)}`, {
    onMessage, poll, onStatus, interval, reconnectDelay: 5000,
  });
}
