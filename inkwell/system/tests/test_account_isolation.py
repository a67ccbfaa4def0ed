"""Settings are per account: what account B saved never shows in A's answers, and A's saves
never change B's."""

import pytest

from inkwell.ai.prompts import PROMPT_TYPE_NAMES, PROMPTS
from inkwell.system import selectors
from inkwell.system.models import ContentSettings, IntegrationSettings, ModuleSetting, PromptOverride

BASE = "/api/v1/system"
PROMPT_TYPE = PROMPT_TYPE_NAMES[0]
B_KEY = "sk-account-b-secret-0123456789QzXq"
B_TEXT = PROMPTS[PROMPT_TYPE].default_text + "\nAccount B's house style."

pytestmark = pytest.mark.django_db


@pytest.fixture
def clients(tenant, other_tenant, as_user):
    return as_user(tenant.owner), as_user(other_tenant.owner)


@pytest.fixture
def b_saved(clients):
    _, b = clients
    b_ai = {"provider": "openai", "base_url": "https://b.example.com/v1", "live_model": "b-model", "api_key": B_KEY}
    b.put(f"{BASE}/settings/integrations/ai_provider/", b_ai, format="json")
    b.put(f"{BASE}/settings/integrations/image_generation/", {"style": "watercolor", "max_images": 1}, format="json")
    b.post(f"{BASE}/settings/content/content_generation/save/", {"default_tone": "casual", "default_article_length": 4321}, format="json")
    b.post(f"{BASE}/settings/content/publishing/save/", {"schedule_times": ["23:45"]}, format="json")
    b.put(f"{BASE}/prompts/{PROMPT_TYPE}/", {"prompt_value": B_TEXT}, format="json")
    b.put(f"{BASE}/modules/", {"modules": {"planner": False}}, format="json")


GET_PATHS = [
    "/settings/integrations/ai_provider/",
    "/settings/integrations/image_generation/",
    "/settings/content/content_generation/",
    "/settings/content/publishing/",
    "/prompts/",
    f"/prompts/{PROMPT_TYPE}/",
    "/modules/",
]


@pytest.mark.parametrize("path", GET_PATHS)
def test_another_accounts_saved_settings_never_show(clients, b_saved, path):
    a, b = clients
    a_body = a.get(f"{BASE}{path}").content.decode()
    for value in ("b.example.com", "b-model", B_KEY, B_KEY[-4:], "watercolor", "4321", "23:45", "Account B's house style"):
        assert value not in a_body
    assert a_body != b.get(f"{BASE}{path}").content.decode()


def test_another_accounts_settings_leave_this_accounts_effective_values_at_the_defaults(tenant, b_saved):
    assert selectors.module_enabled(tenant.account, "planner")
    assert selectors.effective_prompts(tenant.account)[PROMPT_TYPE] == PROMPTS[PROMPT_TYPE].default_text
    assert selectors.content_settings(tenant.account, "content_generation")["default_tone"] == "professional"
    assert selectors.effective_integration(tenant.account, "ai_provider").api_key != B_KEY


def test_saves_change_only_the_callers_account(clients, other_tenant, b_saved):
    a, _ = clients
    before = {
        model: sorted(map(repr, model.objects.for_account(other_tenant.account).values()))
        for model in (IntegrationSettings, ContentSettings, PromptOverride, ModuleSetting)
    }
    a.put(f"{BASE}/settings/integrations/ai_provider/", {"provider": "local", "base_url": "", "live_model": "a-model", "api_key": ""}, format="json")
    a.put(f"{BASE}/settings/integrations/image_generation/", {"style": "flat"}, format="json")
    a.post(f"{BASE}/settings/content/content_generation/save/", {"default_tone": "persuasive"}, format="json")
    a.post(f"{BASE}/settings/content/publishing/save/", {"schedule_times": ["06:00"]}, format="json")
    a.put(f"{BASE}/prompts/{PROMPT_TYPE}/", {"prompt_value": PROMPTS[PROMPT_TYPE].default_text + " A."}, format="json")
    a.post(f"{BASE}/prompts/{PROMPT_TYPE}/reset/")
    a.put(f"{BASE}/modules/", {"modules": {"planner": True, "writer": False}}, format="json")
    after = {
        model: sorted(map(repr, model.objects.for_account(other_tenant.account).values()))
        for model in (IntegrationSettings, ContentSettings, PromptOverride, ModuleSetting)
    }
    assert after == before
    assert selectors.effective_integration(other_tenant.account, "ai_provider").api_key == B_KEY
    assert not selectors.module_enabled(other_tenant.account, "planner")
