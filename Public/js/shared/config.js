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

/**
 * How a word ends when read aloud, for the Korean particle after it: 'vowel', 'rieul' (ㄹ) or
 * 'consonant'; null when nothing readable is left. The server's `KoreanParticle` in JavaScript:
 * the last Hangul syllable's 받침, a digit's or a Latin letter's Korean reading, "500g" as 그램.
 */
function finalSound(word) {
  const chars = Array.from(String(word).toLowerCase());
  while (chars.length && !/[\p{L}\p{N}]/u.test(chars[chars.length - 1])) chars.pop();
  const last = chars[chars.length - 1];
  if (!last) return null;
  const code = last.codePointAt(0);
  if (code >= 0xac00 && code <= 0xd7a3) {
    const final = (code - 0xac00) % 28;
    return final === 0 ? 'vowel' : final === 8 ? 'rieul' : 'consonant';
  }
  const tail = chars.slice(-3).join('');
  if (tail.endsWith('g') && (/[0-9]g$/.test(tail) || tail.endsWith('kg') || tail.endsWith('mg'))) return 'consonant';
  if ('036'.includes(last) || 'mn'.includes(last)) return 'consonant';
  if ('178'.includes(last) || 'lr'.includes(last)) return 'rieul';
  return 'vowel';
}

/** `forms` like "을/를": the first after a final consonant, the second after a vowel (으로/로: 로 after ㄹ too). */
export function particle(forms, word) {
  const [consonantForm, vowelForm] = forms.split('/');
  if (vowelForm === undefined) return forms;
  const ending = finalSound(word);
  if (ending === 'vowel') return vowelForm;
  if (ending === 'rieul' && consonantForm === '으로') return vowelForm;
  return consonantForm;
}

/** Text in the page's language; `{name}` placeholders are filled from `args`, and `{name|을/를}`
 * with the value and the particle it takes. */
export function t(key, args = {}) {
  const text = config.strings?.[key] ?? key;
  return text.replace(/\{([^{}|]+)(?:\|([^{}]+))?\}/g, (whole, name, forms) => {
    if (!Object.hasOwn(args, name)) return whole;
    const value = String(args[name]);
    return forms ? value + particle(forms, value) : value;
  });
}
