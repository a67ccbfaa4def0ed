"""test_connection, test_collection_connection, update_structure and content_types, against the
WordPress-faithful test server; and the site setup they may complete."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.integration.models import ConnectionStatus, SiteIntegration, SiteSetup
from inkwell.integration.tests.factories import make_integration
from inkwell.notifications.models import Notification
from inkwell.tenancy.models import SiteUserAccess
from inkwell.writer.tests.factories import make_sector

pytestmark = pytest.mark.django_db

RESULT_FIELDS = {"connected", "message", "user", "site_name", "elapsed_ms", "error_code"}


def url(integration, action: str) -> str:
    return f"/api/v1/integration/{integration.pk}/{action}/"


def connection_result(client, integration) -> dict:
    response = client.post(url(integration, "test_connection"))
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert set(data) == RESULT_FIELDS
    return data


def stored(integration) -> SiteIntegration:
    return SiteIntegration.objects.for_account(integration.account_id).get(pk=integration.pk)


def setup_notifications(tenant) -> int:
    return Notification.objects.for_account(tenant.account).filter(notification_type="site_setup_complete").count()


def test_working_credentials_connect(tenant, cms_integration, cms_server, as_user):
    data = connection_result(as_user(tenant.owner), cms_integration)

    assert data == {
        **data,
        "connected": True,
        "message": f'Connected to "Inkwell Test Site" as {data["user"]["name"]}',
        "site_name": "Inkwell Test Site",
        "error_code": None,
    }
    assert data["user"]["can_publish"] is True and "administrator" in data["user"]["roles"]
    assert isinstance(data["elapsed_ms"], int) and data["elapsed_ms"] >= 0
    integration = stored(cms_integration)
    assert (integration.connection_status, integration.remote_site_name) == (ConnectionStatus.CONNECTED, "Inkwell Test Site")
    assert integration.connection_message == data["message"] and integration.last_tested_at is not None
    assert cms_server.app_password not in str(data)


def test_a_wrong_password_is_a_clear_failure(tenant, cms_integration, as_user):
    SiteIntegration.objects.for_account(tenant.account).filter(pk=cms_integration.pk).update(app_password="wrong pass word 1234")

    data = connection_result(as_user(tenant.owner), cms_integration)

    assert data == {**data, "connected": False, "user": None, "site_name": "", "error_code": "cms_auth_failed"}
    assert data["message"] == "The CMS rejected the username or application password"
    assert (stored(cms_integration).connection_status, stored(cms_integration).connection_message) == (ConnectionStatus.FAILED, data["message"])


def test_an_unreachable_cms_is_a_clear_failure(tenant, allow_private_cms, closed_port, as_user):
    integration = make_integration(tenant, base_url=f"http://127.0.0.1:{closed_port}")

    data = connection_result(as_user(tenant.owner), integration)

    assert (data["connected"], data["error_code"], data["message"]) == (False, "cms_unreachable", "The CMS could not be reached")
    assert stored(integration).connection_status == ConnectionStatus.FAILED


def test_a_slow_cms_times_out_with_a_clear_failure(tenant, cms_integration, cms_server, as_user, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "TIMEOUT_SECONDS": 1}
    cms_server.fail_next(1, status=None, delay=3)

    data = connection_result(as_user(tenant.owner), cms_integration)

    assert (data["connected"], data["error_code"]) == (False, "cms_timeout")


def test_a_failing_cms_is_a_clear_failure(tenant, cms_integration, cms_server, as_user):
    cms_server.fail_next(1, status=503)

    data = connection_result(as_user(tenant.owner), cms_integration)

    assert (data["connected"], data["error_code"]) == (False, "cms_unavailable")


def test_a_private_address_is_refused_at_test_time_when_no_longer_allowed(tenant, cms_integration, cms_server, as_user, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": False}

    data = connection_result(as_user(tenant.owner), cms_integration)

    assert (data["connected"], data["error_code"]) == (False, "cms_address_not_allowed")
    assert cms_server.requests == []


def test_editors_may_test_and_viewers_may_not(tenant, cms_integration, as_user):
    for role in ("editor", "viewer"):
        SiteUserAccess.objects.create(account=tenant.account, user=tenant.user(role), site=tenant.site)

    assert connection_result(as_user(tenant.editor), cms_integration)["connected"] is True
    for action in ("test_connection", "test_collection_connection", "update_structure"):
        assert_error(as_user(tenant.viewer).post(url(cms_integration, action), {"content_type": "post"}, format="json"), 403, "permission_denied")


def test_a_collection_check_counts_the_items(tenant, cms_integration, as_user):
    client = as_user(tenant.owner)

    posts = client.post(url(cms_integration, "test_collection_connection"), {"content_type": "post"}, format="json").json()["data"]
    unknown = client.post(url(cms_integration, "test_collection_connection"), {"content_type": "recipe"}, format="json").json()["data"]

    assert posts == {**posts, "content_type": "post", "ok": True, "count": 0, "error_code": None}
    assert (unknown["ok"], unknown["error_code"], unknown["content_type"]) == (False, None, "recipe")
    assert unknown["message"]
    assert_error(client.post(url(cms_integration, "test_collection_connection"), {}, format="json"), 400, "validation_error", errors={"content_type": ["This field is required"]})


def test_a_collection_check_of_an_unreachable_cms_says_why(tenant, allow_private_cms, closed_port, as_user):
    integration = make_integration(tenant, base_url=f"http://127.0.0.1:{closed_port}")

    data = as_user(tenant.owner).post(url(integration, "test_collection_connection"), {"content_type": "post"}, format="json").json()["data"]

    assert data == {"content_type": "post", "ok": False, "count": 0, "message": "The CMS could not be reached", "error_code": "cms_unreachable"}


def test_update_structure_stores_the_site_and_its_content_types(tenant, cms_integration, cms_server, as_user):
    client = as_user(tenant.owner)

    data = client.post(url(cms_integration, "update_structure")).json()["data"]

    assert (data["updated"], data["error_code"], data["site"]["name"]) == (True, None, "Inkwell Test Site")
    slugs = {content_type["slug"] for content_type in data["content_types"]}
    assert {"post", "page"} <= slugs
    post_type = next(content_type for content_type in data["content_types"] if content_type["slug"] == "post")
    assert post_type == {"slug": "post", "name": "Posts", "rest_base": "posts", "taxonomies": ["category", "post_tag"]}
    integration = stored(cms_integration)
    assert integration.structure_updated_at is not None and integration.structure["content_types"] == data["content_types"]
    types_read = cms_server.count("GET", "/wp/v2/types")
    listed = client.get(url(cms_integration, "content_types")).json()["data"]
    assert listed["content_types"] == data["content_types"]
    assert cms_server.count("GET", "/wp/v2/types") == types_read


def test_content_types_are_read_live_the_first_time_only(tenant, cms_integration, cms_server, as_user):
    client = as_user(tenant.owner)

    first = client.get(url(cms_integration, "content_types")).json()["data"]
    second = client.get(url(cms_integration, "content_types")).json()["data"]

    assert first["content_types"] and first["content_types"] == second["content_types"]
    assert first["structure_updated_at"] == second["structure_updated_at"] is not None
    assert cms_server.count("GET", "/wp/v2/types") == 1


def test_a_structure_update_that_fails_keeps_the_stored_structure(tenant, cms_integration, cms_server, as_user):
    client = as_user(tenant.owner)
    before = client.post(url(cms_integration, "update_structure")).json()["data"]
    cms_server.fail_next(1, status=503)

    after = client.post(url(cms_integration, "update_structure")).json()["data"]

    assert (after["updated"], after["error_code"]) == (False, "cms_unavailable")
    assert (after["content_types"], after["structure_updated_at"], after["site"]) == (before["content_types"], before["structure_updated_at"], before["site"])


def test_the_first_successful_test_of_a_site_with_a_sector_completes_its_setup(tenant, cms_integration, as_user):
    make_sector(tenant)
    client = as_user(tenant.owner)

    connection_result(client, cms_integration)
    connection_result(client, cms_integration)

    assert setup_notifications(tenant) == 1
    notification = Notification.objects.for_account(tenant.account).get(notification_type="site_setup_complete")
    assert (notification.site_id, notification.severity) == (tenant.site.pk, "success")


def test_a_failed_test_completes_nothing(tenant, cms_integration, as_user):
    make_sector(tenant)
    SiteIntegration.objects.for_account(tenant.account).filter(pk=cms_integration.pk).update(app_password="wrong pass word 1234")

    connection_result(as_user(tenant.owner), cms_integration)

    assert setup_notifications(tenant) == 0


def test_a_sector_added_after_a_successful_test_completes_the_setup_once(tenant, cms_integration, as_user, industry_sector, django_capture_on_commit_callbacks):
    client = as_user(tenant.owner)
    connection_result(client, cms_integration)
    assert setup_notifications(tenant) == 0

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/auth/sectors/", {"site_id": tenant.site.pk, "industry_sector_id": industry_sector.pk}, format="json")
    assert response.status_code == 201, response.content
    with django_capture_on_commit_callbacks(execute=True):
        make_sector(tenant)

    assert setup_notifications(tenant) == 1
    assert SiteSetup.objects.for_account(tenant.account).filter(site=tenant.site).count() == 1


def test_a_site_is_set_up_once_ever(tenant, cms_integration, as_user, django_capture_on_commit_callbacks):
    make_sector(tenant)
    client = as_user(tenant.owner)
    connection_result(client, cms_integration)

    client.delete(f"/api/v1/integration/{cms_integration.pk}/")
    again = make_integration(tenant, base_url=cms_integration.base_url, username=cms_integration.username, app_password=cms_integration.app_password)
    connection_result(client, again)

    assert setup_notifications(tenant) == 1
