// The inbox bell in the header of every page a signed-in browser sees: the unread count follows
// the inbox live (over `/notifications/live`, the inbox's socket behind the session cookie), and
// on the inbox page itself new notifications appear at the top as they arrive and are marked read,
// since the person is looking at them. Every arrival is also told to the page as a DOM event,
// `inbox:notification` with the notification as `detail`, for pages that follow something the
// inbox hears of first (the mates pages: a request, a match).
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { timeAgo } from './format.js';
import { follow } from './live.js';

const bell = document.getElementById('inbox-bell');
const badge = document.getElementById('inbox-count');
const list = document.getElementById('notification-list');
// A status region beside the bell: an arrival is said there (the bell's label changes silently).
const announce = document.getElementById('inbox-announce');
const onInboxPage = Boolean(list);
const serviceNames = JSON.parse(list?.dataset.services || '{}');

/** Shows `count` on the bell (hidden at zero) and says it to screen readers. */
function showCount(count) {
  if (!bell || !badge) return;
  badge.textContent = count > 99 ? '99+' : String(count);
  badge.hidden = count === 0;
  const label = bell.dataset.label;
  if (label) bell.setAttribute('aria-label', label.replace('{count}', String(count)));
}

/** The same markup the server renders for one notification (NotificationsPages.row). */
function notificationRow(item) {
  const row = document.createElement('li');
  row.className = 'notification unread arrived';
  row.dataset.id = item.id;
  const link = document.createElement('a');
  // Only same-site paths, as the server's rows.
  link.href = typeof item.link === 'string' && item.link.startsWith('/') && !item.link.startsWith('//') ? item.link : '/notifications';
  const service = document.createElement('span');
  service.className = 'notification-service';
  service.textContent = serviceNames[item.service] ?? '';
  link.append(service);
  const message = document.createElement('span');
  message.className = 'notification-message';
  message.textContent = item.message;
  link.append(message);
  if (item.excerpt) {
    const excerpt = document.createElement('span');
    excerpt.className = 'notification-excerpt';
    excerpt.textContent = item.excerpt;
    link.append(excerpt);
  }
  link.append(timeAgo(item.createdAt));
  row.append(link);
  return row;
}

/** Marks everything read from the inbox page (the page's own form route, with its CSRF token). */
async function markAllRead() {
  const csrf = JSON.parse(document.getElementById('page-config')?.textContent || '{}').csrf
    || document.querySelector('input[name="_csrf"]')?.value;
  try {
    await fetch('/notifications/read', {
      method: 'POST', credentials: 'same-origin', redirect: 'manual',
      headers: { 'X-CSRF-Token': csrf || '' },
    });
  } catch { /* the count stays until the next visit */ }
}

if (bell) {
  follow('/notifications/live', {
    onMessage(message) {
      const arrived = message.notification;
      if (arrived) document.dispatchEvent(new CustomEvent('inbox:notification', { detail: arrived }));
      if (arrived && onInboxPage && !list.querySelector(`[data-id="${CSS.escape(arrived.id)}"]`)) {
        list.prepend(notificationRow(arrived));
        const empty = document.getElementById('inbox-empty');
        if (empty) empty.hidden = true;
        if (announce) announce.textContent = arrived.message;
        markAllRead();
        return;
      }
      if (typeof message.unreadCount === 'number') showCount(message.unreadCount);
      if (arrived && announce && bell) announce.textContent = bell.getAttribute('aria-label') || '';
    },
    // The badge is already right from the page; without a socket it simply waits for the next page.
    poll() {},
  });
}
