"""AIClient (inkwell.ai.client) and provider construction (inkwell.ai.providers)."""

import pytest

from inkwell.ai.client import AIClient
from inkwell.ai.errors import ProviderNotConfigured
from inkwell.ai.prompts import PROMPTS, render
from inkwell.ai.providers import (
    PROVIDER_NAMES,
    build_image_provider,
    build_text_provider,
    default_image_config,
    default_text_config,
)
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.local import LocalImageProvider, LocalTextProvider
from inkwell.ai.types import AIResult, ArticleBrief, ArticleDraft, KeyCheck, KeywordInput, TokenUsage


class RecordingProvider:
    """A test double that records what each call received."""

    name = "recording"

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []

    def _record(self, operation: str, **arguments):
        self.calls.append((operation, arguments))
        return AIResult(value=operation, usage=TokenUsage(model="recording"))

    def cluster_keywords(self, keywords, *, prompt):
        return self._record("cluster_keywords", keywords=keywords, prompt=prompt)

    def generate_ideas(self, cluster_name, keywords, *, count, prompt):
        return self._record("generate_ideas", cluster_name=cluster_name, keywords=keywords, count=count, prompt=prompt)

    def write_article(self, brief, *, prompt):
        return self._record("write_article", brief=brief, prompt=prompt)

    def extract_image_prompts(self, article, *, count, style, prompt):
        return self._record("extract_image_prompts", article=article, count=count, style=style, prompt=prompt)

    def optimize_article(self, article, *, prompt):
        return self._record("optimize_article", article=article, prompt=prompt)

    def generate_image(self, prompt, *, size, style):
        return self._record("generate_image", prompt=prompt, size=size, style=style)

    def test_key(self):
        return KeyCheck(valid=True, detail="recorded", provider="recording")


ARTICLE = ArticleDraft(
    title="Trail Shoes",
    meta_title="Trail Shoes",
    meta_description="About trail shoes.",
    focus_keyword="trail shoes",
    outline=["Grip", "Fit"],
    html="<p>Intro.</p><h2>Grip</h2><p>Text.</p><h2>Fit</h2><p>Text.</p>",
    word_count=4,
)


@pytest.fixture
def recorder():
    return RecordingProvider()


def test_default_templates_are_rendered_and_reach_the_provider(recorder):
    client = AIClient(recorder, recorder, {})
    keywords = [KeywordInput(1, "trail shoes"), KeywordInput(2, "road shoes")]
    assert client.cluster_keywords(keywords, sector="Running").value == "cluster_keywords"
    operation, arguments = recorder.calls[-1]
    assert arguments["keywords"] == keywords
    assert arguments["prompt"] == render("clustering", PROMPTS["clustering"].default_text, keywords="trail shoes\nroad shoes", sector="Running")


def test_account_templates_override_the_defaults(recorder):
    templates = {
        "clustering": "C: {keywords} / {sector}",
        "idea_generation": "I: {count} for {cluster_name}: {keywords}",
        "content_generation": "W: {title} {word_count} {tone} {structure} {include_faq} [{outline}] {keywords} {description}",
        "image_prompt_extraction": "P: {count} {style} {title} [{headings}]",
        "image_generation": "G: {prompt} in {style}",
        "optimization": "O: {title} {focus_keyword} {content}",
    }
    client = AIClient(recorder, recorder, templates)
    client.cluster_keywords([KeywordInput(1, "a"), KeywordInput(2, "b")])
    client.generate_ideas("Trail Shoes", ["trail shoes", "grip"], count=2)
    client.write_article(ArticleBrief(title="T", keywords=["k1", "k2"], word_count=900, tone="casual", structure="listicle", include_faq=False, outline=["A", "B"], description="D"))
    client.extract_image_prompts(ARTICLE, count=2, style="watercolor")
    client.generate_image("a trail", size="512x512", style="sketch")
    client.optimize_article(ARTICLE)
    prompts = [arguments["prompt"] for _operation, arguments in recorder.calls]
    assert prompts == [
        "C: a\nb / ",
        "I: 2 for Trail Shoes: trail shoes\ngrip",
        "W: T 900 casual listicle no [A\nB] k1, k2 D",
        "P: 2 watercolor Trail Shoes [Grip\nFit]",
        "G: a trail in sketch",
        f"O: Trail Shoes trail shoes {ARTICLE.html}",
    ]


def test_structured_inputs_reach_the_provider_beside_the_prompt(recorder):
    client = AIClient(recorder, recorder, {})
    client.generate_ideas("Trail Shoes", ("trail shoes",), count=4)
    client.extract_image_prompts(ARTICLE)
    client.generate_image("a trail")
    assert recorder.calls[0][1]["count"] == 4 and recorder.calls[0][1]["keywords"] == ["trail shoes"]
    assert recorder.calls[1][1]["count"] == 3 and recorder.calls[1][1]["style"] == "photorealistic"
    assert recorder.calls[2][1]["size"] == "1024x1024" and recorder.calls[2][1]["style"] == "photorealistic"


def test_image_prompt_headings_come_from_the_html_when_the_outline_is_empty(recorder):
    client = AIClient(recorder, recorder, {"image_prompt_extraction": "{headings}"})
    client.extract_image_prompts(ArticleDraft(**{**ARTICLE.__dict__, "outline": []}))
    assert recorder.calls[-1][1]["prompt"] == "Grip\nFit"


def test_a_missing_or_blank_template_falls_back_to_the_default(recorder):
    client = AIClient(recorder, recorder, {"optimization": ""})
    client.optimize_article(ARTICLE)
    assert recorder.calls[-1][1]["prompt"].startswith(PROMPTS["optimization"].default_text[:40])


def test_user_braces_in_inputs_are_passed_through_literally(recorder):
    client = AIClient(recorder, recorder, {"clustering": "{keywords}"})
    client.cluster_keywords([KeywordInput(1, "{sector} shoes"), KeywordInput(2, "a {{b}}")], sector="X")
    assert recorder.calls[-1][1]["prompt"] == "{sector} shoes\na {{b}}"


def test_local_client_runs_every_operation_end_to_end():
    client = AIClient(LocalTextProvider(), LocalImageProvider(), {})
    clusters = client.cluster_keywords([KeywordInput(1, "trail running shoes"), KeywordInput(2, "trail shoes for running"), KeywordInput(3, "mortgage rates")]).value
    # "mortgage rates" fits neither: it is a cluster of its own (contract section 12, issue 30).
    assert [sorted(cluster.keyword_ids) for cluster in clusters] == [[1, 2], [3]]
    idea = client.generate_ideas(clusters[0].name, ["trail running shoes"], count=1).value[0]
    article = client.write_article(ArticleBrief(title=idea.title, keywords=idea.target_keywords, structure=idea.content_structure, outline=idea.outline, word_count=600)).value
    prompts = client.extract_image_prompts(article, count=2).value
    image = client.generate_image(prompts[0].prompt, size="128x128").value
    optimized = client.optimize_article(article).value
    assert image.mime_type == "image/png" and image.prompt.startswith(prompts[0].prompt)
    assert optimized.after.score >= optimized.before.score


def test_provider_names_are_local_and_openai():
    assert PROVIDER_NAMES == ("local", "openai")


def test_local_config_builds_local_providers():
    config = ProviderConfig(provider="local")
    assert isinstance(build_text_provider(config), LocalTextProvider)
    assert isinstance(build_image_provider(config), LocalImageProvider)
    assert build_text_provider(config).name == build_image_provider(config).name == "local"


def test_local_key_check_needs_no_key():
    check = build_text_provider(ProviderConfig(provider="local")).test_key()
    assert check == KeyCheck(valid=True, detail="The local provider needs no API key", provider="local", model="local")
    assert build_image_provider(ProviderConfig(provider="local")).test_key().valid


def test_openai_config_builds_openai_providers():
    openai = pytest.importorskip("inkwell.ai.providers.openai")
    config = ProviderConfig(provider="openai", base_url="https://api.example.com/v1", api_key="sk-test-0123456789abcdef", model="gpt-4o-mini")
    assert isinstance(build_text_provider(config), openai.OpenAITextProvider)
    assert isinstance(build_image_provider(config), openai.OpenAIImageProvider)


@pytest.mark.parametrize("name", ["", "anthropic", "LOCAL"])
def test_unknown_provider_is_not_configured(name):
    with pytest.raises(ProviderNotConfigured):
        build_text_provider(ProviderConfig(provider=name))
    with pytest.raises(ProviderNotConfigured):
        build_image_provider(ProviderConfig(provider=name))


AI_SETTINGS = {
    "PROVIDER": "openai",
    "BASE_URL": "https://api.example.com/v1",
    "API_KEY": "sk-text-key",
    "TESTING_MODEL": "small-model",
    "LIVE_MODEL": "big-model",
    "IMAGE_PROVIDER": "openai",
    "IMAGE_BASE_URL": "",
    "IMAGE_API_KEY": "",
    "IMAGE_MODEL": "image-model",
    "TIMEOUT_SECONDS": 30,
    "MAX_RETRIES": 0,
}


def test_default_text_config_reads_settings(settings):
    settings.INKWELL_AI = AI_SETTINGS
    live = default_text_config()
    assert (live.provider, live.base_url, live.api_key, live.model, live.timeout_seconds, live.max_retries) == (
        "openai", "https://api.example.com/v1", "sk-text-key", "big-model", 30.0, 0
    )
    assert default_text_config(live=False).model == "small-model"
    assert "sk-text-key" not in repr(live)


def test_default_image_config_falls_back_to_the_text_url_and_key(settings):
    settings.INKWELL_AI = AI_SETTINGS
    image = default_image_config()
    assert (image.provider, image.base_url, image.api_key, image.model) == ("openai", "https://api.example.com/v1", "sk-text-key", "image-model")
    settings.INKWELL_AI = {**AI_SETTINGS, "IMAGE_BASE_URL": "https://images.example.com", "IMAGE_API_KEY": "sk-image-key"}
    image = default_image_config()
    assert (image.base_url, image.api_key) == ("https://images.example.com", "sk-image-key")


def test_shipped_settings_default_to_the_local_providers(settings):
    assert default_text_config().provider in PROVIDER_NAMES
    settings.INKWELL_AI = {}
    assert default_text_config().provider == "local" and default_image_config().provider == "local"
