// Registers the service worker (/sw.js): the site opens offline and can show pushes. Loaded on
// every page; a browser without service workers simply has neither.
//
// A push subscription belongs to the sign-in it was handed over under (the server stops pushing to
// it when that session ends). So once per sign-in, a signed-in page whose browser already shows
// our notifications hands its subscription over again: signed out and in again, pushes go on.
import { config } from './config.js';

// The offline page speaks the language of the last page seen here (the worker cannot know it).
try { localStorage.setItem('site.language', document.documentElement.lang); } catch { /* storage refused */ }

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => { /* a private window may refuse; the site works without it */ });
  handOverOncePerSignIn().catch(() => { /* best effort: the settings page does it too */ });
}

/** The session an access token names (`sid`): its payload is read, not checked (the server checks). */
function sessionOf(token) {
  const payload = token.split('.')[1] || '';
  return JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))).sid;
}

async function handOverOncePerSignIn() {
  if (!config.accessToken || !('PushManager' in window) || !('Notification' in window) || Notification.permission !== 'granted') return;
  const mark = `push.handedOver.${sessionOf(config.accessToken)}`;
  if (localStorage.getItem(mark)) return;
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription) return;
  const response = await fetch('/api/v1/push/subscriptions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${config.accessToken}` },
    body: JSON.stringify(subscription.toJSON()),
  });
  if (response.ok) localStorage.setItem(mark, '1');
}
