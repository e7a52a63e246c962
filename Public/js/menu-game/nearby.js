// "Where can I eat this near me?" for any menu: our own map when it has places for it, and always
// 카카오맵 and 네이버지도's search for the menu, through their public link formats — the app's
// scheme on a phone (falling back to the mobile web page when no app answers), the web page
// elsewhere — near the person when the browser already may tell where they are (never asked here).
const APP_NAME = location.origin;

/** Phones and tablets, where the map apps live. */
export function isPhone() {
  return navigator.userAgentData?.mobile ?? /Android|iPhone|iPad|iPod/i.test(navigator.userAgent);
}

/** Kakao Map's and Naver Map's search for `query` (near `position`, `{lat, lng}`, when known). */
export function mapLinks(query, position, phone = isPhone()) {
  const q = encodeURIComponent(query);
  const near = position ? `${position.lat.toFixed(6)},${position.lng.toFixed(6)}` : null;
  const kakaoWeb = phone
    ? `https://m.map.kakao.com/scheme/search?q=${q}${near ? `&p=${near}` : ''}`
    : `https://map.kakao.com/link/search/${q}`;
  const naverWeb = `https://map.naver.com/p/search/${q}`;
  return {
    kakao: { web: kakaoWeb, app: phone ? `kakaomap://search?q=${q}${near ? `&p=${near}` : ''}` : null },
    naver: { web: naverWeb, app: phone ? `nmap://search?query=${q}&appname=${encodeURIComponent(APP_NAME)}` : null },
  };
}

/** The position, only when the person has already let this site know it (no prompt). */
export async function knownPosition() {
  try {
    const permission = await navigator.permissions?.query({ name: 'geolocation' });
    if (permission?.state !== 'granted') return null;
    return await new Promise((resolve) => {
      navigator.geolocation.getCurrentPosition(
        (found) => resolve({ lat: found.coords.latitude, lng: found.coords.longitude }),
        () => resolve(null), { maximumAge: 5 * 60 * 1000, timeout: 4000 });
    });
  } catch {
    return null;
  }
}

/** How many of our map's places match `query`, up to 20 (0 when the map cannot say: this check is
 * quiet, the page's network-trouble view is for what the person asked for). */
export async function ourPlaces(query) {
  try {
    const response = await fetch(`/api/v1/burger-map/places/search?q=${encodeURIComponent(query)}&limit=20`,
      { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (!response.ok) return 0;
    return (await response.json()).items?.length ?? 0;
  } catch {
    return 0;
  }
}

/** Points `anchor` at `link`: the web page as its href (it works without the app), and on a phone
 * the app's scheme to try first (`followAppLinks`). */
function pointAt(anchor, link) {
  anchor.href = link.web;
  if (link.app) anchor.dataset.app = link.app;
  else delete anchor.dataset.app;
}

/**
 * A click on a link with `data-app` tries the map app first and goes to the web page when no app
 * took over (the page is still visible a moment later). Set up once per page.
 */
export function followAppLinks(root = document) {
  root.addEventListener('click', (event) => {
    const anchor = event.target.closest?.('a[data-app]');
    if (!anchor?.dataset.app) return;
    event.preventDefault();
    const web = anchor.href;
    const fallback = setTimeout(() => { if (document.visibilityState === 'visible') location.href = web; }, 1500);
    document.addEventListener('visibilitychange', () => clearTimeout(fallback), { once: true });
    location.href = anchor.dataset.app;
  });
}

let asked = 0;

/**
 * Fills the nearby links for `query`: `kakao` and `naver` always search there; `primary` opens our
 * map with its count when it has places for the query, else 카카오맵's search. The answer of a query
 * asked before a newer one (the person moved to the next rank meanwhile) is dropped.
 */
export async function showNearby(query, { primary, kakao, naver, ourMapLabel, elsewhereLabel }) {
  const mine = ++asked;
  const draw = (position, count) => {
    if (mine !== asked) return;
    const links = mapLinks(query, position);
    pointAt(kakao, links.kakao);
    pointAt(naver, links.naver);
    if (count > 0) {
      primary.href = `/map?q=${encodeURIComponent(query)}`;
      delete primary.dataset.app;
      primary.textContent = `📍 ${ourMapLabel(count)}`;
    } else {
      pointAt(primary, links.kakao);
      primary.textContent = `📍 ${elsewhereLabel}`;
    }
  };
  draw(null, 0);
  const [position, count] = await Promise.all([knownPosition(), ourPlaces(query)]);
  draw(position, count);
}
