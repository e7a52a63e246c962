"""The burger map (LookForRealBurger) as two people use it: one registers a place and writes a
review with two photos, it shows on the map and in the feed; the other likes, comments and
follows, and the first sees it all arrive in the inbox without reloading. Also: a zoomed-out map
shows clusters, bad input shows inline errors, and without Leaflet the map page is a list."""
import json
import math
import pathlib
import struct
import tempfile
import time
import urllib.request
import zlib

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import allow_location, click, sign_up, fill, make_browser, no_horizontal_overflow, shot, wait_for

# Near Seoul City Hall, where the map opens, but away from the seeded places' exact spots.
PLACE = {"name": "을지로 수제버거 연구소", "address": "서울 중구 을지로 12", "lat": 37.5668, "lon": 126.9829}


def png_file(width, height, colour):
    """A real PNG of one colour (large, so the page has to shrink it before upload)."""
    raw = b"".join(b"\x00" + bytes(colour) * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
    path = pathlib.Path(tempfile.mkdtemp(prefix="burger-photo-")) / f"photo-{width}x{height}.png"
    path.write_bytes(data)
    return str(path)


def api(server, method, path, body=None, token=None):
    request = urllib.request.Request(server.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")






def text_of(driver, selector):
    return driver.find_element(By.CSS_SELECTOR, selector).text.strip()




def test_two_people_review_like_comment_follow_and_the_inbox_updates_live(server, browser):
    writer = browser
    reader = make_browser()
    reader.test_name = f"{writer.test_name}-reader"
    try:
        sign_up(writer, server, "을지로미나")
        sign_up(reader, server, "치즈준호")

        # The writer registers a new place and reviews it with two photos.
        writer.get(server.url + "/map/write")
        fill(writer, "place-search", "을지로 수제")
        wait_for(writer, lambda d: "없" in d.find_element(By.ID, "place-results").text
                 or not d.find_elements(By.CSS_SELECTOR, "#place-results .place-option"))
        click(writer, "#new-place-toggle")
        fill(writer, "new-place-name", PLACE["name"])
        fill(writer, "new-place-address", PLACE["address"])
        allow_location(writer, server, PLACE["lat"], PLACE["lon"])
        click(writer, "#use-location")
        wait_for(writer, lambda d: d.find_element(By.ID, "new-place-lat").get_attribute("value") != "")
        click(writer, "label[for=rating-5]")
        fill(writer, "review-title", "육즙 폭발 더블패티")
        review_text = "번이 부드럽고 패티가 두툼해요. 감자튀김도 바삭!"
        fill(writer, "review-text", review_text)
        assert text_of(writer, "#text-counter") == f"{len(review_text)} / 2,000"
        photos = [png_file(2400, 1800, (200, 120, 40)), png_file(1200, 2600, (60, 140, 60))]
        writer.find_element(By.ID, "photo-input").send_keys("\n".join(photos))
        wait_for(writer, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#photo-previews .photo-preview img")) == 2, timeout=20)
        assert no_horizontal_overflow(writer)
        shot(writer, "01-write-filled")
        # A double tap on "post" posts once.
        post = writer.find_element(By.ID, "post-review")
        writer.execute_script("arguments[0].click(); arguments[0].click();", post)
        wait_for(writer, EC.url_contains("/map/reviews/"), timeout=30)
        assert writer.current_url.endswith("?posted=1")
        review_url = writer.current_url.split("?")[0]
        review_id = review_url.rsplit("/", 1)[1]
        assert text_of(writer, "#review-title") == "육즙 폭발 더블패티"
        assert "리뷰를 올렸어요" in text_of(writer, "#review-posted"), "the writer is told it is up"
        assert len(writer.find_elements(By.CSS_SELECTOR, "#review-photos img")) == 2
        widths = writer.execute_script(
            "return [...document.querySelectorAll('#review-photos img')].map(i => i.naturalWidth || Number(i.getAttribute('width')))")
        assert all(0 < w <= 1600 for w in widths), widths
        shot(writer, "02-review-posted")
        mine = api(server, "GET", "/api/v1/burger-map/reviews?limit=100")
        assert sum(1 for r in mine["items"] if r["title"] == "육즙 폭발 더블패티") == 1, "one review for a double tap"

        # It is a pin on the map (the map opens around City Hall) and first in everyone's feed.
        writer.get(server.url + "/map")
        wait_for(writer, lambda d: d.find_elements(By.CSS_SELECTOR, f".burger-pin[aria-label='{PLACE['name']}']"), timeout=15)
        pin = writer.find_element(By.CSS_SELECTOR, f".burger-pin[aria-label='{PLACE['name']}']")
        writer.execute_script("arguments[0].click()", pin)
        sheet = wait_for(writer, EC.visibility_of_element_located((By.ID, "place-sheet")))
        assert PLACE["name"] in sheet.text
        shot(writer, "03-map-pin-sheet")
        writer.get(server.url + "/map/feed")
        wait_for(writer, lambda d: d.find_elements(By.CSS_SELECTOR, "#feed-list .review-card"))
        assert "육즙 폭발 더블패티" in writer.find_elements(By.CSS_SELECTOR, "#feed-list .review-card")[0].text
        shot(writer, "04-feed-everyone")

        # The writer watches the inbox while the reader likes, comments and follows.
        writer.get(server.url + "/notifications")
        assert writer.find_elements(By.CSS_SELECTOR, "#notification-list .notification") == []

        reader.get(review_url)
        like = click(reader, "#like-button")
        wait_for(reader, lambda d: d.find_element(By.ID, "like-button").get_attribute("aria-pressed") == "true")
        wait_for(reader, lambda d: d.find_element(By.CSS_SELECTOR, "#like-button .count").text == "1")
        fill(reader, "comment-text", "저도 가 볼게요! 🍔")
        assert "/ 500" in text_of(reader, "#comment-counter")
        click(reader, "#comment-form button[type=submit]")
        wait_for(reader, lambda d: "저도 가 볼게요!" in d.find_element(By.ID, "comments").text)
        shot(reader, "05-liked-and-commented")
        click(reader, "#review-author")
        wait_for(reader, EC.url_contains("/map/users/"))
        click(reader, "#follow-button")
        wait_for(reader, lambda d: d.find_element(By.ID, "follow-button").get_attribute("aria-pressed") == "true")
        wait_for(reader, lambda d: d.find_element(By.ID, "follower-count").text == "1")
        shot(reader, "06-followed")
        reader.get(server.url + "/map/feed?tab=following")
        wait_for(reader, lambda d: d.find_elements(By.CSS_SELECTOR, "#feed-list .review-card"))
        assert "육즙 폭발 더블패티" in text_of(reader, "#feed-list .review-card")
        shot(reader, "07-feed-following")

        # Without reloading, the writer's inbox shows the like, the comment and the follow.
        wait_for(writer, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#notification-list .notification")) == 3, timeout=15)
        inbox = writer.find_element(By.ID, "notification-list").text
        assert "치즈준호" in inbox
        assert "저도 가 볼게요!" in inbox
        # Each entry names its service and says when, as people say it.
        services = {e.text for e in writer.find_elements(By.CSS_SELECTOR, "#notification-list .notification-service")}
        assert services == {"진짜 버거 지도"}, services
        times = [e.text for e in writer.find_elements(By.CSS_SELECTOR, "#notification-list .notification time")]
        assert times and all(t == "지금" or t.endswith("분 전") for t in times), times
        assert no_horizontal_overflow(writer)
        shot(writer, "08-inbox-live")

        # Elsewhere, the bell counts what arrives while the page is open.
        writer.get(server.url + "/map/feed")
        assert not writer.find_element(By.ID, "inbox-count").is_displayed()
        reader.get(review_url)
        fill(reader, "comment-text", "두 번째 댓글")
        click(reader, "#comment-form button[type=submit]")
        wait_for(writer, lambda d: d.find_element(By.ID, "inbox-count").text == "1", timeout=15)
        # Screen readers hear it: the bell's label is said in its status region.
        assert writer.find_element(By.ID, "inbox-announce").get_attribute("role") == "status"
        assert writer.find_element(By.ID, "inbox-announce").get_attribute("textContent") == "알림 1개 안 읽음"
        shot(writer, "09-bell")
    finally:
        reader.quit()


def test_zoomed_out_map_shows_clusters_and_a_pin_opens_its_sheet(server, browser):
    # 240 more places around Seoul, so a city-wide box holds more than a map shows as pins.
    token = api(server, "POST", "/api/v1/auth/signup",
                {"email": "bulk@example.com", "password": "password1", "nickname": "대량등록"})["accessToken"]
    for index in range(240):
        angle = index * 2.399963
        radius = 0.01 + 0.12 * math.sqrt(index / 240)
        api(server, "POST", "/api/v1/burger-map/places", {
            "name": f"동네버거 {index + 1}호점", "address": f"서울 어딘가 {index + 1}",
            "lat": 37.55 + radius * math.sin(angle), "lon": 126.99 + radius * math.cos(angle) * 1.26,
        }, token)
    browser.get(server.url + "/map")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".burger-pin, .cluster-bubble"), timeout=15)
    # Zoom out a step at a time (Leaflet ignores a zoom asked for while one is animating) until the
    # box holds more than the API shows as pins.
    for _ in range(4):
        wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, ".leaflet-zoom-anim"))
        browser.find_element(By.CSS_SELECTOR, ".leaflet-control-zoom-out").click()
        try:
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".cluster-bubble"), timeout=3)
            break
        except TimeoutException:
            continue
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".cluster-bubble"), timeout=10)
    counts = [int("".join(ch for ch in b.text if ch.isdigit()) or 0) for b in browser.find_elements(By.CSS_SELECTOR, ".cluster-bubble")]
    assert sum(counts) > 200, counts
    assert no_horizontal_overflow(browser)
    shot(browser, "01-clusters")

    # Tapping a bubble zooms in.
    bubble = browser.find_elements(By.CSS_SELECTOR, ".cluster-bubble")[0]
    browser.execute_script("arguments[0].click()", bubble)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".burger-pin") or len(d.find_elements(By.CSS_SELECTOR, ".cluster-bubble")) != len(counts), timeout=15)
    shot(browser, "02-zoomed-in")


def test_bad_review_input_shows_inline_errors_and_posts_nothing(server, browser):
    sign_up(browser, server, "꼼꼼이")
    browser.get(server.url + "/map/write")
    click(browser, "#post-review")
    for field in ("place", "rating", "title", "photos"):
        wait_for(browser, lambda d, f=field: d.find_element(By.ID, f"error-{f}").text.strip() != "")
    assert browser.switch_to.active_element.get_attribute("id") in ("place-search", "new-place-name")
    shot(browser, "01-empty-form")

    # A new place without a position, and a title that is only spaces.
    click(browser, "#new-place-toggle")
    fill(browser, "new-place-name", "이름만 있는 가게")
    fill(browser, "new-place-address", "주소")
    fill(browser, "review-title", "   ")
    click(browser, "#post-review")
    wait_for(browser, lambda d: d.find_element(By.ID, "error-place").text.strip() != "")
    assert browser.find_element(By.ID, "error-title").text.strip() != ""
    assert browser.find_element(By.ID, "review-title").get_attribute("aria-invalid") == "true"
    assert no_horizontal_overflow(browser)
    shot(browser, "02-still-wrong")
    assert api(server, "GET", "/api/v1/burger-map/places/search?q=" + urllib.request.quote("이름만 있는"))["items"] == []
    assert EC.url_contains("/map/write")(browser)


def test_without_leaflet_the_map_is_a_list_by_distance(server_without_leaflet, browser):
    server = server_without_leaflet
    browser.get(server.url + "/map")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#place-list .place-row")) > 5, timeout=15)
    assert browser.find_element(By.ID, "place-list").is_displayed()
    labels = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#place-list .place-row .place-distance")]
    assert len(labels) == len(browser.find_elements(By.CSS_SELECTOR, "#place-list .place-row")), "every row says how far"

    def meters(label):
        number = float("".join(ch for ch in label if ch.isdigit() or ch == ".").strip("."))
        return number * 1000 if "km" in label else number

    distances = [meters(label) for label in labels]
    assert distances == sorted(distances), labels
    assert no_horizontal_overflow(browser)
    shot(browser, "01-list-mode")

    # The menu game's "find restaurants nearby" lands here searched.
    browser.get(server.url + "/map?q=" + urllib.request.quote("치즈"))
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#place-list .place-row")
             or "없" in d.find_element(By.ID, "map-status").text, timeout=15)
    assert browser.find_element(By.ID, "map-q").get_attribute("value") == "치즈"
    shot(browser, "02-list-searched")


def test_back_from_a_review_returns_to_the_same_place_in_the_feed(server, browser):
    """Issue 42: the feed keeps the reviews shown and the scroll when a review is opened, and Back
    draws them again where the reader was instead of starting from the top. This Chromium keeps
    no page in its back-forward cache, as many phones' browsers do not for a `no-store` page: the
    page loads again and must restore itself."""
    browser.quit()
    browser = make_browser("--disable-features=BackForwardCache")
    browser.test_name = "test_back_from_a_review_returns_to_the_same_place_in_the_feed"
    try:
        feed_back_and_forth(server, browser)
    finally:
        browser.quit()


def feed_back_and_forth(server, browser):
    browser.get(server.url + "/map/feed")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#feed-list > *")) >= 20)
    # Scroll to the end three times: four pages come in (deeper than a browser's own scroll
    # restoration reaches on a page that loads its list after it opens).
    for pages in (2, 3, 4):
        browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#feed-list > *")) >= 20 * pages, timeout=15)
    cards = browser.find_elements(By.CSS_SELECTOR, "#feed-list > *")
    shown = len(cards)
    target = cards[70]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
    time.sleep(0.3)
    scrolled = browser.execute_script("return window.scrollY")
    assert scrolled > 1000, scrolled
    title = target.find_element(By.CSS_SELECTOR, "h2 a")
    heading = title.text
    title.click()
    wait_for(browser, EC.url_contains("/map/reviews/"))
    browser.back()
    wait_for(browser, EC.url_contains("/map/feed"))
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#feed-list > *")) == shown)
    wait_for(browser, lambda d: abs(d.execute_script("return window.scrollY") - scrolled) < 80, timeout=5)
    assert heading in browser.find_elements(By.CSS_SELECTOR, "#feed-list > *")[70].text
    shot(browser, "01-back-where-i-was")
    # A fresh visit starts from the top.
    browser.get(server.url + "/map/feed")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#feed-list > *")) >= 20)
    assert browser.execute_script("return window.scrollY") < 50


def test_a_search_that_finds_nothing_says_so_and_offers_ways_on(server, browser):
    """The UX review: `/map?q=마라탕` said "“마라탕”와 맞는 버거집이 없어요" (a particle after the quote
    mark) and stopped there. It now reads right and leads on: to every burger place, or to the
    same words in 카카오맵, which has every kind of restaurant."""
    browser.get(server.url + "/map?q=" + urllib.request.quote("마라탕"))
    status = wait_for(browser, lambda d: d.find_element(By.ID, "map-status") if "마라탕" in d.find_element(By.ID, "map-status").text else None,
                      timeout=15)
    assert "“마라탕”에 맞는 버거집이 없어요." in status.text, status.text
    kakao = browser.find_element(By.ID, "map-search-kakao")
    assert kakao.get_attribute("href") == "https://map.kakao.com/link/search/" + urllib.request.quote("마라탕")
    assert kakao.text == "카카오맵에서 “마라탕” 찾기"
    shot(browser, "00-nothing-found")
    # The line may be said again while the map settles: the link is looked up when it is clicked.
    wait_for(browser, lambda d: d.execute_script("const a = document.getElementById('map-clear-search'); if (a) a.click(); return !!a"))
    wait_for(browser, lambda d: d.current_url.rstrip("/").endswith("/map"))
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".burger-pin, .cluster-bubble"), timeout=15)


def test_a_new_place_is_found_by_its_address_and_its_pin_confirmed(browser):
    """Issue 61: a new place takes an address (우편번호 찾기, the postcode service's stand-in) and
    shows its pin where Kakao's address search (a stand-in) puts it, to confirm; the 위도/경도
    numbers are not shown; the review posts with the place at that point."""
    import http.server
    import json
    import threading
    import urllib.parse

    import functools

    from conftest import ROOT, Server

    class KakaoAddresses(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            query = dict(urllib.parse.parse_qsl(url.query)).get("query", "")
            if url.path != "/v2/local/search/address.json" or self.headers.get("Authorization") != "KakaoAK e2ekakaokey0123":
                self.send_response(401)
                self.end_headers()
                return
            documents = [{"address_name": "서울 중구 태평로1가 31", "x": "126.977900", "y": "37.566300",
                          "road_address": {"address_name": "서울 중구 세종대로 110"}}] if "세종대로 110" in query else []
            body = json.dumps({"meta": {"total_count": len(documents)}, "documents": documents}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json;charset=UTF-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    kakao = http.server.ThreadingHTTPServer(("127.0.0.1", 0), KakaoAddresses)
    threading.Thread(target=kakao.serve_forever, daemon=True).start()
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    stubs = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(ROOT / "Tests" / "e2e" / "stubs")))
    threading.Thread(target=stubs.serve_forever, daemon=True).start()
    server = Server(KAKAO_REST_API_KEY="e2ekakaokey0123", KAKAO_API_URL=f"http://127.0.0.1:{kakao.server_address[1]}",
                    POSTCODE_SCRIPT_URL=f"http://127.0.0.1:{stubs.server_address[1]}/postcode.js")
    server.start()
    try:
        sign_up(browser, server, "주소로등록")
        browser.get(server.url + "/map/write")
        click(browser, "#new-place-toggle")
        fill(browser, "new-place-name", "시청 앞 버거")
        assert not browser.find_element(By.ID, "new-place-lat").is_displayed(), "no 위도/경도 to read or type with a map"
        click(browser, "#postcode-open")
        query = wait_for(browser, lambda d: d.find_element(By.ID, "stub-postcode-query"))
        query.send_keys("세종대로")
        click(browser, "#stub-postcode-results button")
        wait_for(browser, lambda d: d.find_element(By.ID, "new-place-address").get_attribute("value") == "서울특별시 중구 세종대로 110 (태평로1가)")
        wait_for(browser, lambda d: d.find_element(By.ID, "new-place-lat").get_attribute("value") == "37.566300", timeout=10)
        assert browser.find_element(By.ID, "new-place-lon").get_attribute("value") == "126.977900"
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#new-place-map .position-pin"))
        shot(browser, "00-pin-at-the-address")
        click(browser, "label[for=rating-4]")
        fill(browser, "review-title", "시청 앞에서 먹은 버거")
        browser.find_element(By.ID, "photo-input").send_keys(png_file(1200, 900, (180, 90, 30)))
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#photo-previews .photo-preview img"), timeout=20)
        click(browser, "#post-review")
        wait_for(browser, EC.url_contains("/map/reviews/"), timeout=20)
        found = api(server, "GET", "/api/v1/burger-map/places/search?q=" + urllib.request.quote("시청 앞 버거"))["items"]
        assert found and abs(found[0]["lat"] - 37.5663) < 1e-6 and abs(found[0]["lon"] - 126.9779) < 1e-6, found
    finally:
        server.cleanup()
        kakao.shutdown()
        stubs.shutdown()
