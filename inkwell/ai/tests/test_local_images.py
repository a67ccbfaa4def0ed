"""Image prompts and PNG artwork from the local provider (inkwell.ai.local.images)."""

import io

import pytest
from PIL import Image

from inkwell.ai.errors import AIError
from inkwell.ai.local.images import InvalidImageSize, extract_image_prompts, parse_size, render_image
from inkwell.ai.local.writer import write_article
from inkwell.ai.providers.local import LocalImageProvider, LocalTextProvider
from inkwell.ai.types import ArticleBrief


def article(**changes):
    values = {"title": "How to Choose Running Shoes for Flat Feet", "keywords": ["running shoes for flat feet", "arch support"], "word_count": 1500}
    values.update(changes)
    return write_article(ArticleBrief(**values))


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize(("size", "expected"), [("1024x1024", (1024, 1024)), ("1200x630", (1200, 630)), ("64x2048", (64, 2048)), ("512X384", (512, 384))])
def test_image_is_a_png_pillow_can_open_at_the_requested_size(size, expected):
    result = LocalImageProvider().generate_image("A runner lacing shoes at dawn", size=size, style="photorealistic")
    image = opened(result.value.data)
    assert image.format == "PNG"
    assert image.size == expected
    assert (result.value.width, result.value.height) == expected
    assert result.value.mime_type == "image/png"
    assert result.value.prompt == "A runner lacing shoes at dawn"


def test_default_size_is_1024_square():
    assert opened(LocalImageProvider().generate_image("Trail shoes on a rock").value.data).size == (1024, 1024)


def test_different_prompts_give_different_images_and_the_same_prompt_the_same_one():
    first = render_image("Trail running shoes on a muddy path", size="256x256", style="photorealistic")
    again = render_image("Trail running shoes on a muddy path", size="256x256", style="photorealistic")
    other = render_image("A bowl of sourdough starter on a kitchen counter", size="256x256", style="photorealistic")
    assert first.data == again.data
    assert first.data != other.data
    assert opened(first.data).tobytes() != opened(other.data).tobytes()


def test_style_changes_the_image():
    prompt = "A cosy reading corner with plants"
    looks = {style: opened(render_image(prompt, size="256x256", style=style).data).tobytes() for style in ("photorealistic", "illustration", "watercolor", "minimalist")}
    assert len(set(looks.values())) == 4


@pytest.mark.parametrize("size", ["", "1024", "big", "1024x", "0x0", "63x100", "100x2049", "4096x4096", "-5x10", "1024x1024x3"])
def test_bad_size_is_rejected(size):
    with pytest.raises(InvalidImageSize) as raised:
        LocalImageProvider().generate_image("A prompt", size=size, style="photorealistic")
    assert isinstance(raised.value, AIError) and isinstance(raised.value, ValueError)
    assert raised.value.code == "invalid_image_size"
    assert "WIDTHxHEIGHT" in raised.value.message


def test_size_parsing_accepts_spaces_and_capital_x():
    assert parse_size(" 800 x 600 ") == (800, 600)
    assert parse_size("2048X2048") == (2048, 2048)


def test_long_prompts_and_braces_render_without_error():
    prompt = "A {weird} prompt <b>with</b> markup " * 40
    assert opened(render_image(prompt, size="128x128", style="sketch").data).size == (128, 128)


def test_image_prompts_start_with_a_featured_image_then_sections_in_order():
    draft = article()
    prompts = extract_image_prompts(draft, count=4, style="photorealistic")
    assert [prompt.image_type for prompt in prompts] == ["featured", "in_article", "in_article", "in_article"]
    assert draft.title in prompts[0].prompt
    sections = [heading for heading in draft.outline if heading not in ("Frequently Asked Questions", "Conclusion")]
    for prompt, heading in zip(prompts[1:], sections):
        assert f'"{heading.rstrip("?")}"' in prompt.prompt
    assert all(prompt.prompt.startswith("Photorealistic photograph") for prompt in prompts)
    assert all(0 < len(prompt.alt_text) <= 125 for prompt in prompts)
    assert len({prompt.prompt for prompt in prompts}) == 4


@pytest.mark.parametrize(("style", "medium"), [("illustration", "Flat vector illustration"), ("watercolor", "Watercolor painting"), ("neon noir", "Image in a neon noir style")])
def test_image_prompts_honour_the_style(style, medium):
    prompts = extract_image_prompts(article(), count=2, style=style)
    assert all(prompt.prompt.startswith(medium) for prompt in prompts)


def test_more_prompts_than_sections_stay_distinct():
    draft = article(word_count=300)
    prompts = extract_image_prompts(draft, count=12, style="photorealistic")
    assert len(prompts) == 12
    assert len({prompt.prompt for prompt in prompts}) == 12


def test_zero_prompts_asked_gives_none():
    assert extract_image_prompts(article(), count=0, style="photorealistic") == []


def test_text_provider_extracts_prompts_with_token_usage():
    result = LocalTextProvider().extract_image_prompts(article(), count=3, style="photorealistic", prompt="Write three prompts")
    assert len(result.value) == 3
    assert result.usage.model == "local" and result.usage.prompt_tokens == 4 and result.usage.completion_tokens > 0


def test_image_provider_reports_prompt_tokens_only():
    usage = LocalImageProvider().generate_image("one two three", size="64x64", style="minimalist").usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.model) == (4, 0, "local")
