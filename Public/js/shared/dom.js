// Small browser helpers any page can use: an element with a class and text, the status line a
// page writes short messages to, cookies, copy to the clipboard and the share sheet.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).

/** An element with an optional class and text (text, never markup: what people wrote stays text). */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/**
 * Writes `text` in a status line and clears it after a while. Options: `line`, the element or its
 * id (by default the floating `#page-status` every page has); `clearAfter` in ms (0 keeps the
 * text until the next message); `shownClass`, a class the line wears while it has something to
 * say: then the timer only takes the class off and leaves the text, so the line can fade out.
 */
export function say(text, { line = 'page-status', clearAfter = 5000, shownClass = null } = {}) {
  const node = typeof line === 'string' ? document.getElementById(line) : line;
  if (!node) return;
  node.textContent = text || '';
  clearTimeout(node.clearTimer);
  if (shownClass) node.classList.toggle(shownClass, Boolean(text));
  if (!text || !clearAfter) return;
  node.clearTimer = setTimeout(() => {
    if (shownClass) node.classList.remove(shownClass);
    else node.textContent = '';
  }, clearAfter);
}

/** A first-party cookie for the whole site (Secure over https). `maxAgeSeconds` 0 deletes it. */
export function setCookie(name, value, maxAgeSeconds) {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAgeSeconds}; Path=/; SameSite=Lax${secure}`;
}

/** Copies `text`; resolves to whether it worked. */
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

/** Shows a short message (copied, shared…) in `line` and clears it after four seconds. */
export function flash(line, message) {
  if (!line) return;
  say(message, { line, clearAfter: 4000 });
}
