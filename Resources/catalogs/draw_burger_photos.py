#!/usr/bin/env python3
"""Draw the seeded review photos as JPEGs for the LookForRealBurger app (its image loader cannot
draw SVG), the same picture the web draws as SVG (`BurgerMapImages.picture`): the place's colour,
a shaded band, a shadow and the place's emoji, turned and scaled by the photo's position.

Usage: python3 draw_burger_photos.py [burger_places.json] [out-folder]
Needs Pillow and Debian's fonts-noto-color-emoji. Run it again when the catalog's emoji, colours
or photo counts change; `BurgerMapCatalogTests` fails while a seeded photo has no JPEG here.
File names: `<emoji code points, hex, joined by ->_<colour without #>_<position % 4>.jpg`.
"""
import json
import os
import sys

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 800, 600
TURNS = [0, -14, 11, -5]
SCALES = [1.0, 1.3, 0.8, 1.15]
FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"


def file_name(emoji, color, variant):
    return "-".join(f"{ord(c):x}" for c in emoji) + f"_{color.lstrip('#').upper()}_{variant % 4}.jpg"


def draw(emoji, color, variant):
    image = Image.new("RGB", (WIDTH, HEIGHT), color)
    overlay = Image.new("RGBA", (WIDTH, HEIGHT), (0, 0, 0, 0))
    shade = ImageDraw.Draw(overlay)
    scale, turn = SCALES[variant % 4], TURNS[variant % 4]
    size = int(min(WIDTH, HEIGHT) * 0.42 * scale)
    cx, cy = WIDTH // 2, HEIGHT // 2
    shade.rectangle([0, HEIGHT * 3 // 4, WIDTH, HEIGHT], fill=(0, 0, 0, int(255 * 0.06)))
    shade.ellipse([cx - size * 3 // 4, cy + size // 2 - size // 6, cx + size * 3 // 4, cy + size // 2 + size // 6], fill=(0, 0, 0, int(255 * 0.12)))
    image = Image.alpha_composite(image.convert("RGBA"), overlay)
    # Noto Color Emoji is a bitmap font drawn at 109 px; scale the glyph to the picture's size.
    font = ImageFont.truetype(FONT, 109)
    glyph = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    ImageDraw.Draw(glyph).text((80, 80), emoji, font=font, embedded_color=True, anchor="mm")
    glyph = glyph.crop(glyph.getbbox()) if glyph.getbbox() else glyph
    ratio = size / max(glyph.size)
    glyph = glyph.resize((max(1, int(glyph.width * ratio)), max(1, int(glyph.height * ratio))), Image.LANCZOS)
    # SVG turns clockwise for positive degrees, Pillow counter-clockwise.
    glyph = glyph.rotate(-turn, resample=Image.BICUBIC, expand=True)
    image.alpha_composite(glyph, (cx - glyph.width // 2, cy - glyph.height // 2))
    return image.convert("RGB")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    catalog = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "burger_places.json")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "burger-photos")
    os.makedirs(out, exist_ok=True)
    wanted = set()
    for place in json.load(open(catalog, encoding="utf-8")):
        most = max([review.get("photos", 0) for review in place.get("reviews", [])] + [0])
        for position in range(most):
            wanted.add((place["emoji"], place["color"], position % 4))
    for name in os.listdir(out):
        if name.endswith(".jpg") and name not in {file_name(*w) for w in wanted}:
            os.remove(os.path.join(out, name))
    for emoji, color, variant in sorted(wanted):
        draw(emoji, color, variant).save(os.path.join(out, file_name(emoji, color, variant)), "JPEG", quality=82, optimize=True)
    print(f"{len(wanted)} photos in {out}")


if __name__ == "__main__":
    main()
