// Menu-game specifics shared by its pages. The page config, `api()`, and the copy / share /
// flash / cookie helpers every feature uses live in ../shared/. Plain ES module, no build step.
import { config } from '../shared/config.js';

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
