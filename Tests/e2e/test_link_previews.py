"""Link previews as a messenger's crawler sees them (issue 40, item 5): each shared page type has
Open Graph tags, and the picture each names is an absolute PUBLIC_URL address that Pillow decodes
in full as a JPEG or PNG (KakaoTalk draws no SVG). Plain HTTP, no cookies, redirects followed."""
import html
import io
import re
import urllib.request

import pytest
import requests
from PIL import Image

from conftest import Server

CRAWLER = {"User-Agent": "facebookexternalhit/1.1 (kakaotalk-scrap/1.0)", "Accept-Language": "ko"}


@pytest.fixture(scope="module")
def preview_server():
    server = Server()
    server.environment["PUBLIC_URL"] = server.url
    server.start()
    yield server
    server.stop()


def open_graph(url):
    page = requests.get(url, headers=CRAWLER, timeout=20)
    assert page.status_code == 200, url
    head = page.text.split("</head>")[0]
    return {name: html.unescape(content) for name, content in re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"/>', head)}


def assert_raster_card(server, tags):
    image = tags["og:image"]
    assert image.startswith(server.url + "/"), image
    with urllib.request.urlopen(image, timeout=20) as response:
        data = response.read()
        assert response.headers["Content-Type"] in ("image/jpeg", "image/png"), (image, response.headers["Content-Type"])
    picture = Image.open(io.BytesIO(data))
    picture.load()  # decodes every pixel: a truncated or fake file fails here
    assert picture.format in ("JPEG", "PNG")
    if "og:image:width" in tags:
        assert picture.size == (int(tags["og:image:width"]), int(tags["og:image:height"])), (image, picture.size)
    return picture


def test_each_shared_page_shows_a_card_with_a_raster_picture(preview_server):
    server = preview_server
    api = server.url + "/api/v1"
    pin = requests.post(api + "/menu-game/groups", headers={"X-Device-Token": "preview-host-device-01"}, timeout=10).json()["pin"]
    place = requests.get(api + "/burger-map/places?near=37.5,127.0&limit=1", timeout=10).json()["items"][0]["id"]
    review = requests.get(api + "/burger-map/reviews?limit=1", timeout=10).json()["items"][0]["id"]
    pages = {
        "/": "오늘 뭐 먹지?",
        f"/join/{pin}": pin,
        "/play/menus/kimchi-jjigae": "김치찌개",
        f"/map/places/{place}": None,
        f"/map/reviews/{review}": None,
        "/shop/dishes/HU6Z5": "불고기",
    }
    for path, expected in pages.items():
        tags = open_graph(server.url + path)
        for name in ("og:title", "og:description", "og:url", "og:image", "twitter:card"):
            assert tags.get(name), (path, name, tags)
        if expected:
            assert expected in tags["og:title"] + tags["og:description"], (path, tags)
        picture = assert_raster_card(server, tags)
        assert min(picture.size) >= 200, (path, picture.size)
    assert open_graph(server.url + f"/join/{pin}")["og:url"] == f"{server.url}/join/{pin}"
