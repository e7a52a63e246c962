// Shared by the menu-game pages: the configuration the server put in the page, JSON requests
// with the network-trouble view, and small helpers. Plain ES module, no build step.

/** What the server handed this page: device token, disliked foods, strings, keyword labels… */
export const config = JSON.parse(document.getElementById('menu-game-config')?.textContent || '{}');

/** Text in the page's language; `{name}` placeholders are filled from `args`. */
export function t(key, args = {}) {
  let text = config.strings?.[key] ?? key;
  for (const [name, value] of Object.entries(args)) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

/** The server refused the request (4xx): handled where it happened, never as network trouble. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || String(status));
    this.status = status;
    this.code = code;
  }
}

/**
 * A JSON request to the game API with this browser's device token. When the network or the
 * server fails (no answer, or a 5xx), the network-trouble view appears and the promise waits:
 * "retry" sends the same request again, and the promise resolves once it gets through. So a
 * caller never loses its state (the answered cards stay answered) and nothing reloads.
 */
export async function api(method, path, body) {
  for (;;) {
    let response;
    try {
      const headers = { Accept: 'application/json', 'X-Device-Token': config.device };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      response = await fetch(path, {
        method, headers, credentials: 'same-origin',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      await networkTrouble();
      continue;
    }
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

let pendingRetry = null;

/** Shows the network-trouble view until the person taps "retry". */
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

/** Our own images as a path, so they load from whatever address the browser used. */
export function imagePath(url) {
  const base = config.publicURL || '';
  return base && url?.startsWith(base + '/') ? url.slice(base.length) : url;
}

/** The type-size class for a menu name: long names wrap at a smaller size instead of being cut. */
export function nameSizeClass(name) {
  const length = [...(name || '')].length;
  return length < 8 ? 'name-short' : length < 14 ? 'name-medium' : 'name-long';
}

export function setCookie(name, value, maxAgeSeconds) {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAgeSeconds}; Path=/; SameSite=Lax${secure}`;
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API refused (plain http, old browser): the selection-and-copy way.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

/**
 * The Web Share sheet where the browser has one; otherwise the text and link are copied.
 * Resolves to 'shared', 'copied' or 'cancelled'.
 */
export async function share({ title, text, url }) {
  if (navigator.share) {
    try {
      await navigator.share({ title, text, url });
      return 'shared';
    } catch (error) {
      if (error?.name === 'AbortError') return 'cancelled';
    }
  }
  return (await copyText(`${text} ${url}`)) ? 'copied' : 'cancelled';
}

/** Shows a short status line (copied, shared…) and clears it after a while. */
export function flash(element, message) {
  if (!element) return;
  element.textContent = message;
  clearTimeout(element.flashTimer);
  element.flashTimer = setTimeout(() => { element.textContent = ''; }, 4000);
}
