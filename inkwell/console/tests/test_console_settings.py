"""The settings screens through the console's pages, as a browser without JavaScript (and htmx)
sends them: the API's services, rules and messages, the roles of the API, and no secret in any
answer once it is saved."""

import re

import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY
from inkwell.sitesettings.selectors import effective_settings
from inkwell.sitesettings.services import unified_settings_update
from inkwell.system import selectors as system
from inkwell.system.models import AIModel, IntegrationSettings, PromptOverride
from inkwell.tenancy.models import SiteUserAccess

pytestmark = pytest.mark.django_db

WRONG_KEY = "sk-wrong-key-00000000000000000000"
SAVED_KEY = "sk-saved-key-abcdefghijklmnopqrstuv1234"


def _publishing(**changes) -> dict:
    form = {
        "form": "publishing",
        "daily_publish_limit": "3",
        "weekly_publish_limit": "15",
        "monthly_publish_limit": "50",
        "publish_days": ["mon", "wed"],
        "slot_start": ["08:00", "16:30", ""],
        "slot_end": ["09:15", "", ""],
        "total_items_per_run": "0",
        "auto_publish_enabled": "on",
    }
    return {**form, **changes}


def _text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


@pytest.fixture
def private_endpoints(settings):
    """The provider these tests reach listens on loopback: the operator allows private endpoints."""
    settings.INKWELL_AI = {**settings.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": True}


# A site's settings.


def test_site_publishing_settings_are_saved_by_the_apis_service(console_client, tenant):
    url = f"/app/sites/{tenant.site.pk}/settings/"
    response = console_client(tenant.owner).post(url, _publishing())
    assert response.headers["Location"] == url + "?saved=publishing"
    publishing = effective_settings(site=tenant.site).publishing
    assert publishing.publish_days == ("mon", "wed")
    assert publishing.time_slots == ({"start": "08:00", "end": "09:15"}, {"start": "16:30", "end": "17:30"})
    assert (publishing.auto_publish_enabled, publishing.auto_approval_enabled) == (True, False)


def test_limits_out_of_order_are_refused_with_the_apis_message_beside_the_field(console_client, tenant):
    response = console_client(tenant.owner).post(f"/app/sites/{tenant.site.pk}/settings/", _publishing(daily_publish_limit="20"))
    assert response.status_code == 422
    page = _text(response)
    field = re.search(r'<div class="field field--invalid">\s*<label for="id_daily_publish_limit">.*?</div>', page).group(0)
    assert "The daily limit cannot be greater than the weekly limit" in field
    assert 'value="20"' in field  # what was typed stays, to be corrected
    assert effective_settings(site=tenant.site).publishing.daily_publish_limit == 3


def test_a_slot_ending_before_it_starts_is_refused_beside_that_slot(console_client, tenant):
    response = console_client(tenant.owner).post(f"/app/sites/{tenant.site.pk}/settings/", _publishing(slot_end=["07:00", "", ""]))
    assert response.status_code == 400
    row = re.search(r'id="slot-end-1".*?</td>', _text(response)).group(0)
    assert "The end must be after the start" in row


def test_site_ai_models_come_from_the_catalogue_and_an_image_model_is_no_text_model(console_client, tenant):
    client = console_client(tenant.owner)
    text_model = AIModel.objects.get(kind="text", name="gpt-4o-mini")
    image_model = AIModel.objects.get(kind="image", name="gpt-image-1")
    url = f"/app/sites/{tenant.site.pk}/settings/"
    client.post(url, {"form": "ai", "live_model_id": text_model.pk, "image_model_id": image_model.pk, "testing_model_id": ""})
    assert effective_settings(site=tenant.site).ai.live_model_id == text_model.pk
    refused = client.post(url, {"form": "ai", "live_model_id": image_model.pk})
    assert refused.status_code == 400
    assert "Choose an active text model" in _text(refused)
    assert effective_settings(site=tenant.site).ai.live_model_id == text_model.pk


def test_reset_returns_every_setting_of_the_site_to_the_defaults(console_client, tenant):
    client = console_client(tenant.owner)
    client.post(f"/app/sites/{tenant.site.pk}/settings/", _publishing(daily_publish_limit="1"))
    response = client.post(f"/app/sites/{tenant.site.pk}/settings/reset/")
    assert response.headers["Location"].endswith("?saved=reset")
    assert effective_settings(site=tenant.site).publishing.publish_days == ("mon", "tue", "wed", "thu", "fri")
    assert effective_settings(site=tenant.site).publishing.daily_publish_limit == 3


def test_a_limit_of_0_is_shown_as_0_so_that_saving_the_form_unchanged_keeps_it(console_client, tenant):
    page = console_client(tenant.owner).get(f"/app/sites/{tenant.site.pk}/settings/").content.decode()
    assert re.search(r'id="id_total_items_per_run" name="total_items_per_run" type="number" value="0"', page)


def test_the_automation_is_shown_against_the_defaults_in_the_sites_time_zone(console_client, tenant):
    tenant.site.time_zone = "Europe/Berlin"
    tenant.site.save()
    unified_settings_update(site=tenant.site, changes={"stage_configs": [{"stage": 4, "max_per_run": 5}]})
    page = _text(console_client(tenant.owner).get(f"/app/sites/{tenant.site.pk}/settings/"))
    assert "Europe/Berlin" in page
    assert "1. keywords → clusters" in page and "75 %" in page
    assert '<mark title="Default: 3">5</mark>' in page  # what the site changed, beside the default


def test_an_editor_changes_a_granted_sites_settings_as_in_the_api(console_client, granted):
    response = console_client(granted.editor).post(f"/app/sites/{granted.site.pk}/settings/", _publishing(daily_publish_limit="2"))
    assert response.status_code == 302
    assert effective_settings(site=granted.site).publishing.daily_publish_limit == 2


def test_a_viewer_reads_site_settings_without_a_form_and_may_not_save(console_client, granted):
    client = console_client(granted.viewer)
    page = client.get(f"/app/sites/{granted.site.pk}/settings/").content.decode()
    assert "you can read them" in page and 'name="form" value="publishing"' not in page
    assert client.post(f"/app/sites/{granted.site.pk}/settings/", _publishing(daily_publish_limit="2")).status_code == 403
    assert client.post(f"/app/sites/{granted.site.pk}/settings/reset/").status_code == 403
    assert effective_settings(site=granted.site).publishing.daily_publish_limit == 3


def test_an_editor_without_access_to_the_site_does_not_find_it(console_client, tenant):
    assert console_client(tenant.editor).get(f"/app/sites/{tenant.site.pk}/settings/").status_code == 404


# The account's AI and image providers.


def _provider_form(**changes) -> dict:
    return {"form": "ai_provider", "provider": "local", "base_url": "", "live_model": "gpt-4o", "testing_model": "gpt-4o-mini", **changes}


def test_a_saved_key_is_shown_masked_and_never_again_in_any_answer(console_client, tenant):
    client = console_client(tenant.owner)
    saved = client.post("/app/settings/", _provider_form(api_key=SAVED_KEY))
    assert saved.status_code == 302
    assert system.effective_integration(tenant.account, "ai_provider").own_key == SAVED_KEY
    answers = [client.get(url) for url in ("/app/settings/", "/app/settings/content/", "/app/settings/prompts/", "/app/settings/modules/", f"/app/sites/{tenant.site.pk}/settings/")]
    answers.append(client.post("/app/settings/", _provider_form(base_url="not a url")))  # a refused save shows the page again
    answers.append(console_client(tenant.viewer).get("/app/settings/"))
    for answer in answers:
        assert SAVED_KEY not in answer.content.decode()
        assert SAVED_KEY[-8:] not in answer.content.decode()
    assert "…" + SAVED_KEY[-4:] in answers[0].content.decode()


def test_a_key_typed_into_a_refused_save_is_not_shown_again_and_not_saved(console_client, tenant):
    response = console_client(tenant.owner).post("/app/settings/", _provider_form(base_url="ftp://example.com", api_key=SAVED_KEY))
    assert response.status_code == 400
    assert SAVED_KEY not in response.content.decode()
    assert system.effective_integration(tenant.account, "ai_provider").own_key == ""


def test_a_key_outside_the_contract_format_is_refused_beside_the_key_field(console_client, tenant):
    response = console_client(tenant.owner).post("/app/settings/", _provider_form(api_key="short"))
    assert response.status_code == 400
    field = re.search(r'<label for="ai_provider-api_key">.*?</div>', _text(response)).group(0)
    assert "Invalid API key format" in field


def test_a_save_names_only_the_fields_that_changed(console_client, tenant):
    """Sending the form back unchanged stores nothing, so the account keeps following the server's defaults."""
    console_client(tenant.owner).post("/app/settings/", _provider_form())
    row = IntegrationSettings.objects.for_account(tenant.account).get(integration_type="ai_provider")
    assert (row.provider, row.base_url, row.config) == (None, None, {})


def test_the_key_can_be_removed(console_client, tenant):
    client = console_client(tenant.owner)
    client.post("/app/settings/", _provider_form(api_key=SAVED_KEY))
    client.post("/app/settings/", _provider_form(remove_key="on"))
    assert system.effective_integration(tenant.account, "ai_provider").own_key == ""


def test_image_settings_are_saved_with_the_apis_rules(console_client, tenant):
    client = console_client(tenant.owner)
    form = {"form": "image_generation", "provider": "local", "base_url": "", "model": "gpt-image-1", "size": "512x512", "style": "flat", "max_images": "2"}
    client.post("/app/settings/", form)
    assert system.integration_settings(tenant.account, "image_generation")["size"] == "512x512"
    refused = client.post("/app/settings/", {**form, "max_images": "12"})
    assert refused.status_code == 400
    assert "Ensure this value is less than or equal to 8." in _text(refused)


def test_test_key_calls_the_provider_for_real_and_answers_without_the_key(console_client, tenant, openai_server, private_endpoints):
    client = console_client(tenant.owner)
    client.post("/app/settings/", _provider_form(provider="openai", base_url=openai_server.base_url))
    good = client.post("/app/settings/key-test/", {"form": "ai_provider", "api_key": TEST_API_KEY})
    bad = client.post("/app/settings/key-test/", {"form": "ai_provider", "api_key": WRONG_KEY}, HTTP_HX_REQUEST="true")
    assert good.status_code == 200 and "The provider accepted the key (openai, gpt-4o)" in _text(good)
    assert bad.status_code == 200 and "The key did not work (openai)" in _text(bad)
    assert "<html" not in bad.content.decode()  # htmx gets the result alone
    sent = [request.headers.get("authorization") for request in openai_server.requests_to("models")]
    assert sent == [f"Bearer {TEST_API_KEY}", f"Bearer {WRONG_KEY}"]
    for answer in (good, bad):
        assert TEST_API_KEY not in answer.content.decode() and WRONG_KEY not in answer.content.decode()
    assert system.effective_integration(tenant.account, "ai_provider").own_key == ""  # testing saves nothing


def test_test_key_without_a_key_shows_the_apis_message(console_client, tenant):
    response = console_client(tenant.owner).post("/app/settings/key-test/", {"form": "ai_provider", "api_key": ""}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "API key: This field is required" in _text(response)


def test_test_key_counts_against_the_ai_rate_limit(console_client, tenant, settings):
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "ai": 1}
    client = console_client(tenant.owner)
    statuses = [client.post("/app/settings/key-test/", {"form": "ai_provider", "api_key": TEST_API_KEY}).status_code for _ in range(2)]
    assert statuses == [200, 429]


# Content settings, prompts, modules.


def test_content_settings_are_saved_and_refused_with_the_apis_messages(console_client, tenant):
    client = console_client(tenant.owner)
    form = {"form": "content_generation", "default_article_length": "900", "images_per_article": "2", "default_tone": "friendly", "default_structure": "listicle", "include_faq": "on"}
    client.post("/app/settings/content/", form)
    saved = system.content_settings(tenant.account, "content_generation")
    assert (saved["default_article_length"], saved["default_tone"], saved["include_images"]) == (900, "friendly", False)
    refused = client.post("/app/settings/content/", {**form, "default_article_length": "100"})
    assert refused.status_code == 400
    field = re.search(r'<label for="id_default_article_length">.*?</div>', _text(refused)).group(0)
    assert "Ensure this value is greater than or equal to 300." in field


def test_publishing_content_settings_refuse_a_time_given_twice(console_client, tenant):
    client = console_client(tenant.owner)
    form = {"form": "publishing", "default_publish_status": "draft", "schedule_frequency": "weekly", "schedule_times": ["10:00", "08:30", ""]}
    client.post("/app/settings/content/", form)
    assert system.content_settings(tenant.account, "publishing")["schedule_times"] == ["08:30", "10:00"]
    refused = client.post("/app/settings/content/", {**form, "schedule_times": ["10:00", "10:00"]})
    assert refused.status_code == 400 and "Each time may appear once" in _text(refused)


def test_a_prompt_is_saved_refused_beside_its_text_and_reset_to_the_default(console_client, tenant):
    client = console_client(tenant.owner)
    default = system.prompt_detail(tenant.account, "clustering")["default_value"]
    client.post("/app/settings/prompts/", {"form": "clustering", "prompt_type": "clustering", "prompt_value": default + "\nKeep names short."})
    assert PromptOverride.objects.for_account(tenant.account).get(prompt_type="clustering").text.endswith("Keep names short.")
    refused = client.post("/app/settings/prompts/", {"form": "clustering", "prompt_type": "clustering", "prompt_value": "Group {nothing_known}"})
    assert refused.status_code == 400
    details = re.search(r'<details class="card prompt" id="prompt-clustering" open>.*?</details>', _text(refused)).group(0)
    assert "field__error" in details and "Group {nothing_known}" in details
    client.post("/app/settings/prompts/reset/", {"prompt_type": "clustering"})
    assert not PromptOverride.objects.for_account(tenant.account).exists()


def test_an_unknown_prompt_type_is_not_found(console_client, tenant):
    assert console_client(tenant.owner).post("/app/settings/prompts/", {"prompt_type": "poetry", "prompt_value": "x"}).status_code == 404


def test_a_module_switched_off_closes_its_pages(console_client, tenant):
    client = console_client(tenant.owner)
    client.post("/app/settings/modules/", {"form": "modules", "modules": ["writer", "automation", "linker", "optimizer", "publisher", "integration"]})
    assert system.module_states(tenant.account)["planner"] is False
    assert client.get(f"/app/sites/{tenant.site.pk}/keywords/").status_code == 403
    client.post("/app/settings/modules/", {"form": "modules", "modules": ["planner", "writer", "automation", "linker", "optimizer", "publisher", "integration"]})
    assert client.get(f"/app/sites/{tenant.site.pk}/keywords/").status_code == 200


@pytest.mark.parametrize("role", ["editor", "viewer"])
@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/app/settings/", _provider_form(api_key=SAVED_KEY)),
        ("/app/settings/key-test/", {"form": "ai_provider", "api_key": TEST_API_KEY}),
        ("/app/settings/content/", {"form": "content_generation", "default_article_length": "900"}),
        ("/app/settings/prompts/", {"prompt_type": "clustering", "prompt_value": "Group them"}),
        ("/app/settings/prompts/reset/", {"prompt_type": "clustering"}),
        ("/app/settings/modules/", {"form": "modules"}),
    ],
)
def test_only_owners_and_admins_change_the_accounts_settings(console_client, tenant, role, url, body):
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.user(role), site=tenant.site)
    assert console_client(tenant.user(role)).post(url, body).status_code == 403
    assert not IntegrationSettings.objects.for_account(tenant.account).exists()
    assert system.module_states(tenant.account)["planner"] is True
    assert system.content_settings(tenant.account, "content_generation")["default_article_length"] == 1500


def test_an_admin_changes_the_accounts_settings(console_client, tenant):
    assert console_client(tenant.admin).post("/app/settings/", _provider_form(api_key=SAVED_KEY)).status_code == 302


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_other_roles_read_the_accounts_settings_without_forms(console_client, tenant, role):
    client = console_client(tenant.user(role))
    for url in ("/app/settings/", "/app/settings/content/", "/app/settings/prompts/", "/app/settings/modules/"):
        page = client.get(url).content.decode()
        assert "you can" in page and 'method="post" action="/app/settings' not in page


def test_the_review_by_default_and_opportunity_thresholds_are_saved_by_the_apis_service(console_client, tenant):
    url = f"/app/sites/{tenant.site.pk}/settings/"
    form = {
        "form": "performance",
        "review_after_months": "6",
        "decay_threshold_pct": "25",
        "decay_min_clicks": "10",
        "striking_min_position": "5",
        "striking_max_position": "15",
        "striking_min_impressions": "50",
    }

    shown = _text(console_client(tenant.owner).get(url))
    response = console_client(tenant.owner).post(url, form)

    performance = effective_settings(site=tenant.site).performance
    assert 'name="review_after_months"' in shown and 'value="12"' in shown
    assert response.headers["Location"] == url + "?saved=performance"
    assert (performance.review_after_months, performance.decay_threshold_pct, performance.striking_min_position, performance.striking_max_position) == (6, 25, 5, 15)


def test_a_review_by_default_out_of_range_is_refused_beside_its_field(console_client, tenant):
    response = console_client(tenant.owner).post(f"/app/sites/{tenant.site.pk}/settings/", {"form": "performance", "review_after_months": "0"})

    assert response.status_code == 400
    field = re.search(r'<div class="field field--invalid">\s*<label for="id_review_after_months">.*?</div>', _text(response)).group(0)
    assert "greater than or equal to 1" in field
    assert effective_settings(site=tenant.site).performance.review_after_months == 12


def test_the_approval_rules_are_switched_on_and_off_on_the_site_settings(console_client, tenant):
    url = f"/app/sites/{tenant.site.pk}/settings/"
    client = console_client(tenant.owner)

    client.post(url, {"form": "review", "four_eyes": "on", "client_approval": "on"})
    on = effective_settings(site=tenant.site).review
    page = _text(client.get(url))
    client.post(url, {"form": "review", "client_approval": "on"})
    later = effective_settings(site=tenant.site).review

    assert (on.four_eyes, on.client_approval) == (True, True)
    assert 'name="four_eyes" checked' in page
    assert (later.four_eyes, later.client_approval) == (False, True)


def test_a_viewer_sees_the_review_settings_without_a_form(console_client, granted):
    page = _text(console_client(granted.viewer).get(f"/app/sites/{granted.site.pk}/settings/"))

    assert 'name="review_after_months"' in page and 'value="performance"' not in page and 'value="review"' not in page
