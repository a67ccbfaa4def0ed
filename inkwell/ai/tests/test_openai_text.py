"""The openai provider's text operations, end to end over HTTP against the OpenAI-compatible
test server (no SDK mocks)."""

import json

import pytest
from jsonschema import Draft202012Validator

from inkwell.ai import schemas
from inkwell.ai.analysis import analyze
from inkwell.ai.errors import InvalidProviderOutput, ProviderNotConfigured
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.openai import (
    LOCAL_SERVER_PLACEHOLDER_KEY,
    OpenAITextProvider,
    is_local_endpoint,
)
from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour, OpenAICompatibleServer
from inkwell.ai.types import ArticleBrief, ArticleDraft, FaqItem, KeywordInput

PROMPT = "Cluster these keywords for a gardening site."
KEYWORDS = [
    KeywordInput(1, "tomato seeds", 900, 20),
    KeywordInput(2, "tomato plants care", 500, 35),
    KeywordInput(3, "rose pruning", 700, 40),
    KeywordInput(4, "rose fertilizer", 300, 15),
    KeywordInput(5, "basil", 1000, 10),
]
ARTICLE = ArticleDraft(
    title="Growing tomatoes at home",
    meta_title="Growing tomatoes at home",
    meta_description="A simple guide.",
    focus_keyword="growing tomatoes",
    outline=["Choosing seeds", "Watering"],
    html="<h2>Choosing seeds</h2><p>Pick a variety that suits your climate.</p><h2>Watering</h2><p>Water deeply, twice a week.</p>",
    word_count=15,
    faq=[FaqItem("When to plant?", "After the last frost.")],
)


def provider_for(server: OpenAICompatibleServer, **overrides) -> OpenAITextProvider:
    values = {"provider": "openai", "base_url": server.base_url, "api_key": TEST_API_KEY, "model": "gpt-4o-mini", "timeout_seconds": 5, "max_retries": 0, "allow_private": True}
    return OpenAITextProvider(ProviderConfig(**{**values, **overrides}))


def chat_bodies(server: OpenAICompatibleServer) -> list[dict]:
    return [request.body for request in server.requests_to("chat")]


def inputs_of(body: dict) -> dict:
    return json.loads(body["messages"][1]["content"].rsplit("\n", 1)[-1])


def test_every_schema_is_a_valid_draft_2020_12_schema():
    for schema in schemas.ALL:
        Draft202012Validator.check_schema(schema)


def test_clustering_sends_the_prompt_the_keyword_ids_and_the_schema_as_json_mode_chat(openai_server):
    result = provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT)

    assert {cluster.name: cluster.keyword_ids for cluster in result.value} == {"Tomato": [1, 2], "Rose": [3, 4], "Basil": [5]}
    [request] = openai_server.requests_to("chat")
    assert request.headers["authorization"] == f"Bearer {TEST_API_KEY}"
    assert request.body["model"] == "gpt-4o-mini"
    assert request.body["response_format"] == {"type": "json_object"}
    system, user = request.body["messages"]
    assert system["role"] == "system" and json.loads(system["content"].rsplit("\n", 1)[-1]) == schemas.CLUSTER_KEYWORDS
    assert user["role"] == "user" and user["content"].startswith(PROMPT)
    assert [keyword["id"] for keyword in inputs_of(request.body)["keywords"]] == [1, 2, 3, 4, 5]


def test_clustering_gives_each_omitted_id_a_cluster_of_its_own_named_after_it_drops_unknown_ids_and_keeps_repeats_once(openai_server):
    """Contract section 12: every keyword ends in a cluster; one the model left out is a cluster of
    its own, named after it (issue 30, case 2)."""
    openai_server.script("chat", [Behaviour.content({"clusters": [
        {"name": "Tomatoes", "description": "Tomato growing", "keyword_ids": [1, 2, 99, 1]},
        {"name": "Roses", "keyword_ids": [3, 2]},
        {"name": "Ghosts", "keyword_ids": [42]},
    ]})])

    clusters = provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT).value

    assert [(c.name, c.keyword_ids) for c in clusters] == [("Tomatoes", [1, 2]), ("Roses", [3]), ("rose fertilizer", [4]), ("basil", [5])]
    assert clusters[1].description == ""


def test_clustering_splits_the_models_other_cluster_into_a_cluster_per_keyword(openai_server):
    openai_server.script("chat", [Behaviour.content({"clusters": [
        {"name": "Tomatoes", "keyword_ids": [1, 2]},
        {"name": "other", "description": "Misc", "keyword_ids": [5]},
    ]})])

    clusters = provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT).value

    assert [(c.name, c.keyword_ids) for c in clusters] == [("Tomatoes", [1, 2]), ("basil", [5]), ("rose pruning", [3]), ("rose fertilizer", [4])]


def test_token_usage_is_read_from_the_response_usage(openai_server):
    result = provider_for(openai_server, model="gpt-4o").cluster_keywords(KEYWORDS, prompt=PROMPT)

    [body] = chat_bodies(openai_server)
    expected_prompt_tokens = sum(len(message["content"]) // 4 for message in body["messages"])
    assert result.usage.prompt_tokens == expected_prompt_tokens
    assert result.usage.completion_tokens > 0
    assert result.usage.model == "gpt-4o"


def test_ideas_are_generated_for_the_cluster_and_capped_at_the_requested_count(openai_server):
    provider = provider_for(openai_server)
    ideas = provider.generate_ideas("Tomatoes", ["tomato seeds", "tomato plants care"], count=3, prompt="Ideas please").value

    assert len(ideas) == 3
    assert all(idea.title and idea.outline and idea.target_keywords for idea in ideas)
    assert [idea.content_structure for idea in ideas] == ["guide", "listicle", "how_to"]
    assert inputs_of(chat_bodies(openai_server)[0]) == {"cluster_name": "Tomatoes", "keywords": ["tomato seeds", "tomato plants care"], "count": 3}

    openai_server.script("chat", [Behaviour.content({"ideas": [
        {"title": f"Idea {n}", "description": "", "content_type": "Blog Post", "content_structure": "How-To",
         "target_keywords": ["  tomato seeds "], "outline": ["Intro"]} for n in range(5)
    ]})])
    ideas = provider.generate_ideas("Tomatoes", ["tomato seeds"], count=2, prompt="Ideas please").value
    assert [(idea.title, idea.content_type, idea.content_structure, idea.target_keywords) for idea in ideas] == [
        ("Idea 0", "blog_post", "how_to", ["tomato seeds"]),
        ("Idea 1", "blog_post", "how_to", ["tomato seeds"]),
    ]


def test_article_is_written_at_about_the_requested_length_with_its_word_count_measured(openai_server):
    brief = ArticleBrief(title="Growing tomatoes", keywords=["growing tomatoes", "tomato care"], word_count=800, include_faq=True)

    article = provider_for(openai_server).write_article(brief, prompt="Write it").value

    assert 0.8 * 800 <= article.word_count <= 1.3 * 800
    assert article.word_count == analyze(article).word_count
    assert article.focus_keyword == "growing tomatoes" and article.outline and article.faq
    assert inputs_of(chat_bodies(openai_server)[0])["word_count"] == 800


def test_article_without_faq_in_the_brief_has_no_faq_even_if_the_model_wrote_one(openai_server):
    answer = {"title": "T", "meta_title": "T", "meta_description": "D", "focus_keyword": "k", "outline": ["A"],
              "html": "<h2>A</h2><p>One two three.</p>", "faq": [{"question": "Q?", "answer": "A."}]}
    openai_server.script("chat", [Behaviour.content(answer)])

    article = provider_for(openai_server).write_article(ArticleBrief(title="T", keywords=["k"], include_faq=False), prompt="p").value

    assert article.faq == [] and article.word_count == 4


def test_image_prompts_follow_the_article_with_the_first_one_featured(openai_server):
    prompts = provider_for(openai_server).extract_image_prompts(ARTICLE, count=3, style="watercolor", prompt="p").value

    assert [p.image_type for p in prompts] == ["featured", "in_article", "in_article"]
    assert all("watercolor" in p.prompt and p.alt_text for p in prompts)
    sent = inputs_of(chat_bodies(openai_server)[0])
    assert sent["count"] == 3 and sent["style"] == "watercolor" and sent["html"] == ARTICLE.html


def test_optimized_article_comes_with_content_analysis_before_and_after(openai_server):
    result = provider_for(openai_server).optimize_article(ARTICLE, prompt="Optimize").value

    assert result.article.html != ARTICLE.html and result.changes
    assert "growing tomatoes" in result.article.meta_description.lower()
    assert result.before == analyze(ARTICLE)
    assert result.after == analyze(result.article)
    assert inputs_of(chat_bodies(openai_server)[0])["html"] == ARTICLE.html


def test_malformed_json_is_asked_for_again_once_with_the_reason_and_both_answers_count_tokens(openai_server):
    openai_server.script("chat", [Behaviour.malformed_json(), Behaviour.ok()])

    result = provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT)

    assert len(result.value) == 3
    first, second = chat_bodies(openai_server)
    assert second["messages"][:2] == first["messages"]
    assert "not valid JSON" in second["messages"][2]["content"]
    single = provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT).usage
    assert result.usage.prompt_tokens > single.prompt_tokens


def test_malformed_json_twice_raises_invalid_provider_output_after_two_requests(openai_server):
    openai_server.script("chat", [Behaviour.malformed_json(), Behaviour.malformed_json()])

    with pytest.raises(InvalidProviderOutput):
        provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT)

    assert len(openai_server.requests_to("chat")) == 2


def test_answer_that_does_not_match_the_schema_is_retried_then_rejected(openai_server):
    wrong = Behaviour.content({"clusters": [{"name": "Tomatoes", "keyword_ids": ["one"]}]})
    openai_server.script("chat", [wrong, Behaviour.ok()])
    assert len(provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT).value) == 3
    assert "clusters/0/keyword_ids/0" in chat_bodies(openai_server)[1]["messages"][2]["content"]

    openai_server.script("chat", [wrong, Behaviour.content({"ideas": []})])
    with pytest.raises(InvalidProviderOutput):
        provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT)
    assert len(openai_server.requests_to("chat")) == 4


def test_an_answer_cut_off_at_the_length_limit_is_asked_for_again_shorter(openai_server):
    openai_server.script("chat", [Behaviour.content('{"clusters": [{"name": "Tom', finish_reason="length"), Behaviour.ok()])

    assert len(provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT).value) == 3
    assert "cut off at the output length limit" in chat_bodies(openai_server)[1]["messages"][2]["content"]


def test_json_wrapped_in_a_markdown_fence_is_accepted(openai_server):
    openai_server.script("chat", [Behaviour.content('```json\n{"clusters": [{"name": "All", "keyword_ids": [1, 2, 3, 4, 5]}]}\n```')])

    clusters = provider_for(openai_server).cluster_keywords(KEYWORDS, prompt=PROMPT).value

    assert [(c.name, c.keyword_ids) for c in clusters] == [("All", [1, 2, 3, 4, 5])]
    assert len(openai_server.requests_to("chat")) == 1


def test_nothing_to_do_costs_no_request(openai_server):
    provider = provider_for(openai_server)

    assert provider.cluster_keywords([], prompt=PROMPT).value == []
    assert provider.generate_ideas("Tomatoes", ["tomato seeds"], count=0, prompt="p").value == []
    assert provider.extract_image_prompts(ARTICLE, count=0, style="", prompt="p").value == []
    assert openai_server.requests == []


def test_missing_key_or_model_raises_provider_not_configured_without_a_request(openai_server):
    remote = OpenAITextProvider(ProviderConfig(provider="openai", base_url="https://api.example.com/v1", api_key="", model="gpt-4o"))
    with pytest.raises(ProviderNotConfigured):
        remote.cluster_keywords(KEYWORDS, prompt=PROMPT)
    default_endpoint = OpenAITextProvider(ProviderConfig(provider="openai", api_key="", model="gpt-4o"))
    with pytest.raises(ProviderNotConfigured):
        default_endpoint.cluster_keywords(KEYWORDS, prompt=PROMPT)
    with pytest.raises(ProviderNotConfigured):
        provider_for(openai_server, model="").cluster_keywords(KEYWORDS, prompt=PROMPT)
    assert openai_server.requests == []


def test_local_server_takes_no_key_and_gets_a_placeholder_bearer():
    with OpenAICompatibleServer(api_key=None) as server:
        result = provider_for(server, api_key="").cluster_keywords(KEYWORDS, prompt=PROMPT)

        assert len(result.value) == 3
        assert server.requests_to("chat")[0].headers["authorization"] == f"Bearer {LOCAL_SERVER_PLACEHOLDER_KEY}"


@pytest.mark.parametrize(
    ("base_url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://127.0.0.1:1234/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://ollama.localhost/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://my-resource.openai.azure.com/openai/v1", False),
        ("http://8.8.8.8/v1", False),
        ("", False),
    ],
)
def test_only_local_and_private_network_endpoints_count_as_local(base_url, local):
    assert is_local_endpoint(base_url) is local
