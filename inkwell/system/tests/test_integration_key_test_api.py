"""POST /system/settings/integrations/test/: the spec's field messages, then one real call to the
provider of the account's settings with the given key."""

import logging
import socket
import time

import pytest

from inkwell.ai.providers.openai import ADDRESS_NOT_ALLOWED
from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour, OpenAICompatibleServer
from inkwell.api.tests import assert_error, freeze_throttle_clock
from inkwell.system import services

URL = "/api/v1/system/settings/integrations/test/"
AI_URL = "/api/v1/system/settings/integrations/ai_provider/"
IMAGE_URL = "/api/v1/system/settings/integrations/image_generation/"
WRONG_KEY = "sk-wrong-key-00000000000000000000"

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


@pytest.fixture
def private_endpoints(global_defaults):
    """The providers these tests reach listen on loopback: the operator allows private endpoints."""
    global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": True}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"integration_type": "ai_provider"}, {"api_key": ["This field is required"]}),
        ({"integration_type": "ai_provider", "api_key": ""}, {"api_key": ["This field is required"]}),
        ({"integration_type": "ai_provider", "api_key": None}, {"api_key": ["This field is required"]}),
        ({"api_key": TEST_API_KEY}, {"integration_type": ["This field is required"]}),
        ({"integration_type": "video", "api_key": TEST_API_KEY}, {"integration_type": ["Invalid integration type"]}),
        ({"integration_type": ["ai_provider"], "api_key": TEST_API_KEY}, {"integration_type": ["Invalid integration type"]}),
        ({"integration_type": "video"}, {"integration_type": ["Invalid integration type"], "api_key": ["This field is required"]}),
    ],
)
def test_missing_or_unknown_fields_answer_the_spec_messages(owner, body, errors):
    assert_error(owner.post(URL, body, format="json"), 400, "validation_error", errors=errors)


@pytest.mark.parametrize(
    "api_key",
    [
        "a" * 19,
        "a" * 201,
        "sk-0123456789abcdefghij ",
        " sk-0123456789abcdefghij",
        "sk-0123456789abcdefghij\n",
        "sk-0123456789+abcdefghij",
        "sk-0123456789/abcdefghij",
        "sk-ключ-0123456789abcdefghij",
        12345678901234567890123,
        True,
        ["sk-0123456789abcdefghij"],
        {"key": "sk-0123456789abcdefghij"},
    ],
    ids=repr,
)
def test_a_key_outside_the_contract_format_is_invalid(owner, api_key):
    response = owner.post(URL, {"integration_type": "ai_provider", "api_key": api_key}, format="json")
    assert_error(response, 400, "validation_error", errors={"api_key": ["Invalid API key format"]})


@pytest.mark.parametrize("api_key", ["a" * 20, "A" * 200, "sk-proj_AZaz09.-_0123456789"])
def test_keys_of_20_to_200_letters_digits_dashes_underscores_and_dots_are_tested(owner, api_key):
    response = owner.post(URL, {"integration_type": "ai_provider", "api_key": api_key}, format="json")
    assert response.status_code == 200


@pytest.mark.parametrize("integration_type", ["ai_provider", "image_generation"])
def test_the_local_provider_accepts_the_test(owner, integration_type):
    response = owner.post(URL, {"integration_type": integration_type, "api_key": TEST_API_KEY}, format="json")
    assert response.status_code == 200
    data = response.json()["data"]
    assert set(data) == {"valid", "detail", "provider", "model"}
    assert data["valid"] is True
    assert data["provider"] == "local"


def test_a_private_endpoint_is_refused_before_any_connection_and_open_or_closed_ports_answer_alike(owner, global_defaults):
    """The operator's own endpoint on loopback, private endpoints not allowed: the key test says
    the address is refused, without connecting, so it cannot be used to scan ports."""
    with OpenAICompatibleServer() as server:
        answers = []
        for base_url in (server.base_url, f"http://127.0.0.1:{_closed_port()}/v1"):
            global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "PROVIDER": "openai", "BASE_URL": base_url}
            answers.append(owner.post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json").json()["data"])
        requests = list(server.requests)
    assert answers[0] == answers[1]
    assert (answers[0]["valid"], answers[0]["detail"]) == (False, ADDRESS_NOT_ALLOWED)
    assert requests == []


def test_an_unreachable_provider_is_a_quick_result_with_valid_false(owner, private_endpoints):
    owner.put(AI_URL, {"provider": "openai", "base_url": f"http://127.0.0.1:{_closed_port()}/v1"}, format="json")
    started = time.monotonic()
    response = owner.post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json")
    assert time.monotonic() - started < 5
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["valid"], data["provider"]) == (False, "openai")
    assert data["detail"]
    assert TEST_API_KEY not in response.content.decode()


@pytest.mark.parametrize(("url", "integration_type", "model"), [(AI_URL, "ai_provider", "gpt-4o"), (IMAGE_URL, "image_generation", "gpt-image-1")])
def test_a_real_openai_compatible_server_accepts_the_right_key_and_rejects_a_wrong_one(owner, url, integration_type, model, caplog, private_endpoints):
    with OpenAICompatibleServer() as server:
        owner.put(url, {"provider": "openai", "base_url": server.base_url}, format="json")
        with caplog.at_level(logging.DEBUG):
            good = owner.post(URL, {"integration_type": integration_type, "api_key": TEST_API_KEY}, format="json")
            bad = owner.post(URL, {"integration_type": integration_type, "api_key": WRONG_KEY}, format="json")
        sent_keys = [request.headers.get("authorization") for request in server.requests]

    assert good.status_code == 200
    assert good.json()["data"] | {"detail": None} == {"valid": True, "detail": None, "provider": "openai", "model": model}
    assert bad.status_code == 200
    assert bad.json()["data"]["valid"] is False
    # The test used the key it was given, not a stored or global one.
    assert f"Bearer {TEST_API_KEY}" in sent_keys
    assert f"Bearer {WRONG_KEY}" in sent_keys
    for key in (TEST_API_KEY, WRONG_KEY):
        assert key not in good.content.decode() + bad.content.decode()
        assert key not in caplog.text


def test_the_test_uses_the_accounts_testing_model_when_it_chose_one(owner, private_endpoints):
    with OpenAICompatibleServer() as server:
        owner.put(AI_URL, {"provider": "openai", "base_url": server.base_url, "use_testing_model": True}, format="json")
        response = owner.post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json")
    assert response.json()["data"]["model"] == "gpt-4o-mini"


def test_testing_a_key_does_not_save_it(owner, tenant):
    owner.post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json")
    assert owner.get(AI_URL).json()["data"]["api_key_set"] is False


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_only_owners_and_admins_test_keys(tenant, as_user, role):
    response = as_user(tenant.user(role)).post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json")
    assert_error(response, 403, "permission_denied")


def test_an_admin_tests_keys(tenant, as_user):
    response = as_user(tenant.admin).post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json")
    assert response.status_code == 200


def test_key_tests_count_against_the_ai_rate_limit(owner, settings, monkeypatch):
    freeze_throttle_clock(monkeypatch)
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "ai": 2}
    statuses = [owner.post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_a_key_test_waits_at_most_the_key_test_timeout_not_the_generation_timeout(owner, settings, monkeypatch, private_endpoints):
    settings.INKWELL_AI = {**settings.INKWELL_AI, "TIMEOUT_SECONDS": 60}
    monkeypatch.setattr(services, "KEY_TEST_TIMEOUT_SECONDS", 0.5)
    with OpenAICompatibleServer() as server:
        server.script("models", [Behaviour.delay(3)])
        owner.put(AI_URL, {"provider": "openai", "base_url": server.base_url}, format="json")
        started = time.monotonic()
        response = owner.post(URL, {"integration_type": "ai_provider", "api_key": TEST_API_KEY}, format="json")
        waited = time.monotonic() - started
    assert waited < 2.5
    assert response.status_code == 200
    assert response.json()["data"]["valid"] is False


def test_a_retried_key_test_with_the_same_idempotency_key_does_not_call_the_provider_again(owner, private_endpoints):
    with OpenAICompatibleServer() as server:
        owner.put(AI_URL, {"provider": "openai", "base_url": server.base_url}, format="json")
        body = {"integration_type": "ai_provider", "api_key": TEST_API_KEY}
        first = owner.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="key-test-1")
        again = owner.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="key-test-1")
        calls = len(server.requests_to("models"))
    assert first.json() == again.json()
    assert again["Idempotent-Replayed"] == "true"
    assert calls == 1
