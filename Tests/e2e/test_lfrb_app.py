"""The LookForRealBurger iOS app against this server, as its network layer calls it (its key, the raw
access token, JSON bodies, `files` parts labelled image/jpg), beside a person in a real browser on
the /map pages: a shop and a photo review written in the app show on the map and its review page;
the person's like and comment there show in the app's post; a review the person writes on the web
is in the app's feed and in the shop's review list."""
import io

import pytest
import requests
from PIL import Image, ImageDraw
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import Server, click, fill, shot, sign_up, wait_for
from test_burger_map import png_file

KEY = "e2e-lslp-key"
SHOPS = "LFRB_BURGER_HOUSE_TEST"
REVIEWS = "LFRB_BURGER_HOUSE_REVIEW_TEST"
SHOP = {"name": "광화문 앱버거", "lon": 126.9769, "lat": 37.5759, "kakao": "27364512"}


def phone_jpeg(seed):
    """A burger photographed by a phone: a real JPEG at the app's quality (0.4) with an EXIF segment
    holding a GPS position, which the server must strip."""
    image = Image.new("RGB", (640, 480), (250, 236, 210))
    draw = ImageDraw.Draw(image)
    draw.ellipse((120, 100, 520, 260), fill=(214, 150, 60))            # the top bun
    draw.rectangle((110, 250, 530, 290), fill=(90 + seed * 40, 160, 60))  # lettuce
    draw.rectangle((120, 285, 520, 340), fill=(110, 60, 30))            # the patty
    draw.rounded_rectangle((120, 335, 520, 400), radius=30, fill=(214, 150, 60))
    output = io.BytesIO()
    image.save(output, "JPEG", quality=40)
    jpeg = output.getvalue()
    exif = b"Exif\x00\x00GPS 37.5759N 126.9769E"
    return jpeg[:2] + bytes([0xFF, 0xE1]) + (len(exif) + 2).to_bytes(2, "big") + exif + jpeg[2:]


class App:
    """One phone running LookForRealBurger, signed in."""

    def __init__(self, server, nick):
        self.url = server.url
        self.headers = {"SesacKey": KEY}
        email = f"{nick.encode().hex()[:12]}@example.com"
        joined = requests.post(self.url + "/v1/validation/email", json={"email": email}, headers=self.headers, timeout=10)
        assert joined.status_code == 200, joined.text
        assert requests.post(self.url + "/v1/users/join", json={"email": email, "password": "burger-pass-1", "nick": nick},
                             headers=self.headers, timeout=10).status_code == 200
        login = requests.post(self.url + "/v1/users/login", json={"email": email, "password": "burger-pass-1"}, headers=self.headers, timeout=10)
        assert login.status_code == 200, login.text
        self.user_id = login.json()["user_id"]
        self.headers["Authorization"] = login.json()["accessToken"]

    def call(self, method, path, body=None, status=200):
        response = requests.request(method, self.url + path, json=body, headers=self.headers, timeout=10)
        assert response.status_code == status, f"{method} {path}: {response.status_code} {response.text}"
        return response.json() if response.content else None


@pytest.fixture
def lslp_server():
    instance = Server(LSLP_API_KEYS=KEY)
    instance.start()
    yield instance
    instance.cleanup()


def test_the_app_and_a_browser_share_one_map(lslp_server, browser):
    server = lslp_server
    app = App(server, "앱버거러")

    # The app's write flow (§5): look the Kakao place up among all shops, make it, upload, write, link.
    shops = app.call("GET", f"/v1/posts?limit=10000&product_id={SHOPS}")
    assert shops["next_cursor"] == "0" and not any(s["content5"] == SHOP["kakao"] for s in shops["data"])
    shop = app.call("POST", "/v1/posts", {"title": SHOP["name"], "content": "#" + SHOP["name"], "content1": str(SHOP["lon"]),
                                          "content2": str(SHOP["lat"]), "content3": "서울 종로구 세종대로 172", "content4": "02-720-0000",
                                          "content5": SHOP["kakao"], "product_id": SHOPS})
    files = [("files", (f"LFRB_{index}.jpg", phone_jpeg(index), "image/jpg")) for index in range(2)]
    uploaded = requests.post(server.url + "/v1/posts/files", files=files, headers=app.headers, timeout=10)
    assert uploaded.status_code == 200, uploaded.text
    paths = uploaded.json()["files"]
    review = app.call("POST", "/v1/posts", {"title": "앱에서 쓴 치즈버거", "price": 4, "content": "치즈가 흘러요 #치즈버거",
                                            "content1": shop["post_id"], "product_id": REVIEWS, "files": paths})
    app.call("POST", f"/v1/posts/{shop['post_id']}/comments", {"content": review["post_id"]})
    image = requests.get(server.url + "/v1/" + paths[0], headers=app.headers, timeout=10)
    assert image.status_code == 200 and image.headers["Content-Type"] == "image/jpeg"
    assert b"GPS" not in image.content

    # A person on the web finds it in everyone's feed, opens it, likes and comments.
    sign_up(browser, server, "웹버거러")
    browser.get(server.url + "/map/feed")
    wait_for(browser, lambda d: "앱에서 쓴 치즈버거" in d.find_element(By.ID, "feed-list").text, timeout=15)
    shot(browser, "01-feed-with-the-apps-review")
    web_reviews = requests.get(server.url + "/api/v1/burger-map/reviews?limit=100", timeout=10).json()["items"]
    web_review = next(r for r in web_reviews if r["title"] == "앱에서 쓴 치즈버거")
    assert web_review["place"]["name"] == SHOP["name"] and web_review["rating"] == 4 and len(web_review["photos"]) == 2
    browser.get(server.url + f"/map/reviews/{web_review['id']}")
    wait_for(browser, lambda d: d.find_element(By.ID, "review-title").text.strip() == "앱에서 쓴 치즈버거")
    wait_for(browser, lambda d: d.execute_script(
        "return [...document.querySelectorAll('#review-photos img')].filter(i => i.complete && i.naturalWidth > 0).length") >= 1)
    click(browser, "#like-button")
    wait_for(browser, lambda d: d.find_element(By.ID, "like-button").get_attribute("aria-pressed") == "true")
    fill(browser, "comment-text", "웹에서 봤어요!")
    click(browser, "#comment-form button[type=submit]")
    wait_for(browser, lambda d: "웹에서 봤어요!" in d.find_element(By.ID, "comments").text)
    shot(browser, "02-liked-and-commented-on-the-web")

    # The app's detail screen sees the like and the comment; the shop is on the web's map.
    post = app.call("GET", f"/v1/posts/{review['post_id']}")
    assert len(post["likes"]) == 1 and post["likes"] != [app.user_id]
    assert [c["content"] for c in post["comments"]] == ["웹에서 봤어요!"]
    assert post["comments"][0]["creator"]["nick"] == "웹버거러"
    browser.get(server.url + f"/map/places/{web_review['place']['id']}")
    wait_for(browser, lambda d: "앱에서 쓴 치즈버거" in d.find_element(By.TAG_NAME, "main").text, timeout=15)
    shot(browser, "03-the-apps-shop-on-the-web")

    # The person writes a review of the same place on the web; the app's feed and its shop sheet show it.
    browser.get(server.url + f"/map/write?place={web_review['place']['id']}")
    click(browser, "label[for=rating-2]")
    fill(browser, "review-title", "웹에서 쓴 리뷰")
    fill(browser, "review-text", "저는 보통이었어요.")
    browser.find_element(By.ID, "photo-input").send_keys(png_file(800, 600, (180, 90, 30)))
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#photo-previews .photo-preview img")) == 1, timeout=20)
    click(browser, "#post-review")
    wait_for(browser, EC.url_contains("/map/reviews/"), timeout=30)
    feed = app.call("GET", f"/v1/posts?limit=21&product_id={REVIEWS}")
    assert feed["data"][0]["title"] == "웹에서 쓴 리뷰" and feed["data"][0]["price"] == 2
    assert feed["data"][0]["content1"] == shop["post_id"]
    sheet = app.call("GET", f"/v1/posts/{shop['post_id']}")
    assert [c["content"] for c in sheet["comments"]] == [feed["data"][0]["post_id"], review["post_id"]]
    shot(browser, "04-the-webs-review-posted")
