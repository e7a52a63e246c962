"""The site as an installable app (issue 40, item 3): Chromium parses the manifest without errors
and finds its icons, the service worker takes control of the page, and with the server gone a
navigation shows the offline page instead of the browser's error; a page is never served from the
worker's cache (a personal page must not outlive its session)."""
import json

from selenium.webdriver.common.by import By

from conftest import shot, wait_for


def test_the_app_installs_and_opens_offline(server, browser):
    browser.get(server.url + "/")
    manifest = browser.execute_cdp_cmd("Page.getAppManifest", {})
    assert manifest.get("url", "").endswith("/manifest.webmanifest"), manifest
    assert not manifest.get("errors"), manifest.get("errors")
    parsed = json.loads(manifest["data"])
    assert parsed["name"] == "우리뭐먹지" and parsed["display"] == "standalone"
    assert {icon["sizes"] for icon in parsed["icons"]} == {"192x192", "512x512"}

    # The worker installs and controls the page (it claims open pages when it activates).
    wait_for(browser, lambda d: d.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)"), timeout=15)
    browser.get(server.url + "/shop")
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main"))
    cached = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        caches.keys().then(async (names) => {
          const urls = [];
          for (const name of names) for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
          done({names, urls});
        });
    """)
    assert any(name.startswith("static-") for name in cached["names"]), cached
    assert "/offline.html" in cached["urls"]
    assert "/shop" not in cached["urls"] and not any(url.startswith("/api/") for url in cached["urls"]), cached

    # The server is gone: a navigation shows the offline page.
    server.stop()
    browser.get(server.url + "/map")
    title = wait_for(browser, lambda d: d.find_element(By.ID, "offline-title"))
    assert title.text == "인터넷에 연결되어 있지 않아요"
    shot(browser, "01-offline")
