"""The prompt registry (inkwell.ai.prompts)."""

import pytest

from inkwell.ai.prompts import PROMPT_TYPE_NAMES, PROMPTS, placeholders_in, render, template_errors

EXPECTED = {
    "clustering": ("keywords", "sector"),
    "idea_generation": ("cluster_name", "keywords", "count"),
    "content_generation": ("title", "keywords", "word_count", "tone", "structure", "outline", "include_faq", "description", "brief", "voice"),
    "image_prompt_extraction": ("title", "headings", "count", "style"),
    "image_generation": ("prompt", "style"),
    "optimization": ("title", "focus_keyword", "content", "voice"),
}


def test_registry_lists_every_documented_prompt_type_in_order():
    assert PROMPT_TYPE_NAMES == tuple(EXPECTED)
    assert list(PROMPTS) == list(EXPECTED)
    for name, spec in PROMPTS.items():
        assert spec.type == name
        assert spec.placeholders == EXPECTED[name]
        assert spec.title and spec.description


@pytest.mark.parametrize("prompt_type", PROMPT_TYPE_NAMES)
def test_every_default_uses_all_its_placeholders_and_has_no_errors(prompt_type):
    spec = PROMPTS[prompt_type]
    assert placeholders_in(spec.default_text) == set(spec.placeholders)
    assert template_errors(prompt_type, spec.default_text) == []


@pytest.mark.parametrize("prompt_type", PROMPT_TYPE_NAMES)
def test_every_type_renders_its_values(prompt_type):
    spec = PROMPTS[prompt_type]
    values = {name: f"<{name}-value>" for name in spec.placeholders}
    rendered = render(prompt_type, spec.default_text, **values)
    for value in values.values():
        assert value in rendered
    assert not placeholders_in(rendered) & set(spec.placeholders)


def test_unknown_placeholders_are_errors():
    errors = template_errors("clustering", "Cluster {keywords} for {site_name} and {count}")
    assert errors == [
        "Unknown placeholder {count}; this prompt can use {keywords}, {sector}",
        "Unknown placeholder {site_name}; this prompt can use {keywords}, {sector}",
    ]


def test_unbalanced_braces_are_errors():
    assert template_errors("clustering", "Cluster {keywords}\nthen { more") == ["Unmatched '{' on line 2: every '{' needs a closing '}'"]
    assert template_errors("clustering", "Cluster {keywords} }") == ["Unmatched '}' on line 1"]


def test_json_examples_and_escaped_placeholders_are_allowed():
    text = 'Answer as {"clusters": [{"name": "...", "keywords": []}]}. Literal {{keywords}} here. Data: {keywords}'
    assert template_errors("clustering", text) == []
    assert placeholders_in(text) == {"keywords"}
    rendered = render("clustering", text, keywords="a\nb")
    assert rendered == 'Answer as {"clusters": [{"name": "...", "keywords": []}]}. Literal {keywords} here. Data: a\nb'


def test_empty_prompt_and_unknown_type_are_errors():
    assert template_errors("clustering", "   ") == ["The prompt cannot be empty"]
    assert template_errors("summarizing", "Hello") == ["Unknown prompt type 'summarizing'"]


def test_braces_in_user_values_are_inserted_literally():
    rendered = render("idea_generation", "Ideas for {cluster_name}: {keywords} ({count})", cluster_name="{keywords}", keywords="{count} {{x}} {", count=3)
    assert rendered == "Ideas for {keywords}: {count} {{x}} { (3)"


def test_render_never_raises_on_broken_user_templates():
    assert render("clustering", "Bad { template {unknown} }} {keywords", keywords="k") == "Bad { template {unknown} }} {keywords"
    assert render("clustering", "", keywords="k") == ""


def test_render_formats_values_for_prompts():
    text = "{include_faq}|{outline}|{word_count}|{description}"
    assert render("content_generation", text, include_faq=True, outline=["A", "B"], word_count=1500, description=None) == "yes|A\nB|1500|"
    assert render("content_generation", "{title}!") == "!"


def test_rendering_an_unknown_type_is_a_programming_error():
    with pytest.raises(KeyError):
        render("summarizing", "Hello")


def test_an_accounts_template_without_the_brief_and_voice_still_carries_them():
    """Issue 35: every writing prompt carries the approved brief and the site's voice, also one an
    account wrote before they existed."""
    from inkwell.ai.client import AIClient
    from inkwell.ai.types import ArticleBrief, InternalLink, Voice

    client = AIClient(text=None, image=None, templates={"content_generation": "Write about {title}."})
    brief = ArticleBrief(
        title="Tomatoes",
        keywords=["tomatoes"],
        reader="Balcony growers",
        internal_links=[InternalLink("Compost", "https://site.test/compost/")],
        sources=["https://extension.example.org/tomatoes"],
        voice=Voice(person="third", words_to_avoid=("journey",)),
    )
    prompt = client.prompt(
        "content_generation", title=brief.title, keywords="tomatoes", word_count=900, tone="friendly", structure="guide", outline="",
        include_faq=True, description="", brief=brief.brief_text(), voice=brief.voice.as_text(), carried=(("brief", "Brief"), ("voice", "The site's voice")),
    )
    assert prompt.startswith("Write about Tomatoes.")
    assert "Reader: Balcony growers" in prompt and "- Compost: https://site.test/compost/" in prompt
    assert "- https://extension.example.org/tomatoes" in prompt and "Words never to use: journey" in prompt


def test_the_optimization_prompt_carries_the_sites_voice():
    from inkwell.ai.client import AIClient
    from inkwell.ai.optimization import optimization_prompt
    from inkwell.ai.types import ArticleDraft, Voice

    article = ArticleDraft(title="Tomatoes", meta_title="", meta_description="", focus_keyword="tomatoes", outline=[], html="<p>x</p>", word_count=1)
    for templates in ({}, {"optimization": "Improve {title}."}):
        prompt = optimization_prompt(AIClient(text=None, image=None, templates=templates), article, ["Add a heading"], voice=Voice(person="first", words_to_avoid=("journey",)))
        assert "Words never to use: journey" in prompt and "Person: first person plural" in prompt
