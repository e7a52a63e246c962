"""The two views every page's scripts share (Layout+TroubleViews.swift, shared/api.js), met outside
the menu game: a dropped network shows "try again" and the tap goes through afterwards without a
reload; a session that ended offers to sign in and comes back to the same page."""
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import click, fill, no_horizontal_overflow, shot, sign_up, visible, wait_for
from test_burger_map import api


def network(driver, online):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions",
                           {"offline": not online, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def test_a_dropped_network_and_an_ended_session_each_have_a_way_on(server, browser):
    sign_up(browser, server, "연결확인")
    place = api(server, "GET", "/api/v1/burger-map/places?near=37.5665,126.9780&limit=1")["items"][0]
    place_path = f"/map/places/{place['id']}"
    browser.get(server.url + place_path)
    browser.execute_script("window.__sameDocument = true;")
    want = visible(browser, "button.mark-toggle[data-kind=want]")
    assert want.get_attribute("aria-pressed") == "false"

    # Offline: the tap shows the network view instead of failing silently.
    network(browser, online=False)
    click(browser, "button.mark-toggle[data-kind=want]")
    dialog = visible(browser, "#network-error")
    assert "네트워크" in dialog.text
    assert browser.switch_to.active_element.get_attribute("id") == "network-retry"
    assert no_horizontal_overflow(browser)
    shot(browser, "01-network-trouble")

    # Back online, "try again" sends the same request: the mark is saved, the page never reloaded.
    network(browser, online=True)
    click(browser, "#network-retry")
    wait_for(browser, EC.invisibility_of_element_located((By.ID, "network-error")))
    mine = api(server, "GET", f"/api/v1/burger-map/places/{place['id']}",
               token=browser.execute_script("return JSON.parse(document.getElementById('page-config').textContent).accessToken"))
    assert "want" in mine["myMarks"]
    assert browser.execute_script("return window.__sameDocument === true")

    # The session ends elsewhere (signed out on another device): the next tap offers to sign in.
    token = browser.execute_script("return JSON.parse(document.getElementById('page-config').textContent).accessToken")
    request = urllib.request.Request(server.url + "/api/v1/auth/logout", method="POST")
    request.add_header("Authorization", f"Bearer {token}")
    urllib.request.urlopen(request, timeout=10).close()
    click(browser, "button.mark-toggle[data-kind=eaten]")
    view = visible(browser, "#session-ended")
    assert "로그인이 끝났어요" in view.text
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "button.mark-toggle[data-kind=eaten]").get_attribute("aria-pressed") == "false")
    shot(browser, "02-session-ended")
    click(browser, "#session-sign-in")
    wait_for(browser, EC.url_contains("/login"))
    fill(browser, "email", f"{abs(hash('연결확인')) % 10**8}@example.com")
    fill(browser, "password", "password1")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit].primary").click()
    wait_for(browser, lambda d: d.current_url.endswith(place_path))
    assert visible(browser, "button.mark-toggle[data-kind=want]").get_attribute("aria-pressed") == "true"
