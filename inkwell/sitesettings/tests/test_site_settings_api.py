"""Unified site settings through the real URLs (spec: Unified site settings; issue 6, Build 3):
the shape, partial PATCH, every validation rule, roles and tenancy."""

from datetime import timedelta
from unittest.mock import ANY
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from inkwell.api.tests import assert_error
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.serializers import (
    CONFLICTING_STAGE_VALUE,
    DUPLICATE_DAY,
    DUPLICATE_SLOT,
    DUPLICATE_STAGE,
    INVALID_DAY,
    INVALID_SCHEDULED_TIME,
    INVALID_TIME,
    NO_DAYS,
    NO_SLOTS,
    NOT_IMAGE_MODEL,
    NOT_TEXT_MODEL,
    SLOT_ENDS_TOO_EARLY,
)
from inkwell.sitesettings.tests.factories import CROSS_ACCOUNT_FACTORIES, ISOLATION_PUBLISHING, make_site_settings
from inkwell.system.models import AIModel
from inkwell.tenancy import services as tenancy_services
from inkwell.tenancy.models import Site, SiteUserAccess

pytestmark = pytest.mark.django_db

STAGE_LIMIT_NAMES = [
    "max_keywords_per_run",
    "max_clusters_per_run",
    "max_ideas_per_run",
    "max_content_per_run",
    "max_image_prompts_per_run",
    "max_images_per_run",
    "max_review_items_per_run",
]
DEFAULT_BATCH_SIZES = [50, 1, 20, 1, 1, 4, 10]
DEFAULT_BUDGET_PCTS = [15, 10, 0, 75, 0, 0, 0]
# Stage 4 writes three articles a run by default (a new account's first run fits its sign-up credits).
DEFAULT_PER_RUN_LIMITS = [0, 0, 0, 3, 0, 0, 0]


def url(site) -> str:
    return f"/api/v1/integration/sites/{site.pk}/unified-settings/"


def patch(client, site, body):
    return client.patch(url(site), body, format="json")


def stored(site) -> SiteSettings:
    return SiteSettings.objects.for_account(site.account_id).get(site=site)


def default_unified() -> dict:
    """The unified settings of a site that changed nothing, written out from the spec's defaults."""
    config = {
        "enabled": False,
        "frequency": "daily",
        "scheduled_days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"],
        "scheduled_time": "02:00:00",
        "next_run_at": None,
        "include_manual_drafts": False,
    }
    for number, batch_size in enumerate(DEFAULT_BATCH_SIZES, start=1):
        config[f"stage_{number}_enabled"] = True
        config[f"stage_{number}_batch_size"] = batch_size
    config.update(zip(STAGE_LIMIT_NAMES, DEFAULT_PER_RUN_LIMITS, strict=True))
    config.update({"within_stage_delay": 3, "between_stage_delay": 5})
    return {
        "automation_config": config,
        "publishing_settings": {
            "auto_approval_enabled": False,
            "auto_publish_enabled": False,
            "daily_publish_limit": 3,
            "weekly_publish_limit": 15,
            "monthly_publish_limit": 50,
            "publish_days": ["mon", "tue", "wed", "thu", "fri"],
            "publish_time_slots": [{"start": "09:00", "end": "10:00"}, {"start": "14:00", "end": "15:00"}, {"start": "18:00", "end": "19:00"}],
            "total_items_per_run": 0,
        },
        "stage_configs": [
            {"stage": number, "enabled": True, "batch_size": batch_size, "max_per_run": limit, "use_testing": False, "budget_pct": budget_pct}
            for number, (batch_size, limit, budget_pct) in enumerate(zip(DEFAULT_BATCH_SIZES, DEFAULT_PER_RUN_LIMITS, DEFAULT_BUDGET_PCTS, strict=True), start=1)
        ],
        "ai_settings": {"testing_model_id": None, "live_model_id": None, "image_model_id": None},
        # Not in the spec: issue #37's review-by dates and opportunity thresholds.
        "performance_settings": {
            "review_after_months": 12,
            "decay_threshold_pct": 30,
            "decay_min_clicks": 10,
            "striking_min_position": 8,
            "striking_max_position": 20,
            "striking_min_impressions": 50,
        },
        # The approval rules (#36): off until the site turns them on.
        "review_rules": {"four_eyes": False, "client_approval": False},
    }


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


@pytest.fixture
def models(db):
    """One active text model, one active image model and one inactive text model of the catalogue."""
    return {
        "text": AIModel.objects.create(kind="text", provider="openai", name="site-live-model"),
        "image": AIModel.objects.create(kind="image", provider="openai", name="site-image-model"),
        "retired": AIModel.objects.create(kind="text", provider="openai", name="retired-model", is_active=False),
    }


# The shape.


def test_a_site_that_changed_nothing_has_the_default_settings_in_the_specs_shape(tenant, owner):
    response = owner.get(url(tenant.site))

    assert response.status_code == 200, response.content
    assert response.json() == {"success": True, "data": default_unified()}
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_next_run_at_is_null_while_automation_is_disabled(tenant, owner):
    patch(owner, tenant.site, {"automation_config": {"enabled": True}})
    data = patch(owner, tenant.site, {"automation_config": {"enabled": False}}).json()["data"]

    assert data["automation_config"]["next_run_at"] is None
    assert stored(tenant.site).next_run_at is None


def test_next_run_at_is_the_schedules_next_run_in_utc(tenant, owner):
    before = timezone.now()
    patch(owner, tenant.site, {"automation_config": {"enabled": True}})
    value = owner.get(url(tenant.site)).json()["data"]["automation_config"]["next_run_at"]

    assert value.endswith("Z")
    next_run = parse_datetime(value)
    assert before < next_run <= before + timedelta(days=1)
    assert (next_run.hour, next_run.minute, next_run.second) == (2, 0, 0)


def test_next_run_at_follows_the_sites_time_zone(tenant, owner):
    Site.objects.for_account(tenant.account).filter(pk=tenant.site.pk).update(time_zone="America/New_York")
    patch(owner, tenant.site, {"automation_config": {"enabled": True, "scheduled_time": "09:30", "scheduled_days": ["wed"]}})

    next_run = parse_datetime(owner.get(url(tenant.site)).json()["data"]["automation_config"]["next_run_at"])

    local = next_run.astimezone(ZoneInfo("America/New_York"))
    assert (local.strftime("%a"), local.hour, local.minute) == ("Wed", 9, 30)
    assert timezone.now() < next_run <= timezone.now() + timedelta(days=7)


@pytest.mark.parametrize("path", ["", "reset/"])
def test_options_describes_the_endpoint(tenant, owner, path):
    assert owner.options(f"{url(tenant.site)}{path}").status_code == 200


# Partial PATCH.


def test_a_patch_changes_only_the_field_it_names_and_answers_the_whole_settings(tenant, owner):
    response = patch(owner, tenant.site, {"publishing_settings": {"daily_publish_limit": 2}})

    assert response.status_code == 200, response.content
    expected = default_unified()
    expected["publishing_settings"]["daily_publish_limit"] = 2
    assert response.json()["data"] == expected
    assert owner.get(url(tenant.site)).json()["data"] == expected
    assert stored(tenant.site).publishing == {"daily_publish_limit": 2}


def test_a_value_set_back_to_its_default_is_no_longer_stored(tenant, owner):
    patch(owner, tenant.site, {"publishing_settings": {"daily_publish_limit": 2, "publish_days": ["mon"]}})
    patch(owner, tenant.site, {"publishing_settings": {"daily_publish_limit": 3}})

    assert stored(tenant.site).publishing == {"publish_days": ["mon"]}


def test_every_section_changes_together(tenant, owner, models):
    body = {
        "automation_config": {
            "enabled": True,
            "frequency": "weekly",
            "scheduled_days": ["sun", "mon"],
            "scheduled_time": "03:15",
            "stage_3_enabled": False,
        },
        "publishing_settings": {
            "auto_approval_enabled": True,
            "auto_publish_enabled": True,
            "publish_time_slots": [{"start": "20:00", "end": "21:30"}, {"start": "08:15"}],
            "total_items_per_run": 12,
        },
        "stage_configs": [{"stage": 6, "batch_size": 6, "max_per_run": 30}],
        "ai_settings": {"live_model_id": models["text"].pk, "image_model_id": models["image"].pk},
    }

    data = patch(owner, tenant.site, body).json()["data"]

    config = data["automation_config"]
    schedule = (config["enabled"], config["frequency"], config["scheduled_days"], config["scheduled_time"])
    assert schedule == (True, "weekly", ["mon", "sun"], "03:15:00")
    assert config["stage_3_enabled"] is False and data["stage_configs"][2]["enabled"] is False
    assert (config["stage_6_batch_size"], config["max_images_per_run"]) == (6, 30)
    assert data["stage_configs"][5] == {"stage": 6, "enabled": True, "batch_size": 6, "max_per_run": 30, "use_testing": False, "budget_pct": 0}
    publishing = data["publishing_settings"]
    assert (publishing["auto_approval_enabled"], publishing["auto_publish_enabled"], publishing["total_items_per_run"]) == (True, True, 12)
    assert publishing["publish_time_slots"] == [{"start": "08:15", "end": "09:15"}, {"start": "20:00", "end": "21:30"}]
    assert data["ai_settings"] == {"testing_model_id": None, "live_model_id": models["text"].pk, "image_model_id": models["image"].pk}


def test_per_run_limits_are_named_after_what_each_stage_takes(tenant, owner):
    body = {"automation_config": {name: number * 10 for number, name in enumerate(STAGE_LIMIT_NAMES, start=1)}}

    data = patch(owner, tenant.site, body).json()["data"]

    assert [entry["max_per_run"] for entry in data["stage_configs"]] == [10, 20, 30, 40, 50, 60, 70]


def test_stage_configs_entries_change_the_stage_they_name(tenant, owner):
    patch(owner, tenant.site, {"stage_configs": [{"stage": 4, "batch_size": 5}, {"stage": 1, "enabled": False}]})
    data = patch(owner, tenant.site, {"stage_configs": [{"stage": 4, "max_per_run": 8}]}).json()["data"]

    assert data["stage_configs"][3] == {"stage": 4, "enabled": True, "batch_size": 5, "max_per_run": 8, "use_testing": False, "budget_pct": 75}
    assert data["stage_configs"][0] == {"stage": 1, "enabled": False, "batch_size": 50, "max_per_run": 0, "use_testing": False, "budget_pct": 15}
    assert (data["automation_config"]["stage_4_batch_size"], data["automation_config"]["max_content_per_run"]) == (5, 8)
    assert stored(tenant.site).stages == {"1": {"enabled": False}, "4": {"batch_size": 5, "per_run_limit": 8}}


def test_the_same_stage_value_may_be_given_twice_when_it_agrees(tenant, owner):
    body = {"automation_config": {"stage_2_batch_size": 3}, "stage_configs": [{"stage": 2, "batch_size": 3}]}
    assert patch(owner, tenant.site, body).json()["data"]["stage_configs"][1]["batch_size"] == 3


def test_scheduled_time_accepts_seconds(tenant, owner):
    data = patch(owner, tenant.site, {"automation_config": {"scheduled_time": "03:15:30"}}).json()["data"]
    assert data["automation_config"]["scheduled_time"] == "03:15:30"


def test_next_run_at_sent_back_is_ignored(tenant, owner):
    config = owner.get(url(tenant.site)).json()["data"]["automation_config"]
    response = patch(owner, tenant.site, {"automation_config": {**config, "next_run_at": "2000-01-01T00:00:00Z", "stage_1_batch_size": 7}})

    assert response.status_code == 200, response.content
    assert response.json()["data"]["automation_config"]["stage_1_batch_size"] == 7
    assert response.json()["data"]["automation_config"]["next_run_at"] != "2000-01-01T00:00:00Z"


def test_null_ai_models_return_to_the_accounts_settings(tenant, owner, models):
    patch(owner, tenant.site, {"ai_settings": {"testing_model_id": models["text"].pk}})
    data = patch(owner, tenant.site, {"ai_settings": {"testing_model_id": None}}).json()["data"]

    assert data["ai_settings"]["testing_model_id"] is None
    assert stored(tenant.site).testing_model_id is None


def test_an_empty_patch_changes_nothing(tenant, owner):
    response = patch(owner, tenant.site, {})
    assert response.status_code == 200
    assert response.json()["data"] == default_unified()


# Validation (400): each rule, with the path of the field in error.

AT_LEAST_0 = "Ensure this value is greater than or equal to 0."
AT_LEAST_1 = "Ensure this value is greater than or equal to 1."
SLOTS = "publishing_settings.publish_time_slots"

INVALID_BODIES = [
    ({"publishing_settings": {"publish_days": ["monday"]}}, {"publishing_settings.publish_days.0": [INVALID_DAY]}),
    ({"publishing_settings": {"publish_days": ["Mon"]}}, {"publishing_settings.publish_days.0": [INVALID_DAY]}),
    ({"publishing_settings": {"publish_days": ["mon", "mon"]}}, {"publishing_settings.publish_days": [DUPLICATE_DAY]}),
    ({"publishing_settings": {"publish_days": []}}, {"publishing_settings.publish_days": [NO_DAYS]}),
    ({"automation_config": {"scheduled_days": ["sat", "xyz"]}}, {"automation_config.scheduled_days.1": [INVALID_DAY]}),
    ({"publishing_settings": {"publish_time_slots": [{"start": "9:00"}]}}, {"publishing_settings.publish_time_slots.0.start": [INVALID_TIME]}),
    ({"publishing_settings": {"publish_time_slots": [{"start": "24:00"}]}}, {"publishing_settings.publish_time_slots.0.start": [INVALID_TIME]}),
    ({"publishing_settings": {"publish_time_slots": [{"start": "09:00:00"}]}}, {"publishing_settings.publish_time_slots.0.start": [INVALID_TIME]}),
    ({"publishing_settings": {"publish_time_slots": ["09:00"]}}, {"publishing_settings.publish_time_slots.0.non_field_errors": ANY}),
    (
        {"publishing_settings": {"publish_time_slots": [{"start": "09:00"}, {"start": "10:00", "end": "09:30"}]}},
        {"publishing_settings.publish_time_slots.1.end": [SLOT_ENDS_TOO_EARLY]},
    ),
    ({"publishing_settings": {"publish_time_slots": [{"start": "10:00", "end": "10:00"}]}}, {f"{SLOTS}.0.end": [SLOT_ENDS_TOO_EARLY]}),
    ({"publishing_settings": {"publish_time_slots": [{"start": "09:00"}, {"start": "09:00", "end": "11:00"}]}}, {SLOTS: [DUPLICATE_SLOT]}),
    ({"publishing_settings": {"publish_time_slots": []}}, {"publishing_settings.publish_time_slots": [NO_SLOTS]}),
    ({"publishing_settings": {"publish_time_slots": [{"start": "09:00", "length": 2}]}}, {f"{SLOTS}.0.length": ["Unknown field"]}),
    ({"automation_config": {"scheduled_time": "2:00"}}, {"automation_config.scheduled_time": [INVALID_SCHEDULED_TIME]}),
    ({"automation_config": {"scheduled_time": "02:00:60"}}, {"automation_config.scheduled_time": [INVALID_SCHEDULED_TIME]}),
    ({"automation_config": {"scheduled_time": 200}}, {"automation_config.scheduled_time": [INVALID_SCHEDULED_TIME]}),
    ({"automation_config": {"frequency": "yearly"}}, {"automation_config.frequency": ['"yearly" is not a valid choice.']}),
    ({"automation_config": {"within_stage_delay": -1}}, {"automation_config.within_stage_delay": [AT_LEAST_0]}),
    ({"automation_config": {"between_stage_delay": "soon"}}, {"automation_config.between_stage_delay": ["A valid integer is required."]}),
    ({"stage_configs": [{"stage": 3, "budget_pct": 101}]}, {"stage_configs.0.budget_pct": ["Ensure this value is less than or equal to 100."]}),
    ({"stage_configs": [{"stage": 3, "budget_pct": -1}]}, {"stage_configs.0.budget_pct": [AT_LEAST_0]}),
    ({"stage_configs": [{"stage": 3, "use_testing": "sometimes"}]}, {"stage_configs.0.use_testing": ["Must be a valid boolean."]}),
    ({"publishing_settings": {"daily_publish_limit": -1}}, {"publishing_settings.daily_publish_limit": [AT_LEAST_0]}),
    ({"publishing_settings": {"monthly_publish_limit": "many"}}, {"publishing_settings.monthly_publish_limit": ["A valid integer is required."]}),
    ({"publishing_settings": {"total_items_per_run": -5}}, {"publishing_settings.total_items_per_run": [AT_LEAST_0]}),
    ({"automation_config": {"max_keywords_per_run": -1}}, {"automation_config.max_keywords_per_run": [AT_LEAST_0]}),
    ({"automation_config": {"stage_5_batch_size": 0}}, {"automation_config.stage_5_batch_size": [AT_LEAST_1]}),
    ({"stage_configs": [{"stage": 2, "batch_size": 0}]}, {"stage_configs.0.batch_size": [AT_LEAST_1]}),
    ({"stage_configs": [{"stage": 8, "enabled": True}]}, {"stage_configs.0.stage": ["Ensure this value is less than or equal to 7."]}),
    ({"stage_configs": [{"enabled": True}]}, {"stage_configs.0.stage": ["This field is required"]}),
    ({"stage_configs": [{"stage": 2}, {"stage": 2}]}, {"stage_configs.1.stage": [DUPLICATE_STAGE]}),
    (
        {"automation_config": {"stage_2_batch_size": 3}, "stage_configs": [{"stage": 2, "batch_size": 4}]},
        {"stage_configs.0.batch_size": [CONFLICTING_STAGE_VALUE.format(field="stage_2_batch_size")]},
    ),
    ({"stage_configs": [{"stage": 1, "per_run_limit": 5}]}, {"stage_configs.0.per_run_limit": ["Unknown field"]}),
    ({"colour": "blue"}, {"colour": ["Unknown field"]}),
    ({"publishing_settings": {"publish_time_zone": "UTC"}}, {"publishing_settings.publish_time_zone": ["Unknown field"]}),
    ({"automation_config": {"stage_8_enabled": True}}, {"automation_config.stage_8_enabled": ["Unknown field"]}),
    ({"ai_settings": {"testing_model_id": "gpt-4o"}}, {"ai_settings.testing_model_id": [NOT_TEXT_MODEL]}),
    ({"ai_settings": {"live_model_id": 10**9}}, {"ai_settings.live_model_id": [NOT_TEXT_MODEL]}),
    ({"publishing_settings": 5}, {"publishing_settings.non_field_errors": ANY}),
]


@pytest.mark.parametrize(("body", "errors"), INVALID_BODIES)
def test_invalid_input_is_a_400_naming_the_field_and_changes_nothing(tenant, owner, body, errors):
    response = patch(owner, tenant.site, body)

    assert_error(response, 400, "validation_error", errors=errors)
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_ai_models_must_be_active_models_of_the_right_kind(tenant, owner, models):
    cases = [
        ({"testing_model_id": models["image"].pk}, {"ai_settings.testing_model_id": [NOT_TEXT_MODEL]}),
        ({"live_model_id": models["retired"].pk}, {"ai_settings.live_model_id": [NOT_TEXT_MODEL]}),
        ({"image_model_id": models["text"].pk}, {"ai_settings.image_model_id": [NOT_IMAGE_MODEL]}),
    ]
    for body, errors in cases:
        assert_error(patch(owner, tenant.site, {"ai_settings": body}), 400, "validation_error", errors=errors)


LIMIT_ORDER_CASES = [
    ({"daily_publish_limit": 16}, "daily_publish_limit", "The daily limit cannot be greater than the weekly limit"),
    ({"weekly_publish_limit": 51}, "weekly_publish_limit", "The weekly limit cannot be greater than the monthly limit"),
    ({"weekly_publish_limit": 0, "daily_publish_limit": 60}, "daily_publish_limit", "The daily limit cannot be greater than the monthly limit"),
    ({"monthly_publish_limit": 2}, "daily_publish_limit", "The daily limit cannot be greater than the monthly limit"),
]


@pytest.mark.parametrize(("values", "field", "message"), LIMIT_ORDER_CASES)
def test_limits_out_of_order_are_a_422_on_the_field(tenant, owner, values, field, message):
    response = patch(owner, tenant.site, {"publishing_settings": values})

    assert_error(response, 422, "validation_error", errors={f"publishing_settings.{field}": [message]})
    assert owner.get(url(tenant.site)).json()["data"] == default_unified()


def test_the_order_is_checked_against_the_saved_limits(tenant, owner):
    patch(owner, tenant.site, {"publishing_settings": {"weekly_publish_limit": 5, "daily_publish_limit": 2}})

    response = patch(owner, tenant.site, {"publishing_settings": {"daily_publish_limit": 6}})

    errors = {"publishing_settings.daily_publish_limit": ["The daily limit cannot be greater than the weekly limit"]}
    assert_error(response, 422, "validation_error", errors=errors)


@pytest.mark.parametrize(
    "values",
    [
        {"daily_publish_limit": 0, "weekly_publish_limit": 0, "monthly_publish_limit": 0},
        {"daily_publish_limit": 40, "weekly_publish_limit": 0},
        {"weekly_publish_limit": 100, "monthly_publish_limit": 0},
        {"daily_publish_limit": 5, "weekly_publish_limit": 5, "monthly_publish_limit": 5},
    ],
)
def test_a_limit_of_0_means_no_limit_and_takes_no_part_in_the_order(tenant, owner, values):
    response = patch(owner, tenant.site, {"publishing_settings": values})

    assert response.status_code == 200, response.content
    assert {name: response.json()["data"]["publishing_settings"][name] for name in values} == values


# Roles and tenancy.


@pytest.fixture
def granted(tenant):
    for user in (tenant.editor, tenant.viewer):
        SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return tenant


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_member_who_sees_the_site_reads_its_settings(granted, as_user, role):
    assert as_user(granted.user(role)).get(url(granted.site)).status_code == 200


@pytest.mark.parametrize("role", ["owner", "admin", "editor"])
def test_owners_admins_and_granted_editors_change_the_settings(granted, as_user, role):
    response = patch(as_user(granted.user(role)), granted.site, {"publishing_settings": {"daily_publish_limit": 1}})
    assert response.status_code == 200, response.content
    assert stored(granted.site).publishing == {"daily_publish_limit": 1}


def test_viewers_cannot_change_the_settings(granted, as_user):
    client = as_user(granted.viewer)
    assert_error(patch(client, granted.site, {"publishing_settings": {"daily_publish_limit": 1}}), 403, "permission_denied")
    assert_error(client.post(f"{url(granted.site)}reset/"), 403, "permission_denied")
    assert not SiteSettings.objects.for_account(granted.account).exists()


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_a_site_not_granted_to_an_editor_or_viewer_is_not_found(tenant, as_user, role):
    client = as_user(tenant.user(role))
    assert_error(client.get(url(tenant.site)), 404, "not_found")
    if role == "editor":
        assert_error(patch(client, tenant.site, {"publishing_settings": {"daily_publish_limit": 1}}), 404, "not_found")
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_another_accounts_site_is_not_found_and_keeps_its_settings(tenant, other_tenant, as_user):
    theirs = make_site_settings(other_tenant, publishing={"daily_publish_limit": 1})
    client = as_user(tenant.owner)

    assert_error(client.get(url(other_tenant.site)), 404, "not_found")
    assert_error(patch(client, other_tenant.site, {"publishing_settings": {"daily_publish_limit": 2}}), 404, "not_found")
    assert_error(client.post(f"{url(other_tenant.site)}reset/"), 404, "not_found")
    theirs.refresh_from_db()
    assert theirs.publishing == {"daily_publish_limit": 1}


def test_another_accounts_saved_settings_never_show_in_this_accounts_answers(tenant, other_tenant, as_user):
    CROSS_ACCOUNT_FACTORIES[SiteSettings](other_tenant, "marker")
    data = as_user(tenant.owner).get(url(tenant.site)).json()["data"]

    assert data == default_unified()
    assert data["publishing_settings"]["daily_publish_limit"] != ISOLATION_PUBLISHING["daily_publish_limit"]


def test_a_site_bound_api_key_reads_the_settings_but_does_not_change_them(tenant, api_client):
    _, raw_key = tenancy_services.api_key_create(account=tenant.account, user=tenant.owner, name="cms", site=tenant.site)
    api_client.credentials(HTTP_AUTHORIZATION=f"ApiKey {raw_key}")

    assert api_client.get(url(tenant.site)).status_code == 200
    assert_error(patch(api_client, tenant.site, {"publishing_settings": {"daily_publish_limit": 1}}), 403, "permission_denied")


def test_settings_are_per_site(tenant, owner):
    second = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")
    patch(owner, tenant.site, {"publishing_settings": {"daily_publish_limit": 1}})

    assert owner.get(url(second)).json()["data"] == default_unified()


# Reset.


def test_reset_returns_every_setting_to_the_defaults_and_keeps_the_row(tenant, owner, models):
    patch(owner, tenant.site, {"publishing_settings": {"daily_publish_limit": 1}, "stage_configs": [{"stage": 3, "enabled": False}]})
    patch(
        owner,
        tenant.site,
        {"automation_config": {"enabled": True, "within_stage_delay": 0}, "ai_settings": {"live_model_id": models["text"].pk}},
    )
    row_id = stored(tenant.site).pk

    response = owner.post(f"{url(tenant.site)}reset/")

    assert response.status_code == 200, response.content
    assert response.json()["data"] == default_unified()
    row = stored(tenant.site)
    assert (row.pk, row.automation, row.stages, row.delays, row.publishing, row.live_model_id) == (row_id, {}, {}, {}, {}, None)
    assert row.next_run_at is None


def test_the_review_rules_change_alone_and_a_reset_turns_them_off(tenant, as_user):
    owner = as_user(tenant.owner)

    changed = patch(owner, tenant.site, {"review_rules": {"client_approval": True}}).json()["data"]
    reset = owner.post(f"/api/v1/integration/sites/{tenant.site.pk}/unified-settings/reset/", {}, format="json")
    after = owner.get(f"/api/v1/integration/sites/{tenant.site.pk}/unified-settings/").json()["data"]

    assert changed["review_rules"] == {"four_eyes": False, "client_approval": True}
    assert reset.status_code in (200, 204), reset.content
    assert after["review_rules"] == {"four_eyes": False, "client_approval": False}
