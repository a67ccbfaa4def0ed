"""/integration/ and /integration/{id}/: create, list, read, change and delete integrations;
credentials go in and never come out."""

from unittest.mock import ANY

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.tests import assert_error
from inkwell.integration.models import ConnectionStatus, SiteIntegration
from inkwell.integration.tests.factories import APP_PASSWORD, make_integration, make_site
from inkwell.tenancy.models import SiteUserAccess

pytestmark = pytest.mark.django_db

INTEGRATIONS = "/api/v1/integration/"
FIELDS = {
    "id", "site_id", "platform", "base_url", "username", "app_password_set", "admin_api_key_set", "is_active", "connection_status", "connection_message",
    "last_tested_at", "remote_site_name", "structure_updated_at", "sync_status", "sync_job_id", "last_synced_at", "created_at", "updated_at",
}
PRIVATE_ADDRESS_NOT_ALLOWED = (
    "This address points at a private or loopback network, which is not allowed for a CMS unless the server sets CMS_ALLOW_PRIVATE_URLS=true"
)
ADDRESS_NOT_ALLOWED = "This address points at a link-local, multicast or reserved network, which is never allowed for a CMS"


@pytest.fixture
def public_addresses(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": False}


def body(tenant, **fields) -> dict:
    return {"site_id": tenant.site.pk, "platform": "wordpress", "base_url": "https://blog.example.com/", "username": "editor", "app_password": APP_PASSWORD, **fields}


def stored_column(integration_id: int, column: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM integration_siteintegration WHERE id = %s", [integration_id])
        return cursor.fetchone()[0]


def test_create_answers_the_integration_and_its_webhook_secret_once(tenant, as_user):
    client = as_user(tenant.owner)

    response = client.post(INTEGRATIONS, body(tenant), format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert set(data) == FIELDS | {"webhook_secret"}
    integration = SiteIntegration.objects.for_account(tenant.account).get()
    assert data == {
        **data,
        "id": integration.pk,
        "site_id": tenant.site.pk,
        "platform": "wordpress",
        "base_url": "https://blog.example.com",
        "username": "editor",
        "app_password_set": True,
        "is_active": True,
        "connection_status": "untested",
        "sync_status": "never",
        "webhook_secret": integration.webhook_secret,
    }
    assert len(data["webhook_secret"]) >= 40
    for answer in (client.get(f"{INTEGRATIONS}{integration.pk}/"), client.get(INTEGRATIONS)):
        assert data["webhook_secret"] not in answer.content.decode()
        assert "webhook_secret" not in answer.content.decode()


def test_the_application_password_is_never_answered_and_stored_encrypted(tenant, as_user):
    client = as_user(tenant.owner)
    created = client.post(INTEGRATIONS, body(tenant), format="json")
    integration_id = created.json()["data"]["id"]
    answers = [
        created,
        client.get(INTEGRATIONS),
        client.get(f"{INTEGRATIONS}{integration_id}/"),
        client.patch(f"{INTEGRATIONS}{integration_id}/", {"username": "writer"}, format="json"),
        client.put(f"{INTEGRATIONS}{integration_id}/", {"base_url": "https://news.example.com", "username": "writer", "app_password": "wxyz " * 5}, format="json"),
    ]

    for answer in answers:
        assert answer.status_code in (200, 201), answer.content
        text = answer.content.decode()
        assert "app_password\"" not in text
        for secret in (APP_PASSWORD, "wxyz", APP_PASSWORD.replace(" ", "")[-4:]):
            assert secret not in text
    for column, plain in (("app_password", "wxyz " * 5), ("webhook_secret", created.json()["data"]["webhook_secret"])):
        raw = stored_column(integration_id, column)
        assert raw and plain.strip() not in raw and not raw.startswith("wxyz")
    assert SiteIntegration.objects.for_account(tenant.account).get().app_password == "wxyz wxyz wxyz wxyz wxyz"


def test_every_field_is_required_and_an_unknown_platform_is_refused(tenant, as_user):
    client = as_user(tenant.owner)

    assert_error(
        client.post(INTEGRATIONS, {}, format="json"),
        400,
        "validation_error",
        errors={name: ["This field is required"] for name in ("site_id", "platform", "base_url")},
    )
    assert_error(
        client.post(INTEGRATIONS, {"platform": "wordpress"}, format="json"),
        400,
        "validation_error",
        errors={name: ["This field is required"] for name in ("site_id", "base_url", "username", "app_password")},
    )
    assert_error(client.post(INTEGRATIONS, body(tenant, platform="joomla"), format="json"), 400, "validation_error", errors={"platform": ["Invalid platform"]})
    assert_error(client.post(INTEGRATIONS, body(tenant, username=""), format="json"), 400, "validation_error", errors={"username": ["This field is required"]})


@pytest.mark.parametrize("base_url", ["ftp://blog.example.com", "blog.example.com", "https://", "javascript:alert(1)", "https://blog example.com", "http://[::1"])
def test_the_address_must_be_an_http_url(tenant, as_user, base_url):
    response = as_user(tenant.owner).post(INTEGRATIONS, body(tenant, base_url=base_url), format="json")

    assert_error(response, 400, "validation_error", errors={"base_url": ["Enter an http or https URL"]})


@pytest.mark.parametrize(
    ("base_url", "message"),
    [
        ("http://127.0.0.1:8089", PRIVATE_ADDRESS_NOT_ALLOWED),
        ("http://10.0.0.5", PRIVATE_ADDRESS_NOT_ALLOWED),
        ("http://192.168.1.20/wp", PRIVATE_ADDRESS_NOT_ALLOWED),
        ("http://169.254.169.254/latest", ADDRESS_NOT_ALLOWED),
        ("http://[::1]:8080", PRIVATE_ADDRESS_NOT_ALLOWED),
        ("http://localhost:8000", PRIVATE_ADDRESS_NOT_ALLOWED),
    ],
)
def test_private_loopback_and_link_local_addresses_are_refused_naming_the_setting_that_allows_private_ones(tenant, as_user, public_addresses, base_url, message):
    response = as_user(tenant.owner).post(INTEGRATIONS, body(tenant, base_url=base_url), format="json")

    assert_error(response, 400, "validation_error", errors={"base_url": [message]})
    assert not SiteIntegration.objects.for_account(tenant.account).exists()


def test_the_operator_may_allow_private_addresses_but_never_link_local_ones(tenant, as_user, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}
    client = as_user(tenant.owner)

    assert client.post(INTEGRATIONS, body(tenant, base_url="http://127.0.0.1:8089"), format="json").status_code == 201
    refused = client.post(INTEGRATIONS, body(tenant, site_id=make_site(tenant).pk, base_url="http://169.254.169.254"), format="json")
    assert_error(refused, 400, "validation_error", errors={"base_url": [ADDRESS_NOT_ALLOWED]})


def test_changing_the_address_to_a_private_one_is_refused(tenant, as_user, public_addresses):
    integration = make_integration(tenant)

    response = as_user(tenant.owner).patch(f"{INTEGRATIONS}{integration.pk}/", {"base_url": "http://10.1.2.3"}, format="json")

    assert_error(response, 400, "validation_error", errors={"base_url": [PRIVATE_ADDRESS_NOT_ALLOWED]})


def test_a_site_has_one_integration_per_platform(tenant, as_user):
    make_integration(tenant)

    response = as_user(tenant.owner).post(INTEGRATIONS, body(tenant), format="json")

    assert_error(response, 409, "conflict", errors={"site_id": ["This site already has a WordPress integration"]})


def test_another_accounts_site_is_refused(tenant, other_tenant, as_user):
    response = as_user(tenant.owner).post(INTEGRATIONS, body(tenant, site_id=other_tenant.site.pk), format="json")

    assert_error(response, 400, "validation_error", errors={"site_id": ["Site must belong to your account"]})


def test_the_list_filters_by_site_and_is_paginated(tenant, as_user):
    first = make_integration(tenant)
    others = [make_integration(tenant, site=make_site(tenant)) for _ in range(3)]
    client = as_user(tenant.owner)

    everything = client.get(INTEGRATIONS, {"page_size": 2}).json()
    assert (everything["count"], len(everything["results"]), everything["next"] is not None) == (4, 2, True)
    assert set(everything["results"][0]) == FIELDS
    assert [row["id"] for row in client.get(INTEGRATIONS, {"site_id": tenant.site.pk}).json()["results"]] == [first.pk]
    assert [row["id"] for row in client.get(INTEGRATIONS, {"site_id": others[1].site_id}).json()["results"]] == [others[1].pk]
    assert_error(client.get(INTEGRATIONS, {"site_id": "x"}), 400, "validation_error", errors={"site_id": ANY})


def test_new_credentials_are_untested_until_the_next_test(tenant, as_user):
    integration = make_integration(tenant, connection_status=ConnectionStatus.CONNECTED, connection_message="Connected")
    client = as_user(tenant.owner)

    unchanged = client.patch(f"{INTEGRATIONS}{integration.pk}/", {"is_active": False, "username": "editor"}, format="json").json()["data"]
    assert (unchanged["connection_status"], unchanged["is_active"]) == ("connected", False)
    for change in ({"username": "writer"}, {"app_password": "new pass word 1234"}, {"base_url": "https://shop.example.com"}):
        SiteIntegration.objects.for_account(tenant.account).filter(pk=integration.pk).update(connection_status=ConnectionStatus.CONNECTED)
        data = client.patch(f"{INTEGRATIONS}{integration.pk}/", change, format="json").json()["data"]
        assert (data["connection_status"], data["connection_message"]) == ("untested", ""), change


def test_a_full_update_keeps_the_stored_password_when_none_is_given(tenant, as_user):
    integration = make_integration(tenant)

    response = as_user(tenant.owner).put(f"{INTEGRATIONS}{integration.pk}/", {"base_url": "https://shop.example.com/", "username": "writer"}, format="json")

    assert response.status_code == 200, response.content
    integration.refresh_from_db()
    assert (integration.base_url, integration.username, integration.app_password) == ("https://shop.example.com", "writer", APP_PASSWORD)
    assert_error(as_user(tenant.owner).put(f"{INTEGRATIONS}{integration.pk}/", {"username": "writer"}, format="json"), 400, "validation_error", errors={"base_url": ["This field is required"]})


def test_rotating_the_webhook_secret_answers_the_new_one_once(tenant, as_user):
    integration = make_integration(tenant)
    old = integration.webhook_secret

    response = as_user(tenant.owner).post(f"{INTEGRATIONS}{integration.pk}/rotate_webhook_secret/")

    assert response.status_code == 200, response.content
    new = response.json()["data"]["webhook_secret"]
    integration.refresh_from_db()
    assert integration.webhook_secret == new != old
    assert new not in as_user(tenant.owner).get(f"{INTEGRATIONS}{integration.pk}/").content.decode()


def test_delete_removes_the_integration(tenant, as_user):
    integration = make_integration(tenant)

    response = as_user(tenant.owner).delete(f"{INTEGRATIONS}{integration.pk}/")

    assert response.status_code == 204
    assert not SiteIntegration.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_only_owners_and_admins_change_integrations(tenant, as_user, role):
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.user(role), site=tenant.site)
    integration = make_integration(tenant)
    client = as_user(tenant.user(role))
    detail = f"{INTEGRATIONS}{integration.pk}/"

    assert client.get(detail).status_code == 200
    assert [row["id"] for row in client.get(INTEGRATIONS).json()["results"]] == [integration.pk]
    for response in (
        client.post(INTEGRATIONS, body(tenant, site_id=make_site(tenant).pk), format="json"),
        client.patch(detail, {"username": "someone"}, format="json"),
        client.put(detail, {"base_url": "https://shop.example.com", "username": "someone"}, format="json"),
        client.delete(detail),
        client.post(f"{detail}rotate_webhook_secret/"),
    ):
        assert_error(response, 403, "permission_denied")
    assert as_user(tenant.admin).patch(detail, {"username": "admin-set"}, format="json").status_code == 200


def test_editors_and_viewers_see_only_the_integrations_of_their_sites(tenant, as_user):
    granted = make_integration(tenant)
    hidden = make_integration(tenant, site=make_site(tenant))
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.viewer, site=tenant.site)
    client = as_user(tenant.viewer)

    assert [row["id"] for row in client.get(INTEGRATIONS).json()["results"]] == [granted.pk]
    assert_error(client.get(f"{INTEGRATIONS}{hidden.pk}/"), 404, "not_found")


def test_another_accounts_integration_is_not_found(tenant, other_tenant, as_user):
    theirs = make_integration(other_tenant)
    client = as_user(tenant.owner)

    for response in (
        client.get(f"{INTEGRATIONS}{theirs.pk}/"),
        client.patch(f"{INTEGRATIONS}{theirs.pk}/", {"username": "x"}, format="json"),
        client.post(f"{INTEGRATIONS}{theirs.pk}/test_connection/"),
        client.post(f"{INTEGRATIONS}{theirs.pk}/sync/"),
        client.get(f"{INTEGRATIONS}{theirs.pk}/sync_health/"),
    ):
        assert_error(response, 404, "not_found")
    assert client.get(INTEGRATIONS).json()["count"] == 0


def test_the_list_runs_the_same_queries_for_one_integration_or_many(tenant, as_user, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "integration-list"}}
    client = as_user(tenant.owner)
    make_integration(tenant)

    def queries() -> int:
        client.get(INTEGRATIONS, {"page_size": 100})
        with CaptureQueriesContext(connection) as captured:
            response = client.get(INTEGRATIONS, {"page_size": 100})
        assert len(response.json()["results"]) == SiteIntegration.objects.for_account(tenant.account).count()
        return len(captured)

    one = queries()
    for _ in range(20):
        make_integration(tenant, site=make_site(tenant))
    assert queries() == one <= 4


def test_an_account_that_switched_the_module_off_is_refused(tenant, as_user):
    integration = make_integration(tenant)
    client = as_user(tenant.owner)

    assert client.put("/api/v1/system/modules/", {"modules": {"integration": False}}, format="json").status_code == 200

    assert_error(client.get(INTEGRATIONS), 403, "module_disabled")
    assert_error(client.post(f"{INTEGRATIONS}{integration.pk}/test_connection/"), 403, "module_disabled")
