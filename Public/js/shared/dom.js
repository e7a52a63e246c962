// Small browser helpers any page can use: cookies, copy to the clipboard, the share sheet, and a
// short-lived status line.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).

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

/** Shows a short status line (copied, shared…) and clears it after a while. */
export function flash(element, message) {
  if (!element) return;
  element.textContent = message;
  clearTimeout(element.flashTimer);
  element.flashTimer = setTimeout(() => { element.textContent = ''; }, 4000);
}
