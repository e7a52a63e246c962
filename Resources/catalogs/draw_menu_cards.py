#!/usr/bin/env python3
"""Draw the menu game's link-preview cards (`og:image`) as JPEGs, because KakaoTalk cannot draw SVG.
One 1200×630 card per distinct emoji of the menu catalog: a warm background colour, the emoji
360 px tall (less if it would be over 430 px wide) inside a translucent white circle a little left
of the middle, and on the right "오늘 뭐 먹지?" with a smaller "우리뭐먹지 · WhatWeEat" below it. The card carries no menu name:
every menu sharing an emoji shares the card, and the name goes in the page's title.

Usage: python3 draw_menu_cards.py [menus.json] [out-folder]
(defaults: menus.json next to this script and its `menu-cards/` folder)
Needs Pillow (with raqm) and Debian's fonts-noto-color-emoji and fonts-noto-cjk. Run it again when
the catalog's emoji change; it removes JPEGs of emoji no longer in the catalog. The drawing is
deterministic: the same catalog gives byte-identical files on the same Pillow and fonts.
Background colour: `PALETTE[fnv1a32(emoji.encode("utf-8")) % len(PALETTE)]`, FNV-1a 32-bit
(offset basis 0x811C9DC5, prime 0x01000193) over every byte of the emoji's UTF-8, variation
selectors included (so 🌶 and 🌶️ may get different colours).
Checks: the script stops with exit status 1 when an emoji has no colour glyph, a character of the
card's text is missing from Noto Sans CJK KR (it would be a tofu box), a file is over its size
budget (60 KB) or the folder's cards add up to more than 2 MB. No Swift test reads these files yet.
File names: `<emoji code points, lowercase hex, joined by ->.jpg`, every code point included,
e.g. 🍲 → `1f372.jpg`, 🌶️ (U+1F336 U+FE0F) → `1f336-fe0f.jpg`.
"""
import json
import os
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFont

# The shop's drawing script beside this one: the same circles, fonts and checks.
from draw_dish_photos import check_text, circle, fail, text_font

CARD_WIDTH, CARD_HEIGHT = 1200, 630
QUALITY = 80
PALETTE = ["#FDE68A", "#FECACA", "#BBF7D0", "#BFDBFE", "#FBCFE8", "#DDD6FE", "#FED7AA", "#A7F3D0", "#FEF3C7", "#E9D5FF"]
EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
INK, MUTED = (31, 29, 26), (87, 83, 78)
TITLE, BRAND = "오늘 뭐 먹지?", "우리뭐먹지 · WhatWeEat"
GENERIC = "\U0001F962"  # 🥢 (as the shop's placeholder), the card of any menu whose own emoji has no card yet
EMOJI_HEIGHT, EMOJI_MAX_WIDTH = 360, 430  # the circle is 510 px wide
CENTER_X, CENTER_Y, RADIUS = 380, 315, 255
CARD_BUDGET, FOLDER_BUDGET = 60_000, 2_000_000




def fnv1a32(data):
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def background(emoji):
    return PALETTE[fnv1a32(emoji.encode("utf-8")) % len(PALETTE)]


def file_name(emoji):
    return "-".join(f"{ord(c):x}" for c in emoji) + ".jpg"


def emoji_glyph(emoji, height, max_width):
    """The emoji's colour bitmap (Noto Color Emoji is drawn at 109 px), cropped to its ink and
    scaled to `height` px tall, or less when it would then be wider than `max_width` px."""
    font = ImageFont.truetype(EMOJI_FONT, 109)
    canvas = Image.new("RGBA", (220, 220), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((110, 110), emoji, font=font, embedded_color=True, anchor="mm")
    box = canvas.getbbox()
    if box is None:
        fail(f"no glyph for emoji {emoji!r}")
    r, g, b, a = canvas.split()
    if ImageChops.difference(r, g).getbbox() is None and ImageChops.difference(g, b).getbbox() is None:
        fail(f"emoji {emoji!r} has no colour glyph")
    glyph = canvas.crop(box)
    scale = min(height / glyph.height, max_width / glyph.width)
    size = (max(1, round(glyph.width * scale)), max(1, round(glyph.height * scale)))
    return glyph.resize(size, Image.LANCZOS)








def card(emoji):
    """The 1200×630 link preview: the emoji in its circle left of the middle, the text on the right."""
    image = Image.new("RGBA", (CARD_WIDTH, CARD_HEIGHT), background(emoji))
    circle(image, CENTER_X, CENTER_Y, RADIUS, 0.55)
    glyph = emoji_glyph(emoji, EMOJI_HEIGHT, EMOJI_MAX_WIDTH)
    image.alpha_composite(glyph, (CENTER_X - glyph.width // 2, CENTER_Y - glyph.height // 2))
    draw = ImageDraw.Draw(image)
    left = CENTER_X + RADIUS + 55
    title_font, brand_font = text_font(76), text_font(34)
    check_text(TITLE, title_font)
    check_text(BRAND, brand_font)
    for text, font in ((TITLE, title_font), (BRAND, brand_font)):
        if left + font.getlength(text) > CARD_WIDTH - 40:
            fail(f"{text!r} does not fit on the card")
    draw.text((left, CENTER_Y - 12), TITLE, font=title_font, fill=INK, anchor="ls")
    draw.text((left, CENTER_Y + 52), BRAND, font=brand_font, fill=MUTED, anchor="ls")
    return image.convert("RGB")


def save(image, path):
    image.save(path, "JPEG", quality=QUALITY, optimize=True, progressive=False)
    size = os.path.getsize(path)
    if size > CARD_BUDGET:
        fail(f"{path} is {size} bytes, over its budget of {CARD_BUDGET}")
    return size


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    catalog = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "menus.json")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "menu-cards")
    os.makedirs(out, exist_ok=True)
    menus = json.load(open(catalog, encoding="utf-8"))
    wanted = {file_name(menu["emoji"]): menu["emoji"] for menu in menus}
    # The card of a menu whose emoji has none drawn (one an operator added later).
    wanted[file_name(GENERIC)] = GENERIC
    for name in os.listdir(out):
        if name.endswith(".jpg") and name not in wanted:
            os.remove(os.path.join(out, name))
    total = 0
    for name in sorted(wanted):
        total += save(card(wanted[name]), os.path.join(out, name))
    if total > FOLDER_BUDGET:
        fail(f"the cards in {out} add up to {total} bytes, over the budget of {FOLDER_BUDGET}")
    print(f"{len(wanted)} cards ({total:,} bytes) for {len(menus)} menus in {out}")


if __name__ == "__main__":
    main()
