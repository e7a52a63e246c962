#!/usr/bin/env python3
"""Validate the burger map seed catalog (burger_places.json).

Usage: python3 check_burger_places.py [path/to/burger_places.json]

Stops at the first problem with a message on stderr and exit status 1.
On success prints a one-line summary (places per city, reviews, closest pair).
Standard library only. Lengths are counted in characters (code points), not bytes.
"""
import json
import math
import os
import re
import sys
import unicodedata

PLACE_KEYS = ["key", "name", "address", "lat", "lon", "phone", "emoji", "color", "reviews"]
REVIEW_KEYS = ["author", "title", "rating", "text", "daysAgo", "photos"]

# City (first word of the address) -> key prefix, phone area code, districts, coordinate boxes.
# A box is (min_lat, max_lat, min_lon, max_lon); a district not listed in `boxes` uses "*".
CITIES = {
    "서울": {
        "slug": "seoul", "area": "02",
        "districts": {
            "종로구", "중구", "용산구", "성동구", "광진구", "동대문구", "중랑구", "성북구", "강북구", "도봉구",
            "노원구", "은평구", "서대문구", "마포구", "양천구", "강서구", "구로구", "금천구", "영등포구",
            "동작구", "관악구", "서초구", "강남구", "송파구", "강동구",
        },
        "boxes": {"*": (37.48, 37.60, 126.88, 127.12)},
    },
    "부산": {
        "slug": "busan", "area": "051",
        "districts": {
            "중구", "서구", "동구", "영도구", "부산진구", "동래구", "남구", "북구", "해운대구", "사하구",
            "금정구", "강서구", "연제구", "수영구", "사상구", "기장군",
        },
        "boxes": {"*": (35.08, 35.20, 128.98, 129.18)},
    },
    "제주": {
        "slug": "jeju", "area": "064",
        "districts": {"제주시", "서귀포시"},
        "boxes": {"제주시": (33.48, 33.52, 126.45, 126.56), "서귀포시": (33.24, 33.26, 126.40, 126.60)},
    },
    "대구": {
        "slug": "daegu", "area": "053",
        "districts": {"중구", "동구", "서구", "남구", "북구", "수성구", "달서구", "달성군", "군위군"},
        "boxes": {"*": (35.84, 35.89, 128.55, 128.64)},
    },
}
REQUIRED_CITIES = ("서울", "부산")
THIRD_CITIES = ("제주", "대구")
MIN_PER_CITY = 10
MIN_TOTAL = 60

AUTHORS = [
    "버거탐험가", "치즈러버", "패티장인", "감튀요정", "주말미식가", "햄버거일기",
    "제주버거여행", "부산먹방러", "스매시덕후", "비건한입", "야식마스터", "번덕후",
]
MIN_REVIEWS_PER_AUTHOR = 5
EMOJIS = ["🍔", "🍟", "🧀", "🥓", "🌶️", "🥑", "🍳", "🥩", "🌱", "🔥", "🍺", "🥤"]
# Real chains (and a few well-known real shops): the catalog invents its places.
BANNED_NAMES = [
    "맥도날드", "mcdonald", "버거킹", "burger king", "burgerking", "쉐이크쉑", "쉑쉑", "shake shack",
    "맘스터치", "mom's touch", "롯데리아", "lotteria", "파이브가이즈", "five guys", "kfc", "케이에프씨",
    "노브랜드", "no brand", "프랭크버거", "모스버거", "mos burger", "버거비", "크라이치즈버거",
    "다운타우너", "슈퍼두퍼", "super duper", "고든램지", "gordon ramsay", "인앤아웃", "in-n-out",
    "서브웨이", "subway", "써브웨이",
]
# Words the place search is tested with; each must appear in at least this many names.
SEARCH_WORDS = {"수제": 2, "스매시": 2, "비건": 2}
MIN_CHEESE_INSIDE_WORD = 3  # names with 치즈 inside a longer word (더블치즈버거)

KEY_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
ADDRESS_RE = re.compile(r"^(\S+) (\S+(?:구|군|시)) ([가-힣0-9]+(?:로|길)) (\d+)(-\d+)?$")
COLOR_RE = re.compile(r"^#[0-9A-F]{6}$")
HANGUL_RE = re.compile(r"[가-힣]")
SENTENCE_RE = re.compile(r"[^.!?]+[.!?]+")

MIN_DISTANCE_M = 60.0
EARTH_RADIUS_M = 6371008.8

path = ""


def fail(message, index=None, place=None, review=None):
    where = ""
    if index is not None:
        where = "place #%d" % (index + 1)
        if isinstance(place, dict) and isinstance(place.get("key"), str):
            where += " (%s)" % place["key"]
        if review is not None:
            where += " review #%d" % (review + 1)
        where += ": "
    sys.stderr.write("%s: %s%s\n" % (path, where, message))
    sys.exit(1)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def text_field(value, label, max_len, i, place, r=None, min_len=1):
    if not isinstance(value, str):
        fail("%s must be a string, got %r" % (label, value), i, place, r)
    if value != value.strip():
        fail("%s has leading or trailing spaces: %r" % (label, value), i, place, r)
    if any(unicodedata.category(c) == "Cc" for c in value):
        fail("%s must be one line without control characters: %r" % (label, value), i, place, r)
    if "  " in value:
        fail("%s has a double space: %r" % (label, value), i, place, r)
    if not min_len <= len(value) <= max_len:
        fail("%s is %d characters, expected %d–%d: %r" % (label, len(value), min_len, max_len, value), i, place, r)
    if not HANGUL_RE.search(value):
        fail("%s has no Korean text: %r" % (label, value), i, place, r)
    return value


def name_key(name):
    """As the server compares place names: NFKC, case-folded, without spaces."""
    return "".join(c for c in unicodedata.normalize("NFKC", name).lower() if not c.isspace())


def decimals(value):
    text = repr(float(value))
    if "e" in text or "E" in text:
        return 0
    return len(text.split(".")[1]) if "." in text else 0


def haversine_m(a, b):
    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(h))


def check_color(value, i, place):
    if not isinstance(value, str) or not COLOR_RE.match(value):
        fail("color must look like #FDE68A (uppercase hex), got %r" % (value,), i, place)
    r, g, b = (int(value[k:k + 2], 16) for k in (1, 3, 5))
    brightness = 0.299 * r + 0.587 * g + 0.114 * b
    if brightness < 190:
        fail("color %s is too dark for an artwork background (brightness %.0f < 190)" % (value, brightness), i, place)
    if not (r >= g and r > b):
        fail("color %s is not a warm colour (needs red ≥ green and red > blue)" % value, i, place)


def check_review(review, i, place, r):
    if not isinstance(review, dict):
        fail("must be an object, got %s" % type(review).__name__, i, place, r)
    missing = [k for k in REVIEW_KEYS if k not in review]
    extra = [k for k in review if k not in REVIEW_KEYS]
    if missing:
        fail("missing key(s): %s" % ", ".join(missing), i, place, r)
    if extra:
        fail("unexpected key(s): %s" % ", ".join(extra), i, place, r)

    if review["author"] not in AUTHORS:
        fail("author %r is not one of the seed reviewers (%s)" % (review["author"], ", ".join(AUTHORS)), i, place, r)
    text_field(review["title"], "title", 40, i, place, r)
    text = text_field(review["text"], "text", 300, i, place, r, min_len=20)
    if not text.endswith((".", "!", "?")):
        fail("text must end a sentence (., ! or ?): %r" % text, i, place, r)
    sentences = len(SENTENCE_RE.findall(text))
    if not 2 <= sentences <= 4:
        fail("text has %d sentences, expected 2–4: %r" % (sentences, text), i, place, r)

    rating = review["rating"]
    if not is_int(rating) or not 1 <= rating <= 5:
        fail("rating must be an integer 1–5, got %r" % (rating,), i, place, r)
    days = review["daysAgo"]
    if not is_int(days) or not 0 <= days <= 400:
        fail("daysAgo must be an integer 0–400, got %r" % (days,), i, place, r)
    photos = review["photos"]
    if not is_int(photos) or not 1 <= photos <= 3:
        fail("photos must be an integer 1–3, got %r" % (photos,), i, place, r)


def check_place(place, i):
    if not isinstance(place, dict):
        fail("must be an object, got %s" % type(place).__name__, i)
    missing = [k for k in PLACE_KEYS if k not in place]
    extra = [k for k in place if k not in PLACE_KEYS]
    if missing:
        fail("missing key(s): %s" % ", ".join(missing), i, place)
    if extra:
        fail("unexpected key(s): %s" % ", ".join(extra), i, place)

    key = place["key"]
    if not isinstance(key, str) or not KEY_RE.match(key) or len(key) > 60:
        fail("key must be lowercase a-z, 0-9 and single '-' between parts (at most 60), got %r" % (key,), i, place)

    name = text_field(place["name"], "name", 30, i, place, min_len=2)
    lowered = name.lower()
    for banned in BANNED_NAMES:
        if banned in lowered:
            fail("name %r uses a real brand (%s); invent an independent shop" % (name, banned), i, place)

    address = place["address"]
    if not isinstance(address, str):
        fail("address must be a string, got %r" % (address,), i, place)
    match = ADDRESS_RE.match(address)
    if not match:
        fail("address must look like \"서울 성동구 연무장길 45\" (city, district, road, number), got %r" % address, i, place)
    city, district = match.group(1), match.group(2)
    if city not in CITIES:
        fail("address city %r is not one of %s" % (city, ", ".join(CITIES)), i, place)
    info = CITIES[city]
    if district not in info["districts"]:
        fail("%r is not a district of %s" % (district, city), i, place)
    if not key.startswith(info["slug"] + "-"):
        fail("key %r must start with %r for a place in %s" % (key, info["slug"] + "-", city), i, place)

    lat, lon = place["lat"], place["lon"]
    for label, value in (("lat", lat), ("lon", lon)):
        if not isinstance(value, float):
            fail("%s must be a decimal number, got %r" % (label, value), i, place)
        if not 5 <= decimals(value) <= 6:
            fail("%s %r must have 5–6 decimals" % (label, value), i, place)
    box = info["boxes"].get(district, info["boxes"].get("*"))
    if box is None:
        fail("no coordinate box for %s %s" % (city, district), i, place)
    min_lat, max_lat, min_lon, max_lon = box
    if not (min_lat <= lat <= max_lat and min_lon <= lon <= max_lon):
        fail("(%s, %s) is outside %s %s (lat %s–%s, lon %s–%s)" % (
            lat, lon, city, district, min_lat, max_lat, min_lon, max_lon), i, place)

    phone = place["phone"]
    if phone is not None:
        if not isinstance(phone, str) or not re.match(r"^%s-\d{3,4}-\d{4}$" % info["area"], phone):
            fail("phone must be null or like %s-123-4567 for %s, got %r" % (info["area"], city, phone), i, place)

    if place["emoji"] not in EMOJIS:
        fail("emoji must be one of %s, got %r" % (" ".join(EMOJIS), place["emoji"]), i, place)
    check_color(place["color"], i, place)

    reviews = place["reviews"]
    if not isinstance(reviews, list) or not 1 <= len(reviews) <= 6:
        fail("reviews must be an array of 1–6 reviews", i, place)
    seen_authors = set()
    for r, review in enumerate(reviews):
        check_review(review, i, place, r)
        if review["author"] in seen_authors:
            fail("%s already reviewed this place" % review["author"], i, place, r)
        seen_authors.add(review["author"])
    return city


def check_catalog(places):
    if not isinstance(places, list):
        fail("top level must be a JSON array of places")
    cities = [check_place(place, i) for i, place in enumerate(places)]

    seen_key, seen_name, seen_phone = {}, {}, {}
    for i, place in enumerate(places):
        if place["key"] in seen_key:
            fail("key %s is already used by place #%d" % (place["key"], seen_key[place["key"]] + 1), i, place)
        seen_key[place["key"]] = i
        nk = name_key(place["name"])
        if nk in seen_name:
            fail("name %r is the same as place #%d's (ignoring spaces and case)" % (place["name"], seen_name[nk] + 1), i, place)
        seen_name[nk] = i
        if place["phone"] is not None:
            if place["phone"] in seen_phone:
                fail("phone %s is already used by place #%d" % (place["phone"], seen_phone[place["phone"]] + 1), i, place)
            seen_phone[place["phone"]] = i

    total = len(places)
    if total < MIN_TOTAL:
        fail("only %d places, at least %d needed" % (total, MIN_TOTAL))
    counts = {city: cities.count(city) for city in CITIES if city in cities}
    for city in REQUIRED_CITIES:
        if counts.get(city, 0) < MIN_PER_CITY:
            fail("%s has %d places, at least %d needed" % (city, counts.get(city, 0), MIN_PER_CITY))
    third = [city for city in THIRD_CITIES if city in counts]
    if len(third) != 1:
        fail("exactly one third city (%s) expected, found %s" % (" or ".join(THIRD_CITIES), ", ".join(third) or "none"))
    if counts[third[0]] < MIN_PER_CITY:
        fail("%s has %d places, at least %d needed" % (third[0], counts[third[0]], MIN_PER_CITY))

    # No two places closer than MIN_DISTANCE_M.
    closest = (float("inf"), None, None)
    for a in range(total):
        for b in range(a + 1, total):
            d = haversine_m((places[a]["lat"], places[a]["lon"]), (places[b]["lat"], places[b]["lon"]))
            if d < closest[0]:
                closest = (d, a, b)
            if d < MIN_DISTANCE_M:
                fail("%s and %s are %.0f m apart, at least %.0f m required" % (
                    places[a]["key"], places[b]["key"], d, MIN_DISTANCE_M))

    # Names the search tests rely on.
    cheese = [p["name"] for p in places if any("치즈" in w and w != "치즈" for w in p["name"].split())]
    if len(cheese) < MIN_CHEESE_INSIDE_WORD:
        fail("%d names have 치즈 inside a longer word (e.g. 더블치즈버거), at least %d needed" % (len(cheese), MIN_CHEESE_INSIDE_WORD))
    for word, needed in SEARCH_WORDS.items():
        found = sum(1 for p in places if word in p["name"])
        if found < needed:
            fail("%d names contain %s, at least %d needed" % (found, word, needed))

    nulls = sum(1 for p in places if p["phone"] is None)
    if not 0.10 <= nulls / total <= 0.35:
        fail("%d of %d places have no phone (%.0f%%), expected about 20%% (10–35%%)" % (nulls, total, nulls / total * 100))
    colors = {p["color"] for p in places}
    if len(colors) < 10:
        fail("only %d distinct colours; vary the artwork backgrounds (at least 10)" % len(colors))

    reviews = [r for p in places for r in p["reviews"]]
    per_author = {a: 0 for a in AUTHORS}
    for r in reviews:
        per_author[r["author"]] += 1
    few = ["%s (%d)" % (a, n) for a, n in per_author.items() if n < MIN_REVIEWS_PER_AUTHOR]
    if few:
        fail("every seed reviewer needs at least %d reviews: %s" % (MIN_REVIEWS_PER_AUTHOR, ", ".join(few)))

    ratings = [r["rating"] for r in reviews]
    n = len(ratings)
    if sum(1 for x in ratings if x >= 3) < 0.7 * n:
        fail("most ratings should be 3–5 (at least 70%%), got %d of %d" % (sum(1 for x in ratings if x >= 3), n))
    if ratings.count(2) == 0:
        fail("some reviews should be rated 2")
    if ratings.count(1) > 0.05 * n:
        fail("1-star reviews should be rare (at most 5%%), got %d of %d" % (ratings.count(1), n))
    singles = sum(1 for p in places if len(p["reviews"]) == 1 and p["reviews"][0]["rating"] == 5)
    if singles < 2:
        fail("a few places (at least 2) should have a single 5★ review, found %d" % singles)
    popular = sum(1 for p in places if len(p["reviews"]) >= 5)
    if popular < 2:
        fail("a few popular places (at least 2) should have 5–6 reviews, found %d" % popular)
    if len({len(p["reviews"]) for p in places}) < 4:
        fail("vary the number of reviews per place (1–6)")

    return counts, reviews, per_author, closest


def check_format(text, places):
    if "\\u" in text:
        fail("contains \\u escapes; write Korean and emoji as UTF-8")
    expected = json.dumps(places, ensure_ascii=False, indent=2)
    if text.rstrip("\n") != expected:
        fail("not pretty-printed with 2-space indent (compare with json.dumps(..., ensure_ascii=False, indent=2))")


def main():
    global path
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "burger_places.json")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as error:
        fail("cannot read: %s" % error)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        fail("not valid UTF-8: %s" % error)
    if text.startswith("\ufeff"):
        fail("starts with a byte order mark; save as plain UTF-8")

    def no_duplicate_keys(pairs):
        keys = [k for k, _ in pairs]
        for k in keys:
            if keys.count(k) > 1:
                raise ValueError("duplicate key %r" % k)
        return dict(pairs)

    try:
        places = json.loads(text, object_pairs_hook=no_duplicate_keys)
    except ValueError as error:
        fail("invalid JSON: %s" % error)

    counts, reviews, per_author, closest = check_catalog(places)
    check_format(text, places)

    average = sum(r["rating"] for r in reviews) / len(reviews)
    print("%s: OK, %d places (%s), %d reviews by %d authors (%d–%d each), average %.2f★, closest pair %.0f m (%s / %s)" % (
        os.path.basename(path), len(places), ", ".join("%s %d" % (c, n) for c, n in counts.items()),
        len(reviews), len(per_author), min(per_author.values()), max(per_author.values()), average,
        closest[0], places[closest[1]]["key"], places[closest[2]]["key"]))


if __name__ == "__main__":
    main()
