"""The notifications endpoints through the real URLs: lists, filters, visibility and inbox actions."""

from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from inkwell.api.tests import assert_error
from inkwell.notifications import services
from inkwell.notifications.models import Notification, NotificationReceipt
from inkwell.tenancy.models import Site, SiteUserAccess

pytestmark = pytest.mark.django_db

URL = "/api/v1/notifications/"
FIELDS = {
    "id", "notification_type", "severity", "title", "message", "is_read", "created_at", "read_at",
    "action_label", "action_url", "metadata", "site",
}
CATEGORY_MESSAGE = (
    "Invalid notification type: use one of the categories ai_task, system, credit, billing, integration, content, info, automation or an event name"
)


def notify(tenant, notification_type="system_info", **fields) -> Notification:
    fields.setdefault("title", notification_type)
    fields.setdefault("message", "m")
    return services.notify(account=tenant.account, notification_type=notification_type, **fields)


def results(response) -> list[dict]:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["success"] is True
    return body["results"]


def titles(response) -> list[str]:
    return [item["title"] for item in results(response)]


def data(response, status: int = 200):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["success"] is True
    return body["data"]


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


@pytest.fixture
def other_site(tenant) -> Site:
    return Site.objects.create(account=tenant.account, name="Other", domain="other.example.com", slug="other-site")


@pytest.fixture
def editor(tenant, as_user):
    """The editor, granted the tenant's site only."""
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.editor, site=tenant.site)
    return as_user(tenant.editor)


# List ------------------------------------------------------------------------------------------


def test_list_shows_the_notification_resource_newest_first(tenant, owner):
    older = notify(tenant, "credits_low", severity="warning", metadata={"credits": 40}, action_label="Buy", action_url="/billing")
    newer = notify(tenant, "content_published", severity="success", site=tenant.site)
    Notification.objects.for_account(tenant.account).filter(pk=older.pk).update(created_at=timezone.now() - timedelta(hours=1))

    body = owner.get(URL).json()
    assert (body["count"], body["next"], body["previous"]) == (2, None, None)
    first, second = body["results"]
    assert set(first) == FIELDS
    assert [first["id"], second["id"]] == [newer.pk, older.pk]
    assert second == {
        "id": older.pk,
        "notification_type": "credits_low",
        "severity": "warning",
        "title": "credits_low",
        "message": "m",
        "is_read": False,
        "created_at": mock.ANY,
        "read_at": None,
        "action_label": "Buy",
        "action_url": "/billing",
        "metadata": {"credits": 40},
        "site": None,
    }
    assert second["created_at"].endswith("Z")
    assert first["site"] == tenant.site.pk


def test_list_pages_by_twenty_by_default(tenant, owner):
    for n in range(25):
        notify(tenant, title=f"n{n}")
    body = owner.get(URL).json()
    assert (body["count"], len(body["results"])) == (25, 20)
    assert body["results"][0]["title"] == "n24"
    assert body["next"].endswith("?page=2")
    assert titles(owner.get(URL, {"page": 2})) == [f"n{n}" for n in range(4, -1, -1)]
    assert len(results(owner.get(URL, {"page_size": 7}))) == 7


def test_list_filters_by_the_callers_read_state(tenant, owner, as_user):
    read = notify(tenant, title="read")
    notify(tenant, title="unread")
    services.mark_read(account=tenant.account, notification_id=read.pk, user=tenant.owner)
    assert titles(owner.get(URL, {"is_read": "true"})) == ["read"]
    assert titles(owner.get(URL, {"is_read": "false"})) == ["unread"]
    assert sorted(titles(owner.get(URL, {"is_read": ""}))) == ["read", "unread"]
    admin = as_user(tenant.admin)
    assert titles(admin.get(URL, {"is_read": "true"})) == []
    assert sorted(titles(admin.get(URL, {"is_read": "false"}))) == ["read", "unread"]


@pytest.mark.parametrize(
    ("category", "expected"),
    [
        ("ai_task", {"ai_cluster_complete", "ai_images_failed"}),
        ("content", {"content_published", "content_ready_review"}),
        ("integration", {"cms_sync_failed"}),
        ("credit", {"credits_low", "credits_depleted"}),
        ("billing", set()),
        ("system", {"system_info"}),
        ("info", {"keywords_imported", "site_setup_complete"}),
    ],
)
def test_list_filters_by_category(tenant, owner, category, expected):
    for event in (
        "ai_cluster_complete", "ai_images_failed", "content_published", "content_ready_review", "cms_sync_failed",
        "credits_low", "credits_depleted", "system_info", "keywords_imported", "site_setup_complete",
    ):
        notify(tenant, event)
    assert set(titles(owner.get(URL, {"notification_type": category}))) == expected


def test_list_filters_by_event_name(tenant, owner):
    notify(tenant, "ai_cluster_complete")
    notify(tenant, "ai_cluster_failed")
    assert titles(owner.get(URL, {"notification_type": "ai_cluster_failed"})) == ["ai_cluster_failed"]


def test_list_filters_combine(tenant, owner):
    read = notify(tenant, "credits_low")
    notify(tenant, "credits_depleted")
    notify(tenant, "system_info")
    services.mark_read(account=tenant.account, notification_id=read.pk, user=tenant.owner)
    assert titles(owner.get(URL, {"notification_type": "credit", "is_read": "false"})) == ["credits_depleted"]


@pytest.mark.parametrize("value", ["ai", "AI_TASK", "billing_alert", "system_infos"])
def test_an_unknown_notification_type_filter_is_a_field_error(owner, value):
    assert_error(owner.get(URL, {"notification_type": value}), 400, "validation_error", errors={"notification_type": [CATEGORY_MESSAGE]})


def test_an_invalid_read_state_filter_is_a_field_error(owner):
    assert_error(owner.get(URL, {"is_read": "maybe"}), 400, "validation_error", errors={"is_read": ["Invalid is_read value: use true or false"]})


def test_the_list_runs_the_same_queries_for_many_rows_as_for_one(tenant, owner):
    notify(tenant, site=tenant.site, user=tenant.owner)
    owner.get(URL)
    with CaptureQueriesContext(connection) as one:
        owner.get(URL)
    for n in range(40):
        notification = notify(tenant, site=tenant.site, user=tenant.owner if n % 2 else None)
        # Receipts of the caller and of another member: the read state comes with the rows, not per row.
        if n % 3 == 0:
            services.mark_read(account=tenant.account, notification_id=notification.pk, user=tenant.owner)
        if n % 4 == 0:  # account-wide (even n), so the admin sees it too
            services.mark_read(account=tenant.account, notification_id=notification.pk, user=tenant.admin)
        if n % 10 == 9:
            services.delete(account=tenant.account, notification_id=notification.pk, user=tenant.owner)
    with CaptureQueriesContext(connection) as many:
        listed = results(owner.get(URL, {"page_size": 100}))
    assert len(listed) == 37
    assert sum(item["is_read"] for item in listed) == 12
    assert len(many) == len(one)


def test_notifications_are_in_the_general_rate_limit_scope(owner):
    assert owner.get(URL)["X-RateLimit-Limit"] == "300"


# Visibility ------------------------------------------------------------------------------------


def test_a_notification_for_one_user_is_visible_to_that_user_only(tenant, as_user):
    notify(tenant, title="everyone")
    personal = notify(tenant, title="admin only", user=tenant.admin)
    admin, owner = as_user(tenant.admin), as_user(tenant.owner)
    assert sorted(titles(admin.get(URL))) == ["admin only", "everyone"]
    assert titles(owner.get(URL)) == ["everyone"]
    for method, path in [("get", f"{URL}{personal.pk}/"), ("post", f"{URL}{personal.pk}/read/"), ("delete", f"{URL}{personal.pk}/")]:
        assert_error(getattr(owner, method)(path), 404, "not_found")
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 1}
    assert data(owner.post(f"{URL}read-all/")) == {"updated": 1}
    assert data(admin.get(f"{URL}{personal.pk}/"))["is_read"] is False
    assert data(admin.get(f"{URL}unread-count/")) == {"count": 2}


def test_editors_do_not_see_notifications_of_sites_they_cannot_access(tenant, editor, other_site, as_user):
    notify(tenant, "cms_sync_success", title="granted site", site=tenant.site)
    notify(tenant, title="account-wide")
    hidden = notify(tenant, "cms_sync_failed", title="other site", site=other_site)

    assert sorted(titles(editor.get(URL))) == ["account-wide", "granted site"]
    assert titles(editor.get(URL, {"notification_type": "cms_sync_failed"})) == []
    assert_error(editor.get(f"{URL}{hidden.pk}/"), 404, "not_found")
    assert_error(editor.post(f"{URL}{hidden.pk}/read/"), 404, "not_found")
    assert_error(editor.delete(f"{URL}{hidden.pk}/"), 404, "not_found")
    assert data(editor.get(f"{URL}unread-count/")) == {"count": 2}
    assert data(editor.post(f"{URL}read-all/")) == {"updated": 2}
    assert not NotificationReceipt.objects.for_account(tenant.account).filter(notification=hidden).exists()
    # The owner sees every site's notifications, unread: the editor's reads are the editor's.
    owner = as_user(tenant.owner)
    assert len(titles(owner.get(URL))) == 3
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 3}


def test_a_viewer_without_site_grants_sees_only_account_wide_notifications(tenant, as_user):
    notify(tenant, "content_published", title="site", site=tenant.site)
    notify(tenant, title="account-wide")
    assert titles(as_user(tenant.viewer).get(URL)) == ["account-wide"]


def test_another_accounts_notification_is_not_found_on_every_route(tenant, other_tenant, as_user):
    theirs = notify(other_tenant, title="theirs")
    intruder = as_user(tenant.owner)
    for method, path in [("get", f"{URL}{theirs.pk}/"), ("post", f"{URL}{theirs.pk}/read/"), ("delete", f"{URL}{theirs.pk}/")]:
        assert_error(getattr(intruder, method)(path), 404, "not_found")
    assert titles(intruder.get(URL)) == []
    assert data(intruder.get(f"{URL}unread-count/")) == {"count": 0}
    assert data(intruder.post(f"{URL}read-all/")) == {"updated": 0}
    assert not NotificationReceipt.dangerously_unscoped.exists()
    assert data(as_user(other_tenant.owner).get(f"{URL}{theirs.pk}/"))["is_read"] is False


# Detail and inbox actions ----------------------------------------------------------------------


def test_detail_returns_the_notification(tenant, owner):
    notification = notify(tenant, "keywords_imported", metadata={"count": 12})
    detail = data(owner.get(f"{URL}{notification.pk}/"))
    assert set(detail) == FIELDS
    assert (detail["id"], detail["metadata"]) == (notification.pk, {"count": 12})


def test_an_unknown_id_is_not_found(owner):
    assert_error(owner.get(f"{URL}999999/"), 404, "not_found")
    assert_error(owner.get(f"{URL}{2**70}/"), 404, "not_found")


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_role_reads_and_keeps_its_inbox(tenant, as_user, role):
    first, second, third = (notify(tenant, title=f"n{n}") for n in range(3))
    client = as_user(tenant.user(role))
    assert len(results(client.get(URL))) == 3
    assert data(client.post(f"{URL}{first.pk}/read/"))["is_read"] is True
    assert data(client.post(f"{URL}read-all/")) == {"updated": 2}
    assert client.delete(f"{URL}{second.pk}/").status_code == 204
    assert data(client.get(f"{URL}{third.pk}/"))["is_read"] is True


def test_read_marks_the_notification_read_and_keeps_the_first_read_time(tenant, owner):
    notification = notify(tenant)
    marked = data(owner.post(f"{URL}{notification.pk}/read/"))
    assert set(marked) == FIELDS
    assert marked["is_read"] is True
    assert marked["read_at"].endswith("Z")
    again = data(owner.post(f"{URL}{notification.pk}/read/"))
    assert again["read_at"] == marked["read_at"]
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 0}


def test_read_all_marks_every_unread_notification_and_counts_them(tenant, owner):
    already = notify(tenant, title="already read")
    read_at = services.mark_read(account=tenant.account, notification_id=already.pk, user=tenant.owner).read_at
    notify(tenant, title="a")
    notify(tenant, title="b")
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 2}
    assert data(owner.post(f"{URL}read-all/")) == {"updated": 2}
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 0}
    assert titles(owner.get(URL, {"is_read": "false"})) == []
    assert NotificationReceipt.objects.for_account(tenant.account).get(notification=already, user=tenant.owner).read_at == read_at
    assert data(owner.post(f"{URL}read-all/")) == {"updated": 0}


def test_delete_answers_204_and_the_notification_is_gone_from_the_callers_inbox(tenant, owner):
    notification = notify(tenant)
    notify(tenant, title="kept")
    response = owner.delete(f"{URL}{notification.pk}/")
    assert response.status_code == 204
    assert response.content == b""
    for method, path in [("get", f"{URL}{notification.pk}/"), ("post", f"{URL}{notification.pk}/read/"), ("delete", f"{URL}{notification.pk}/")]:
        assert_error(getattr(owner, method)(path), 404, "not_found")
    assert titles(owner.get(URL)) == ["kept"]
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 1}
    assert data(owner.post(f"{URL}read-all/")) == {"updated": 1}
    assert titles(owner.get(URL, {"is_read": "true"})) == ["kept"]


def test_notifications_cannot_be_created_or_changed_through_the_api(tenant, owner):
    notification = notify(tenant)
    assert_error(owner.post(URL, {"title": "x"}, format="json"), 405, "method_not_allowed", error="Method not allowed")
    assert_error(owner.patch(f"{URL}{notification.pk}/", {"is_read": True}, format="json"), 405, "method_not_allowed", error="Method not allowed")


def test_unread_count_needs_credentials(api_client):
    assert_error(api_client.get(f"{URL}unread-count/"), 401, "authentication_required")


# Each member's own inbox -----------------------------------------------------------------------


@pytest.fixture
def viewer(tenant, as_user):
    return as_user(tenant.viewer)


def test_one_member_reading_leaves_another_members_notification_unread(tenant, owner, viewer):
    notification = notify(tenant, title="shared")
    notify(tenant, title="other")
    marked = data(viewer.post(f"{URL}{notification.pk}/read/"))
    assert (marked["is_read"], marked["read_at"] is not None) == (True, True)

    seen_by_owner = data(owner.get(f"{URL}{notification.pk}/"))
    assert (seen_by_owner["is_read"], seen_by_owner["read_at"]) == (False, None)
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 2}
    assert titles(owner.get(URL, {"is_read": "true"})) == []
    assert data(viewer.get(f"{URL}unread-count/")) == {"count": 1}
    assert titles(viewer.get(URL, {"is_read": "true"})) == ["shared"]


def test_each_member_keeps_the_time_of_their_own_first_read(tenant, owner, viewer):
    notification = notify(tenant)
    yesterday = (timezone.now() - timedelta(days=1)).replace(microsecond=0)
    data(viewer.post(f"{URL}{notification.pk}/read/"))
    NotificationReceipt.objects.for_account(tenant.account).filter(user=tenant.viewer).update(read_at=yesterday)
    by_owner = data(owner.post(f"{URL}{notification.pk}/read/"))["read_at"]
    assert parse_datetime(by_owner) > yesterday + timedelta(hours=23)
    assert parse_datetime(data(viewer.post(f"{URL}{notification.pk}/read/"))["read_at"]) == yesterday
    assert data(owner.get(f"{URL}{notification.pk}/"))["read_at"] == by_owner


def test_one_member_reading_all_leaves_another_members_inbox_unread(tenant, owner, viewer):
    for n in range(3):
        notify(tenant, title=f"n{n}")
    assert data(viewer.post(f"{URL}read-all/")) == {"updated": 3}
    assert data(viewer.get(f"{URL}unread-count/")) == {"count": 0}
    assert data(owner.get(f"{URL}unread-count/")) == {"count": 3}
    assert data(owner.post(f"{URL}read-all/")) == {"updated": 3}
    assert all(item["is_read"] for item in results(owner.get(URL)))


def test_a_viewer_deleting_an_account_notification_hides_it_from_the_viewer_only(tenant, owner, viewer, as_user):
    notification = notify(tenant, title="shared")
    assert viewer.delete(f"{URL}{notification.pk}/").status_code == 204

    assert titles(viewer.get(URL)) == []
    assert_error(viewer.get(f"{URL}{notification.pk}/"), 404, "not_found")
    assert data(viewer.get(f"{URL}unread-count/")) == {"count": 0}
    for member in (owner, as_user(tenant.admin), as_user(tenant.editor)):
        assert titles(member.get(URL)) == ["shared"]
        assert data(member.get(f"{URL}{notification.pk}/"))["is_read"] is False
        assert data(member.get(f"{URL}unread-count/")) == {"count": 1}


def test_deleting_a_read_notification_keeps_it_for_the_member_who_read_it_too(tenant, owner, viewer):
    notification = notify(tenant, title="shared")
    data(owner.post(f"{URL}{notification.pk}/read/"))
    data(viewer.post(f"{URL}{notification.pk}/read/"))
    assert viewer.delete(f"{URL}{notification.pk}/").status_code == 204
    assert titles(viewer.get(URL, {"is_read": "true"})) == []
    assert titles(owner.get(URL, {"is_read": "true"})) == ["shared"]


def test_a_personal_notification_deleted_by_its_addressee_is_gone_from_their_inbox(tenant, as_user):
    personal = notify(tenant, title="for the admin", user=tenant.admin)
    admin = as_user(tenant.admin)
    assert admin.delete(f"{URL}{personal.pk}/").status_code == 204
    assert_error(admin.get(f"{URL}{personal.pk}/"), 404, "not_found")
    assert titles(admin.get(URL)) == []
    assert data(admin.get(f"{URL}unread-count/")) == {"count": 0}
