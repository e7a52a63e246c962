// The service worker (served as /sw.js, its version written in by the server): it makes the site
// an app that opens offline and shows pushes.
//
// - Static files (/css, /js, /images, /vendor, the fonts) are cached as they are fetched, in a cache
//   named by the version: fresh from the network when there is one, from the cache when not.
// - A page is never cached (it is personal: an inbox, a chat, an order); a navigation that fails,
//   or that a proxy answers 502–504 for (its own error page, without our `X-Request-Id`), shows
//   /offline.html, cached with its script when the worker is installed; it retries that page.
// - Nothing under /api/ and no upload is ever put in a cache.
// - A push shows a notification (title, body, the icon), unless a visible window already shows its
//   page; a click opens its page, reusing a window of this site that is open.
const VERSION = '__VERSION__';
const CACHE = `static-${VERSION}`;
const OFFLINE = '/offline.html';
const PRECACHE = [OFFLINE, '/js/shared/offline.js', '/css/app.css', '/images/icon.svg', '/images/app/icon-192.png'];
const STATIC = /^\/(css|js|images|vendor|fonts)\//;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('static-') && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request)
        .then((response) => (proxyCouldNotReachUs(response) ? caches.match(OFFLINE).then((page) => page || response) : response))
        .catch(() => caches.match(OFFLINE)),
    );
    return;
  }
  if (!STATIC.test(url.pathname)) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok && response.type === 'basic') {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(() => caches.match(request).then((cached) => cached || Response.error())),
  );
});

/** A proxy's own 502–504 (the server behind it is down): our answers all carry `X-Request-Id`. */
function proxyCouldNotReachUs(response) {
  return response.status >= 502 && response.status <= 504 && !response.headers.has('X-Request-Id');
}

self.addEventListener('push', (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : '' };
  }
  const title = message.title || '우리뭐먹지';
  const url = message.url || '/notifications';
  event.waitUntil(
    // Someone looking at that very page (the order, the result) sees the change there: no banner.
    self.clients.matchAll({ type: 'window' }).then((windows) => {
      const target = new URL(url, self.location.origin).pathname;
      const watching = windows.some((client) => client.visibilityState === 'visible' && new URL(client.url).pathname === target);
      if (watching) return undefined;
      return self.registration.showNotification(title, {
        body: message.body || '',
        tag: message.tag || undefined,
        renotify: Boolean(message.tag),
        icon: '/images/app/icon-192.png',
        badge: '/images/app/icon-192.png',
        data: { url, kind: message.kind || '' },
      });
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || '/notifications', self.location.origin);
  if (target.origin !== self.location.origin) return;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const same = windows.find((client) => new URL(client.url).pathname === target.pathname);
      if (same) return same.focus();
      const any = windows.find((client) => new URL(client.url).origin === target.origin);
      if (any) return any.navigate(target.href).then((client) => client?.focus());
      return self.clients.openWindow(target.href);
    }),
  );
});
