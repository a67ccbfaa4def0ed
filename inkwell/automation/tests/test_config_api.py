"""``GET /automation/config/`` and ``PUT /automation/update_config/`` through the real URLs (issue 7,
Build 1): the shape, the full update, every validation rule, one store shared with the unified
settings, roles and tenancy."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from inkwell.api.tests import assert_error
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.serializers import CONFLICTING_STAGE_VALUE, DUPLICATE_DAY, DUPLICATE_STAGE, INVALID_DAY, INVALID_SCHEDULED_TIME, NO_DAYS
from inkwell.sitesettings.services import BUDGET_OVER_100
from inkwell.sitesettings.tests.factories import make_site_settings
from inkwell.tenancy import services as tenancy_services
from inkwell.tenancy.models import SiteUserAccess
from inkwell.sitesettings.tests.test_site_settings_api import default_unified

pytestmark = pytest.mark.django_db

CONFIG = "/api/v1/automation/config/"
UPDATE = "/api/v1/automation/update_config/"
UNIFIED = "/api/v1/integration/sites/{}/unified-settings/"
def default_config() -> dict:
    """The configuration of a site that changed nothing: the unified settings' automation_config
    with the stage_configs."""
    unified = default_unified()
    return {**unified["automation_config"], "stage_configs": unified["stage_configs"]}


def full_body(**changes) -> dict:
    """Every ``automation_config`` field, with ``changes``: what a full update sends."""
    optional = ("next_run_at", "stage_configs", "within_stage_delay", "between_stage_delay")
    return {**{name: value for name, value in default_config().items() if name not in optional}, **changes}


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


def get_config(client, site):
    return client.get(CONFIG, {"site_id": site.pk})


def put_config(client, site, body):
    return client.put(f"{UPDATE}?site_id={site.pk}", body, format="json")


def stored(site) -> SiteSettings:
    return SiteSettings.objects.for_account(site.account_id).get(site=site)


# The shape.


def test_a_site_that_changed_nothing_has_the_default_configuration(tenant, owner):
    response = get_config(owner, tenant.site)

    assert response.status_code == 200, response.content
    assert response.json() == {"success": True, "data": {**default_config(), "site_id": tenant.site.pk}}


def test_the_configuration_is_the_unified_automation_config_with_the_stage_configs(tenant, owner):
    unified = owner.get(UNIFIED.format(tenant.site.pk)).json()["data"]
    config = get_config(owner, tenant.site).json()["data"]

    assert config == {**unified["automation_config"], "stage_configs": unified["stage_configs"], "site_id": tenant.site.pk}


# The full update.


def test_a_full_update_replaces_the_configuration_and_answers_it(tenant, owner):
    before = timezone.now()
    body = full_body(
        enabled=True,
        frequency="weekly",
        scheduled_days=["thu", "mon"],
        scheduled_time="06:45",
        stage_3_enabled=False,
        stage_1_batch_size=25,
        max_content_per_run=12,
        within_stage_delay=0,
        between_stage_delay=30,
        stage_configs=[{"stage": 4, "use_testing": True, "budget_pct": 30}, {"stage": 6, "budget_pct": 30}],
    )

    response = put_config(owner, tenant.site, body)

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["enabled"], data["frequency"], data["scheduled_days"], data["scheduled_time"]) == (True, "weekly", ["mon", "thu"], "06:45:00")
    assert (data["stage_3_enabled"], data["stage_1_batch_size"], data["max_content_per_run"]) == (False, 25, 12)
    assert (data["within_stage_delay"], data["between_stage_delay"]) == (0, 30)
    assert data["stage_configs"][3] == {"stage": 4, "enabled": True, "batch_size": 1, "max_per_run": 12, "use_testing": True, "budget_pct": 30}
    assert data["stage_configs"][5]["budget_pct"] == 30
    next_run = parse_datetime(data["next_run_at"])
    assert before < next_run <= before + timedelta(days=7)
    assert (next_run.strftime("%a"), next_run.hour, next_run.minute) in {("Mon", 6, 45), ("Thu", 6, 45)}
    assert get_config(owner, tenant.site).json()["data"] == data


def test_hourly_runs_every_hour_at_the_minute_of_the_time(tenant, owner):
    before = timezone.now()
    data = put_config(owner, tenant.site, full_body(enabled=True, frequency="hourly", scheduled_time="02:20")).json()["data"]

    next_run = parse_datetime(data["next_run_at"])
    assert before < next_run <= before + timedelta(hours=1)
    assert (next_run.minute, next_run.second) == (20, 0)


def test_every_automation_config_field_is_required(tenant, owner):
    body = full_body()
    del body["frequency"], body["stage_4_batch_size"], body["max_clusters_per_run"]

    response = put_config(owner, tenant.site, body)

    required = ["This field is required"]
    assert_error(response, 400, "validation_error", errors={"frequency": required, "stage_4_batch_size": required, "max_clusters_per_run": required})
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_next_run_at_sent_back_is_ignored(tenant, owner):
    config = get_config(owner, tenant.site).json()["data"]
    body = {**config, "enabled": True, "next_run_at": "2000-01-01T00:00:00Z"}

    data = put_config(owner, tenant.site, body).json()["data"]

    assert parse_datetime(data["next_run_at"]) > timezone.now()


def test_disabling_automation_clears_next_run_at(tenant, owner):
    put_config(owner, tenant.site, full_body(enabled=True))

    data = put_config(owner, tenant.site, full_body(enabled=False)).json()["data"]

    assert data["next_run_at"] is None
    assert stored(tenant.site).next_run_at is None


# Validation: 400 for malformed fields, 422 for a budget total over 100.

AT_LEAST_0 = "Ensure this value is greater than or equal to 0."
AT_LEAST_1 = "Ensure this value is greater than or equal to 1."

INVALID_FIELDS = [
    ({"scheduled_days": ["monday"]}, {"scheduled_days.0": [INVALID_DAY]}),
    ({"scheduled_days": ["mon", "mon"]}, {"scheduled_days": [DUPLICATE_DAY]}),
    ({"scheduled_days": []}, {"scheduled_days": [NO_DAYS]}),
    ({"scheduled_time": "25:00"}, {"scheduled_time": [INVALID_SCHEDULED_TIME]}),
    ({"scheduled_time": "7pm"}, {"scheduled_time": [INVALID_SCHEDULED_TIME]}),
    ({"frequency": "yearly"}, {"frequency": ['"yearly" is not a valid choice.']}),
    ({"enabled": "perhaps"}, {"enabled": ["Must be a valid boolean."]}),
    ({"stage_2_batch_size": 0}, {"stage_2_batch_size": [AT_LEAST_1]}),
    ({"stage_6_batch_size": 1001}, {"stage_6_batch_size": ["Ensure this value is less than or equal to 1000."]}),
    ({"max_ideas_per_run": -3}, {"max_ideas_per_run": [AT_LEAST_0]}),
    ({"within_stage_delay": -1}, {"within_stage_delay": [AT_LEAST_0]}),
    ({"between_stage_delay": 3601}, {"between_stage_delay": ["Ensure this value is less than or equal to 3600."]}),
    ({"stage_configs": [{"stage": 1, "budget_pct": 101}]}, {"stage_configs.0.budget_pct": ["Ensure this value is less than or equal to 100."]}),
    ({"stage_configs": [{"stage": 9, "use_testing": True}]}, {"stage_configs.0.stage": ["Ensure this value is less than or equal to 7."]}),
    ({"stage_configs": [{"stage": 2}, {"stage": 2}]}, {"stage_configs.1.stage": [DUPLICATE_STAGE]}),
    (
        {"stage_5_batch_size": 2, "stage_configs": [{"stage": 5, "batch_size": 3}]},
        {"stage_configs.0.batch_size": [CONFLICTING_STAGE_VALUE.format(field="stage_5_batch_size")]},
    ),
    ({"stage_8_enabled": True}, {"stage_8_enabled": ["Unknown field"]}),
]


@pytest.mark.parametrize(("changes", "errors"), INVALID_FIELDS)
def test_invalid_fields_are_a_400_naming_them_and_change_nothing(tenant, owner, changes, errors):
    response = put_config(owner, tenant.site, full_body(**changes))

    assert_error(response, 400, "validation_error", errors=errors)
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_budgets_over_100_in_all_are_a_422_and_change_nothing(tenant, owner):
    make_site_settings(tenant, stages={"4": {"budget_pct": 30}})

    response = put_config(owner, tenant.site, full_body(stage_configs=[{"stage": 1, "budget_pct": 70}]))

    # 70 + 10 + 0 + 30 + 0 + 0 + 0
    assert_error(response, 422, "validation_error", errors={"stage_configs": [BUDGET_OVER_100.format(total=110)]})
    assert stored(tenant.site).stages == {"4": {"budget_pct": 30}}


def test_a_body_that_is_not_an_object_is_a_400(tenant, owner):
    errors = {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}
    assert_error(put_config(owner, tenant.site, ["enabled"]), 400, "validation_error", errors=errors)


# One store: the unified settings read what update_config wrote, and the reverse.


def test_update_config_shows_in_the_unified_settings(tenant, owner):
    put_config(owner, tenant.site, full_body(enabled=True, stage_2_batch_size=4, within_stage_delay=1, stage_configs=[{"stage": 7, "use_testing": True}]))

    unified = owner.get(UNIFIED.format(tenant.site.pk)).json()["data"]

    assert (unified["automation_config"]["enabled"], unified["automation_config"]["stage_2_batch_size"]) == (True, 4)
    assert unified["automation_config"]["within_stage_delay"] == 1
    assert unified["stage_configs"][6]["use_testing"] is True
    assert unified["automation_config"]["next_run_at"] == get_config(owner, tenant.site).json()["data"]["next_run_at"] is not None


def test_the_unified_settings_show_in_the_config(tenant, owner):
    body = {"automation_config": {"frequency": "hourly", "between_stage_delay": 0}, "stage_configs": [{"stage": 3, "budget_pct": 0, "max_per_run": 9}]}
    owner.patch(UNIFIED.format(tenant.site.pk), body, format="json")

    config = get_config(owner, tenant.site).json()["data"]

    assert (config["frequency"], config["between_stage_delay"], config["max_ideas_per_run"]) == ("hourly", 0, 9)
    assert config["stage_configs"][2]["budget_pct"] == 0


# Roles and tenancy.


@pytest.fixture
def granted(tenant):
    for user in (tenant.editor, tenant.viewer):
        SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return tenant


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_member_who_sees_the_site_reads_the_configuration(granted, as_user, role):
    assert get_config(as_user(granted.user(role)), granted.site).status_code == 200


@pytest.mark.parametrize("role", ["owner", "admin", "editor"])
def test_owners_admins_and_granted_editors_update_the_configuration(granted, as_user, role):
    response = put_config(as_user(granted.user(role)), granted.site, full_body(stage_1_batch_size=5))

    assert response.status_code == 200, response.content
    assert stored(granted.site).stages == {"1": {"batch_size": 5}}


def test_viewers_cannot_update_the_configuration(granted, as_user):
    assert_error(put_config(as_user(granted.viewer), granted.site, full_body()), 403, "permission_denied")
    assert not SiteSettings.objects.for_account(granted.account).exists()


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_a_site_not_granted_to_an_editor_or_viewer_is_forbidden(tenant, as_user, role):
    client = as_user(tenant.user(role))

    assert_error(get_config(client, tenant.site), 403, "permission_denied")
    if role == "editor":
        assert_error(put_config(client, tenant.site, full_body()), 403, "permission_denied")
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_another_accounts_site_is_not_found_and_keeps_its_configuration(tenant, other_tenant, owner):
    theirs = make_site_settings(other_tenant, stages={"1": {"batch_size": 7}})

    assert_error(get_config(owner, other_tenant.site), 404, "not_found")
    assert_error(put_config(owner, other_tenant.site, full_body(stage_1_batch_size=9)), 404, "not_found")
    theirs.refresh_from_db()
    assert theirs.stages == {"1": {"batch_size": 7}}


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ({}, {"site_id": ["This field is required"]}),
        ({"site_id": "first"}, {"site_id": ["A valid integer is required."]}),
        ({"site_id": 0}, {"site_id": ["Ensure this value is greater than or equal to 1."]}),
    ],
)
def test_site_id_is_a_required_id(owner, query, errors):
    assert_error(owner.get(CONFIG, query), 400, "validation_error", errors=errors)


def test_a_site_bound_api_key_reads_the_configuration_but_does_not_change_it(tenant, api_client):
    """As with the unified settings, which hold the same values."""
    _, raw_key = tenancy_services.api_key_create(account=tenant.account, user=tenant.owner, name="cms", site=tenant.site)
    api_client.credentials(HTTP_AUTHORIZATION=f"ApiKey {raw_key}")

    assert get_config(api_client, tenant.site).status_code == 200
    assert_error(put_config(api_client, tenant.site, full_body(stage_1_batch_size=5)), 403, "permission_denied")
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_options_describes_both_endpoints(tenant, owner):
    assert owner.options(f"{CONFIG}?site_id={tenant.site.pk}").status_code == 200
    assert owner.options(f"{UPDATE}?site_id={tenant.site.pk}").status_code == 200


# Round trip and partial updates (issue 14).


def test_what_get_answers_can_be_sent_back_unchanged_to_update_config(tenant, owner):
    patch_config(owner, tenant.site, {"enabled": True, "max_content_per_run": 5, "stage_configs": [{"stage": 6, "budget_pct": 0, "use_testing": True}]})
    before = get_config(owner, tenant.site).json()["data"]

    response = put_config(owner, tenant.site, before)

    assert response.status_code == 200, response.content
    assert response.json()["data"] == before == get_config(owner, tenant.site).json()["data"]


def test_unknown_fields_are_still_refused_on_the_round_trip(tenant, owner):
    body = {**get_config(owner, tenant.site).json()["data"], "max_tasks_per_run": 3}

    assert_error(put_config(owner, tenant.site, body), 400, "validation_error", errors={"max_tasks_per_run": ["Unknown field"]})


@pytest.mark.parametrize(
    "subset",
    [{"enabled": True}, {"max_content_per_run": 7}, {"within_stage_delay": 0, "stage_2_batch_size": 3}, {"stage_configs": [{"stage": 5, "use_testing": True}]}, {}],
)
def test_patch_takes_any_subset_and_leaves_the_rest(tenant, owner, subset):
    before = get_config(owner, tenant.site).json()["data"]

    response = patch_config(owner, tenant.site, subset)

    assert response.status_code == 200, response.content
    after = response.json()["data"]
    flat = {name: value for name, value in subset.items() if name != "stage_configs"}
    changed = {name for name in after if after[name] != before[name]}
    assert {name: after[name] for name in flat} == flat
    assert changed - {"next_run_at", "stage_configs"} == set(flat) - {name for name in flat if before[name] == flat[name]}
    for entry in subset.get("stage_configs", []):
        assert after["stage_configs"][entry["stage"] - 1] | entry == after["stage_configs"][entry["stage"] - 1]


def patch_config(client, site, body):
    return client.patch(f"{UPDATE}?site_id={site.pk}", body, format="json")


def test_a_patched_stage_entry_must_still_name_its_stage(tenant, owner):
    before = get_config(owner, tenant.site).json()["data"]

    response = patch_config(owner, tenant.site, {"stage_configs": [{"use_testing": True}]})

    assert_error(response, 400, "validation_error", errors={"stage_configs.0.stage": ["This field is required"]})
    assert get_config(owner, tenant.site).json()["data"] == before
