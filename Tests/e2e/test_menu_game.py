"""The menu game (우리뭐먹지) as a new visitor plays it: onboarding, home, a solo game, a group
game across three browsers, the waiting room, a wrong PIN, the language switch, and network
trouble with retry."""
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from conftest import fill, make_browser, no_horizontal_overflow, shot, visible, wait_for


def click(driver, selector):
    wait_for(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, selector))).click()


def image_loaded(driver, selector):
    return driver.execute_script(
        "const img = document.querySelector(arguments[0]); return !!img && img.complete && img.naturalWidth > 0;", selector)


def top_card_step(driver):
    """The "n / 9" label of the card on top of the stack (read as text content: a card coming
    back is still fading in, and selenium's .text skips what is not yet visible)."""
    return driver.find_element(By.CSS_SELECTOR, ".game-card.pos-0 .card-step").get_attribute("textContent")


def onboard(driver, server, dislike=()):
    """First visit: skip the intro pages, pick disliked foods, confirm; lands on /play."""
    driver.get(server.url + "/play")
    wait_for(driver, EC.url_contains("/play/welcome"))
    click(driver, ".onboarding-page:not([hidden]) .skip-onboarding")
    for value in dislike:
        driver.find_element(By.CSS_SELECTOR, f"label[for=disliked-{value.lower()}]").click()
    click(driver, "#save-dislikes")
    wait_for(driver, lambda d: d.current_url.rstrip("/").endswith("/play"))


def play_cards(driver, answers):
    """Answers the nine cards: 'yes' / 'no' / 'skip' for the seven, a list of choices for the two others."""
    for answer in answers:
        if isinstance(answer, list):
            visible(driver, ".choice-buttons [data-answer=next]")
            for choice in answer:
                click(driver, f".game-card.pos-0 .choice-tile[data-choice={choice}]")
            click(driver, ".choice-buttons [data-answer=next]" if answer else ".choice-buttons [data-answer=skip]")
        else:
            click(driver, f".yesno-buttons [data-answer={answer}]")


ALL_DONT_CARE = ["skip"] * 7 + [[], []]


def test_onboarding_then_home(server, browser):
    browser.get(server.url + "/play")
    wait_for(browser, EC.url_contains("/play/welcome"))
    first = visible(browser, ".onboarding-page:not([hidden]) h1")
    assert "카드 9장" in first.text
    shot(browser, "01-onboarding-intro")

    click(browser, ".onboarding-page:not([hidden]) .next-page")
    assert "PIN" in visible(browser, ".onboarding-page:not([hidden]) h1").text
    shot(browser, "02-onboarding-together")
    click(browser, ".onboarding-page:not([hidden]) .next-page")
    assert visible(browser, "#dislikes h1").text == "못 먹는 음식"

    # Tiles toggle on tap; the keyboard works too (space on the focused checkbox).
    browser.find_element(By.CSS_SELECTOR, "label[for=disliked-spicy]").click()
    browser.find_element(By.CSS_SELECTOR, "label[for=disliked-meat]").click()
    browser.find_element(By.CSS_SELECTOR, "label[for=disliked-meat]").click()
    browser.find_element(By.ID, "disliked-seafood").send_keys(Keys.SPACE)
    assert browser.find_element(By.ID, "disliked-spicy").is_selected()
    assert not browser.find_element(By.ID, "disliked-meat").is_selected()
    assert browser.find_element(By.ID, "disliked-seafood").is_selected()
    assert no_horizontal_overflow(browser)
    shot(browser, "03-disliked-foods")
    click(browser, "#save-dislikes")

    wait_for(browser, lambda d: d.current_url.rstrip("/").endswith("/play"))
    question = visible(browser, "#random-question")
    assert question.text.endswith("어때요?")
    assert wait_for(browser, lambda d: image_loaded(d, "#random-image"))
    assert no_horizontal_overflow(browser)
    shot(browser, "04-home")

    # "Another one" asks the server for a different menu (a device is not shown the same one again soon).
    before = question.text
    click(browser, "#another-menu")
    wait_for(browser, lambda d: d.find_element(By.ID, "random-question").text != before)
    assert browser.find_element(By.ID, "random-question").text.endswith("어때요?")

    # The second visit goes straight home, and settings show the saved choice.
    browser.get(server.url + "/play")
    assert browser.current_url.rstrip("/").endswith("/play")
    browser.find_element(By.CSS_SELECTOR, ".settings-link").click()
    wait_for(browser, EC.url_contains("/play/settings"))
    assert browser.find_element(By.ID, "disliked-spicy").is_selected()
    assert browser.find_element(By.ID, "disliked-seafood").is_selected()
    assert browser.find_element(By.ID, "app-version").text
    shot(browser, "05-settings")


def assert_fits(driver, what):
    """The page is never wider than the 390 px screen: at once, and once a flying card has landed
    (its transition is 0.45 s)."""
    assert no_horizontal_overflow(driver), f"wider than the screen right after {what}"
    time.sleep(0.5)
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert no_horizontal_overflow(driver), f"{width} px wide after {what}"


def test_solo_game_with_previous_and_next_rank(server, browser):
    onboard(browser, server, dislike=["SEAFOOD"])
    browser.find_element(By.CSS_SELECTOR, ".tab-bar a[href='/play/solo']").click()
    wait_for(browser, EC.url_contains("/play/solo"))
    assert "해산물" in browser.find_element(By.CSS_SELECTOR, ".disliked-summary").text
    shot(browser, "01-solo-tab")
    click(browser, "#start-solo")

    wait_for(browser, EC.url_contains("/play/solo/game"))
    assert top_card_step(browser) == "1 / 9"
    assert browser.find_element(By.ID, "previous-card").get_attribute("disabled") is not None
    # Three cards are visible in the stack; the tab bar is hidden during the game.
    assert len(browser.find_elements(By.CSS_SELECTOR, ".game-card.pos-0, .game-card.pos-1, .game-card.pos-2")) == 3
    assert not browser.find_elements(By.CSS_SELECTOR, ".tab-bar")
    assert_fits(browser, "the game opened")
    shot(browser, "02-first-card")

    click(browser, ".yesno-buttons [data-answer=yes]")      # hangover: like → flies right
    first = browser.find_element(By.CSS_SELECTOR, ".game-card[data-question=hangover]")
    assert "fly-right" in first.get_attribute("class")
    assert_fits(browser, "a card flew right")
    click(browser, ".yesno-buttons [data-answer=no]")       # greasy: hate → flies left
    assert "fly-left" in browser.find_element(By.CSS_SELECTOR, ".game-card[data-question=greasy]").get_attribute("class")
    assert_fits(browser, "a card flew left")
    assert top_card_step(browser) == "3 / 9"
    shot(browser, "03-after-two-answers")

    # "Previous" brings the greasy card back to the top.
    click(browser, "#previous-card")
    greasy = browser.find_element(By.CSS_SELECTOR, ".game-card[data-question=greasy]")
    assert "pos-0" in greasy.get_attribute("class")
    assert_fits(browser, "a card came back")
    assert top_card_step(browser) == "2 / 9"
    progress = browser.find_element(By.ID, "game-progress").get_attribute("aria-valuenow")
    assert progress == "1"
    shot(browser, "04-previous")

    click(browser, ".yesno-buttons [data-answer=skip]")     # greasy: don't care → flies down
    assert "fly-down" in greasy.get_attribute("class")
    assert_fits(browser, "a card flew down")
    for answer in ["yes", "no", "yes", "no", "skip"]:       # health, alcohol, instant, spicy, rich
        click(browser, f".yesno-buttons [data-answer={answer}]")
        assert no_horizontal_overflow(browser), f"wider than the screen after answering {answer}"
    # The main card: tiles; "none of these" excludes the others.
    assert top_card_step(browser) == "8 / 9"
    click(browser, ".game-card.pos-0 .choice-tile[data-choice=rice]")
    click(browser, ".game-card.pos-0 .choice-tile[data-choice=none]")
    rice = browser.find_element(By.CSS_SELECTOR, ".game-card.pos-0 .choice-tile[data-choice=rice]")
    assert rice.get_attribute("aria-pressed") == "false"
    click(browser, ".game-card.pos-0 .choice-tile[data-choice=soup]")
    shot(browser, "05-main-card")
    click(browser, ".choice-buttons [data-answer=next]")
    assert_fits(browser, "the main card was answered")
    click(browser, ".game-card.pos-0 .choice-tile[data-choice=KOREAN]")
    shot(browser, "06-nation-card")
    click(browser, ".choice-buttons [data-answer=next]")   # the last answer submits

    wait_for(browser, EC.url_contains("/play/result"))
    name = visible(browser, "#result-name")
    wait_for(browser, lambda d: d.find_element(By.ID, "result-name").text != "")
    keywords = browser.find_elements(By.CSS_SELECTOR, "#result-keywords li")
    assert len(keywords) == 3 and all(k.text.startswith("#") for k in keywords)
    assert wait_for(browser, lambda d: image_loaded(d, "#result-image"))
    assert no_horizontal_overflow(browser)
    shot(browser, "07-result")

    # "Next rank" at most twice.
    names = [name.text]
    for left in (1, 0):
        click(browser, "#next-rank")
        wait_for(browser, lambda d: d.find_element(By.ID, "result-name").text not in names)
        names.append(browser.find_element(By.ID, "result-name").text)
        assert browser.find_element(By.ID, "result-rank").text == f"{len(names)}위 메뉴"
        if left:
            assert f"{left}번 남음" in browser.find_element(By.ID, "next-rank").text
    assert not browser.find_element(By.ID, "next-rank").is_displayed()
    assert len(set(names)) == 3
    shot(browser, "08-third-rank")

    # "Find restaurants nearby": 카카오맵 and 네이버지도 search for the menu shown; the primary
    # button is our map when it has places for the menu, else 카카오맵's search (the seeded map has
    # burger places only, and this game ends on Korean dishes).
    from urllib.parse import quote
    query = quote(names[2], safe="")
    wait_for(browser, lambda d: d.find_element(By.ID, "nearby-kakao").get_attribute("href") == f"https://map.kakao.com/link/search/{query}")
    assert browser.find_element(By.ID, "nearby-naver").get_attribute("href") == f"https://map.naver.com/p/search/{query}"
    nearby = browser.find_element(By.ID, "find-nearby")
    wait_for(browser, lambda d: nearby.get_attribute("href") == f"https://map.kakao.com/link/search/{query}")
    assert nearby.text == "📍 주변 식당 찾기"
    assert no_horizontal_overflow(browser)
    shot(browser, "09-nearby")
    # Our map answers for a burger (one of its places), and a phone gets the apps' schemes with
    # the web pages behind them, near the person when the browser may already tell where.
    found = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/js/menu-game/nearby.js').then(async (m) => done({burger: await m.ourPlaces('버거'), stew: await m.ourPlaces('김치찌개'),"
        " phone: m.mapLinks('김치찌개', {lat: 37.5665, lng: 126.978}, true)}));")
    assert found["burger"] > 0 and found["stew"] == 0, found
    stew = quote("김치찌개", safe="")
    assert found["phone"]["kakao"] == {"app": f"kakaomap://search?q={stew}&p=37.566500,126.978000",
                                       "web": f"https://m.map.kakao.com/scheme/search?q={stew}&p=37.566500,126.978000"}, found
    assert found["phone"]["naver"]["app"].startswith(f"nmap://search?query={stew}&appname="), found
    # The scripts' texts choose Korean particles as the server does (KoreanParticleTests).
    particles = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/js/shared/config.js').then((m) => done([m.particle('을/를', '김치찌개'), m.particle('을/를', '한우 500g'),"
        " m.particle('으로/로', '010-1234-5678'), m.particle('으로/로', 'mina@example.com'), m.particle('으로/로', '서울'),"
        " m.particle('은/는', '“알고리즘”')]));")
    assert particles == ["를", "을", "로", "으로", "로", "은"], particles
    # The shared menu's page names the same searches without a script.
    browser.get(server.url + "/play/menus/kimchi-jjigae")
    assert browser.find_element(By.ID, "nearby-kakao").get_attribute("href").startswith("https://map.kakao.com/link/search/")


def test_group_game_with_three_browsers(server, browser):
    host = browser
    players = [make_browser(), make_browser()]
    for index, player in enumerate(players):
        player.test_name = f"{host.test_name}-player{index + 1}"
    try:
        onboard(host, server)
        host.find_element(By.CSS_SELECTOR, ".tab-bar a[href='/play/together']").click()
        click(host, "#create-group")
        wait_for(host, EC.url_matches(r"/play/groups/[1-9][0-9]{5}$"))
        pin = host.find_element(By.ID, "pin-value").text
        assert re.fullmatch(r"[1-9][0-9]{5}", pin)
        assert "그룹을 만들었어요" in host.find_element(By.ID, "lobby-title").text
        assert wait_for(host, lambda d: image_loaded(d, ".qr-code"))
        assert host.find_element(By.CSS_SELECTOR, ".join-url").text.endswith(f"/join/{pin}")
        assert no_horizontal_overflow(host)
        shot(host, "01-host-lobby")

        # Player 1 types the PIN; player 2 opens the shared link.
        onboard(players[0], server, dislike=["MEAT"])
        players[0].get(server.url + "/play/together")
        fill(players[0], "pin", pin)
        click(players[0], "#join-group")
        wait_for(players[0], EC.url_contains(f"/play/groups/{pin}/game"))
        shot(players[0], "01-game")
        # The host's lobby lists the newcomer without reloading.
        wait_for(host, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#room-list .room-member")) == 2)
        assert "손님 1" in host.find_element(By.ID, "room-list").text

        players[1].get(server.url + f"/join/{pin}")
        wait_for(players[1], EC.url_contains("/play/welcome"))   # first visit: onboarding, then the lobby
        click(players[1], ".onboarding-page:not([hidden]) .skip-onboarding")
        click(players[1], "#save-dislikes")
        wait_for(players[1], EC.url_contains(f"/play/groups/{pin}"))
        assert players[1].find_element(By.ID, "pin-value").text == pin
        # A guest names themself; everyone's room shows the name.
        fill(players[1], "guest-name", "민지")
        click(players[1], "#save-guest-name")
        wait_for(players[1], lambda d: d.find_element(By.ID, "guest-name-status").text == "이름을 바꿨어요.")
        assert "field-error" not in players[1].find_element(By.ID, "guest-name-status").get_attribute("class"), "saved is not an error"
        wait_for(host, lambda d: "민지" in d.find_element(By.ID, "room-list").text)
        assert len(host.find_elements(By.CSS_SELECTOR, "#room-list .room-member")) == 3
        assert "나" in players[1].find_element(By.CSS_SELECTOR, "#room-list .room-member:nth-child(3)").text
        assert no_horizontal_overflow(host)
        shot(host, "01b-host-lobby-room")
        click(players[1], "#start-group-game")
        wait_for(players[1], EC.url_contains(f"/play/groups/{pin}/game"))

        # Everyone plays; each lands in the waiting room, which counts submissions live.
        click(host, "#start-group-game")
        wait_for(host, EC.url_contains("/game"))
        play_cards(host, ["yes", "no", "skip", "skip", "yes", "no", "skip", ["rice"], ["KOREAN"]])
        wait_for(host, EC.url_contains(f"/play/groups/{pin}/wait"))
        wait_for(host, lambda d: d.find_element(By.ID, "submission-count").text == "1")
        wait_for(host, lambda d: d.find_element(By.ID, "live-status").text == "실시간으로 보고 있어요")
        shot(host, "02-host-waiting-1")

        for player in players:
            play_cards(player, ALL_DONT_CARE)
            wait_for(player, EC.url_contains(f"/play/groups/{pin}/wait"))
        # No reload: the host's count and room follow the WebSocket.
        wait_for(host, lambda d: d.find_element(By.ID, "submission-count").text == "3")
        wait_for(host, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#room-list .room-member.answered")) == 3)
        assert "골랐어요" in host.find_element(By.ID, "room-list").text
        assert not players[0].find_elements(By.ID, "close-game")          # only the host can close
        shot(host, "03-host-waiting-3")
        shot(players[0], "02-member-waiting")

        click(host, "#close-game")
        wait_for(host, EC.url_contains(f"/play/groups/{pin}/result"))
        wait_for(host, lambda d: d.find_element(By.ID, "result-name").text != "")
        winner = host.find_element(By.ID, "result-name").text
        assert host.find_element(By.ID, "result-players").text == "3명이 함께 골랐어요"
        shot(host, "04-host-result")

        # The members are taken to the same results without reloading.
        for index, player in enumerate(players):
            wait_for(player, EC.url_contains(f"/play/groups/{pin}/result"))
            wait_for(player, lambda d: d.find_element(By.ID, "result-name").text == winner)
            assert player.find_element(By.ID, "result-players").text == "3명이 함께 골랐어요"
            shot(player, "03-result")
    finally:
        for player in players:
            player.quit()


def test_reload_and_reopen_in_waiting_room_then_restart(server, browser):
    onboard(browser, server)
    host = make_browser()
    host.test_name = browser.test_name + "-host"
    try:
        onboard(host, server)
        host.get(server.url + "/play/together")
        click(host, "#create-group")
        wait_for(host, EC.url_matches(r"/play/groups/[1-9][0-9]{5}$"))
        pin = host.find_element(By.ID, "pin-value").text
    finally:
        host.quit()

    browser.get(server.url + f"/play/groups/{pin}/game")
    play_cards(browser, ALL_DONT_CARE)
    wait_for(browser, EC.url_contains(f"/play/groups/{pin}/wait"))
    wait_for(browser, lambda d: d.find_element(By.ID, "submission-count").text == "1")

    browser.refresh()
    assert browser.current_url.endswith(f"/play/groups/{pin}/wait")
    wait_for(browser, lambda d: d.find_element(By.ID, "submission-count").text == "1")
    assert not browser.find_elements(By.ID, "close-game")
    shot(browser, "01-after-reload")

    # Reopening the browser later lands on home, which returns to the waiting room.
    browser.get(server.url + "/play")
    wait_for(browser, EC.url_contains(f"/play/groups/{pin}/wait"))
    browser.get(server.url + "/play/together")
    wait_for(browser, EC.url_contains(f"/play/groups/{pin}/wait"))

    # "Restart" withdraws the answers and goes back to the together tab.
    click(browser, "#restart-game")
    wait_for(browser, lambda d: d.current_url.endswith("/play/together"))
    browser.get(server.url + f"/play/groups/{pin}/wait")
    wait_for(browser, lambda d: d.find_element(By.ID, "submission-count").text == "0")
    shot(browser, "02-after-restart")


def test_wrong_pin_shows_an_inline_error(server, browser):
    onboard(browser, server)
    browser.get(server.url + "/play/together")
    fill(browser, "pin", "012345")
    click(browser, "#join-group")
    error = visible(browser, "#pin-error")
    assert "6자리" in error.text
    fill(browser, "pin", "999999")
    click(browser, "#join-group")
    wait_for(browser, lambda d: "그런 PIN의 모임이 없어요" in d.find_element(By.ID, "pin-error").text)
    assert browser.current_url.endswith("/play/together")
    assert browser.find_element(By.ID, "pin").get_attribute("value") == "999999"
    assert browser.find_element(By.ID, "pin").get_attribute("aria-invalid") == "true"
    shot(browser, "01-wrong-pin")

    # The shared link of a group that does not exist lands on the same error.
    browser.get(server.url + "/join/999999")
    wait_for(browser, EC.url_contains("/play/together"))
    assert "그런 PIN의 모임이 없어요" in visible(browser, "#pin-error").text


def test_language_switch(server, browser):
    onboard(browser, server)
    browser.find_element(By.CSS_SELECTOR, ".language-switch button[value=en]").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "random-question").text.startswith("How about"))
    tabs = [tab.text for tab in browser.find_elements(By.CSS_SELECTOR, ".tab-label")]
    assert tabs == ["Home", "Eat alone", "Eat together"]
    shot(browser, "01-english-home")
    browser.get(server.url + "/play/solo/game")
    assert browser.find_element(By.CSS_SELECTOR, ".game-card.pos-0 h2").text == "Need a hangover cure?"
    browser.find_element(By.CSS_SELECTOR, ".language-switch button[value=ja]").click()
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".game-card.pos-0 h2").text == "二日酔いを治したい？")
    shot(browser, "02-japanese-game")


def test_network_trouble_then_retry_without_reload(server, browser):
    onboard(browser, server)
    question = visible(browser, "#random-question").text
    browser.execute_script("window.__sameDocument = true;")
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    click(browser, "#another-menu")
    dialog = visible(browser, "#network-error")
    assert "네트워크" in dialog.text
    shot(browser, "01-network-error")

    browser.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    click(browser, "#network-retry")
    wait_for(browser, EC.invisibility_of_element_located((By.ID, "network-error")))
    wait_for(browser, lambda d: d.find_element(By.ID, "random-question").text != question)
    assert browser.execute_script("return window.__sameDocument === true")   # recovered in place
    shot(browser, "02-recovered")


class KakaoStandIn:
    """Kakao Local's keyword search as its documentation writes the answer: for any query, two
    restaurants named after it near where it was asked (300 m north and 1.5 km east), for a key."""

    KEY = "e2ekakaokey0123"

    def __init__(self):
        import http.server
        import json
        import threading
        import urllib.parse

        stand_in = self
        self.asked = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path != "/v2/local/search/keyword.json" or self.headers.get("Authorization") != f"KakaoAK {KakaoStandIn.KEY}":
                    self.send_response(401)
                    self.end_headers()
                    return
                stand_in.asked.append(query)
                x, y, name = float(query["x"]), float(query["y"]), query["query"]
                documents = [
                    {"id": "9001", "place_name": f"{name} 명가", "category_name": "음식점 > 한식", "phone": "02-123-4567",
                     "address_name": "서울 중구 태평로1가 31", "road_address_name": "서울 중구 세종대로 110",
                     "x": str(x), "y": str(y + 0.0027), "place_url": "http://place.map.kakao.com/9001", "distance": "300"},
                    {"id": "9002", "place_name": f"동쪽 {name}", "category_name": "음식점", "phone": "",
                     "address_name": "서울 중구 을지로 2", "road_address_name": "", "x": str(x + 0.017), "y": str(y),
                     "place_url": "http://place.map.kakao.com/9002", "distance": "1500"},
                ]
                body = json.dumps({"meta": {"total_count": 2, "pageable_count": 2, "is_end": True}, "documents": documents}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json;charset=UTF-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def test_places_to_eat_the_result_near_the_person(browser):
    """Issue 60: the result lists restaurants near the person, found by the menu's name, nearest
    first with their distances in the page's language; asked at once when the browser already may
    tell where it is."""
    from conftest import Server, allow_location

    kakao = KakaoStandIn()
    server = Server(KAKAO_REST_API_KEY=KakaoStandIn.KEY, KAKAO_API_URL=kakao.url)
    server.start()
    try:
        allow_location(browser, server, 37.5665, 126.9780)
        onboard(browser, server)
        browser.get(server.url + "/play/solo/game")
        play_cards(browser, ALL_DONT_CARE)
        wait_for(browser, EC.url_contains("/play/result"))
        wait_for(browser, lambda d: d.find_element(By.ID, "result-name").text != "")
        menu = browser.find_element(By.ID, "result-name").text
        items = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#nearby-places li") or False, timeout=15)
        assert len(items) == 2
        names = [item.find_element(By.CSS_SELECTOR, ".nearby-place-name").text for item in items]
        distances = [item.find_element(By.CSS_SELECTOR, ".nearby-place-distance").text for item in items]
        assert names[0].endswith("명가") and names[1].startswith("동쪽"), names
        assert distances[0].endswith("m") and "km" in distances[1], distances
        assert items[0].find_element(By.CSS_SELECTOR, ".nearby-place-name").get_attribute("href") == "http://place.map.kakao.com/9001"
        assert items[0].find_element(By.CSS_SELECTOR, ".nearby-place-phone").get_attribute("href") == "tel:021234567"
        assert not browser.find_element(By.ID, "nearby-locate").is_displayed(), "the position was known: no button to ask"
        # Their pins on a map above the list, numbered as the list is, and the person's position.
        pins = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#nearby-map .nearby-pin") or False)
        assert [p.text for p in pins] == ["1", "2"]
        assert [item.get_attribute("data-pin") for item in items] == ["1", "2"]
        assert kakao.asked and kakao.asked[0]["category_group_code"] == "FD6"
        assert no_horizontal_overflow(browser)
        browser.execute_script("document.getElementById('nearby-places-section').scrollIntoView()")
        shot(browser, "nearby-01-places-near-the-result")

        # The next rank lists its own menu's places.
        browser.execute_script("document.getElementById('next-rank').scrollIntoView({block: 'center'})")
        click(browser, "#next-rank")
        wait_for(browser, lambda d: d.find_element(By.ID, "result-name").text != menu)
        second = browser.find_element(By.ID, "result-name").text
        wait_for(browser, lambda d: any(second.split()[0] in e.text for e in d.find_elements(By.CSS_SELECTOR, "#nearby-places .nearby-place-name")))

        # A shared menu's page lists them too, searched by the Korean name.
        browser.get(server.url + "/play/menus/kimchi-jjigae")
        shared = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#nearby-places .nearby-place-name") or False, timeout=15)
        assert shared[0].text == "김치찌개 명가"
        assert browser.find_element(By.ID, "nearby-kakao").get_attribute("href").endswith(
            "/link/search/%EA%B9%80%EC%B9%98%EC%B0%8C%EA%B0%9C")
        assert no_horizontal_overflow(browser)
        browser.execute_script("document.getElementById('nearby-places-section').scrollIntoView()")
        shot(browser, "nearby-02-a-shared-menu")
    finally:
        server.cleanup()
        kakao.stop()
