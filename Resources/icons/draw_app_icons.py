#!/usr/bin/env python3
"""Draws the installable app's icons into Public/images/app/ from the site's mark (🍚 on the
brand's orange, Public/images/icon.svg): browsers and KakaoTalk want raster images, and the home
screen wants them ahead of time. Run it again when the mark changes; the files are committed.

Needs Pillow and Debian's fonts-noto-color-emoji (Noto Color Emoji is a bitmap font drawn at 109 px).
"""
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "Public" / "images" / "app"
EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
ORANGE = (194, 65, 12, 255)  # #c2410c, the mark's background
MARK = "🍚"


def emoji(size):
    """The mark's emoji, drawn at the font's one size and scaled to `size` pixels."""
    font = ImageFont.truetype(EMOJI_FONT, 109)
    canvas = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((80, 80), MARK, font=font, embedded_color=True, anchor="mm")
    return canvas.crop(canvas.getbbox()).resize((size, size), Image.LANCZOS)


def icon(size, *, rounded, emoji_share):
    """The orange square (rounded corners for `any`, full bleed for maskable and iOS) with the
    emoji taking `emoji_share` of its side, centred."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    radius = round(size * 14 / 64) if rounded else 0
    ImageDraw.Draw(image).rounded_rectangle((0, 0, size - 1, size - 1), radius=radius, fill=ORANGE)
    mark = emoji(round(size * emoji_share))
    image.alpha_composite(mark, ((size - mark.width) // 2, (size - mark.height) // 2))
    return image


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        icon(size, rounded=True, emoji_share=0.62).save(OUT / f"icon-{size}.png", optimize=True)
    # Maskable: the platform cuts its own shape; the emoji stays inside the 80 % safe circle.
    icon(512, rounded=False, emoji_share=0.5).save(OUT / "icon-maskable-512.png", optimize=True)
    # iOS rounds the corners itself and shows no transparency.
    icon(180, rounded=False, emoji_share=0.6).convert("RGB").save(OUT / "apple-touch-icon.png", optimize=True)
    # A social card's image (Open Graph): 1200×630, the mark on the orange.
    card = Image.new("RGBA", (1200, 630), ORANGE)
    mark = emoji(360)
    card.alpha_composite(mark, ((1200 - 360) // 2, (630 - 360) // 2))
    card.convert("RGB").save(OUT / "card.png", optimize=True)
    favicon = icon(64, rounded=True, emoji_share=0.66)
    favicon.save(ROOT / "Public" / "favicon.ico", sizes=[(16, 16), (32, 32), (48, 48)])


if __name__ == "__main__":
    main()
