// Rendering helpers the burger map's list pages share: a review card, a person's row, a place's
// row, a row of stars, and a pager that fills a list page by page as its end scrolls into view.
// Everything is built with createElement and textContent: what people wrote never becomes markup.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).
import { api } from '../shared/api.js';
import { config, t } from '../shared/config.js';
import { element, say } from '../shared/dom.js';
import { distanceText, timeAgo } from '../shared/format.js';

const numbers = new Intl.NumberFormat(config.language || 'ko');

/** The page's path for a review, a place or a person (ids are UUIDs; the pages take any case). */
export const links = {
  review: (id) => `/map/reviews/${encodeURIComponent(String(id).toLowerCase())}`,
  place: (id) => `/map/places/${encodeURIComponent(String(id).toLowerCase())}`,
  user: (id) => `/map/users/${encodeURIComponent(String(id).toLowerCase())}`,
};

/** Whether `id` is the signed-in reader (the API writes UUIDs in capitals, pages in lower case). */
export function isMe(id) {
  return Boolean(config.me && id && String(id).toLowerCase() === String(config.me).toLowerCase());
}

export function formatNumber(value) {
  return numbers.format(value || 0);
}

/** "★★★★☆" read out as one image: "별점 4점". Ratings are rounded to whole stars. */
export function stars(rating) {
  const full = Math.max(0, Math.min(5, Math.round(Number(rating) || 0)));
  const node = element('span', 'stars', '★'.repeat(full) + '☆'.repeat(5 - full));
  node.setAttribute('role', 'img');
  node.setAttribute('aria-label', t('burger_map.js.cards.stars', { rating: full }));
  return node;
}

/** A person's picture, or their first letter on a coloured disc. Decorative: the name is beside it. */
export function avatar(person, size = 'small') {
  if (person?.profileImageURL) {
    const image = element('img', `avatar ${size}`);
    image.src = person.profileImageURL;
    image.alt = '';
    image.loading = 'lazy';
    image.decoding = 'async';
    return image;
  }
  const placeholder = element('span', `avatar ${size} placeholder`, Array.from(person?.nickname || '?')[0]);
  placeholder.setAttribute('aria-hidden', 'true');
  return placeholder;
}

/** A count with an emoji for the eye and words for screen readers ("좋아요 3개"). */
function counter(className, emoji, key, count) {
  const node = element('span', className);
  const visible = element('span', null, `${emoji} ${formatNumber(count)}`);
  visible.setAttribute('aria-hidden', 'true');
  node.append(visible, element('span', 'visually-hidden', t(key, { count: formatNumber(count) })));
  return node;
}

/**
 * A review as a card in a list: its first photo, title (the link to the review), stars, place,
 * the start of its text, author, likes, comments and how long ago. `heading` is the title's
 * element ('h2' where the list sits right under the page's h1).
 */
export function reviewCard(review, { heading = 'h3' } = {}) {
  const item = element('li', 'review-card');
  item.dataset.id = review.id;
  const href = links.review(review.id);

  const photo = review.photos?.[0];
  if (photo) {
    // The photo repeats the title's link for thumbs; one tab stop and one link for screen readers.
    const photoLink = element('a', 'review-card-photo');
    photoLink.href = href;
    photoLink.tabIndex = -1;
    photoLink.setAttribute('aria-hidden', 'true');
    const image = element('img');
    image.src = photo.url;
    image.alt = '';
    image.loading = 'lazy';
    image.decoding = 'async';
    if (photo.width && photo.height) {
      image.width = photo.width;
      image.height = photo.height;
    }
    photoLink.append(image);
    if (review.photos.length > 1) {
      photoLink.append(element('span', 'photo-count', `1 / ${review.photos.length}`));
    }
    item.append(photoLink);
  }

  const body = element('div', 'review-card-body');
  const title = element(heading, 'review-card-title');
  const titleLink = element('a', null, review.title);
  titleLink.href = href;
  title.append(titleLink);
  if (review.hidden) title.append(' ', element('span', 'badge muted', t('burger_map.js.cards.hidden')));

  const rating = element('p', 'review-card-rating');
  rating.append(stars(review.rating));
  if (review.place) {
    const place = element('a', 'review-card-place', review.place.name);
    place.href = links.place(review.place.id);
    rating.append(place);
  }

  body.append(title, rating);
  if (review.text) body.append(element('p', 'review-card-excerpt', review.text));

  const footer = element('div', 'review-card-footer');
  if (review.author) {
    const author = element('a', 'review-card-author');
    author.href = links.user(review.author.id);
    author.append(avatar(review.author), element('span', 'review-card-nickname', review.author.nickname));
    footer.append(author);
  }
  const meta = element('span', 'review-card-meta');
  meta.append(
    counter('review-card-likes', '❤️', 'burger_map.js.cards.likes', review.likeCount),
    counter('review-card-comments', '💬', 'burger_map.js.cards.comments', review.commentCount),
    timeAgo(review.createdAt),
  );
  footer.append(meta);
  body.append(footer);
  item.append(body);
  return item;
}

/** A person in a list (followers, following): picture and nickname, one link to their page. */
export function personRow(person) {
  const item = element('li', 'person-row');
  item.dataset.id = person.id;
  const link = element('a', 'person-row-link');
  link.href = links.user(person.id);
  link.append(avatar(person), element('span', 'person-name', person.nickname));
  item.append(link);
  return item;
}

/** "320 m" / "1.4 km" in the burger map's own words for the units. */
const DISTANCE_UNITS = {
  meters: (distance) => t('burger_map.js.cards.meters', { distance }),
  kilometers: (distance) => t('burger_map.js.cards.kilometers', { distance }),
};

/** A place in a list: photo, name, stars with the average and review count, address, distance. */
export function placeRow(place) {
  const item = element('li', 'place-row');
  item.dataset.id = place.id;
  const link = element('a', 'place-row-link');
  link.href = links.place(place.id);

  if (place.photoURL) {
    const image = element('img', 'place-thumb');
    image.src = place.photoURL;
    image.alt = '';
    image.loading = 'lazy';
    link.append(image);
  } else {
    const placeholder = element('span', 'place-thumb placeholder', '🍔');
    placeholder.setAttribute('aria-hidden', 'true');
    link.append(placeholder);
  }

  const main = element('span', 'place-row-main');
  main.append(element('span', 'place-name', place.name));
  const meta = element('span', 'place-meta');
  if (place.reviewCount > 0 && place.averageRating != null) {
    meta.append(stars(place.averageRating), ' ', element('span', 'average', Number(place.averageRating).toFixed(1)),
      ' · ', t('burger_map.js.cards.reviews', { count: formatNumber(place.reviewCount) }));
  } else {
    meta.append(element('span', 'muted', t('burger_map.js.cards.no_reviews')));
  }
  main.append(meta);
  if (place.address) main.append(element('span', 'place-address', place.address));
  link.append(main);

  if (place.distanceMeters != null) link.append(element('span', 'place-distance', distanceText(place.distanceMeters, { units: DISTANCE_UNITS })));
  item.append(link);
  return item;
}

/** The server's message for a refused request (already in the reader's language), or `fallback`. */
export function errorMessage(error, fallback = t('burger_map.js.cards.failed')) {
  return error?.message && error.code ? error.message : fallback;
}

const PAGE_SIZE = 20;

/**
 * Infinite scroll: loads `source` (default: the list's `data-source`) 20 at a time with
 * `?cursor=&limit=` while `sentinel` (an element right after the list) is near the screen, and
 * appends `render(item)` for each item. `emptyElement` is shown when the first page is empty.
 * Returns `{ reload(), loadMore(), prepend(node), get done(), snapshot() }`: `reload()` starts again
 * from the first page (refresh), replacing the list once the new page is in; `initial` (a
 * `snapshot()`) draws a list that was shown before without asking again.
 */
export function pager(list, sentinel, { source = list?.dataset.source, render, emptyElement = null, limit = PAGE_SIZE, initial = null } = {}) {
  let cursor = null;
  let done = false;
  // What the list shows, as the API gave it: a page someone comes back to (Back) is drawn from
  // it again (`initial`, from `snapshot()`), where they left it.
  let items = [];
  let loading = null;
  // Each reload takes the next number; an answer for an older number is dropped.
  let generation = 0;
  let observer = null;
  // Without IntersectionObserver (old browsers), a "more" button does the sentinel's job.
  let moreButton = null;

  function pageURL() {
    const url = new URL(source, location.origin);
    url.searchParams.set('limit', String(limit));
    if (cursor) url.searchParams.set('cursor', cursor);
    else url.searchParams.delete('cursor');
    return url.pathname + url.search;
  }

  function setBusy(busy) {
    list.setAttribute('aria-busy', busy ? 'true' : 'false');
    sentinel?.classList.toggle('is-loading', busy);
  }

  function finish() {
    done = true;
    sentinel?.classList.add('is-done');
    moreButton?.remove();
  }

  async function load(replace) {
    if (!source || (done && !replace)) return;
    const mine = generation;
    setBusy(true);
    try {
      const page = await api('GET', pageURL());
      if (mine !== generation) return;
      const got = page?.items || [];
      const nodes = got.map((item) => render(item)).filter(Boolean);
      if (replace) list.replaceChildren(...nodes);
      else list.append(...nodes);
      items = replace ? [...got] : items.concat(got);
      cursor = page?.nextCursor || null;
      if (emptyElement) emptyElement.hidden = list.children.length > 0;
      if (!cursor) finish();
    } catch (error) {
      if (mine !== generation) return;
      // A refused list (a private tab, a removed person) will not come round by scrolling again.
      say(errorMessage(error));
      finish();
    } finally {
      if (mine === generation) setBusy(false);
    }
    // Observing again reports the sentinel's place at once: a short page that left it on screen
    // loads the next one instead of waiting for a scroll that cannot happen.
    if (mine === generation && !done && observer && sentinel) {
      observer.unobserve(sentinel);
      observer.observe(sentinel);
    }
  }

  /** Runs one load as the pending one; a later load (a reload) takes over the slot. */
  function track(promise) {
    const tracked = promise.finally(() => { if (loading === tracked) loading = null; });
    loading = tracked;
    return tracked;
  }

  function loadMore() {
    if (loading || done) return loading;
    return track(load(false));
  }

  if (initial?.items?.length) {
    items = [...initial.items];
    list.replaceChildren(...items.map((item) => render(item)).filter(Boolean));
    cursor = initial.cursor || null;
    if (emptyElement) emptyElement.hidden = true;
    if (!cursor) finish();
  }

  if ('IntersectionObserver' in window && sentinel) {
    observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) loadMore();
    }, { rootMargin: '0px 0px 600px 0px' });
    observer.observe(sentinel);
  } else if (sentinel) {
    moreButton = element('button', 'button wide load-more', t('burger_map.js.cards.load_more'));
    moreButton.type = 'button';
    moreButton.addEventListener('click', loadMore);
    sentinel.append(moreButton);
    loadMore();
  } else {
    loadMore();
  }

  return {
    /** Starts again from the first page; the old items stay until the new page arrives. */
    reload() {
      generation += 1;
      cursor = null;
      done = false;
      sentinel?.classList.remove('is-done');
      return track(load(true));
    },
    loadMore,
    /** Puts a node at the top (a comment just written) and hides the empty note. */
    prepend(node) {
      list.prepend(node);
      if (emptyElement) emptyElement.hidden = true;
    },
    /** After removing a node: shows the empty note when nothing is left and no page is pending. */
    refreshEmpty() {
      if (emptyElement) emptyElement.hidden = list.children.length > 0 || !done;
    },
    get done() { return done; },
    /** The items shown and where the next page starts, to be given back as `initial`. */
    snapshot() { return { items, cursor }; },
  };
}
