"""The AI model catalogue sites choose from (unified site settings, ``ai_settings``): what the
migration seeds, the read-only list, and the client built with a site's models."""

import pytest

from inkwell.sitesettings.tests.factories import make_site_settings
from inkwell.system import selectors, services
from inkwell.system.defaults import ai_model_catalogue, load_ai_models
from inkwell.system.models import AIModel
from inkwell.tenancy.models import User

pytestmark = pytest.mark.django_db

URL = "/api/v1/system/ai-models/"


@pytest.fixture
def catalogue(settings):
    """The seeded catalogue (a transactional test elsewhere may have emptied the table)."""
    load_ai_models(AIModel, settings.INKWELL_AI)
    return {(model.kind, model.provider, model.name): model for model in AIModel.objects.all()}


def test_the_catalogue_holds_the_local_models_and_the_deployments_openai_models(catalogue):
    assert {("text", "local", "local"), ("image", "local", "local")} <= set(catalogue)
    openai = {("text", "openai", "gpt-4o-mini"), ("text", "openai", "gpt-4o"), ("image", "openai", "gpt-image-1"), ("image", "openai", "dall-e-3")}
    assert openai <= set(catalogue)


def test_models_the_deployment_configures_join_the_catalogue_once():
    configured = {"TESTING_MODEL": "llama3.1:8b", "LIVE_MODEL": "gpt-4o", "IMAGE_MODEL": ""}
    entries = ai_model_catalogue(configured)
    assert ("text", "openai", "llama3.1:8b") in entries
    assert entries.count(("text", "openai", "gpt-4o")) == 1
    assert not [entry for entry in entries if not entry[2]]


def test_loading_again_keeps_what_staff_changed(catalogue, settings):
    retired = catalogue[("image", "openai", "dall-e-2")]
    AIModel.objects.filter(pk=retired.pk).update(is_active=False)
    count = AIModel.objects.count()

    load_ai_models(AIModel, settings.INKWELL_AI)

    assert AIModel.objects.count() == count
    assert not AIModel.objects.get(pk=retired.pk).is_active


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_member_lists_the_catalogue(tenant, as_user, catalogue, role):
    response = as_user(tenant.user(role)).get(URL, {"page_size": 100})

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == len(catalogue)
    local = catalogue[("text", "local", "local")]
    assert {"id": local.pk, "kind": "text", "provider": "local", "name": "local", "is_active": True} in body["results"]


def test_the_list_filters_by_kind_and_state(tenant, as_user, catalogue):
    AIModel.objects.filter(name="dall-e-2").update(is_active=False)
    client = as_user(tenant.owner)

    images = client.get(URL, {"kind": "image", "page_size": 100}).json()["results"]
    assert images and {model["kind"] for model in images} == {"image"}
    active_images = client.get(URL, {"kind": "image", "is_active": "true", "page_size": 100}).json()["results"]
    assert "dall-e-2" not in {model["name"] for model in active_images}
    assert client.get(URL, {"kind": "audio"}).status_code == 400


def test_the_list_is_read_only(tenant, as_user):
    assert as_user(tenant.owner).post(URL, {"kind": "text", "provider": "openai", "name": "mine"}, format="json").status_code == 405


# ai_client(site=...)


@pytest.fixture
def site_models(db):
    return {
        "testing": AIModel.objects.create(kind="text", provider="openai", name="site-testing"),
        "live": AIModel.objects.create(kind="text", provider="openai", name="site-live"),
        "image": AIModel.objects.create(kind="image", provider="openai", name="site-image"),
    }


def test_a_site_without_chosen_models_uses_the_accounts(tenant):
    client = selectors.ai_client(tenant.account, site=tenant.site)
    assert (client.text.config.model, client.image.config.model) == ("gpt-4o", "gpt-image-1")


@pytest.mark.parametrize(
    ("live", "use_testing_model", "expected"),
    [(None, False, "site-live"), (None, True, "site-testing"), (True, True, "site-live"), (False, False, "site-testing")],
)
def test_a_sites_chosen_models_replace_the_accounts(tenant, site_models, live, use_testing_model, expected):
    values = {"use_testing_model": use_testing_model}
    services.integration_settings_save(account=tenant.account, integration_type="ai_provider", user=tenant.owner, values=values)
    make_site_settings(tenant, testing_model=site_models["testing"], live_model=site_models["live"], image_model=site_models["image"])

    client = selectors.ai_client(tenant.account, live=live, site=tenant.site)

    assert (client.text.config.model, client.image.config.model) == (expected, "site-image")


def test_a_site_model_that_is_unset_or_inactive_falls_back_to_the_accounts(tenant, site_models):
    AIModel.objects.filter(pk=site_models["live"].pk).update(is_active=False)
    make_site_settings(tenant, live_model=site_models["live"])

    client = selectors.ai_client(tenant.account, site=tenant.site)

    assert (client.text.config.model, client.image.config.model) == ("gpt-4o", "gpt-image-1")


def test_another_sites_models_do_not_apply(tenant, other_tenant, site_models):
    make_site_settings(other_tenant, live_model=site_models["live"])
    assert selectors.ai_client(tenant.account, site=tenant.site).text.config.model == "gpt-4o"


def test_the_sites_models_cost_one_query_more(tenant, site_models, django_assert_num_queries):
    make_site_settings(tenant, live_model=site_models["live"], image_model=site_models["image"])
    with django_assert_num_queries(3):
        selectors.ai_client(tenant.account, site=tenant.site)


def test_staff_keep_the_catalogue_in_the_admin(client, catalogue):
    client.force_login(User.dangerously_unscoped.create_superuser("ops@example.com", "a long operator password"))
    retired = catalogue[("image", "openai", "dall-e-2")]

    assert "dall-e-2" in client.get("/admin/system/aimodel/").content.decode()
    response = client.post(f"/admin/system/aimodel/{retired.pk}/change/", {"kind": "image", "provider": "openai", "name": "dall-e-2"})

    assert response.status_code == 302
    assert not AIModel.objects.get(pk=retired.pk).is_active
