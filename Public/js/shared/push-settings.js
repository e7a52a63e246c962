// The notification settings page's device card: whether this browser shows pushes. Turning them
// on asks the browser's permission, subscribes its push manager with the server's VAPID key and
// hands the subscription to the server; turning them off forgets it on both sides. On every visit
// a live subscription is handed over again (the server may have forgotten it: signed out, a 410),
// and one made for another key is replaced. The kinds' switches save themselves as they are
// flipped (`PUT /api/v1/push/preferences`), so they do what they look like; the form's 저장 button
// is for browsers without scripts.
import { api, ApiError } from './api.js';
import { t } from './config.js';

const status = document.getElementById('push-device-status');
const enable = document.getElementById('push-enable');
const disable = document.getElementById('push-disable');
const help = document.getElementById('push-device-help');

function show(state, helpText = '') {
  status.textContent = t(`push.device.${state}`);
  enable.hidden = !['off', 'failed'].includes(state);
  disable.hidden = state !== 'on';
  help.hidden = !helpText;
  help.textContent = helpText;
}

/** An iPhone or iPad shows pushes only from a web app added to its home screen (iOS 16.4+). */
function onIOSOutsideHomeScreen() {
  const ios = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
  const standalone = window.matchMedia('(display-mode: standalone)').matches || navigator.standalone === true;
  return ios && !standalone;
}

function base64URLToBytes(text) {
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function sameKey(subscription, key) {
  const current = subscription.options?.applicationServerKey;
  if (!current) return true;  // the browser does not say: assume it is ours
  const a = new Uint8Array(current);
  return a.length === key.length && a.every((byte, i) => byte === key[i]);
}

async function serverKey() {
  const { publicKey } = await api('GET', '/api/v1/push/vapid-public-key');
  return base64URLToBytes(publicKey);
}

async function handOver(subscription) {
  await api('POST', '/api/v1/push/subscriptions', subscription.toJSON());
}

/** A browser whose push service cannot be reached may never answer `subscribe` (Chromium without
 * Google's push service waits 20 s and more): give up after 8 s and say so. */
function withinSeconds(seconds, promise) {
  return Promise.race([promise, new Promise((_, reject) => { setTimeout(() => reject(new Error('timeout')), seconds * 1000); })]);
}

async function subscribe(registration) {
  const key = await serverKey();
  const subscription = await withinSeconds(8, registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
  await handOver(subscription);
}

async function turnOn(registration) {
  enable.disabled = true;
  status.textContent = t('push.device.turning_on');
  try {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      show(permission === 'denied' ? 'blocked' : 'off', permission === 'denied' ? t('push.device.blocked_help') : '');
      return;
    }
    await subscribe(registration);
    show('on');
  } catch (error) {
    show('failed', error instanceof ApiError ? error.message : t('push.device.failed_help'));
  } finally {
    enable.disabled = false;
  }
}

async function turnOff(registration) {
  disable.disabled = true;
  try {
    const subscription = await registration.pushManager.getSubscription();
    if (subscription) {
      await api('DELETE', '/api/v1/push/subscriptions', { endpoint: subscription.endpoint });
      await subscription.unsubscribe();
    }
    show('off');
  } finally {
    disable.disabled = false;
  }
}

async function start() {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    show('unsupported', onIOSOutsideHomeScreen() ? t('push.device.ios_help') : t('push.device.unsupported_help'));
    return;
  }
  const registration = await navigator.serviceWorker.ready;
  enable.addEventListener('click', () => turnOn(registration));
  disable.addEventListener('click', () => turnOff(registration));
  if (Notification.permission === 'denied') {
    show('blocked', t('push.device.blocked_help'));
    return;
  }
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription || Notification.permission !== 'granted') {
    show('off');
    return;
  }
  const key = await serverKey();
  if (sameKey(subscription, key)) {
    await handOver(subscription);
  } else {
    await subscription.unsubscribe();
    await subscribe(registration);
  }
  show('on');
}

start().catch(() => show('failed', t('push.device.failed_help')));

/** Each switch saves itself: every switch's state goes in one `PUT`; a refusal puts it back and says why. */
function saveEachSwitch() {
  const form = document.getElementById('push-preferences');
  const saved = document.getElementById('push-preferences-status');
  if (!form || !saved) return;
  document.getElementById('push-save').hidden = true;
  form.addEventListener('change', async (event) => {
    const flipped = event.target;
    if (!(flipped instanceof HTMLInputElement) || flipped.type !== 'checkbox') return;
    const preferences = {};
    for (const box of form.querySelectorAll('input[type=checkbox]')) preferences[box.name] = box.checked;
    saved.textContent = '';
    try {
      await api('PUT', '/api/v1/push/preferences', preferences);
      saved.textContent = t('push.settings.saved');
    } catch (error) {
      flipped.checked = !flipped.checked;
      saved.textContent = error instanceof ApiError ? error.message : t('push.device.failed_help');
    }
  });
}

saveEachSwitch();
