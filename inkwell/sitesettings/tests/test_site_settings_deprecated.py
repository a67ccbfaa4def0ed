"""The deprecated publishing settings: GET, PUT and PATCH on the values the unified settings store, with deprecation headers
on every answer."""

import pytest
from django.urls import include, path
from drf_spectacular.generators import SchemaGenerator
from django.utils.dateparse import parse_datetime

from inkwell.api.tests import assert_error
from inkwell.sitesettings.models import SiteSettings
from inkwell.sitesettings.serializers import DUPLICATE_SLOT, INVALID_DAY, INVALID_TIME
from inkwell.sitesettings.tests.factories import make_site_settings
from inkwell.tenancy.models import SiteUserAccess

pytestmark = pytest.mark.django_db

FULL = {
    "auto_approval_enabled": True,
    "auto_publish_enabled": True,
    "daily_publish_limit": 2,
    "weekly_publish_limit": 10,
    "monthly_publish_limit": 30,
    "publish_days": ["tue", "thu"],
    "publish_time_slots": ["11:00", "08:30"],
}


def url(site) -> str:
    return f"/api/v1/integration/sites/{site.pk}/publishing-settings/"


def unified(client, site) -> dict:
    return client.get(f"/api/v1/integration/sites/{site.pk}/unified-settings/").json()["data"]["publishing_settings"]


def assert_deprecated(response, site) -> None:
    assert response["Deprecation"] == "true"
    assert response["Link"] == f'</api/v1/integration/sites/{site.pk}/unified-settings/>; rel="successor-version"'


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


def test_the_resource_shows_the_stored_publishing_settings_with_slots_as_start_times(tenant, owner):
    response = owner.get(url(tenant.site))

    assert response.status_code == 200, response.content
    assert_deprecated(response, tenant.site)
    data = response.json()["data"]
    row = SiteSettings.objects.for_account(tenant.account).get(site=tenant.site)
    assert data == {
        "id": row.pk,
        "site": tenant.site.pk,
        "auto_approval_enabled": False,
        "auto_publish_enabled": False,
        "daily_publish_limit": 3,
        "weekly_publish_limit": 15,
        "monthly_publish_limit": 50,
        "publish_days": ["mon", "tue", "wed", "thu", "fri"],
        "publish_time_slots": ["09:00", "14:00", "18:00"],
        "created_at": data["created_at"],
        "updated_at": data["updated_at"],
    }
    assert parse_datetime(data["created_at"]) == row.created_at
    assert data["updated_at"].endswith("Z")


def test_reading_it_again_answers_the_same_id(tenant, owner):
    first = owner.get(url(tenant.site)).json()["data"]["id"]
    assert owner.get(url(tenant.site)).json()["data"]["id"] == first
    assert SiteSettings.objects.for_account(tenant.account).count() == 1


def test_put_replaces_every_field_and_the_unified_settings_show_it(tenant, owner):
    response = owner.put(url(tenant.site), FULL, format="json")

    assert response.status_code == 200, response.content
    assert_deprecated(response, tenant.site)
    data = response.json()["data"]
    assert {name: data[name] for name in FULL} == {**FULL, "publish_time_slots": ["08:30", "11:00"]}
    assert unified(owner, tenant.site) == {
        **{name: FULL[name] for name in FULL if name != "publish_time_slots"},
        "publish_time_slots": [{"start": "08:30", "end": "09:30"}, {"start": "11:00", "end": "12:00"}],
        "total_items_per_run": 0,
    }


def test_put_needs_every_field(tenant, owner):
    response = owner.put(url(tenant.site), {"daily_publish_limit": 2}, format="json")

    assert_error(response, 400, "validation_error", errors={name: ["This field is required"] for name in FULL if name != "daily_publish_limit"})
    assert_deprecated(response, tenant.site)


def test_put_ignores_the_read_only_fields_it_is_sent_back(tenant, owner):
    current = owner.get(url(tenant.site)).json()["data"]
    response = owner.put(url(tenant.site), {**current, "id": 999, "site": 999, "daily_publish_limit": 1}, format="json")

    assert response.status_code == 200, response.content
    assert (response.json()["data"]["id"], response.json()["data"]["site"]) == (current["id"], tenant.site.pk)


def test_patch_changes_the_fields_given(tenant, owner):
    response = owner.patch(url(tenant.site), {"daily_publish_limit": 1, "publish_days": ["sat"]}, format="json")

    assert response.status_code == 200, response.content
    assert_deprecated(response, tenant.site)
    publishing = unified(owner, tenant.site)
    assert (publishing["daily_publish_limit"], publishing["publish_days"], publishing["weekly_publish_limit"]) == (1, ["sat"], 15)


def test_changes_through_the_unified_settings_show_here(tenant, owner):
    owner.patch(
        f"/api/v1/integration/sites/{tenant.site.pk}/unified-settings/",
        {"publishing_settings": {"publish_time_slots": [{"start": "07:00", "end": "07:30"}], "monthly_publish_limit": 40}},
        format="json",
    )

    data = owner.get(url(tenant.site)).json()["data"]
    assert (data["publish_time_slots"], data["monthly_publish_limit"]) == (["07:00"], 40)


def test_slots_keep_their_end_when_their_start_stays(tenant, owner):
    make_site_settings(tenant, publishing={"time_slots": [{"start": "07:00", "end": "07:30"}, {"start": "12:00", "end": "16:00"}]})

    owner.patch(url(tenant.site), {"publish_time_slots": ["12:00", "20:00"]}, format="json")

    assert unified(owner, tenant.site)["publish_time_slots"] == [{"start": "12:00", "end": "16:00"}, {"start": "20:00", "end": "21:00"}]


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"publish_days": ["funday"]}, {"publish_days.0": [INVALID_DAY]}),
        ({"publish_time_slots": ["9am"]}, {"publish_time_slots.0": [INVALID_TIME]}),
        ({"publish_time_slots": [{"start": "09:00"}]}, {"publish_time_slots.0": [INVALID_TIME]}),
        ({"publish_time_slots": ["09:00", "09:00"]}, {"publish_time_slots": [DUPLICATE_SLOT]}),
        ({"weekly_publish_limit": -2}, {"weekly_publish_limit": ["Ensure this value is greater than or equal to 0."]}),
        ({"total_items_per_run": 3}, {"total_items_per_run": ["Unknown field"]}),
    ],
)
def test_the_same_validation_applies(tenant, owner, body, errors):
    response = owner.patch(url(tenant.site), body, format="json")

    assert_error(response, 400, "validation_error", errors=errors)
    assert_deprecated(response, tenant.site)


def test_limits_out_of_order_are_a_422_on_the_field(tenant, owner):
    response = owner.patch(url(tenant.site), {"daily_publish_limit": 20}, format="json")

    assert_error(response, 422, "validation_error", errors={"daily_publish_limit": ["The daily limit cannot be greater than the weekly limit"]})
    assert_deprecated(response, tenant.site)
    assert unified(owner, tenant.site)["daily_publish_limit"] == 3


def test_refusals_carry_the_deprecation_headers_too(tenant, other_tenant, api_client, as_user):
    unauthenticated = api_client.get(url(tenant.site))
    assert_error(unauthenticated, 401, "authentication_required")
    assert_deprecated(unauthenticated, tenant.site)

    not_found = as_user(other_tenant.owner).put(url(tenant.site), FULL, format="json")
    assert_error(not_found, 404, "not_found")
    assert_deprecated(not_found, tenant.site)

    SiteUserAccess.objects.create(account=tenant.account, user=tenant.viewer, site=tenant.site)
    forbidden = as_user(tenant.viewer).patch(url(tenant.site), {"daily_publish_limit": 1}, format="json")
    assert_error(forbidden, 403, "permission_denied")
    assert_deprecated(forbidden, tenant.site)
    assert not SiteSettings.objects.for_account(tenant.account).exists()


def test_options_describes_the_endpoint_with_the_deprecation_headers(tenant, owner):
    response = owner.options(url(tenant.site))
    assert response.status_code == 200, response.content
    assert_deprecated(response, tenant.site)


def test_another_accounts_settings_are_not_found_and_unchanged(tenant, other_tenant, as_user):
    theirs = make_site_settings(other_tenant, publishing={"daily_publish_limit": 1})
    client = as_user(tenant.owner)

    assert_error(client.get(url(other_tenant.site)), 404, "not_found")
    assert_error(client.patch(url(other_tenant.site), {"daily_publish_limit": 2}, format="json"), 404, "not_found")
    theirs.refresh_from_db()
    assert theirs.publishing == {"daily_publish_limit": 1}


def test_the_schema_marks_the_endpoints_deprecated():
    patterns = [path("api/v1/integration/", include("inkwell.sitesettings.urls"))]
    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    operations = schema["paths"]["/api/v1/integration/sites/{site_id}/publishing-settings/"]
    assert {method: operation.get("deprecated") for method, operation in operations.items()} == {"get": True, "put": True, "patch": True}
    assert not schema["paths"]["/api/v1/integration/sites/{site_id}/unified-settings/"]["get"].get("deprecated")
