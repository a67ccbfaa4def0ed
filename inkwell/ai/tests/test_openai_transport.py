"""The openai provider's transport: timeouts, retries with backoff, error mapping, safe messages
and logs, and the key check, over real HTTP against the OpenAI-compatible test server."""

import logging
import socket
import time

import pytest

from inkwell.ai.errors import ProviderAuthFailed, ProviderRateLimited, ProviderTimeout, ProviderUnavailable
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.openai import UNREACHABLE, OpenAITextProvider
from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour, OpenAICompatibleServer
from inkwell.ai.types import KeywordInput

PROMPT = "Cluster these private keywords: secret-launch-codename"
KEYWORDS = [KeywordInput(1, "tomato seeds"), KeywordInput(2, "rose pruning")]


def provider_for(server: OpenAICompatibleServer, **overrides) -> OpenAITextProvider:
    values = {"provider": "openai", "base_url": server.base_url, "api_key": TEST_API_KEY, "model": "gpt-4o-mini", "timeout_seconds": 5, "max_retries": 2, "allow_private": True}
    return OpenAITextProvider(ProviderConfig(**{**values, **overrides}))


def cluster(provider: OpenAITextProvider):
    return provider.cluster_keywords(KEYWORDS, prompt=PROMPT)


def gaps(server: OpenAICompatibleServer, endpoint: str = "chat") -> list[float]:
    times = [request.received_at for request in server.requests_to(endpoint)]
    return [later - earlier for earlier, later in zip(times, times[1:])]


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_slow_provider_raises_provider_timeout_once_the_timeout_passes(openai_server):
    openai_server.script("chat", [Behaviour.delay(3)])

    started = time.monotonic()
    with pytest.raises(ProviderTimeout):
        cluster(provider_for(openai_server, timeout_seconds=0.3, max_retries=0))

    assert time.monotonic() - started < 1.5
    assert len(openai_server.requests_to("chat")) == 1


def test_a_timeout_is_retried(openai_server):
    openai_server.script("chat", [Behaviour.delay(3), Behaviour.ok()])

    assert len(cluster(provider_for(openai_server, timeout_seconds=0.3, max_retries=1)).value) == 2
    assert len(openai_server.requests_to("chat")) == 2


def test_a_rate_limit_is_retried_after_the_servers_retry_after_and_then_succeeds(openai_server):
    openai_server.script("chat", [Behaviour.status(429, retry_after=0.05), Behaviour.ok()])

    result = cluster(provider_for(openai_server))

    assert len(result.value) == 2
    assert len(openai_server.requests_to("chat")) == 2
    # Retry-After (50 ms) replaced the SDK's own first backoff of 375-500 ms.
    [gap] = gaps(openai_server)
    assert 0.05 <= gap < 0.36


def test_a_persistent_rate_limit_raises_provider_rate_limited_after_max_retries_plus_one_attempts(openai_server):
    openai_server.script("chat", [Behaviour.status(429, retry_after=0.01)] * 3)

    with pytest.raises(ProviderRateLimited) as raised:
        cluster(provider_for(openai_server, max_retries=2))

    assert raised.value.message == ProviderRateLimited.message
    assert len(openai_server.requests_to("chat")) == 3


def test_an_exhausted_quota_is_reported_as_such(openai_server):
    openai_server.script("chat", [Behaviour.status(429, retry_after=0.01, error_code="insufficient_quota")])

    with pytest.raises(ProviderRateLimited) as raised:
        cluster(provider_for(openai_server, max_retries=0))

    assert "quota" in raised.value.message


def test_server_errors_are_retried_with_exponential_backoff_then_raise_provider_unavailable(openai_server):
    openai_server.script("chat", [Behaviour.status(500), Behaviour.status(503), Behaviour.status(500)])

    with pytest.raises(ProviderUnavailable) as raised:
        cluster(provider_for(openai_server, max_retries=2))

    assert raised.value.message == "The AI provider returned an error (HTTP 500)"
    assert len(openai_server.requests_to("chat")) == 3
    first, second = gaps(openai_server)
    # The SDK waits 0.5 s then 1 s, each less up to 25 % jitter.
    assert 0.37 <= first < 1.0
    assert 0.74 <= second < 2.0


def test_a_rejected_key_raises_provider_auth_failed_without_retrying(openai_server):
    with pytest.raises(ProviderAuthFailed):
        cluster(provider_for(openai_server, api_key="sk-wrong-key-0000000000"))

    assert len(openai_server.requests_to("chat")) == 1


def test_a_forbidden_answer_raises_provider_auth_failed(openai_server):
    openai_server.script("chat", [Behaviour.status(403)])

    with pytest.raises(ProviderAuthFailed):
        cluster(provider_for(openai_server))

    assert len(openai_server.requests_to("chat")) == 1


def test_an_unknown_model_raises_provider_unavailable_with_a_safe_message_and_no_retry(openai_server):
    with pytest.raises(ProviderUnavailable) as raised:
        cluster(provider_for(openai_server, model="gpt-nonexistent"))

    assert raised.value.message == "The AI provider does not offer the configured model or endpoint (HTTP 404)"
    assert len(openai_server.requests_to("chat")) == 1


def test_a_bad_request_raises_provider_unavailable_with_a_safe_message(openai_server):
    openai_server.script("chat", [Behaviour.status(400)])

    with pytest.raises(ProviderUnavailable) as raised:
        cluster(provider_for(openai_server))

    assert raised.value.message == "The AI provider rejected the request (HTTP 400); check the model name"
    assert len(openai_server.requests_to("chat")) == 1


def test_an_unreachable_endpoint_raises_provider_unavailable():
    with pytest.raises(ProviderUnavailable) as raised:
        cluster(OpenAITextProvider(ProviderConfig(provider="openai", base_url=closed_port_url(), api_key=TEST_API_KEY, model="gpt-4o-mini", max_retries=0, allow_private=True)))

    assert raised.value.message == UNREACHABLE


def test_failures_are_logged_with_operation_model_status_and_request_id_only(openai_server, caplog):
    caplog.set_level(logging.DEBUG)
    openai_server.script("chat", [Behaviour.status(500)])

    with pytest.raises(ProviderUnavailable):
        cluster(provider_for(openai_server, max_retries=0))

    [record] = [r for r in caplog.records if r.name == "inkwell.ai"]
    assert record.levelno == logging.WARNING
    message = record.getMessage()
    for part in ("provider=openai", "operation=cluster_keywords", "model=gpt-4o-mini", "status=500", "request_id=req_", "error=provider_error"):
        assert part in message


@pytest.mark.parametrize(
    ("behaviours", "overrides"),
    [
        ([], {"api_key": "sk-wrong-key-0000000000"}),
        ([Behaviour.status(500)], {}),
        ([Behaviour.status(429, retry_after=0.01)], {}),
        ([Behaviour.delay(3)], {"timeout_seconds": 0.3}),
        ([Behaviour.malformed_json(), Behaviour.malformed_json()], {}),
        ([], {"model": "gpt-nonexistent"}),
    ],
    ids=["bad-key", "server-error", "rate-limited", "timeout", "invalid-output", "unknown-model"],
)
def test_error_messages_and_logs_never_hold_the_key_the_prompt_or_the_provider_body(openai_server, caplog, behaviours, overrides):
    caplog.set_level(logging.DEBUG)
    openai_server.script("chat", behaviours)
    provider = provider_for(openai_server, max_retries=0, **overrides)

    with pytest.raises(Exception) as raised:
        cluster(provider)

    error = raised.value
    # A traceback (Celery logs them) must not print the SDK's error either.
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    exposed = [str(error), error.message, repr(error), caplog.text, repr(provider.config)]
    for secret in (provider.config.api_key, provider.config.api_key[-4:] + ".", "secret-launch-codename", "Incorrect API key", "Rate limit reached"):
        assert not any(secret in text for text in exposed), secret


def test_key_check_reports_a_working_key_and_whether_the_model_is_offered(openai_server):
    check = provider_for(openai_server).test_key()
    assert (check.valid, check.provider, check.model) == (True, "openai", "gpt-4o-mini")
    assert "is available" in check.detail

    check = provider_for(openai_server, model="llama3").test_key()
    assert check.valid and "does not list the model llama3" in check.detail
    assert [r.path for r in openai_server.requests] == ["/v1/models", "/v1/models"]
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {TEST_API_KEY}"


def test_key_check_reports_a_rejected_key_without_raising(openai_server):
    check = provider_for(openai_server, api_key="sk-wrong-key-0000000000").test_key()

    assert not check.valid
    assert check.detail == "The AI provider rejected the API key"
    assert "sk-wrong" not in check.detail


def test_key_check_reports_an_unreachable_or_failing_provider_without_retrying(openai_server):
    openai_server.script("models", [Behaviour.status(500), Behaviour.delay(3)])

    failing = provider_for(openai_server, max_retries=3).test_key()
    slow = provider_for(openai_server, timeout_seconds=0.3).test_key()
    closed = OpenAITextProvider(ProviderConfig(provider="openai", base_url=closed_port_url(), api_key=TEST_API_KEY, model="m", allow_private=True)).test_key()

    assert [(c.valid, c.detail) for c in (failing, slow, closed)] == [(False, UNREACHABLE)] * 3
    assert len(openai_server.requests_to("models")) == 2


def test_key_check_without_a_key_reports_it_is_not_configured():
    check = OpenAITextProvider(ProviderConfig(provider="openai", base_url="https://api.example.com/v1", model="gpt-4o")).test_key()

    assert (check.valid, check.detail) == (False, "No API key is configured for the AI provider")
