"""/system/prompts/: every prompt type with its default, the account's own texts, reset, roles."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.ai.prompts import PROMPT_TYPE_NAMES, PROMPTS, template_errors
from inkwell.api.tests import assert_error
from inkwell.system import selectors
from inkwell.system.models import PromptOverride

URL = "/api/v1/system/prompts/"
PROMPT_TYPE = PROMPT_TYPE_NAMES[0]
ENTRY_KEYS = {"prompt_type", "title", "description", "prompt_value", "default_value", "placeholders", "is_customized", "updated_at"}

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


def _custom_text(prompt_type: str = PROMPT_TYPE) -> str:
    return PROMPTS[prompt_type].default_text + "\nKeep every sentence short."


def test_the_list_holds_every_prompt_type_with_its_default(owner):
    response = owner.get(URL)
    assert response.status_code == 200
    entries = response.json()["data"]
    assert [entry["prompt_type"] for entry in entries] == list(PROMPT_TYPE_NAMES)
    for entry in entries:
        spec = PROMPTS[entry["prompt_type"]]
        assert set(entry) == ENTRY_KEYS
        assert entry["prompt_value"] == entry["default_value"] == spec.default_text
        assert (entry["title"], entry["description"], entry["placeholders"]) == (spec.title, spec.description, list(spec.placeholders))
        assert (entry["is_customized"], entry["updated_at"]) == (False, None)


def test_a_saved_prompt_is_the_accounts_text_beside_the_default(owner, tenant):
    response = owner.put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": _custom_text()}, format="json")
    assert response.status_code == 200
    entry = response.json()["data"]
    assert (entry["prompt_value"], entry["default_value"], entry["is_customized"]) == (_custom_text(), PROMPTS[PROMPT_TYPE].default_text, True)
    assert entry["updated_at"] is not None

    assert owner.get(f"{URL}{PROMPT_TYPE}/").json()["data"] == entry
    listed = {item["prompt_type"]: item for item in owner.get(URL).json()["data"]}
    assert listed[PROMPT_TYPE] == entry
    assert all(not item["is_customized"] for name, item in listed.items() if name != PROMPT_TYPE)
    assert selectors.effective_prompts(tenant.account)[PROMPT_TYPE] == _custom_text()
    assert PromptOverride.objects.for_account(tenant.account).get().updated_by == tenant.owner


def test_saving_again_replaces_the_text(owner, tenant):
    owner.put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": _custom_text()}, format="json")
    owner.put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": _custom_text() + " Use British spelling."}, format="json")
    assert PromptOverride.objects.for_account(tenant.account).get().text == _custom_text() + " Use British spelling."


def test_reset_returns_the_prompt_to_its_default(owner, tenant):
    owner.put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": _custom_text()}, format="json")
    response = owner.post(f"{URL}{PROMPT_TYPE}/reset/")
    assert response.status_code == 200
    entry = response.json()["data"]
    assert (entry["prompt_value"], entry["is_customized"], entry["updated_at"]) == (PROMPTS[PROMPT_TYPE].default_text, False, None)
    assert not PromptOverride.objects.for_account(tenant.account).exists()
    # Resetting a prompt that has no text of its own is harmless.
    assert owner.post(f"{URL}{PROMPT_TYPE}/reset/").status_code == 200


@pytest.mark.parametrize("body", [{}, {"prompt_value": ""}, {"prompt_value": "   "}, {"prompt_value": None}])
def test_an_empty_prompt_is_refused(owner, tenant, body):
    assert_error(owner.put(f"{URL}{PROMPT_TYPE}/", body, format="json"), 400, "validation_error", errors={"prompt_value": ["This field is required"]})
    assert not PromptOverride.objects.for_account(tenant.account).exists()


def test_a_template_the_engine_cannot_render_is_a_400_with_the_engines_reasons(owner, tenant):
    text = PROMPTS[PROMPT_TYPE].default_text + " {no_such_placeholder}"
    reasons = template_errors(PROMPT_TYPE, text)
    assert reasons, "the engine accepts an unknown placeholder; pick a template it refuses"
    assert_error(owner.put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": text}, format="json"), 400, "validation_error", errors={"prompt_value": reasons})
    assert not PromptOverride.objects.for_account(tenant.account).exists()


def test_a_prompt_over_the_length_limit_is_refused(owner):
    response = owner.put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": "x" * 20001}, format="json")
    assert_error(response, 400, "validation_error", errors={"prompt_value": ["Ensure this field has no more than 20000 characters."]})


@pytest.mark.parametrize(("method", "suffix"), [("get", ""), ("put", ""), ("post", "reset/")])
def test_an_unknown_prompt_type_is_not_found(owner, tenant, method, suffix):
    response = getattr(owner, method)(f"{URL}no_such_prompt/{suffix}", {"prompt_value": "Write well."}, format="json")
    assert_error(response, 404, "not_found")
    assert not PromptOverride.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_role_reads_the_prompts(tenant, as_user, role):
    client = as_user(tenant.user(role))
    assert client.get(URL).status_code == 200
    assert client.get(f"{URL}{PROMPT_TYPE}/").status_code == 200


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_only_owners_and_admins_change_prompts(tenant, as_user, role):
    PromptOverride.objects.create(account=tenant.account, prompt_type=PROMPT_TYPE, text=_custom_text())
    client = as_user(tenant.user(role))
    assert_error(client.put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": "Write well."}, format="json"), 403, "permission_denied")
    assert_error(client.post(f"{URL}{PROMPT_TYPE}/reset/"), 403, "permission_denied")
    assert PromptOverride.objects.for_account(tenant.account).get().text == _custom_text()


def test_an_admin_changes_prompts(tenant, as_user):
    assert as_user(tenant.admin).put(f"{URL}{PROMPT_TYPE}/", {"prompt_value": _custom_text()}, format="json").status_code == 200


def test_the_list_costs_the_same_queries_with_every_prompt_customized(owner, tenant):
    owner.get(URL)
    with CaptureQueriesContext(connection) as defaults_only:
        owner.get(URL)
    for name in PROMPT_TYPE_NAMES:
        PromptOverride.objects.create(account=tenant.account, prompt_type=name, text=_custom_text(name))
    with CaptureQueriesContext(connection) as customized:
        assert all(item["is_customized"] for item in owner.get(URL).json()["data"])
    assert len(customized) == len(defaults_only)
