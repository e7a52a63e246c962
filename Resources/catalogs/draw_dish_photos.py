#!/usr/bin/env python3
"""Draw the banchan shop's dish pictures as JPEGs and PNGs for what cannot draw SVG: KakaoTalk link
previews (`og:image`) and the original 배민찬 iOS app (`UIImage(data:)` returns nil for SVG). The
square pictures are the same as the web's SVG (`BanchanImages.picture`): the dish's colour, two
translucent white circles and the dish's emoji, turned and scaled by the variant; the card is a
1200×630 link preview with the emoji, the title, the sale price and a "우리뭐먹지 반찬가게" line. The
details are `BanchanImages.detail`: each detail paragraph wrapped at 21 characters
(`BanchanImages.wrap`) on a rounded card of the dish's colour at 45% over #fffaf5, under the emoji
and "POINT n". Details are PNGs: text on flat colour compresses far better as a 32-colour palette
PNG than as JPEG, and stays sharp. One placeholder, the main picture's circles and 🥢 on #f6e7d7,
stands in for dishes an operator adds after the last run.

Usage: python3 draw_dish_photos.py [banchan.json] [out-folder]
Needs Pillow (with raqm) and Debian's fonts-noto-color-emoji and fonts-noto-cjk. Run it again when
a dish's hash, emoji, colour, title, sale price, thumbCount or detailSections changes in the
catalog, or when `BanchanImages.picture` or `BanchanImages.detail` changes; it removes the JPEGs and
`_detail-<n>.png` files of dishes and paragraphs no longer in the catalog (never `_placeholder*`).
The drawing is deterministic: the same catalog gives byte-identical files on the same Pillow and
fonts. Checks: the script stops with exit status 1 when an emoji has no colour glyph, a title or
paragraph character is missing from Noto Sans CJK KR (it would be a tofu box), a paragraph has a
combining character (Python's wrap would count it apart from Swift's), or a file is over its size
budget (40 KB for a square picture, 90 KB for a card, 30 KB for a detail). No Swift test reads
these files yet.
File names: `<hash>_main.jpg` (600×600, variant 0), `<hash>_thumb-<n>.jpg` (480×480, the same
picture shrunk, variant n) for n in 1...max(1, thumbCount), `<hash>_card.jpg` (1200×630),
`<hash>_detail-<n>.png` (720 × 260 + 52 per line) for the n-th of detailSections, and
`_placeholder_main.jpg` (600×600). Quality 75, the smaller thumbnails and the palette details keep
the folder near 3.7 MB: 3 MB of JPEGs (half of it the cards, for their text) and 0.8 MB of details,
about 6 KB each.
"""
import json
import os
import re
import sys
import unicodedata

from PIL import Image, ImageChops, ImageColor, ImageDraw, ImageFont

SIZE = 600
THUMB_SIZE = 480
QUALITY = 75
CARD_WIDTH, CARD_HEIGHT = 1200, 630
SCALES = [1.0, 1.25, 0.85, 1.45, 1.1, 0.95, 1.3, 1.05, 1.2]
TURNS = [0, -12, 10, -6, 16, -18, 6, -3, 12]
EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
TEXT_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"
BODY_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
TEXT_FONT_INDEX = 1  # Noto Sans CJK KR in the collection (JP, KR, SC, TC, HK, …).
INK, ACCENT, MUTED = (31, 29, 26), (154, 52, 18), (87, 83, 78)
DETAIL_WIDTH, DETAIL_PAPER, DETAIL_TINT = 720, (255, 250, 245), 0.45
DETAIL_WRAP, DETAIL_COLORS = 21, 32
PICTURE_BUDGET, CARD_BUDGET, DETAIL_BUDGET = 40_000, 90_000, 30_000
SUPERSAMPLE = 4
PLACEHOLDER = {"color": "#f6e7d7", "emoji": "\U0001F962"}  # 🥢, for dishes added after the last run.
STALE = re.compile(r".+\.jpg|.+_detail-[0-9]+\.png")


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


def body_font(size):
    return ImageFont.truetype(BODY_FONT, size, index=TEXT_FONT_INDEX)


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
    brand = "우리뭐먹지 반찬가게"  # the product and the service, one name each (never 배민찬, another company's brand)
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


def detail_lines(text, width):
    """`BanchanImages.wrap(_:width:)`: lines of at most `width` characters, broken at spaces where
    possible (a longer word is cut every `width` characters). Swift counts grapheme clusters and
    Python code points; they agree unless a character combines with its neighbour, so such a
    paragraph stops the run instead of being wrapped differently from the SVG."""
    for char in text:
        if unicodedata.category(char) in ("Mn", "Mc", "Me") or char in "\u200d\ufe0e\ufe0f":
            fail(f"{char!r} (U+{ord(char):04X}) combines with its neighbour; wrap would differ from Swift: {text!r}")
    lines, current = [], ""
    for word in text.split(" "):
        if not word:
            continue
        while len(word) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:width])
            word = word[width:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def detail(dish, paragraph, index):
    """`BanchanImages.detail(dish, paragraph:index:)` as a 720 px wide raster: a card of the dish's
    colour at 45% over the paper, the emoji and "POINT n" above the paragraph. Text `y` in the SVG
    is the baseline, hence the "ls" anchors; the emoji goes where its baseline start would be."""
    lines = detail_lines(paragraph, DETAIL_WRAP)
    height = 260 + len(lines) * 52
    color = ImageColor.getrgb(dish["color"])[:3]
    tint = tuple(round(c * DETAIL_TINT + p * (1 - DETAIL_TINT)) for c, p in zip(color, DETAIL_PAPER))
    s = SUPERSAMPLE
    mask = Image.new("L", (DETAIL_WIDTH * s, height * s), 0)
    ImageDraw.Draw(mask).rounded_rectangle([24 * s, 24 * s, (DETAIL_WIDTH - 24) * s - 1, (height - 24) * s - 1], radius=28 * s, fill=255)
    mask = mask.resize((DETAIL_WIDTH, height), Image.BOX)
    paper = Image.new("RGBA", (DETAIL_WIDTH, height), DETAIL_PAPER)
    image = Image.composite(Image.new("RGBA", (DETAIL_WIDTH, height), tint), paper, mask)
    emoji_font = ImageFont.truetype(EMOJI_FONT, 109)
    start, middle = emoji_font.getbbox(dish["emoji"], anchor="ls"), emoji_font.getbbox(dish["emoji"], anchor="mm")
    cx = 60 + round((start[0] - middle[0]) * 64 / 109)
    cy = 120 + round((start[1] - middle[1]) * 64 / 109)
    paste_centered(image, emoji_glyph(dish["emoji"], 64), cx, cy, 0)
    draw = ImageDraw.Draw(image)
    point, text = text_font(30), body_font(30)
    check_text(f"POINT {index}", point)
    check_text(paragraph, text)
    draw.text((150, 112), f"POINT {index}", font=point, fill=ACCENT, anchor="ls")
    for offset, line in enumerate(lines):
        draw.text((60, 230 + offset * 52), line, font=text, fill=INK, anchor="ls")
    return image.convert("RGB"), (DETAIL_PAPER, tint, INK, ACCENT)


def save_png(image, flat, path, budget):
    """A palette PNG of at most `DETAIL_COLORS` colours: `flat` (paper, tint, ink, accent) exactly,
    the rest chosen by median cut for the text's edges and the emoji, no dithering. Pillow maps
    colours to a given palette through a coarse cache (the nearest entry to a cell, not to the
    colour), so the pixels of a flat colour are set to its entry afterwards."""
    rest = image.quantize(DETAIL_COLORS - len(flat), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    colors = list(flat) + [tuple(c) for c in zip(*[iter(rest.getpalette()[:3 * (DETAIL_COLORS - len(flat))])] * 3)]
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for c in colors for v in c])
    indexed = image.quantize(palette=palette, dither=Image.Dither.NONE)
    for index, color in enumerate(flat):
        r, g, b = (band.point(lambda v, c=c: 255 if v == c else 0) for band, c in zip(image.split(), color))
        indexed.paste(index, mask=ImageChops.multiply(ImageChops.multiply(r, g), b))
    indexed.save(path, "PNG", optimize=True)
    size = os.path.getsize(path)
    if size > budget:
        fail(f"{path} is {size} bytes, over its budget of {budget}")


def save(image, path, budget):
    image.save(path, "JPEG", quality=QUALITY, optimize=True, progressive=False)
    size = os.path.getsize(path)
    if size > budget:
        fail(f"{path} is {size} bytes, over its budget of {budget}")


def file_names(dish):
    names = {f"{dish['hash']}_main.jpg": ("picture", 0), f"{dish['hash']}_card.jpg": ("card", 0)}
    for n in range(1, max(1, dish.get("thumbCount", 0)) + 1):
        names[f"{dish['hash']}_thumb-{n}.jpg"] = ("picture", n)
    for n in range(1, len(dish.get("detailSections", [])) + 1):
        names[f"{dish['hash']}_detail-{n}.png"] = ("detail", n)
    return names


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    catalog = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "banchan.json")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "banchan-photos")
    os.makedirs(out, exist_ok=True)
    dishes = json.load(open(catalog, encoding="utf-8"))
    wanted = {"_placeholder_main.jpg": (PLACEHOLDER, ("picture", 0))}
    for dish in dishes:
        for name, job in file_names(dish).items():
            wanted[name] = (dish, job)
    for name in os.listdir(out):
        if STALE.fullmatch(name) and name not in wanted and not name.startswith("_placeholder"):
            os.remove(os.path.join(out, name))
    for name in sorted(wanted):
        dish, (kind, variant) = wanted[name]
        path = os.path.join(out, name)
        if kind == "card":
            save(card(dish), path, CARD_BUDGET)
        elif kind == "detail":
            save_png(*detail(dish, dish["detailSections"][variant - 1], variant), path, DETAIL_BUDGET)
        elif variant == 0:
            save(picture(dish, 0), path, PICTURE_BUDGET)
        else:
            save(picture(dish, variant).resize((THUMB_SIZE, THUMB_SIZE), Image.LANCZOS), path, PICTURE_BUDGET)
    print(f"{len(wanted)} pictures (a placeholder and {sum(name.endswith('.png') for name in wanted)} details) for {len(dishes)} dishes in {out}")


if __name__ == "__main__":
    main()
