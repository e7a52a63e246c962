// Registers the service worker (/sw.js): the site opens offline and can show pushes. Loaded on
// every page; a browser without service workers simply has neither.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => { /* a private window may refuse; the site works without it */ });
}
