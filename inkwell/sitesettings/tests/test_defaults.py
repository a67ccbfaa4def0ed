"""The default settings (spec: Default settings; Publishing and automation defaults): word for word
from ``GET /integration/settings/defaults/``, and one definition that a site without saved
settings and a reset read as well."""

import pytest

from inkwell.sitesettings import defaults
from inkwell.sitesettings.selectors import effective_settings

pytestmark = pytest.mark.django_db

DEFAULTS_URL = "/api/v1/integration/settings/defaults/"

# The spec's table, written out here rather than imported, so that a changed default fails.
SPEC_DEFAULTS = {
    "automation": {"enabled": False, "frequency": "daily", "time": "02:00"},
    "stages": [
        {"number": 1, "enabled": True, "batch_size": 50, "per_run_limit": 0, "use_testing": False, "budget_pct": 15},
        {"number": 2, "enabled": True, "batch_size": 1, "per_run_limit": 0, "use_testing": False, "budget_pct": 10},
        {"number": 3, "enabled": True, "batch_size": 20, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
        {"number": 4, "enabled": True, "batch_size": 1, "per_run_limit": 3, "use_testing": False, "budget_pct": 75},
        {"number": 5, "enabled": True, "batch_size": 1, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
        {"number": 6, "enabled": True, "batch_size": 4, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
        {"number": 7, "enabled": True, "batch_size": 10, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
    ],
    "delays": {"within_stage": 3, "between_stage": 5},
    "publishing": {
        "auto_approval_enabled": False,
        "auto_publish_enabled": False,
        "daily_publish_limit": 3,
        "weekly_publish_limit": 15,
        "monthly_publish_limit": 50,
        "publish_days": ["mon", "tue", "wed", "thu", "fri"],
        "time_slots": ["09:00", "14:00", "18:00"],
    },
    "images": {"style": "photorealistic", "max_images": 4},
}


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_the_defaults_endpoint_answers_the_specs_defaults_word_for_word(tenant, as_user, role):
    response = as_user(tenant.user(role)).get(DEFAULTS_URL)

    assert response.status_code == 200, response.content
    assert response.json() == {"success": True, "data": SPEC_DEFAULTS}


def test_the_defaults_are_the_same_for_every_account(tenant, other_tenant, as_user):
    assert as_user(tenant.owner).get(DEFAULTS_URL).content == as_user(other_tenant.owner).get(DEFAULTS_URL).content


def test_the_stage_budgets_share_out_a_whole_run():
    assert sum(stage["budget_pct"] for stage in defaults.DEFAULT_SETTINGS["stages"]) == 100
    assert [stage["number"] for stage in defaults.DEFAULT_SETTINGS["stages"]] == list(defaults.STAGE_NUMBERS)


def test_a_site_without_saved_settings_uses_the_defaults(tenant):
    settings = effective_settings(site=tenant.site)

    assert (settings.automation.enabled, settings.automation.frequency, settings.automation.time.isoformat()) == (False, "daily", "02:00:00")
    assert [(stage.number, stage.batch_size, stage.budget_pct) for stage in settings.stages] == [
        (stage["number"], stage["batch_size"], stage["budget_pct"]) for stage in SPEC_DEFAULTS["stages"]
    ]
    assert (settings.delays.within_stage, settings.delays.between_stage) == (3, 5)
    assert (settings.images.style, settings.images.max_images) == ("photorealistic", 4)
    assert [slot["start"] for slot in settings.publishing.time_slots] == ["09:00", "14:00", "18:00"]


def test_the_endpoint_a_new_site_and_a_reset_all_read_the_one_definition(tenant, as_user, monkeypatch):
    """Changing the central definition changes all three at once: there is no second copy."""
    client = as_user(tenant.owner)
    unified = f"/api/v1/integration/sites/{tenant.site.pk}/unified-settings/"
    client.patch(unified, {"publishing_settings": {"daily_publish_limit": 1}}, format="json")
    fresh_site = type(tenant.site).objects.create(account=tenant.account, name="Fresh", domain="fresh.example.com", slug=f"fresh-{tenant.site.slug}")

    monkeypatch.setitem(defaults.DEFAULT_SETTINGS["publishing"], "daily_publish_limit", 2)
    monkeypatch.setitem(defaults.DEFAULT_SETTINGS["stages"][3], "batch_size", 6)

    assert client.get(DEFAULTS_URL).json()["data"]["publishing"]["daily_publish_limit"] == 2
    fresh = client.get(f"/api/v1/integration/sites/{fresh_site.pk}/unified-settings/").json()["data"]
    assert (fresh["publishing_settings"]["daily_publish_limit"], fresh["stage_configs"][3]["batch_size"]) == (2, 6)
    reset = client.post(f"{unified}reset/").json()["data"]
    assert (reset["publishing_settings"]["daily_publish_limit"], reset["automation_config"]["stage_4_batch_size"]) == (2, 6)
