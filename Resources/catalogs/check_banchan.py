#!/usr/bin/env python3
"""Validate the banchan shop catalog (banchan.json).

Usage: python3 check_banchan.py [path/to/banchan.json]

Stops at the first problem with a message on stderr and exit status 1.
On success prints the number of dishes and the price range of each section.
Standard library only.
"""
import json
import os
import re
import sys
import unicodedata

KEYS = [
    "hash", "section", "title", "description", "salePrice", "originalPrice",
    "badges", "deliveryTypes", "pointRate", "deliveryInfo", "stock",
    "minQuantity", "maxQuantity", "emoji", "color", "weight", "ingredients",
    "storage", "detailSections", "thumbCount",
]
SECTIONS = {"main": "메인요리", "soup": "국·찌개", "side": "밑반찬"}
MIN_PER_SECTION = 14
MIN_TOTAL = 42
# Sale price range (won) for each section.
PRICE_RANGE = {"main": (9900, 29900), "soup": (6900, 15900), "side": (3500, 9900)}
BADGES = ["이벤트특가", "런칭특가", "베스트", "한정수량"]
SALE_BADGES = {"이벤트특가", "런칭특가"}
DELIVERY_TYPES = ["새벽배송", "전국택배"]
HASH_RE = re.compile(r"^H[A-Z0-9]{4}$")
COLOR_RE = re.compile(r"^#[0-9A-F]{6}$")
WEIGHT_RE = re.compile(r"\d+(\.\d+)?\s*(g|kg)\b")
HANGUL_RE = re.compile(r"[가-힣]")

path = ""


def fail(message, index=None, dish=None):
    where = ""
    if index is not None:
        where = "dish #%d" % (index + 1)
        if isinstance(dish, dict) and isinstance(dish.get("hash"), str):
            where += " (%s" % dish["hash"]
            if isinstance(dish.get("title"), str):
                where += " %s" % dish["title"]
            where += ")"
        where += ": "
    sys.stderr.write("%s: %s%s\n" % (path, where, message))
    sys.exit(1)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def korean_text(dish, i, key, max_len):
    value = dish[key]
    if not isinstance(value, str):
        fail("%s must be a string, got %r" % (key, value), i, dish)
    if not value.strip():
        fail("%s is empty" % key, i, dish)
    if value != value.strip():
        fail("%s has leading or trailing spaces: %r" % (key, value), i, dish)
    if "\n" in value:
        fail("%s must be one line" % key, i, dish)
    if len(value) > max_len:
        fail("%s is %d characters, at most %d allowed: %r" % (key, len(value), max_len, value), i, dish)
    if not HANGUL_RE.search(value):
        fail("%s has no Korean text: %r" % (key, value), i, dish)
    return value


def check_emoji(dish, i):
    value = dish["emoji"]
    if not isinstance(value, str) or not value:
        fail("emoji must be a non-empty string", i, dish)
    core = value.replace("\ufe0f", "")
    if len(core) != 1:
        fail("emoji must be exactly one emoji, got %r" % value, i, dish)
    if ord(core) < 0x2000 or unicodedata.category(core) != "So":
        fail("emoji %r is not a pictograph" % value, i, dish)


def check_color(dish, i):
    value = dish["color"]
    if not isinstance(value, str) or not COLOR_RE.match(value):
        fail("color must look like #FDE68A (uppercase hex), got %r" % (value,), i, dish)
    r, g, b = (int(value[k:k + 2], 16) for k in (1, 3, 5))
    brightness = 0.299 * r + 0.587 * g + 0.114 * b
    if brightness < 190:
        fail("color %s is too dark for an artwork background (brightness %.0f < 190)" % (value, brightness), i, dish)


def check_dish(dish, i):
    if not isinstance(dish, dict):
        fail("must be an object, got %s" % type(dish).__name__, i)
    keys = list(dish.keys())
    missing = [k for k in KEYS if k not in dish]
    extra = [k for k in keys if k not in KEYS]
    if missing:
        fail("missing key(s): %s" % ", ".join(missing), i, dish)
    if extra:
        fail("unexpected key(s): %s" % ", ".join(extra), i, dish)

    h = dish["hash"]
    if not isinstance(h, str) or not HASH_RE.match(h):
        fail("hash must match ^H[A-Z0-9]{4}$, got %r" % (h,), i, dish)

    section = dish["section"]
    if section not in SECTIONS:
        fail("section must be one of %s, got %r" % (", ".join(SECTIONS), section), i, dish)

    korean_text(dish, i, "title", 40)
    korean_text(dish, i, "description", 60)

    sale = dish["salePrice"]
    if not is_int(sale):
        fail("salePrice must be an integer, got %r" % (sale,), i, dish)
    if sale % 10 != 0:
        fail("salePrice %d is not a multiple of 10" % sale, i, dish)
    low, high = PRICE_RANGE[section]
    if not low <= sale <= high:
        fail("salePrice %d is outside the %s range %d–%d" % (sale, section, low, high), i, dish)

    orig = dish["originalPrice"]
    if orig is not None:
        if not is_int(orig):
            fail("originalPrice must be an integer or null, got %r" % (orig,), i, dish)
        if orig <= sale:
            fail("originalPrice %d must be greater than salePrice %d" % (orig, sale), i, dish)
        if orig % 100 != 0:
            fail("originalPrice %d is not rounded to 100" % orig, i, dish)
        markup = orig / sale - 1
        if not 0.10 <= markup <= 0.25:
            fail("originalPrice %d is %.1f%% above salePrice %d, expected 10–25%%" % (orig, markup * 100, sale), i, dish)

    badges = dish["badges"]
    if not isinstance(badges, list):
        fail("badges must be an array", i, dish)
    if len(badges) > 2:
        fail("at most two badges allowed, got %d" % len(badges), i, dish)
    for badge in badges:
        if badge not in BADGES:
            fail("unknown badge %r (allowed: %s)" % (badge, ", ".join(BADGES)), i, dish)
    if len(set(badges)) != len(badges):
        fail("duplicate badge in %r" % (badges,), i, dish)
    if SALE_BADGES.issubset(badges):
        fail("a dish cannot be both 이벤트특가 and 런칭특가", i, dish)
    if orig is None and SALE_BADGES.intersection(badges):
        fail("badge %s needs an originalPrice (a discount to show)" % "/".join(sorted(SALE_BADGES.intersection(badges))), i, dish)

    types = dish["deliveryTypes"]
    if not isinstance(types, list) or not types:
        fail("deliveryTypes must be a non-empty array", i, dish)
    for t in types:
        if t not in DELIVERY_TYPES:
            fail("unknown delivery type %r (allowed: %s)" % (t, ", ".join(DELIVERY_TYPES)), i, dish)
    if len(set(types)) != len(types):
        fail("duplicate delivery type in %r" % (types,), i, dish)
    if types != [t for t in DELIVERY_TYPES if t in types]:
        fail("deliveryTypes must keep the order %s, got %r" % (DELIVERY_TYPES, types), i, dish)

    point = dish["pointRate"]
    if not is_int(point) or point not in (1, 2, 3):
        fail("pointRate must be 1, 2 or 3 (percent), got %r" % (point,), i, dish)

    info = dish["deliveryInfo"]
    korean_text(dish, i, "deliveryInfo", 100)
    for t in types:
        if t not in info:
            fail("deliveryInfo does not mention %s, which the dish offers" % t, i, dish)
    for t in DELIVERY_TYPES:
        if t not in types and t in info.replace(t + " 불가", ""):
            fail("deliveryInfo promises %s, which the dish does not offer" % t, i, dish)

    stock = dish["stock"]
    if not is_int(stock) or not 0 <= stock <= 200:
        fail("stock must be an integer 0–200, got %r" % (stock,), i, dish)

    min_q = dish["minQuantity"]
    max_q = dish["maxQuantity"]
    if not is_int(min_q) or min_q not in (1, 2):
        fail("minQuantity must be 1 or 2, got %r" % (min_q,), i, dish)
    if min_q == 2 and section != "side":
        fail("minQuantity 2 is only for small side dishes", i, dish)
    if not is_int(max_q) or not 5 <= max_q <= 20:
        fail("maxQuantity must be an integer 5–20, got %r" % (max_q,), i, dish)

    check_emoji(dish, i)
    check_color(dish, i)

    weight = dish["weight"]
    if not isinstance(weight, str) or not weight.strip() or len(weight) > 30:
        fail("weight must be a short non-empty string, got %r" % (weight,), i, dish)
    if not WEIGHT_RE.search(weight):
        fail("weight must state grams, e.g. \"500g\" or \"2~3인분 (700g)\", got %r" % weight, i, dish)

    korean_text(dish, i, "ingredients", 100)
    storage = korean_text(dish, i, "storage", 60)
    if "보관" not in storage:
        fail("storage must say how to keep it (보관), got %r" % storage, i, dish)

    sections = dish["detailSections"]
    if not isinstance(sections, list) or not 2 <= len(sections) <= 3:
        fail("detailSections must be an array of 2–3 paragraphs", i, dish)
    for n, paragraph in enumerate(sections):
        if not isinstance(paragraph, str) or not paragraph.strip():
            fail("detailSections[%d] must be a non-empty string" % n, i, dish)
        if len(paragraph) > 90:
            fail("detailSections[%d] is %d characters, at most 90 allowed" % (n, len(paragraph)), i, dish)
        if not HANGUL_RE.search(paragraph):
            fail("detailSections[%d] has no Korean text" % n, i, dish)

    thumbs = dish["thumbCount"]
    if not is_int(thumbs) or not 2 <= thumbs <= 5:
        fail("thumbCount must be an integer 2–5, got %r" % (thumbs,), i, dish)


def check_catalog(dishes):
    if not isinstance(dishes, list):
        fail("top level must be a JSON array of dishes")
    for i, dish in enumerate(dishes):
        check_dish(dish, i)

    seen_hash = {}
    seen_title = {}
    for i, dish in enumerate(dishes):
        if dish["hash"] in seen_hash:
            fail("hash %s is already used by dish #%d" % (dish["hash"], seen_hash[dish["hash"]] + 1), i, dish)
        seen_hash[dish["hash"]] = i
        if dish["title"] in seen_title:
            fail("title %r is already used by dish #%d" % (dish["title"], seen_title[dish["title"]] + 1), i, dish)
        seen_title[dish["title"]] = i

    total = len(dishes)
    if total < MIN_TOTAL:
        fail("only %d dishes, at least %d needed" % (total, MIN_TOTAL))
    for section, name in SECTIONS.items():
        count = sum(1 for d in dishes if d["section"] == section)
        if count < MIN_PER_SECTION:
            fail("section %s (%s) has %d dishes, at least %d needed" % (section, name, count, MIN_PER_SECTION))

    def share(predicate):
        return sum(1 for d in dishes if predicate(d)) / total

    discounted = share(lambda d: d["originalPrice"] is not None)
    if not 0.35 <= discounted <= 0.65:
        fail("%.0f%% of dishes have an originalPrice, expected about half (35–65%%)" % (discounted * 100))
    if share(lambda d: d["salePrice"] % 100 == 0) <= 0.5:
        fail("most sale prices should end in 00")
    if share(lambda d: not d["badges"]) <= 0.5:
        fail("most dishes should have no badge")
    if not any(d["badges"] for d in dishes):
        fail("no dish has a badge; some should")
    on_sale = [d for d in dishes if d["originalPrice"] is not None]
    with_sale_badge = sum(1 for d in on_sale if SALE_BADGES.intersection(d["badges"]))
    if with_sale_badge * 3 < len(on_sale):
        fail("only %d of %d discounted dishes carry 이벤트특가 or 런칭특가; expected it often" % (with_sale_badge, len(on_sale)))
    if share(lambda d: d["deliveryTypes"] == DELIVERY_TYPES) <= 0.5:
        fail("most dishes should offer both 새벽배송 and 전국택배")
    if not any(d["deliveryTypes"] == ["새벽배송"] for d in dishes):
        fail("some dishes (fresh 나물, 무침) should be 새벽배송 only")
    if share(lambda d: d["pointRate"] == 1) <= 0.5:
        fail("most dishes should earn 1% points")
    if not any(d["pointRate"] > 1 for d in dishes):
        fail("some dishes should earn 2% or 3% points")

    sold_out = [d["hash"] for d in dishes if d["stock"] == 0]
    if len(sold_out) != 2:
        fail("exactly two dishes must be sold out (stock 0), found %d: %s" % (len(sold_out), ", ".join(sold_out) or "none"))
    low = sum(1 for d in dishes if 0 < d["stock"] < 10)
    if not 2 <= low <= 6:
        fail("a few dishes (2–6) should have stock under 10, found %d" % low)
    if share(lambda d: 20 <= d["stock"] <= 150) <= 0.5:
        fail("most dishes should have stock between 20 and 150")

    min_two = sum(1 for d in dishes if d["minQuantity"] == 2)
    if not 1 <= min_two <= 3:
        fail("a couple of small side dishes (1–3) should have minQuantity 2, found %d" % min_two)

    colors = {d["color"] for d in dishes}
    if len(colors) < 12:
        fail("only %d distinct colours; vary the artwork backgrounds (at least 12)" % len(colors))


def check_format(text, dishes):
    if "\\u" in text:
        fail("contains \\u escapes; write Korean and emoji as UTF-8")
    expected = json.dumps(dishes, ensure_ascii=False, indent=2)
    if text.rstrip("\n") != expected:
        fail("not pretty-printed with 2-space indent (compare with json.dumps(..., ensure_ascii=False, indent=2))")


def main():
    global path
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "banchan.json")
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
        dishes = json.loads(text, object_pairs_hook=no_duplicate_keys)
    except ValueError as error:
        fail("invalid JSON: %s" % error)

    check_catalog(dishes)
    check_format(text, dishes)

    print("%s: OK, %d dishes" % (path, len(dishes)))
    for section, name in SECTIONS.items():
        prices = [d["salePrice"] for d in dishes if d["section"] == section]
        print("  %-4s %-6s %3d dishes, %s–%s원" % (
            section, name, len(prices), format(min(prices), ","), format(max(prices), ",")))
    sold_out = [d["title"] for d in dishes if d["stock"] == 0]
    print("  sold out: %s" % ", ".join(sold_out))


if __name__ == "__main__":
    main()
