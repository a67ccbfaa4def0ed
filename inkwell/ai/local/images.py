"""Image prompts taken from an article, and abstract artwork for them rendered with Pillow.

The artwork is a real PNG of the requested size: a two-colour gradient, translucent shapes and
the prompt's text wrapped on a panel, every colour and position derived from a hash of the
prompt, style and size, so one prompt always gives the same image and two prompts differ. The
style changes the look (soft blurred shapes for photorealistic, flat bold ones for illustration,
pale washes for watercolor, few shapes for minimalist). It is a stand-in for layout and review,
not a picture of the prompt.
"""

import io
import random
import re
import textwrap

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from inkwell.ai.analysis import blocks
from inkwell.ai.errors import AIError
from inkwell.ai.local.phrases import CONCLUSION_HINTS, FAQ_HINTS
from inkwell.ai.local.text import seed_of
from inkwell.ai.types import ArticleDraft, GeneratedImage, ImagePromptDraft

MIN_SIDE = 64
MAX_SIDE = 2048
ALT_TEXT_MAX = 125
_SIZE = re.compile(r"^\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*$")

# style -> (how the prompt names the medium, details appended to it)
STYLES = {
    "photorealistic": ("Photorealistic photograph", "natural light, realistic textures, shallow depth of field, no text"),
    "realistic": ("Realistic photograph", "natural light, true-to-life colours, no text"),
    "illustration": ("Flat vector illustration", "clean shapes, limited colour palette, no text"),
    "digital art": ("Digital artwork", "vivid colours, crisp detail, no text"),
    "3d": ("3D render", "soft studio lighting, smooth materials, no text"),
    "watercolor": ("Watercolor painting", "soft washes, visible paper texture, no text"),
    "minimalist": ("Minimalist composition", "plenty of negative space, two or three colours, no text"),
    "cartoon": ("Cartoon illustration", "bold outlines, cheerful colours, no text"),
    "sketch": ("Pencil sketch", "fine linework, light shading, no text"),
}


class InvalidImageSize(AIError, ValueError):
    code = "invalid_image_size"
    message = f"Image size must be WIDTHxHEIGHT, each side {MIN_SIDE} to {MAX_SIDE} pixels (for example 1024x1024)"


def parse_size(size: str) -> tuple[int, int]:
    """``"1024x768"`` -> ``(1024, 768)``; anything else, or a side outside 64..2048, raises InvalidImageSize."""
    match = _SIZE.match(size or "")
    if not match:
        raise InvalidImageSize()
    width, height = int(match.group(1)), int(match.group(2))
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise InvalidImageSize()
    return width, height


def _style(style: str) -> tuple[str, str]:
    key = " ".join(style.lower().replace("-", " ").replace("_", " ").split())
    if key in STYLES:
        return STYLES[key]
    label = f"Image in a {style.strip()} style" if style.strip() else STYLES["photorealistic"][0]
    return label, "well composed, no text"


def extract_image_prompts(article: ArticleDraft, *, count: int, style: str) -> list[ImagePromptDraft]:
    """``count`` prompts: the featured image from the title, then one per section heading, in order."""
    if count <= 0:
        return []
    medium, details = _style(style)
    subject = article.focus_keyword.strip() or article.title.strip()
    prompts = [
        ImagePromptDraft(
            prompt=f"{medium} representing \"{article.title.strip()}\": {subject} as the clear focal point, {details}.",
            alt_text=_alt(f"{medium.split()[-1].capitalize()} illustrating {article.title.strip()}"),
            image_type="featured",
        )
    ]
    sections = _section_headings(article)
    angles = ("", "close-up detail, ", "wide establishing view, ", "overhead view, ")
    index = 0
    while len(prompts) < count:
        if not sections:
            sections = [article.title.strip() or subject]
        heading = sections[index % len(sections)]
        angle = angles[(index // len(sections)) % len(angles)]
        prompts.append(
            ImagePromptDraft(
                prompt=f"{medium} for the section \"{heading}\" of an article on {subject}: {subject} in a real-world scene, {angle}{details}.",
                alt_text=_alt(f"{heading}: {subject}"),
                image_type="in_article",
            )
        )
        index += 1
    return prompts


def _section_headings(article: ArticleDraft) -> list[str]:
    """H2 then H3 headings, without the FAQ and the conclusion, and without list numbering."""
    found = [block for block in blocks(article.html) if block.tag in ("h2", "h3")]
    headings = []
    for tag in ("h2", "h3"):
        for block in found:
            lowered = block.text.lower()
            if block.tag != tag or any(hint in lowered for hint in (*FAQ_HINTS, *CONCLUSION_HINTS)):
                continue
            text = re.sub(r"^(?:step\s+\d+\s*:|\d+\.)\s*", "", block.text, flags=re.IGNORECASE).rstrip("?").strip()
            if text and text not in headings:
                headings.append(text)
    return headings


def _alt(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= ALT_TEXT_MAX:
        return text
    return text[: ALT_TEXT_MAX - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def render_image(prompt: str, *, size: str, style: str) -> GeneratedImage:
    width, height = parse_size(size)
    rng = random.Random(seed_of("image", prompt, style, width, height))
    look = " ".join(style.lower().replace("-", " ").split())
    base, accent = _palette(rng, look)
    image = _gradient(width, height, base, accent)
    shapes = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(shapes)
    count = 3 if look == "minimalist" else rng.randint(6, 12)
    for _ in range(count):
        _shape(draw, rng, width, height, look)
    if look in ("photorealistic", "realistic", "watercolor"):
        shapes = shapes.filter(ImageFilter.GaussianBlur(radius=max(2, min(width, height) // 40)))
    image = Image.alpha_composite(image, shapes)
    _caption(image, prompt, rng)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG", compress_level=6)
    return GeneratedImage(data=buffer.getvalue(), mime_type="image/png", width=width, height=height, prompt=prompt)


def _palette(rng: random.Random, look: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    def colour(low: int, high: int) -> tuple[int, int, int]:
        return tuple(rng.randint(low, high) for _ in range(3))

    if look == "watercolor":
        return colour(190, 250), colour(150, 230)
    if look == "minimalist":
        return colour(225, 250), colour(200, 240)
    if look in ("illustration", "cartoon", "digital art"):
        return colour(30, 220), colour(30, 220)
    return colour(40, 200), colour(20, 160)


def _gradient(width: int, height: int, top: tuple[int, int, int], bottom: tuple[int, int, int]) -> Image.Image:
    ramp = Image.linear_gradient("L").resize((width, height))
    start = Image.new("RGBA", (width, height), (*top, 255))
    end = Image.new("RGBA", (width, height), (*bottom, 255))
    return Image.composite(end, start, ramp)


def _shape(draw: ImageDraw.ImageDraw, rng: random.Random, width: int, height: int, look: str) -> None:
    colour = (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255), rng.randint(60, 170))
    if look in ("illustration", "cartoon"):
        colour = (*colour[:3], 230)
    size = rng.randint(min(width, height) // 8, min(width, height) // 2)
    x, y = rng.randint(-size // 2, width), rng.randint(-size // 2, height)
    kind = rng.choice(("ellipse", "rectangle", "triangle"))
    if kind == "ellipse":
        draw.ellipse((x, y, x + size, y + size), fill=colour)
    elif kind == "rectangle":
        draw.rounded_rectangle((x, y, x + size, y + size * rng.uniform(0.4, 1.2)), radius=size // 8, fill=colour)
    else:
        draw.polygon([(x, y + size), (x + size // 2, y), (x + size, y + size)], fill=colour)


def _caption(image: Image.Image, prompt: str, rng: random.Random) -> None:
    width, height = image.size
    font_size = max(10, min(width, height) // 24)
    font = ImageFont.load_default(size=font_size)
    characters = max(12, int(width * 0.85 / (font_size * 0.48)))
    lines = textwrap.wrap(" ".join(prompt.split()), width=characters) or [""]
    max_lines = max(1, int(height * 0.4 / (font_size * 1.3)))
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: max(0, characters - 1)].rstrip() + "…"
    line_height = int(font_size * 1.3)
    panel_height = line_height * len(lines) + font_size
    top = height - panel_height - max(4, height // 30)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    margin = max(4, width // 30)
    draw.rounded_rectangle((margin, top, width - margin, top + panel_height), radius=font_size // 2, fill=(0, 0, 0, 150 + rng.randint(0, 40)))
    for index, line in enumerate(lines):
        draw.text((margin + font_size // 2, top + font_size // 2 + index * line_height), line, font=font, fill=(255, 255, 255, 255))
    image.alpha_composite(overlay)
