// Formatting the services' pages share, in the page's language (config.language, Korean when the
// page names none): a distance ("350 m", "1.2 km") and how long ago something happened ("3시간 전").
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { config } from './config.js';
import { element } from './dom.js';

const language = config.language || document.documentElement.lang || 'ko';

/**
 * 350 m, 1.2 km, 35 km: whole metres under a kilometre; kilometres with one decimal under 10 km
 * and none from there, or `kilometerDigits` decimals at any distance. Options: `language` (the
 * page's by default; a string in place of the options is the language too) and `units`, the
 * page's own words `{ meters(number), kilometers(number) }` put around the formatted number
 * instead of Intl's unit names.
 */
export function distanceText(meters, options = {}) {
  const { language: locale = language, kilometerDigits = null, units = null } =
    typeof options === 'string' ? { language: options } : options;
  if (meters < 1000) {
    const format = { maximumFractionDigits: 0 };
    if (units) return units.meters(new Intl.NumberFormat(locale, format).format(meters));
    return new Intl.NumberFormat(locale, { style: 'unit', unit: 'meter', ...format }).format(meters);
  }
  const format = { maximumFractionDigits: kilometerDigits ?? (meters < 10000 ? 1 : 0) };
  if (units) return units.kilometers(new Intl.NumberFormat(locale, format).format(meters / 1000));
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'kilometer', ...format }).format(meters / 1000);
}

const relative = typeof Intl.RelativeTimeFormat === 'function'
  ? new Intl.RelativeTimeFormat(language, { numeric: 'auto', style: 'short' })
  : null;
const fullDate = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
const STEPS = [['second', 60], ['minute', 60], ['hour', 24], ['day', 7], ['week', 4.35], ['month', 12], ['year', Infinity]];

/** A `<time>` saying "3시간 전" / "3 hr. ago" in the page's language, with the exact time on hover. */
export function timeAgo(iso) {
  const date = new Date(iso);
  const node = element('time');
  if (Number.isNaN(date.getTime())) return node;
  node.dateTime = date.toISOString();
  node.title = fullDate.format(date);
  if (!relative) {
    node.textContent = fullDate.format(date);
    return node;
  }
  // Walk up the units until the amount fits the next one ("90 minutes" becomes "2 hours").
  let amount = (date.getTime() - Date.now()) / 1000;
  // Under a minute is "지금" / "now", as the server's pages say it (PageDates.relative).
  if (Math.abs(amount) < 60) amount = 0;
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) {
      node.textContent = relative.format(Math.round(amount), unit);
      return node;
    }
    amount /= size;
  }
  return node;
}
