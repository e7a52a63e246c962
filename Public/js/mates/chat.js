// /mates/chat/{match}: the chat of a match. Bubbles (mine right, theirs left) with times and a
// line for each new day; older lines load when scrolled to the top. Lines arrive live over the
// WebSocket (`/mates/chat/{match}/live`), which reconnects by itself; while it is down the page
// polls, and each reconnect fetches what was missed (`?after=` the newest line shown). A line I
// send shows at once as "sending", becomes sent when the server has stored it (the socket's
// `ack`, or the HTTP answer when the socket is down), or failed with "retry". The menu starts a
// menu game together, reviews, reports, or cancels the match (after a confirmation).
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api, signInAgain } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { follow } from '../shared/live.js';
import { setUpChatMenu } from './chat-menu.js';
import { API } from './common.js';

const match = config.match || {};
const CHAT = `${API}/chat/${match.id}`;
const log = document.getElementById('chat-log');
const older = document.getElementById('chat-older');
const form = document.getElementById('chat-form');
const input = document.getElementById('chat-input');
const sendButton = document.getElementById('chat-send');
const liveState = document.getElementById('live-state');
const endedNotice = document.getElementById('chat-ended');
const language = config.language || 'ko';
const ACK_TIMEOUT = 8000;

/** Lines shown, by id; my pending lines, by client id. */
const shown = new Map();
const pending = new Map();
let newestCursor = null;
let olderCursor = null;
let open = match.open !== false;
let partnerReadAt = null;

// ---- Bubbles ------------------------------------------------------------------------------

const timeFormat = new Intl.DateTimeFormat(language, { hour: 'numeric', minute: '2-digit' });
const dayFormat = new Intl.DateTimeFormat(language, { dateStyle: 'full' });

function dayKey(date) {
  return `${date.getFullYear()}-${date.getMonth()}-${date.getDate()}`;
}

function dayLine(date) {
  const line = element('li', 'chat-day');
  line.dataset.day = dayKey(date);
  line.append(element('span', null, dayFormat.format(date)));
  return line;
}

/** One line of the chat as a list item: a bubble, or a line from the server (a menu game). */
function bubble(message, { mine = message.senderId === config.me, state = 'sent' } = {}) {
  const date = new Date(message.createdAt);
  const item = element('li', `chat-line ${mine ? 'mine' : 'theirs'} ${state}`);
  item.dataset.created = String(date.getTime());
  if (message.id) item.dataset.id = message.id;
  if (message.kind === 'menu_game' && message.pin) {
    item.className = 'chat-line system menu-game-line';
    const card = element('div', 'chat-system');
    card.append(element('p', null, t('mates.js.chat.menu_game', { pin: message.pin })));
    const link = element('a', 'button primary small', t('mates.js.chat.join_game'));
    link.href = `/play/groups/${encodeURIComponent(message.pin)}`;
    card.append(link);
    item.append(card);
    return item;
  }
  if (message.kind !== 'text') {
    item.className = 'chat-line system';
    item.append(element('p', 'chat-system', message.text));
    return item;
  }
  const text = element('p', 'bubble', message.text);
  const meta = element('span', 'chat-meta');
  const time = element('time', null, timeFormat.format(date));
  time.dateTime = date.toISOString();
  meta.append(time);
  if (mine) meta.append(element('span', 'chat-status'));
  item.append(text, meta);
  setState(item, state);
  return item;
}

/** sending → sent (→ read), or failed with a retry button. */
function setState(item, state) {
  item.classList.remove('sending', 'sent', 'failed');
  item.classList.add(state);
  const status = item.querySelector('.chat-status');
  if (!status) return;
  status.replaceChildren();
  if (state === 'sending') status.textContent = t('mates.js.chat.sending');
  if (state === 'failed') {
    status.append(element('span', null, t('mates.js.chat.failed')));
    const retry = element('button', 'link-button retry', t('mates.js.chat.retry'));
    retry.type = 'button';
    retry.addEventListener('click', () => resend(item));
    status.append(retry);
  }
  if (state === 'sent') showRead();
}

/**
 * Puts `item` in time order. Times carry whole seconds, so lines of one second keep the order
 * they came in: a line from a newest-first page (`older`) goes before its equals, any other
 * after them.
 */
function place(item, { older = false } = {}) {
  const created = Number(item.dataset.created);
  const lines = [...log.querySelectorAll('.chat-line')];
  if (older) {
    const next = lines.find((line) => Number(line.dataset.created) >= created);
    if (next) next.before(item);
    else log.append(item);
  } else {
    const previous = lines.reverse().find((line) => Number(line.dataset.created) <= created);
    if (previous) previous.after(item);
    else log.prepend(item);
  }
  drawDays();
}

/** A line with the date above the first line of each day. */
function drawDays() {
  for (const day of log.querySelectorAll('.chat-day')) day.remove();
  let last = null;
  for (const line of log.querySelectorAll('.chat-line')) {
    const date = new Date(Number(line.dataset.created));
    if (dayKey(date) !== last) line.before(dayLine(date));
    last = dayKey(date);
  }
}

function nearBottom() {
  return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;
}

function scrollToEnd() {
  window.scrollTo(0, document.documentElement.scrollHeight);
}

/**
 * Shows a stored line once, wherever it came from (a page, the socket, an HTTP answer);
 * `older`: it comes from a newest-first page.
 */
function add(message, { older = false } = {}) {
  if (!message?.id || shown.has(message.id)) return;
  const stick = !older && nearBottom();
  const item = bubble(message);
  shown.set(message.id, item);
  place(item, { older });
  const time = new Date(message.createdAt).getTime();
  const newest = shown.newest ? new Date(shown.newest).getTime() : -Infinity;
  if (older ? time > newest : time >= newest) {
    newestCursor = message.cursor;
    shown.newest = message.createdAt;
  }
  if (stick || message.senderId === config.me) scrollToEnd();
  if (message.senderId && message.senderId !== config.me) markRead();
}

/** "Read" under my lines the partner has read. */
function showRead() {
  if (!partnerReadAt) return;
  const readUntil = new Date(partnerReadAt).getTime();
  for (const line of log.querySelectorAll('.chat-line.mine.sent')) {
    const status = line.querySelector('.chat-status');
    if (status && Number(line.dataset.created) <= readUntil) status.textContent = t('mates.js.chat.read');
  }
}

// ---- Loading ------------------------------------------------------------------------------

async function loadNewest() {
  const page = await api('GET', `${CHAT}/messages?limit=30`);
  for (const message of page.items || []) add(message, { older: true });
  olderCursor = page.nextCursor;
  partnerReadAt = page.partnerReadAt;
  showRead();
  setOpen(page.open);
  scrollToEnd();
  markRead();
}

let loadingOlder = false;

/** The page before the oldest shown, kept in view: the list grows above what was on screen. */
async function loadOlder() {
  if (!olderCursor || loadingOlder) return;
  loadingOlder = true;
  const before = document.documentElement.scrollHeight;
  try {
    const page = await api('GET', `${CHAT}/messages?limit=30&before=${encodeURIComponent(olderCursor)}`);
    for (const message of page.items || []) add(message, { older: true });
    olderCursor = page.nextCursor;
    window.scrollBy(0, document.documentElement.scrollHeight - before);
  } catch (error) {
    say(error.message);
  } finally {
    loadingOlder = false;
  }
}

/** What arrived while the socket was down: everything after the newest line shown. */
async function catchUp() {
  if (!newestCursor) return;
  try {
    let cursor = newestCursor;
    for (let round = 0; round < 20 && cursor; round += 1) {
      const page = await api('GET', `${CHAT}/messages?limit=100&after=${encodeURIComponent(cursor)}`);
      for (const message of page.items || []) add(message);
      setOpen(page.open);
      partnerReadAt = page.partnerReadAt;
      showRead();
      cursor = page.nextCursor;
    }
  } catch { /* the next poll or reconnect tries again */ }
}

new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) loadOlder();
}).observe(older);

// ---- Live ---------------------------------------------------------------------------------

let markTimer = null;
function sendRead({ leaving = false } = {}) {
  markTimer = null;
  if (!live.send({ type: 'read' })) api('POST', `${CHAT}/read`, {}, { keepalive: leaving }).catch(() => {});
}
function markRead() {
  if (document.hidden) return;
  clearTimeout(markTimer);
  markTimer = setTimeout(sendRead, 300);
}
document.addEventListener('visibilitychange', markRead);
// Lines seen just before leaving (a reload, a link) were read: the pending mark goes out now.
window.addEventListener('pagehide', () => {
  if (markTimer === null) return;
  clearTimeout(markTimer);
  sendRead({ leaving: true });
});

const live = follow(match.live, {
  onMessage(event) {
    switch (event.type) {
      case 'hello':
        partnerReadAt = event.partnerReadAt;
        showRead();
        setOpen(event.open);
        break;
      case 'message': {
        const waiting = event.clientId && pending.get(event.clientId);
        if (waiting) acknowledge(event.clientId, event.message);
        else add(event.message);
        break;
      }
      case 'ack':
        acknowledge(event.clientId, event.message);
        break;
      case 'error':
        // The session ended while the chat was open: offer to sign in and come back here.
        if (event.error?.code === 'session_ended') signInAgain('ended');
        if (event.clientId && pending.has(event.clientId)) fail(event.clientId, event.error?.message);
        else say(event.error?.message);
        break;
      case 'read':
        if (event.userId !== config.me) {
          partnerReadAt = event.readAt;
          showRead();
        }
        break;
      case 'ended':
        setOpen(false, event.by === config.me ? null : event.reason);
        break;
      default:
    }
  },
  poll: catchUp,
  onStatus(status) {
    liveState.textContent = status === 'live' ? '' : t('mates.js.chat.reconnecting');
    liveState.classList.toggle('offline', status !== 'live');
    if (status === 'live') catchUp();
  },
});

// ---- Sending ------------------------------------------------------------------------------

function acknowledge(clientId, message) {
  const entry = pending.get(clientId);
  if (!entry) return;
  clearTimeout(entry.timer);
  pending.delete(clientId);
  if (shown.has(message.id)) {
    entry.item.remove();
    return;
  }
  entry.item.dataset.id = message.id;
  entry.item.dataset.created = String(new Date(message.createdAt).getTime());
  entry.item.querySelector('time').dateTime = message.createdAt;
  shown.set(message.id, entry.item);
  if (!shown.newest || new Date(message.createdAt) >= new Date(shown.newest)) {
    newestCursor = message.cursor;
    shown.newest = message.createdAt;
  }
  setState(entry.item, 'sent');
}

function fail(clientId, reason) {
  const entry = pending.get(clientId);
  if (!entry) return;
  clearTimeout(entry.timer);
  entry.failed = true;
  setState(entry.item, 'failed');
  if (reason) say(reason);
}

/** Sends over the socket when it is open (an `ack` must come in time), else over HTTP. */
async function deliver(clientId) {
  const entry = pending.get(clientId);
  entry.failed = false;
  setState(entry.item, 'sending');
  if (live.send({ type: 'send', text: entry.text, clientId })) {
    entry.timer = setTimeout(() => fail(clientId), ACK_TIMEOUT);
    return;
  }
  try {
    const message = await api('POST', `${CHAT}/messages`, { text: entry.text, clientId });
    acknowledge(clientId, message);
  } catch (error) {
    fail(clientId, error.message);
  }
}

function resend(item) {
  const clientId = item.dataset.clientId;
  if (pending.has(clientId)) deliver(clientId);
}

function newClientId() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || !open) return;
  if ([...text].length > (config.maxCharacters || 1000)) {
    say(t('mates.js.chat.too_long', { max: config.maxCharacters || 1000 }));
    return;
  }
  const clientId = newClientId();
  const item = bubble({ kind: 'text', text, createdAt: new Date().toISOString(), senderId: config.me }, { mine: true, state: 'sending' });
  item.dataset.clientId = clientId;
  place(item);
  pending.set(clientId, { text, item, timer: null });
  input.value = '';
  resize();
  scrollToEnd();
  deliver(clientId);
  input.focus();
});

// Enter sends; Shift+Enter (or composing Korean) makes a new line.
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    form.requestSubmit();
  }
});

function resize() {
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, 140)}px`;
}
input.addEventListener('input', resize);

// ---- Open or ended ------------------------------------------------------------------------

function setOpen(isOpen, reason = null) {
  if (isOpen === undefined || isOpen === null) return;
  open = isOpen;
  input.disabled = !open;
  if (!open) input.placeholder = t('mates.js.chat.placeholder_ended');
  sendButton.disabled = !open;
  endedNotice.hidden = open;
  for (const id of ['menu-game', 'menu-cancel']) document.getElementById(id).disabled = !open;
  if (!open && reason) {
    const text = document.getElementById('chat-ended-text');
    text.textContent = t(`mates.js.chat.ended_${reason}`);
  }
}

setUpChatMenu(match.id, () => open);

loadNewest().catch((error) => say(error.message));
