// The offline page (/offline.html), which the service worker shows in place of a page it could
// not get. It speaks the reader's language (the language switch's cookie, else the language of
// the last page seen here, else the browser's), tells "you are offline" (the browser says so)
// from "the server is not answering" (online, but no answer or the proxy's 502–504), and opens
// the page that failed (this address) again: on "다시 시도", when the browser comes back online,
// and as soon as the server answers /healthz again.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; JSON blocks carry values the whole page needs; no inline scripts or handlers (the
// Content-Security-Policy forbids them).
const texts = JSON.parse(document.getElementById('offline-texts')?.textContent || '{}');
const CHECK_EVERY = 5000;

/** The reader's language among those the page has texts for. */
function language() {
  const cookie = document.cookie.split('; ').find((part) => part.startsWith('lang='))?.slice(5);
  let seen = null;
  try { seen = localStorage.getItem('site.language'); } catch { /* storage refused */ }
  const browser = (navigator.languages || [navigator.language]).map((tag) => String(tag).slice(0, 2));
  return [cookie, seen, ...browser].find((tag) => tag && texts[tag]) || 'ko';
}

const lang = language();
const t = (key) => texts[lang]?.[key] ?? texts.ko?.[key] ?? '';

function show() {
  const offline = navigator.onLine === false;
  document.documentElement.lang = lang;
  document.title = t('page_title');
  document.getElementById('offline-emoji').textContent = offline ? '📡' : '🛠️';
  document.getElementById('offline-title').textContent = t(offline ? 'title_offline' : 'title_server');
  document.getElementById('offline-body').textContent = t(offline ? 'body_offline' : 'body_server');
  document.getElementById('offline-retry').textContent = t('retry');
}

/** Opens the page that failed again, once the server answers (the worker would show this page again otherwise). */
async function retryWhenAnswering() {
  if (navigator.onLine === false) return;
  const status = document.getElementById('offline-status');
  status.textContent = t('checking');
  try {
    const answer = await fetch('/healthz', { cache: 'no-store' });
    if (answer.ok) {
      location.reload();
      return;
    }
  } catch { /* still not answering */ }
  status.textContent = '';
}

show();
document.getElementById('offline-retry').addEventListener('click', (event) => {
  event.preventDefault();
  location.reload();
});
window.addEventListener('online', () => location.reload());
window.addEventListener('offline', show);
setInterval(retryWhenAnswering, CHECK_EVERY);
