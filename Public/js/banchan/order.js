// An order's page follows the order: when the shop moves it (preparing, shipped with its
// tracking link, delivered, a cancel request answered) on any instance, the order's part of the
// page (`#order-live`: status, steps, the buttons its state allows, the delivery card) is read
// again from the server and swapped in, and a status line tells screen readers what changed; the
// same when the shop refunds part of it (`refundedUnits` grows).
// The socket (`/shop/orders/{id}/live`) says `{"status": …, "refundedUnits": …}` at once and on every move; while it
// is down, the page is read again every 20 seconds instead. A delivered or cancelled order has
// nothing more to follow.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { follow } from '../shared/live.js';

const FINAL = new Set(['delivered', 'cancelled']);
const region = document.getElementById('order-live');
const note = document.getElementById('order-live-note');

if (region?.dataset.live) {
  let shown = region.dataset.status;
  let shownRefunds = region.dataset.refundedUnits ?? '0';
  let reading = false;
  let readAgain = false;
  let following = null;

  /** Reads the page again and swaps in its order part; a move heard during a read reads once more. */
  async function refresh() {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    try {
      const response = await fetch(location.pathname, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('order-live');
      const current = document.getElementById('order-live');
      if (!fresh || !current) return;
      if (fresh.dataset.status === shown && (fresh.dataset.refundedUnits ?? '0') === shownRefunds) return;
      current.replaceWith(document.adoptNode(fresh));
      shown = fresh.dataset.status;
      shownRefunds = fresh.dataset.refundedUnits ?? '0';
      const status = fresh.querySelector('#order-status')?.textContent ?? shown;
      if (note) note.textContent = (fresh.dataset.moved || '{status}').replace('{status}', status);
      if (FINAL.has(shown)) following?.stop();
    } catch { /* offline: the next message or poll tries again */ } finally {
      reading = false;
      if (readAgain) {
        readAgain = false;
        refresh();
      }
    }
  }

  following = follow(region.dataset.live, {
    onMessage(message) {
      const refunds = typeof message.refundedUnits === 'number' ? String(message.refundedUnits) : shownRefunds;
      if ((typeof message.status === 'string' && message.status !== shown) || refunds !== shownRefunds) refresh();
    },
    poll: refresh,
    interval: 20000,
  });
}
