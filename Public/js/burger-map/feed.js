// The burger map's feeds (/map/feed): everyone's reviews or those of the people I follow, newest
// first, loaded page by page as the list's end scrolls into view. The refresh button and a pull
// down at the top of the page load the first page again; Back from a review returns to where the
// reader was.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { pager, reviewCard } from './cards.js';

const list = document.getElementById('feed-list');
const refreshButton = document.getElementById('feed-refresh');

/**
 * Back from a review returns to the same place in the feed: the reviews shown and the scroll are
 * kept for this tab (sessionStorage, half an hour) when the page is left, and drawn again when the
 * browser comes back to it (the page itself is never cached: it is `no-store`).
 */
const KEPT = `wwe.feed:${location.pathname}${location.search}`;
function keptFeed() {
  if (performance.getEntriesByType?.('navigation')?.[0]?.type !== 'back_forward') return null;
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEPT) || 'null');
    return kept && Date.now() - kept.at < 30 * 60 * 1000 ? kept : null;
  } catch {
    return null;
  }
}

// Signed out on the following tab the server shows a login prompt instead of the list.
if (list) {
  const kept = keptFeed();
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  const feed = pager(list, document.getElementById('feed-more'), {
    render: (review) => reviewCard(review, { heading: 'h2' }),
    emptyElement: document.getElementById('feed-empty'),
    initial: kept,
  });
  if (kept) requestAnimationFrame(() => window.scrollTo(0, kept.scrollY || 0));
  window.addEventListener('pagehide', () => {
    try {
      sessionStorage.setItem(KEPT, JSON.stringify({ ...feed.snapshot(), scrollY: window.scrollY, at: Date.now() }));
    } catch {
      // A full or disabled storage only loses the place, as before.
    }
  });

  let refreshing = false;
  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    refreshButton?.setAttribute('aria-busy', 'true');
    say(t('burger_map.js.feed.refreshing'));
    try {
      await feed.reload();
      say(t('burger_map.js.feed.refreshed'));
    } finally {
      refreshing = false;
      refreshButton?.removeAttribute('aria-busy');
    }
  }

  refreshButton?.addEventListener('click', () => {
    window.scrollTo({ top: 0, behavior: 'smooth' });
    refresh();
  });

  pullToRefresh(refresh);
} else {
  refreshButton?.addEventListener('click', () => location.reload());
}

/**
 * Pull to refresh: a touch that starts with the page scrolled to the top and drags down more
 * than `THRESHOLD` px calls `onRefresh` when released. A hint above the list follows the finger.
 */
function pullToRefresh(onRefresh) {
  const THRESHOLD = 70;
  const hint = element('div', 'pull-hint');
  hint.setAttribute('aria-hidden', 'true');
  const arrow = element('span', 'pull-arrow', '↓');
  const label = element('span', 'pull-label', t('burger_map.js.feed.pull'));
  hint.append(arrow, label);
  list.before(hint);

  let startY = null;
  let distance = 0;

  function show(pull) {
    // The hint grows with the pull, damped so it lags behind the finger like a native list.
    const height = Math.min(pull * 0.5, THRESHOLD);
    hint.style.height = `${height}px`;
    hint.classList.toggle('is-ready', pull >= THRESHOLD);
    label.textContent = t(pull >= THRESHOLD ? 'burger_map.js.feed.release' : 'burger_map.js.feed.pull');
  }

  function reset() {
    startY = null;
    distance = 0;
    hint.classList.remove('is-pulling', 'is-ready');
    hint.style.height = '';
  }

  document.addEventListener('touchstart', (event) => {
    if (window.scrollY > 0 || event.touches.length !== 1 || hint.classList.contains('is-refreshing')) return;
    startY = event.touches[0].clientY;
    distance = 0;
  }, { passive: true });

  document.addEventListener('touchmove', (event) => {
    if (startY === null) return;
    distance = event.touches[0].clientY - startY;
    if (distance <= 0 || window.scrollY > 0) {
      reset();
      return;
    }
    hint.classList.add('is-pulling');
    show(distance);
  }, { passive: true });

  document.addEventListener('touchend', async () => {
    if (startY === null) return;
    const pulled = distance >= THRESHOLD;
    reset();
    if (!pulled) return;
    // The hint stays open, saying so, until the first page is in.
    hint.classList.add('is-refreshing');
    arrow.textContent = '↻';
    label.textContent = t('burger_map.js.feed.refreshing');
    try {
      await onRefresh();
    } finally {
      hint.classList.remove('is-refreshing');
      arrow.textContent = '↓';
    }
  });
  document.addEventListener('touchcancel', reset);
}
