"""The openai provider clusters keywords with the endpoint's embeddings model when one is configured
(#19), over HTTP against the OpenAI-compatible test server (its embeddings are a bag of words)."""

import pytest
from django.test import override_settings

from inkwell.ai.errors import AIError, InvalidProviderOutput, ProviderRateLimited
from inkwell.ai.local.clustering import cluster_keywords
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.openai import OpenAITextProvider
from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour, OpenAICompatibleServer, _bag_of_words
from inkwell.ai.types import KeywordInput

KEYWORDS = [
    KeywordInput(1, "trail running shoes", 900, country="US"),
    KeywordInput(2, "running shoes for trail", 500),
    KeywordInput(3, "trail running shoes", 300, country="GB"),
    KeywordInput(4, "mortgage rates today", 700),
    KeywordInput(5, "current mortgage rates", 800),
    KeywordInput(6, "quantum chromodynamics", 10),
]


def provider_for(server: OpenAICompatibleServer, **overrides) -> OpenAITextProvider:
    values = {
        "provider": "openai", "base_url": server.base_url, "api_key": TEST_API_KEY, "model": "gpt-4o-mini",
        "embedding_model": "text-embedding-3-small", "timeout_seconds": 5, "max_retries": 0,
        # The test server listens on loopback, which only an operator's opt-in lets the provider reach.
        "allow_private": True,
    }
    return OpenAITextProvider(ProviderConfig(**{**values, **overrides}))


@override_settings(INKWELL_AI={"EMBEDDING_CLUSTER_SIMILARITY": 0.5})
def test_with_an_embeddings_model_keywords_are_clustered_by_its_vectors_not_the_chat(openai_server):
    result = provider_for(openai_server).cluster_keywords(KEYWORDS, prompt="Cluster these")

    assert [sorted(cluster.keyword_ids) for cluster in result.value] == [[1, 2, 3], [4, 5], [6]]
    assert [cluster.name for cluster in result.value] == ["Trail Running Shoes", "Current Mortgage Rates", "Quantum Chromodynamics"]
    assert openai_server.requests_to("chat") == []
    [request] = openai_server.requests_to("embeddings")
    # One text per distinct keyword: the same keyword from two countries is embedded once.
    assert request.body["model"] == "text-embedding-3-small"
    assert sorted(request.body["input"]) == sorted({keyword.keyword for keyword in KEYWORDS})
    assert result.usage.model == "text-embedding-3-small"
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens == 0
    # The same rules as the local provider, on the endpoint's vectors.
    assert result.value == cluster_keywords(KEYWORDS, similarity=0.5, embedder=lambda texts: [_bag_of_words(text) for text in texts])


def test_many_keywords_go_in_batches(openai_server, monkeypatch):
    monkeypatch.setattr("inkwell.ai.providers.openai.EMBEDDING_BATCH", 2)
    provider_for(openai_server).cluster_keywords(KEYWORDS, prompt="Cluster these")
    assert [len(request.body["input"]) for request in openai_server.requests_to("embeddings")] == [2, 2, 1]


def test_without_an_embeddings_model_the_chat_model_clusters(openai_server):
    provider_for(openai_server, embedding_model="").cluster_keywords(KEYWORDS, prompt="Cluster these")
    assert len(openai_server.requests_to("chat")) == 1 and openai_server.requests_to("embeddings") == []


def test_an_embeddings_error_is_a_clean_provider_error(openai_server):
    openai_server.script("embeddings", [Behaviour.status(429, retry_after=0.01)])
    with pytest.raises(ProviderRateLimited):
        provider_for(openai_server).cluster_keywords(KEYWORDS, prompt="Cluster these")


def test_an_unknown_embeddings_model_is_a_clean_provider_error(openai_server):
    with pytest.raises(AIError) as raised:
        provider_for(openai_server, embedding_model="no-such-embedder").cluster_keywords(KEYWORDS, prompt="Cluster these")
    assert raised.value.code == "provider_error"


def test_an_answer_without_vectors_is_invalid_output(openai_server):
    openai_server.script("embeddings", [Behaviour.content({"object": "list", "data": []})])
    with pytest.raises(InvalidProviderOutput):
        provider_for(openai_server).cluster_keywords(KEYWORDS, prompt="Cluster these")
