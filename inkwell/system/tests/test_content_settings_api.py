"""/system/settings/content/{key}/ and .../save/: defaults, partial saves, validation, roles."""

from unittest.mock import ANY

import pytest
import yaml

from inkwell.api.tests import assert_error
from inkwell.system.models import ContentSettings

BASE = "/api/v1/system/settings/content"

# The documented defaults, written out here so that a changed default fails.
CONTENT_GENERATION_DEFAULTS = {
    "default_article_length": 1500,
    "default_tone": "professional",
    "default_structure": "guide",
    "include_faq": True,
    "enable_internal_linking": True,
    "include_images": True,
    "images_per_article": 4,
    "use_testing_model": False,
}
PUBLISHING_DEFAULTS = {
    "default_publish_status": "publish",
    "auto_schedule": False,
    "schedule_frequency": "daily",
    "schedule_times": ["09:00"],
}

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


@pytest.mark.parametrize(("key", "defaults"), [("content_generation", CONTENT_GENERATION_DEFAULTS), ("publishing", PUBLISHING_DEFAULTS)])
def test_an_account_that_saved_nothing_reads_the_defaults(owner, key, defaults):
    response = owner.get(f"{BASE}/{key}/")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": defaults}


def test_a_save_changes_only_the_fields_it_names_and_answers_the_effective_values(owner, tenant):
    response = owner.post(f"{BASE}/content_generation/save/", {"default_tone": "friendly"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"] == {**CONTENT_GENERATION_DEFAULTS, "default_tone": "friendly"}

    owner.post(f"{BASE}/content_generation/save/", {"default_article_length": 2500, "include_faq": False}, format="json")
    expected = {**CONTENT_GENERATION_DEFAULTS, "default_tone": "friendly", "default_article_length": 2500, "include_faq": False}
    assert owner.get(f"{BASE}/content_generation/").json()["data"] == expected
    # Only what the account changed is stored: defaults it kept follow the global definition.
    stored = ContentSettings.objects.for_account(tenant.account).get(key="content_generation").values
    assert stored == {"default_tone": "friendly", "default_article_length": 2500, "include_faq": False}


def test_publishing_times_are_stored_in_order(owner):
    response = owner.post(f"{BASE}/publishing/save/", {"schedule_times": ["18:00", "09:30"], "auto_schedule": True}, format="json")
    assert response.status_code == 200
    assert response.json()["data"] == {**PUBLISHING_DEFAULTS, "schedule_times": ["09:30", "18:00"], "auto_schedule": True}


def test_the_two_keys_are_stored_apart(owner):
    owner.post(f"{BASE}/publishing/save/", {"default_publish_status": "draft"}, format="json")
    assert owner.get(f"{BASE}/content_generation/").json()["data"] == CONTENT_GENERATION_DEFAULTS
    assert owner.get(f"{BASE}/publishing/").json()["data"]["default_publish_status"] == "draft"


@pytest.mark.parametrize(
    ("key", "body", "field"),
    [
        ("content_generation", {"default_article_length": 299}, "default_article_length"),
        ("content_generation", {"default_article_length": 10001}, "default_article_length"),
        ("content_generation", {"default_article_length": "long"}, "default_article_length"),
        ("content_generation", {"default_tone": "snarky"}, "default_tone"),
        ("content_generation", {"default_structure": "essay"}, "default_structure"),
        ("content_generation", {"include_faq": "perhaps"}, "include_faq"),
        ("content_generation", {"images_per_article": 9}, "images_per_article"),
        ("content_generation", {"images_per_article": -1}, "images_per_article"),
        ("content_generation", {"use_testing_model": None}, "use_testing_model"),
        ("publishing", {"default_publish_status": "scheduled"}, "default_publish_status"),
        ("publishing", {"schedule_frequency": "hourly"}, "schedule_frequency"),
        ("publishing", {"schedule_times": []}, "schedule_times"),
        ("publishing", {"schedule_times": "09:00"}, "schedule_times"),
        ("publishing", {"schedule_times": [f"{hour:02d}:00" for hour in range(11)]}, "schedule_times"),
    ],
)
def test_an_invalid_value_is_a_400_on_its_field_and_nothing_is_saved(owner, tenant, key, body, field):
    response = owner.post(f"{BASE}/{key}/save/", body, format="json")
    body = assert_error(response, 400, "validation_error", errors=ANY)
    assert list(body["errors"]) == [field]
    assert not ContentSettings.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize("times", [["9:00"], ["24:00"], ["09:60"], ["09:00:00"], ["noon"]])
def test_schedule_times_must_be_hh_mm(owner, times):
    response = owner.post(f"{BASE}/publishing/save/", {"schedule_times": times}, format="json")
    assert_error(response, 400, "validation_error", errors={"schedule_times.0": ["Enter a time as HH:MM"]})


def test_a_time_may_appear_once(owner):
    response = owner.post(f"{BASE}/publishing/save/", {"schedule_times": ["09:00", "09:00"]}, format="json")
    assert_error(response, 400, "validation_error", errors={"schedule_times": ["Each time may appear once"]})


def test_an_unknown_field_is_a_400_naming_it(owner, tenant):
    response = owner.post(f"{BASE}/content_generation/save/", {"default_tone": "casual", "word_count": 900}, format="json")
    assert_error(response, 400, "validation_error", errors={"word_count": ["Unknown field"]})
    # A field of the other key is unknown here too.
    response = owner.post(f"{BASE}/publishing/save/", {"include_faq": False}, format="json")
    assert_error(response, 400, "validation_error", errors={"include_faq": ["Unknown field"]})
    assert not ContentSettings.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize(("method", "path"), [("get", "seo/"), ("post", "seo/save/"), ("get", "Publishing/")])
def test_an_unknown_key_is_not_found(owner, method, path):
    assert_error(getattr(owner, method)(f"{BASE}/{path}", {}, format="json"), 404, "not_found")


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_role_reads_the_content_settings(tenant, as_user, role):
    assert as_user(tenant.user(role)).get(f"{BASE}/publishing/").status_code == 200


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_only_owners_and_admins_save_content_settings(tenant, as_user, role):
    response = as_user(tenant.user(role)).post(f"{BASE}/content_generation/save/", {"default_tone": "casual"}, format="json")
    assert_error(response, 403, "permission_denied")
    assert not ContentSettings.objects.for_account(tenant.account).exists()


def test_an_admin_saves_content_settings(tenant, as_user):
    response = as_user(tenant.admin).post(f"{BASE}/content_generation/save/", {"default_tone": "casual"}, format="json")
    assert response.status_code == 200
    assert ContentSettings.objects.for_account(tenant.account).get().updated_by == tenant.admin


def test_the_schema_documents_both_content_settings_paths_with_their_key(api_client):
    schema = yaml.safe_load(api_client.get("/api/schema/").content)

    for path, method in (("/api/v1/system/settings/content/{key}/", "get"), ("/api/v1/system/settings/content/{key}/save/", "post")):
        operation = schema["paths"][path][method]
        [key] = [parameter for parameter in operation["parameters"] if parameter["name"] == "key"]
        assert (key["in"], key["schema"]["enum"]) == ("path", ["content_generation", "publishing"])
    assert not [path for path in schema["paths"] if "settings/content/content_generation" in path or "settings/content/publishing" in path]
