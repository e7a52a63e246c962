"""axe-core's WCAG 2.1 A and AA rules over the pages of every feature, as a visitor and signed in,
at the 390x844 the other browser tests use, after the pages' scripts have drawn them; and no page
wider than that screen. Any violation fails, with the rule, its impact and where. axe-core comes from the axe-playwright-python
wheel (installed without Playwright: only its axe.min.js is used), a current axe-core 4.x; the
selenium wrapper on PyPI bundles a 2018 copy without the WCAG 2.1 rules."""
import json
import pathlib
import time

import axe_playwright_python
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import click, shot, sign_up, wait_for
from test_banchan import order_and_pay
from test_mates import mates_server, set_profile, start_searching, verify  # noqa: F401 (a fixture)

AXE = (pathlib.Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def settled(driver, quiet=0.25, longest=2.0):
    """Waits until the page has loaded and its scripts' fetches have stopped: no new resource for
    `quiet` seconds (maps and lists fetch and draw after load), at most `longest` seconds. A fixed
    0.8 s per page was most of this suite's time, and too short for a slow fetch."""
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete")
    deadline = time.monotonic() + longest
    count, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        now_count = driver.execute_script("return performance.getEntriesByType('resource').length")
        if now_count != count:
            count, since = now_count, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.05)


# Every control a thumb may need is at least 44 x 44 CSS px (WCAG 2.5.5 AAA, Apple's and Google's
# guides; axe's 2.5.8 asks only 24). Exempt: links inside running text (2.5.8's inline exception),
# a box or a radio whose label is big enough (the label is the target), a link whose ::after covers its card
# (the whole card is the target), anything off screen (the skip link until it is focused), and
# Leaflet's attribution line.
SMALL_TARGETS = """
const small = [];
for (const el of document.querySelectorAll('a[href], button, input:not([type=hidden]), select, summary, textarea, [role=button]')) {
  const box = el.getBoundingClientRect();
  if (box.width === 0 || box.height === 0 || box.right <= 0 || box.bottom <= 0) continue;
  if (getComputedStyle(el).visibility === 'hidden' || el.closest('[hidden], .leaflet-control-attribution')) continue;
  if (el.tagName === 'A' && !el.classList.contains('button') && el.closest('p, li.notification, .lead, dd, small, td')) continue;
  if (el.tagName === 'INPUT' && ['checkbox', 'radio'].includes(el.type)
      && [...el.labels].some(label => label.getBoundingClientRect().height >= 43.5)) continue;
  const after = getComputedStyle(el, '::after');
  if (after.content !== 'none' && after.position === 'absolute') continue;
  if (box.width < 44 - 0.5 || box.height < 44 - 0.5) {
    small.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${[...el.classList].map(c => '.' + c).join('')} ${Math.round(box.width)}x${Math.round(box.height)}`);
  }
}
return small.slice(0, 8);
"""


def violations(driver, path, server):
    """The page's violations, after its scripts have run."""
    driver.get(server.url + path)
    settled(driver)
    driver.set_script_timeout(60)
    driver.execute_script(AXE)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " targets: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))"
        ".catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), targets: []}]));", RULES)
    # Nothing may make a page wider than the 390 px screen (it would pan sideways under a thumb).
    width = driver.execute_script("return document.documentElement.scrollWidth")
    if width > driver.execute_script("return window.innerWidth"):
        result.append({"id": "wider-than-screen", "impact": "serious", "help": f"the page is {width} px wide", "targets": []})
    # No page asks to sign in (again) before anyone did anything: a script's call on load that
    # answers 401 would put the sign-in view over the page (shared/api.js).
    if driver.execute_script("const view = document.getElementById('session-ended'); return Boolean(view && !view.hidden)"):
        result.append({"id": "sign-in-view-on-load", "impact": "serious", "help": "the sign-in view opened by itself", "targets": []})
    small = driver.execute_script(SMALL_TARGETS)
    if small:
        result.append({"id": "small-tap-target", "impact": "serious", "help": "controls under 44 x 44 px", "targets": small})
    return [dict(found, page=path) for found in result]


def check_all(driver, server, paths):
    found = []
    for path in paths:
        found += violations(driver, path, server)
    assert not found, "accessibility violations:\n" + "\n".join(json.dumps(v, ensure_ascii=False) for v in found)


def put_in_cart(driver, server, dish):
    """One of the dish (by its hash) into the browser's cart."""
    driver.get(server.url + f"/shop/dishes/{dish}")
    click(driver, "#add-to-cart")
    wait_for(driver, EC.url_contains("/shop/cart"))


def test_every_page_passes_axe_as_a_visitor_and_signed_in(mates_server, browser):
    server = mates_server
    api = server.url + "/api/v1"
    place = requests.get(api + "/burger-map/places?near=37.5,127.0&limit=1", timeout=10).json()["items"][0]["id"]
    review = requests.get(api + "/burger-map/reviews?limit=1", timeout=10).json()["items"][0]
    dish = "HU6Z5"
    group = requests.post(api + "/menu-game/groups", headers={"X-Device-Token": "axe-host-device-000001"}, timeout=10).json()["pin"]
    visitor = ["/", "/login", "/signup", "/licenses", "/forgot-password", "/forgot-password/phone", "/reset-password?token=not-a-link",
               "/play", "/play/welcome", "/play/solo", "/play/together", "/play/settings", f"/join/{group}", f"/play/groups/{group}",
               "/map", "/map/feed", f"/map/places/{place}", f"/map/reviews/{review['id']}", f"/map/users/{review['author']['id']}",
               "/shop", f"/shop/dishes/{dish}", "/shop/cart", "/shop/addresses", "/play/menus/kimchi-jjigae"]
    check_all(browser, server, visitor)
    # The shop with something in the cart: the cart's lines and checkout (a visitor types an address).
    put_in_cart(browser, server, dish)
    check_all(browser, server, ["/shop/cart", "/shop/checkout"])

    sign_up(browser, server, "접근성")
    signed_in = ["/", "/me", "/notifications", "/notifications/settings", "/play", "/play/solo", "/play/feedback",
                 "/map", "/map/me", "/map/write", "/map/feed", f"/map/places/{place}", f"/map/reviews/{review['id']}",
                 "/shop", "/shop/cart", "/shop/orders", f"/shop/dishes/{dish}", "/mates", "/mates/start"]
    check_all(browser, server, signed_in)

    # The shop's checkout (the visitor's cart came along), the empty address book and its form; then
    # an order placed and paid (its address kept): the order, "주문이 완료됐어요", the receipt, the
    # address book with the address, and a checkout that starts from it.
    check_all(browser, server, ["/shop/checkout", "/shop/addresses", "/shop/addresses/new"])
    order_and_pay(browser, server, {"hash": dish})
    order = browser.current_url.removeprefix(server.url)
    put_in_cart(browser, server, dish)
    check_all(browser, server, [order, order + "/complete", order + "/receipt", "/shop/orders", "/shop/addresses", "/shop/checkout"])

    # Mates: verified, with a profile, searching.
    verify(browser, server, "010-2468-1357")
    set_profile(browser, "female", 1996, ["알고리즘"])
    start_searching(browser, server)
    check_all(browser, server, ["/mates", "/mates/profile", "/mates/shop", "/mates/search", "/mates/nearby", "/mates/nearby?tab=requested"])


def test_the_dark_scheme_keeps_every_contrast(server, browser):
    """The system's dark preference (emulated) turns every page dark; axe's contrast rules and the
    tap-target check hold there too. A screenshot of each kind of page is kept for review."""
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    api = server.url + "/api/v1"
    place = requests.get(api + "/burger-map/places?near=37.5,127.0&limit=1", timeout=10).json()["items"][0]["id"]
    review = requests.get(api + "/burger-map/reviews?limit=1", timeout=10).json()["items"][0]["id"]
    group = requests.post(api + "/menu-game/groups", headers={"X-Device-Token": "axe-dark-device-000001"}, timeout=10).json()["pin"]
    pages = {"home": "/", "login": "/login", "play": "/play", "lobby": f"/play/groups/{group}", "solo-game": "/play/solo/game",
             "map-feed": "/map/feed", "place": f"/map/places/{place}", "review": f"/map/reviews/{review}",
             "shop": "/shop", "dish": "/shop/dishes/HU6Z5", "mates": "/mates"}
    found = []
    for name, path in pages.items():
        found += violations(browser, path, server)
        assert browser.execute_script("return getComputedStyle(document.body).backgroundColor") != "rgb(255, 250, 245)", path
        shot(browser, f"dark-{name}")
    sign_up(browser, server, "어두운화면")
    for name, path in {"notifications": "/notifications", "me": "/me", "write": "/map/write", "cart": "/shop/cart"}.items():
        found += violations(browser, path, server)
        shot(browser, f"dark-{name}")
    assert not found, "accessibility violations in the dark scheme:\n" + "\n".join(json.dumps(v, ensure_ascii=False) for v in found)
