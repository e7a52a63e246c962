// JSON requests to the app's API with this browser's device token, and the two views every page
// has (Layout+TroubleViews.swift): network trouble (`#network-error`, "retry" sends the request
// again) and a session that ended or a visitor who must sign in (`#session-ended`, whose link
// signs in and comes back to this page).
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { config } from './config.js';

/** The server refused the request (4xx): handled where it happened, never as network trouble. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || String(status));
    this.status = status;
    this.code = code;
  }
}

/**
 * A signed-in page carries a short-lived API access token for its browser session in its config
 * (`accessToken`); when it expires the page asks `POST /session/token` (same-site, with the
 * page's CSRF token) for a fresh one, once for all requests waiting on it.
 */
let tokenRefresh = null;
async function refreshAccessToken() {
  tokenRefresh ??= (async () => {
    try {
      const response = await fetch('/session/token', {
        method: 'POST', credentials: 'same-origin',
        headers: { Accept: 'application/json', 'X-CSRF-Token': config.csrf || '' },
      });
      if (!response.ok) return false;
      config.accessToken = (await response.json()).accessToken;
      return true;
    } catch {
      return false;
    } finally {
      setTimeout(() => { tokenRefresh = null; }, 0);
    }
  })();
  return tokenRefresh;
}

/**
 * A JSON request to the API with this browser's device token (and its session's access token
 * on signed-in pages). `body` may be a `FormData` (a file upload), sent as multipart. When the network or the server
 * fails (no answer, or a 5xx), the network-trouble view appears and the promise waits: "retry"
 * sends the same request again, and the promise resolves once it gets through. So a caller
 * never loses its state (the answered cards stay answered) and nothing reloads. A 4xx rejects
 * with an `ApiError` carrying the server's error code and message. `keepalive: true` lets the
 * request outlive the page (one sent while it is being left).
 */
export async function api(method, path, body, { keepalive = false } = {}) {
  let refreshed = false;
  for (;;) {
    let response;
    try {
      const headers = { Accept: 'application/json' };
      if (config.device) headers['X-Device-Token'] = config.device;
      if (config.accessToken) headers.Authorization = `Bearer ${config.accessToken}`;
      const multipart = body instanceof FormData;
      if (body !== undefined && !multipart) headers['Content-Type'] = 'application/json';
      response = await fetch(path, {
        method, headers, credentials: 'same-origin', keepalive,
        body: body === undefined ? undefined : (multipart ? body : JSON.stringify(body)),
      });
    } catch {
      await networkTrouble();
      continue;
    }
    if (response.status === 401 && config.accessToken && !refreshed) {
      refreshed = true;
      if (await refreshAccessToken()) continue;
    }
    if (response.status === 401) signInAgain(config.accessToken ? 'ended' : 'required');
    if (response.status >= 500) {
      await networkTrouble();
      continue;
    }
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = null; }
    if (!response.ok) throw new ApiError(response.status, data?.error?.code, data?.error?.message);
    return data;
  }
}

/**
 * Shows the sign-in view: `reason` 'ended' (this page was signed in and the session is gone) or
 * 'required' (a visitor tried something that needs an account). Its link signs in and returns to
 * this page, query and all. The request that found it out still fails, so the caller puts back
 * what it showed early (a like, a message).
 */
export function signInAgain(reason = 'ended') {
  const view = document.getElementById('session-ended');
  if (!view || !view.hidden) return;
  const body = document.getElementById('session-ended-body');
  const link = document.getElementById('session-sign-in');
  const dismiss = document.getElementById('session-dismiss');
  body.textContent = reason === 'required' ? body.dataset.required : body.dataset.ended;
  link.href = `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
  const returnFocus = document.activeElement;
  view.hidden = false;
  link.focus();
  dismiss.addEventListener('click', () => {
    view.hidden = true;
    if (returnFocus instanceof HTMLElement) returnFocus.focus();
  }, { once: true });
}

let pendingRetry = null;

/**
 * Shows the network-trouble view until the person taps "retry" (one view for every request
 * that failed meanwhile). A page without the view waits three seconds before the retry.
 */
function networkTrouble() {
  if (pendingRetry) return pendingRetry;
  const view = document.getElementById('network-error');
  const retry = document.getElementById('network-retry');
  if (!view || !retry) return new Promise((resolve) => setTimeout(resolve, 3000));
  const returnFocus = document.activeElement;
  view.hidden = false;
  retry.focus();
  pendingRetry = new Promise((resolve) => {
    retry.addEventListener('click', () => {
      view.hidden = true;
      pendingRetry = null;
      if (returnFocus instanceof HTMLElement) returnFocus.focus();
      resolve();
    }, { once: true });
  });
  return pendingRetry;
}
