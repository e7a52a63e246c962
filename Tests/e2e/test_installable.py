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

    # The server is gone while the phone is online: the offline page says the server is not
    # answering (it used to blame the person's internet), in one language.
    server.stop()
    browser.get(server.url + "/map")
    wait_for(browser, lambda d: d.find_element(By.ID, "offline-title").text == "서버가 응답하지 않아요")
    assert "인터넷 연결은 괜찮아요" in browser.find_element(By.ID, "offline-body").text
    assert browser.find_element(By.ID, "offline-retry").text == "다시 시도"
    assert "Try again" not in browser.find_element(By.TAG_NAME, "main").text, "one language shown"
    assert browser.current_url == server.url + "/map", "it stands in for the page that failed"
    shot(browser, "01-server-not-answering")

    # The phone goes offline: it says so.
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    wait_for(browser, lambda d: d.find_element(By.ID, "offline-title").text == "인터넷에 연결되어 있지 않아요")
    shot(browser, "02-offline")
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    # The server comes back: the page that failed opens by itself (the page checks /healthz).
    server.start()
    wait_for(browser, lambda d: not d.find_elements(By.ID, "offline-title"), timeout=20)
    assert browser.current_url == server.url + "/map"
    shot(browser, "03-back")


def test_the_offline_page_speaks_the_readers_language(server, browser):
    """The language switch's cookie (English) is kept; with the server gone, the offline page is in English."""
    browser.get(server.url + "/")
    wait_for(browser, lambda d: d.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)"), timeout=15)
    browser.add_cookie({"name": "lang", "value": "en", "path": "/"})
    browser.get(server.url + "/shop")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    server.stop()
    browser.get(server.url + "/shop/cart")
    wait_for(browser, lambda d: d.find_element(By.ID, "offline-title").text == "The site isn't answering")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    assert browser.find_element(By.ID, "offline-retry").text == "Try again"
    shot(browser, "00-english")
