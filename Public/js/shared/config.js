// The page's configuration: what the server rendered for the whole page (device token, strings
// in the page's language, ids), read once from its single JSON block, and the `t()` text helper.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block carries values the whole page needs; no inline
// scripts or handlers (the Content-Security-Policy forbids them). Plain ES modules, no build step.

/** The JSON block `#page-config` (`PageConfig.block` on the server). */
function readConfig() {
  const block = document.getElementById('page-config');
  return JSON.parse(block?.textContent || '{}');
}

/** What the server handed this page: device token, strings, and whatever else the page needs. */
export const config = readConfig();

/** Text in the page's language; `{name}` placeholders are filled from `args`. */
export function t(key, args = {}) {
  let text = config.strings?.[key] ?? key;
  for (const [name, value] of Object.entries(args)) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}
