"""/system/settings/integrations/ai_provider/ and /image_generation/: global defaults overlaid by the
account's saves, keys encrypted and masked, validation and roles."""

import logging
from unittest.mock import ANY

import pytest

from inkwell.api.tests import assert_error
from inkwell.system import selectors
from inkwell.system.models import IntegrationSettings

AI_URL = "/api/v1/system/settings/integrations/ai_provider/"
IMAGE_URL = "/api/v1/system/settings/integrations/image_generation/"
KEY = "sk-account-key-0123456789abcd"
GLOBAL_KEY = "sk-global-operator-key-0123456789wxyz"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def model_names(global_defaults):
    """Model names no provider uses, so that a value in a response can only come from these settings."""
    global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "TESTING_MODEL": "small-model", "LIVE_MODEL": "big-model", "IMAGE_MODEL": "image-model"}


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


AI_DEFAULTS = {
    "integration_type": "ai_provider",
    "provider": "local",
    "base_url": "",
    "testing_model": "small-model",
    "live_model": "big-model",
    "use_testing_model": False,
    "api_key_set": False,
    "api_key_masked": "",
    "uses_default_api_key": False,
    "updated_at": None,
}
IMAGE_DEFAULTS = {
    "integration_type": "image_generation",
    "provider": "local",
    "base_url": "",
    "model": "image-model",
    "size": "1024x1024",
    "style": "photorealistic",
    "max_images": 4,
    "api_key_set": False,
    "api_key_masked": "",
    "uses_default_api_key": False,
    "updated_at": None,
}


@pytest.mark.parametrize(("url", "defaults"), [(AI_URL, AI_DEFAULTS), (IMAGE_URL, IMAGE_DEFAULTS)])
def test_an_account_that_saved_nothing_reads_the_global_defaults(owner, url, defaults):
    response = owner.get(url)
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": defaults}


def test_a_save_overlays_the_fields_it_names_and_keeps_following_the_other_defaults(owner, tenant, global_defaults):
    response = owner.put(AI_URL, {"live_model": "gpt-4.1", "use_testing_model": True}, format="json")
    assert response.status_code == 200
    assert response.json()["data"] == {**AI_DEFAULTS, "live_model": "gpt-4.1", "use_testing_model": True, "updated_at": ANY}

    global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "TESTING_MODEL": "newer-small-model", "LIVE_MODEL": "newer-big-model"}
    data = owner.get(AI_URL).json()["data"]
    assert (data["testing_model"], data["live_model"]) == ("newer-small-model", "gpt-4.1")
    assert IntegrationSettings.objects.for_account(tenant.account).get().updated_by == tenant.owner


def test_null_returns_a_field_to_the_global_default(owner):
    owner.put(IMAGE_URL, {"provider": "openai", "style": "watercolor", "max_images": 2}, format="json")
    response = owner.put(IMAGE_URL, {"provider": None, "style": None}, format="json")
    assert response.json()["data"] == {**IMAGE_DEFAULTS, "max_images": 2, "updated_at": ANY}


def test_the_image_settings_save_every_field(owner):
    body = {"provider": "openai", "base_url": "https://images.example.com/v1", "model": "dall-e-3", "size": "1792x1024", "style": "3d", "max_images": 8}
    response = owner.put(IMAGE_URL, body, format="json")
    assert response.status_code == 200
    assert response.json()["data"] == {**IMAGE_DEFAULTS, **body, "updated_at": ANY}
    # The text settings are a separate row.
    assert owner.get(AI_URL).json()["data"] == AI_DEFAULTS


def test_a_saved_key_is_masked_kept_by_saves_without_it_and_cleared_by_an_empty_one(owner, tenant):
    response = owner.put(AI_URL, {"provider": "openai", "api_key": KEY}, format="json")
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["api_key_set"], data["api_key_masked"]) == (True, "…abcd")
    assert KEY not in response.content.decode()

    data = owner.put(AI_URL, {"live_model": "gpt-4.1"}, format="json").json()["data"]
    assert (data["api_key_set"], data["api_key_masked"]) == (True, "…abcd")
    assert selectors.effective_integration(tenant.account, "ai_provider").api_key == KEY

    data = owner.put(AI_URL, {"api_key": ""}, format="json").json()["data"]
    assert (data["api_key_set"], data["api_key_masked"]) == (False, "")
    assert selectors.effective_integration(tenant.account, "ai_provider").api_key == ""


def test_the_global_key_is_used_only_with_the_global_provider_and_endpoint(owner, tenant, global_defaults):
    global_defaults.INKWELL_AI = {
        **global_defaults.INKWELL_AI,
        "PROVIDER": "openai",
        "BASE_URL": "https://llm.example.com/v1",
        "API_KEY": GLOBAL_KEY,
    }
    data = owner.get(AI_URL).json()["data"]
    assert (data["api_key_set"], data["api_key_masked"], data["uses_default_api_key"]) == (False, "", True)
    assert selectors.effective_integration(tenant.account, "ai_provider").api_key == GLOBAL_KEY

    # An account that points the integration elsewhere must not carry the operator's key there.
    data = owner.put(AI_URL, {"base_url": "https://collector.example.net/v1"}, format="json").json()["data"]
    assert data["uses_default_api_key"] is False
    assert selectors.effective_integration(tenant.account, "ai_provider").api_key == ""

    data = owner.put(AI_URL, {"base_url": None, "api_key": KEY}, format="json").json()["data"]
    assert (data["api_key_set"], data["uses_default_api_key"]) == (True, False)
    assert selectors.effective_integration(tenant.account, "ai_provider").api_key == KEY
    assert GLOBAL_KEY not in owner.get(AI_URL).content.decode()


@pytest.mark.parametrize(
    ("url", "body", "errors"),
    [
        (AI_URL, {"provider": "gemini"}, {"provider": ['"gemini" is not a valid choice.']}),
        (AI_URL, {"base_url": "ftp://files.example.com"}, {"base_url": ["Enter an http or https URL"]}),
        (AI_URL, {"base_url": "javascript:alert(1)"}, {"base_url": ["Enter an http or https URL"]}),
        (AI_URL, {"base_url": "https://"}, {"base_url": ["Enter an http or https URL"]}),
        (AI_URL, {"base_url": "https://llm.example.com/v1 x"}, {"base_url": ["Enter an http or https URL"]}),
        (AI_URL, {"live_model": ""}, {"live_model": ["This field may not be blank."]}),
        (AI_URL, {"use_testing_model": "often"}, {"use_testing_model": ["Must be a valid boolean."]}),
        (AI_URL, {"api_key": "short"}, {"api_key": ["Invalid API key format"]}),
        (AI_URL, {"api_key": "sk-has spaces-0123456789"}, {"api_key": ["Invalid API key format"]}),
        (AI_URL, {"api_key": 123456789012345678901234}, {"api_key": ["Invalid API key format"]}),
        (AI_URL, {"temperature": 0.2}, {"temperature": ["Unknown field"]}),
        (IMAGE_URL, {"size": "1000x1000"}, {"size": ['"1000x1000" is not a valid choice.']}),
        (IMAGE_URL, {"style": "cubism"}, {"style": ['"cubism" is not a valid choice.']}),
        (IMAGE_URL, {"max_images": 0}, {"max_images": ["Ensure this value is greater than or equal to 1."]}),
        (IMAGE_URL, {"max_images": 9}, {"max_images": ["Ensure this value is less than or equal to 8."]}),
        (IMAGE_URL, {"live_model": "gpt-4o"}, {"live_model": ["Unknown field"]}),
    ],
)
def test_an_invalid_save_is_a_400_on_its_field_and_changes_nothing(owner, tenant, url, body, errors):
    assert_error(owner.put(url, body, format="json"), 400, "validation_error", errors=errors)
    assert not IntegrationSettings.objects.for_account(tenant.account).exists()


NOT_ALLOWED = {"base_url": ["This address is not allowed for a provider endpoint"]}


@pytest.mark.parametrize("base_url", ["http://169.254.169.254/latest/meta-data", "http://[fe80::1]/v1", "http://0.0.0.0:8080/v1", "http://224.0.0.1/v1"])
def test_an_endpoint_at_a_link_local_or_special_address_is_always_refused(owner, tenant, base_url):
    assert_error(owner.put(AI_URL, {"base_url": base_url}, format="json"), 400, "validation_error", errors=NOT_ALLOWED)
    assert_error(owner.put(IMAGE_URL, {"base_url": base_url}, format="json"), 400, "validation_error", errors=NOT_ALLOWED)
    assert not IntegrationSettings.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:11434/v1", "http://localhost:11434/v1", "http://10.0.0.5/v1", "http://192.168.1.20:1234/v1"])
def test_private_network_endpoints_need_the_operators_consent(owner, global_defaults, base_url):
    assert_error(owner.put(AI_URL, {"base_url": base_url}, format="json"), 400, "validation_error", errors=NOT_ALLOWED)
    global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": True}
    assert owner.put(AI_URL, {"base_url": base_url}, format="json").status_code == 200


@pytest.mark.parametrize(
    ("base_url", "message"),
    [
        ("https://user:secret@llm.example.com/v1", "A URL may not carry a user name or password"),
        ("https://user@llm.example.com/v1", "A URL may not carry a user name or password"),
        ("https://llm.example.com:0/v1", "Enter a port between 1 and 65535"),
        ("https://llm.example.com:65536/v1", "Enter a port between 1 and 65535"),
        ("https://llm.example.com:99999999999999999999/v1", "Enter a port between 1 and 65535"),
        ("https://llm.example.com:-1/v1", "Enter a port between 1 and 65535"),
        ("https://llm.example.com:http/v1", "Enter a port between 1 and 65535"),
        ("http://[::1/v1", "Enter an http or https URL"),
    ],
)
def test_an_endpoint_with_user_information_or_a_port_outside_1_to_65535_is_a_field_error(owner, tenant, base_url, message):
    assert_error(owner.put(AI_URL, {"base_url": base_url}, format="json"), 400, "validation_error", errors={"base_url": [message]})
    assert_error(owner.put(IMAGE_URL, {"base_url": base_url}, format="json"), 400, "validation_error", errors={"base_url": [message]})
    assert not IntegrationSettings.objects.for_account(tenant.account).exists()


def test_ports_1_and_65535_are_accepted(owner):
    assert owner.put(AI_URL, {"base_url": "https://8.8.8.8:1/v1"}, format="json").status_code == 200
    assert owner.put(AI_URL, {"base_url": "https://8.8.8.8:65535/v1"}, format="json").status_code == 200


def test_a_public_endpoint_is_accepted_when_private_ones_are_not(owner, global_defaults):
    global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": False}
    response = owner.put(AI_URL, {"base_url": "https://8.8.8.8/v1"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["base_url"] == "https://8.8.8.8/v1"


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_role_reads_the_integration_settings(tenant, as_user, role):
    assert as_user(tenant.user(role)).get(AI_URL).status_code == 200


@pytest.mark.parametrize("role", ["editor", "viewer"])
@pytest.mark.parametrize("url", [AI_URL, IMAGE_URL])
def test_only_owners_and_admins_change_integration_settings(tenant, as_user, role, url):
    assert_error(as_user(tenant.user(role)).put(url, {"provider": "openai"}, format="json"), 403, "permission_denied")
    assert not IntegrationSettings.objects.for_account(tenant.account).exists()


def test_an_admin_changes_integration_settings(tenant, as_user):
    assert as_user(tenant.admin).put(AI_URL, {"provider": "openai"}, format="json").status_code == 200


def test_the_key_never_reaches_the_log(owner, caplog):
    with caplog.at_level(logging.DEBUG):
        owner.put(AI_URL, {"provider": "openai", "api_key": KEY}, format="json")
        owner.get(AI_URL)
        owner.put(AI_URL, {"api_key": "bad key"}, format="json")
    assert KEY not in caplog.text
    assert "bad key" not in caplog.text
