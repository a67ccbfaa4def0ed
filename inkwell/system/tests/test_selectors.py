"""What other apps read: ai_client, effective_prompts, content_settings, module_enabled and
integration_settings, each from the account's settings over the global defaults."""

import pytest

from inkwell.ai.prompts import PROMPTS
from inkwell.ai.providers.local import LocalImageProvider, LocalTextProvider
from inkwell.ai.providers.openai import OpenAIImageProvider, OpenAITextProvider
from inkwell.ai.tests.openai_server import TEST_API_KEY, OpenAICompatibleServer
from inkwell.ai.types import KeywordInput
from inkwell.system import selectors, services
from inkwell.system.models import AIModel, AIModelKind, ContentSettings, PromptOverride

KEY = "sk-account-key-0123456789abcd"

pytestmark = pytest.mark.django_db


def _save(tenant, integration_type: str, **values):
    services.integration_settings_save(account=tenant.account, integration_type=integration_type, user=tenant.owner, values=values)


def test_an_account_without_settings_gets_the_global_providers_and_default_prompts(tenant):
    client = selectors.ai_client(tenant.account)
    assert isinstance(client.text, LocalTextProvider)
    assert isinstance(client.image, LocalImageProvider)
    assert client.templates == {name: spec.default_text for name, spec in PROMPTS.items()}


def test_the_client_carries_the_accounts_provider_endpoint_key_and_live_model(tenant):
    _save(tenant, "ai_provider", provider="openai", base_url="https://llm.example.com/v1", api_key=KEY, live_model="gpt-4.1")
    _save(tenant, "image_generation", provider="openai", model="dall-e-3")
    client = selectors.ai_client(tenant.account)
    assert isinstance(client.text, OpenAITextProvider)
    assert (client.text.config.base_url, client.text.config.api_key, client.text.config.model) == ("https://llm.example.com/v1", KEY, "gpt-4.1")
    assert (client.text.config.timeout_seconds, client.text.config.max_retries) == (2, 0)
    assert isinstance(client.image, OpenAIImageProvider)
    assert client.image.config.model == "dall-e-3"


@pytest.mark.parametrize(
    ("use_testing_model", "live", "model"),
    [(False, None, "gpt-4o"), (True, None, "gpt-4o-mini"), (True, True, "gpt-4o"), (False, False, "gpt-4o-mini")],
)
def test_the_model_is_the_live_one_unless_the_caller_or_the_account_asks_for_the_testing_one(tenant, use_testing_model, live, model):
    _save(tenant, "ai_provider", use_testing_model=use_testing_model)
    assert selectors.ai_client(tenant.account, live=live).text.config.model == model


def test_the_clients_templates_are_the_accounts_prompts(tenant):
    text = PROMPTS["clustering"].default_text + "\nPrefer few, large clusters."
    services.prompt_save(account=tenant.account, prompt_type="clustering", text=text, user=tenant.owner)
    client = selectors.ai_client(tenant.account)
    assert client.templates["clustering"] == text
    assert client.prompt("clustering", keywords="a\nb", sector="").endswith("Prefer few, large clusters.")
    assert selectors.effective_prompts(tenant.account)["idea_generation"] == PROMPTS["idea_generation"].default_text


def test_an_override_of_a_prompt_type_the_engine_no_longer_has_is_ignored(tenant):
    PromptOverride.objects.create(account=tenant.account, prompt_type="retired_prompt", text="Old text")
    assert set(selectors.effective_prompts(tenant.account)) == set(PROMPTS)
    assert [entry["prompt_type"] for entry in selectors.prompt_list(tenant.account)] == list(PROMPTS)


def test_the_client_works_end_to_end_against_an_openai_compatible_server(tenant, global_defaults):
    # The server listens on loopback: the operator allows private endpoints.
    global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": True}
    with OpenAICompatibleServer() as server:
        _save(tenant, "ai_provider", provider="openai", base_url=server.base_url, api_key=TEST_API_KEY)
        result = selectors.ai_client(tenant.account).cluster_keywords([KeywordInput(1, "garden tools"), KeywordInput(2, "garden hoses")])
        (chat,) = server.requests_to("chat")
    assert chat.headers["authorization"] == f"Bearer {TEST_API_KEY}"
    assert chat.body["model"] == "gpt-4o"
    assert sorted(keyword_id for cluster in result.value for keyword_id in cluster.keyword_ids) == [1, 2]


def test_the_client_costs_two_queries(tenant, django_assert_num_queries):
    with django_assert_num_queries(2):
        selectors.ai_client(tenant.account)


def test_content_settings_ignore_saved_fields_that_are_no_longer_settings(tenant):
    ContentSettings.objects.create(account=tenant.account, key="publishing", values={"auto_schedule": True, "retired_field": 3})
    values = selectors.content_settings(tenant.account, "publishing")
    assert values == {"default_publish_status": "publish", "auto_schedule": True, "schedule_frequency": "daily", "schedule_times": ["09:00"]}


def test_integration_settings_never_hold_the_key(tenant):
    _save(tenant, "image_generation", provider="openai", api_key=KEY)
    values = selectors.integration_settings(tenant.account, "image_generation")
    assert KEY not in repr(values)
    assert (values["size"], values["style"], values["max_images"], values["api_key_set"]) == ("1024x1024", "photorealistic", 4, True)


def test_the_image_integration_falls_back_to_the_global_text_key_only_at_the_global_endpoint(tenant, global_defaults):
    global_defaults.INKWELL_AI = {**global_defaults.INKWELL_AI, "IMAGE_PROVIDER": "openai", "API_KEY": "sk-global-text-key-0123456789"}
    assert selectors.effective_integration(tenant.account, "image_generation").api_key == "sk-global-text-key-0123456789"
    _save(tenant, "image_generation", base_url="https://images.example.net/v1")
    assert selectors.effective_integration(tenant.account, "image_generation").api_key == ""


def test_the_deployments_embeddings_model_goes_only_to_the_deployments_endpoint(tenant, global_defaults):
    global_defaults.INKWELL_AI = {
        **global_defaults.INKWELL_AI, "PROVIDER": "openai", "BASE_URL": "https://llm.example.com/v1", "API_KEY": KEY, "EMBEDDING_MODEL": "text-embedding-3-small",
    }
    assert selectors.ai_client(tenant.account).text.config.embedding_model == "text-embedding-3-small"
    _save(tenant, "ai_provider", base_url="https://other.example.net/v1", api_key=KEY)
    assert selectors.ai_client(tenant.account).text.config.embedding_model == ""


def test_active_ai_models_leave_out_retired_ones_and_sort_by_kind_provider_and_name():
    retired = AIModel.objects.create(kind=AIModelKind.TEXT, provider="openai", name="retired-model", is_active=False)
    models = selectors.active_ai_models()
    assert models and retired not in models and all(model.is_active for model in models)
    assert [(m.kind, m.provider, m.name) for m in models] == sorted((m.kind, m.provider, m.name) for m in models)
