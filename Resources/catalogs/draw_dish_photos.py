#!/usr/bin/env python3
"""Draw the banchan shop's dish pictures as JPEGs for what cannot draw SVG: KakaoTalk link previews
(`og:image`) and the original 배민찬 iOS app (`UIImage(data:)`). The square pictures are the same as
the web's SVG (`BanchanImages.picture`): the dish's colour, two translucent white circles and the
dish's emoji, turned and scaled by the variant; the card is a 1200×630 link preview with the emoji,
the title, the sale price and a "배민찬 · WhatWeEat" line.

Usage: python3 draw_dish_photos.py [banchan.json] [out-folder]
Needs Pillow (with raqm) and Debian's fonts-noto-color-emoji and fonts-noto-cjk. Run it again when
a dish's hash, emoji, colour, title, sale price or thumbCount changes in the catalog, or when
`BanchanImages.picture` changes; it removes JPEGs of dishes no longer in the catalog. The drawing
is deterministic: the same catalog gives byte-identical files on the same Pillow and fonts.
Checks: the script stops with exit status 1 when an emoji has no colour glyph, a title character
is missing from Noto Sans CJK KR (it would be a tofu box), or a file is over its size budget
(40 KB for a square picture, 90 KB for a card). No Swift test reads these files yet.
File names: `<hash>_main.jpg` (600×600, variant 0), `<hash>_thumb-<n>.jpg` (480×480, the same
picture shrunk, variant n) for n in 1...max(1, thumbCount) and `<hash>_card.jpg` (1200×630).
Quality 75 and the smaller thumbnails keep the folder near 3 MB (the cards' text is most of it).
"""
import json
import os
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFont

SIZE = 600
THUMB_SIZE = 480
QUALITY = 75
CARD_WIDTH, CARD_HEIGHT = 1200, 630
SCALES = [1.0, 1.25, 0.85, 1.45, 1.1, 0.95, 1.3, 1.05, 1.2]
TURNS = [0, -12, 10, -6, 16, -18, 6, -3, 12]
EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
TEXT_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"
TEXT_FONT_INDEX = 1  # Noto Sans CJK KR in the collection (JP, KR, SC, TC, HK, …).
INK, ACCENT, MUTED = (31, 29, 26), (154, 52, 18), (87, 83, 78)
PICTURE_BUDGET, CARD_BUDGET = 40_000, 90_000
SUPERSAMPLE = 4


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def emoji_glyph(emoji, font_size):
    """The emoji as the SVG draws it at `font-size` `font_size`, on a transparent square whose
    centre is the text's anchor (`text-anchor="middle"`, `dominant-baseline="central"`).
    Noto Color Emoji is a bitmap font drawn at 109 px; the whole square is scaled, not the
    glyph's bounding box, so the emoji keeps its size and offset relative to the anchor."""
    font = ImageFont.truetype(EMOJI_FONT, 109)
    canvas = Image.new("RGBA", (220, 220), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((110, 110), emoji, font=font, embedded_color=True, anchor="mm")
    box = canvas.getbbox()
    if box is None:
        fail(f"no glyph for emoji {emoji!r}")
    r, g, b, a = canvas.split()
    if ImageChops.difference(r, g).getbbox() is None and ImageChops.difference(g, b).getbbox() is None:
        fail(f"emoji {emoji!r} has no colour glyph")
    side = max(1, round(220 * font_size / 109))
    return canvas.resize((side, side), Image.LANCZOS)


def paste_centered(image, glyph, cx, cy, turn):
    # SVG turns clockwise for positive degrees, Pillow counter-clockwise.
    glyph = glyph.rotate(-turn, resample=Image.BICUBIC, expand=True)
    image.alpha_composite(glyph, (cx - glyph.width // 2, cy - glyph.height // 2))


def circle(image, cx, cy, radius, opacity):
    """A white circle of `opacity`, antialiased by drawing its mask larger and shrinking it."""
    w, h = image.size
    mask = Image.new("L", (w * SUPERSAMPLE, h * SUPERSAMPLE), 0)
    s = SUPERSAMPLE
    ImageDraw.Draw(mask).ellipse([(cx - radius) * s, (cy - radius) * s, (cx + radius) * s, (cy + radius) * s], fill=255)
    mask = mask.resize((w, h), Image.BOX).point(lambda v: round(v * opacity))
    white = Image.new("RGBA", (w, h), (255, 255, 255, 0))
    white.putalpha(mask)
    image.alpha_composite(white)


def picture(dish, variant):
    """`BanchanImages.picture(dish, variant:)` as a 600×600 raster."""
    scale, turn = SCALES[variant % len(SCALES)], TURNS[variant % len(TURNS)]
    image = Image.new("RGBA", (SIZE, SIZE), dish["color"])
    circle(image, 300, 318, int(205 * min(scale, 1.2)), 0.55)
    circle(image, 300, 318, int(165 * min(scale, 1.2)), 0.5)
    paste_centered(image, emoji_glyph(dish["emoji"], int(190 * scale)), 300, 300, turn)
    return image.convert("RGB")


def text_font(size):
    return ImageFont.truetype(TEXT_FONT, size, index=TEXT_FONT_INDEX)


def check_text(text, font):
    """Stops when a character of `text` is missing from the font (it would draw as tofu)."""
    missing = font.getmask("\U000F0000")  # a private-use code point: the font's .notdef box
    for char in set(text):
        if char.isspace():
            continue
        mask = font.getmask(char)
        if mask.size == missing.size and bytes(mask) == bytes(missing):
            fail(f"{char!r} (U+{ord(char):04X}) is not in Noto Sans CJK KR: {text!r}")


def wrap(text, font, width, max_lines):
    """Lines no wider than `width` px, broken at spaces where possible, at most `max_lines`
    (the last one shortened with "…" when the text does not fit)."""
    lines, current = [], ""
    for word in text.split():
        candidate = word if not current else current + " " + word
        if font.getlength(candidate) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
            current = ""
        while font.getlength(word) > width:
            cut = len(word)
            while cut > 1 and font.getlength(word[:cut]) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and font.getlength(last + "…") > width:
            last = last[:-1]
        lines = lines[:max_lines - 1] + [last.rstrip() + "…"]
    return lines


def card(dish):
    """The 1200×630 link preview: the emoji on the left third, title, price and brand on the right."""
    image = Image.new("RGBA", (CARD_WIDTH, CARD_HEIGHT), dish["color"])
    circle(image, 210, 330, 190, 0.55)
    circle(image, 210, 330, 150, 0.5)
    paste_centered(image, emoji_glyph(dish["emoji"], 230), 210, 315, 0)
    draw = ImageDraw.Draw(image)
    left, right = 440, CARD_WIDTH - 70
    title_font, price_font, brand_font = text_font(62), text_font(70), text_font(32)
    price = f"{dish['salePrice']:,}원"
    brand = "배민찬 · WhatWeEat"
    check_text(dish["title"], title_font)
    check_text(price + brand, price_font)
    lines = wrap(dish["title"], title_font, right - left, 3)
    line_height, gap = 82, 34
    price_height = 84
    block = len(lines) * line_height + gap + price_height
    top = (CARD_HEIGHT - block) // 2 - 10
    for offset, line in enumerate(lines):
        draw.text((left, top + offset * line_height), line, font=title_font, fill=INK, anchor="la")
    price_top = top + len(lines) * line_height + gap
    draw.text((left, price_top), price, font=price_font, fill=ACCENT, anchor="la")
    draw.text((left, CARD_HEIGHT - 60), brand, font=brand_font, fill=MUTED, anchor="ls")
    return image.convert("RGB")


def save(image, path, budget):
    image.save(path, "JPEG", quality=QUALITY, optimize=True, progressive=False)
    size = os.path.getsize(path)
    if size > budget:
        fail(f"{path} is {size} bytes, over its budget of {budget}")


def file_names(dish):
    names = {f"{dish['hash']}_main.jpg": ("picture", 0), f"{dish['hash']}_card.jpg": ("card", 0)}
    for n in range(1, max(1, dish.get("thumbCount", 0)) + 1):
        names[f"{dish['hash']}_thumb-{n}.jpg"] = ("picture", n)
    return names


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    catalog = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "banchan.json")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "banchan-photos")
    os.makedirs(out, exist_ok=True)
    dishes = json.load(open(catalog, encoding="utf-8"))
    wanted = {}
    for dish in dishes:
        for name, job in file_names(dish).items():
            wanted[name] = (dish, job)
    for name in os.listdir(out):
        if name.endswith(".jpg") and name not in wanted:
            os.remove(os.path.join(out, name))
    for name in sorted(wanted):
        dish, (kind, variant) = wanted[name]
        path = os.path.join(out, name)
        if kind == "card":
            save(card(dish), path, CARD_BUDGET)
        elif variant == 0:
            save(picture(dish, 0), path, PICTURE_BUDGET)
        else:
            save(picture(dish, variant).resize((THUMB_SIZE, THUMB_SIZE), Image.LANCZOS), path, PICTURE_BUDGET)
    print(f"{len(wanted)} pictures for {len(dishes)} dishes in {out}")


if __name__ == "__main__":
    main()
