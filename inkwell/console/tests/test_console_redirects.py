"""The console redirects only to its own paths: a posted ``back`` or ``next`` that leads anywhere
else (another host, a scheme-relative or backslashed address, the API) falls back to the page the
action belongs to."""

import pytest

from inkwell.notifications import events, selectors
from inkwell.notifications.models import Notification
from inkwell.planner.tests.factories import make_keyword

pytestmark = pytest.mark.django_db

ELSEWHERE = ["//evil.example/x", "https://evil.example/", "/\\evil.example/", "\\\\evil.example/", "javascript:alert(1)", "/api/v1/auth/me/", "http://testserver/app/"]


@pytest.mark.parametrize("back", ELSEWHERE)
def test_a_keywords_bulk_action_goes_back_only_to_a_console_path(console_client, tenant, back):
    keyword = make_keyword(tenant)
    client = console_client(tenant.owner)

    response = client.post(f"/app/sites/{tenant.site.pk}/keywords/bulk/", {"ids": [keyword.pk], "action": "paused", "back": back})

    assert response.status_code == 302
    assert response.headers["Location"] == f"/app/sites/{tenant.site.pk}/keywords/"


def test_a_keywords_bulk_action_goes_back_to_the_filtered_list_it_came_from(console_client, tenant):
    keyword = make_keyword(tenant)
    back = f"/app/sites/{tenant.site.pk}/keywords/?status=active&page=2"

    response = console_client(tenant.owner).post(f"/app/sites/{tenant.site.pk}/keywords/bulk/", {"ids": [keyword.pk], "action": "paused", "back": back})

    assert response.headers["Location"] == back


@pytest.mark.parametrize("back", ELSEWHERE)
def test_marking_a_notification_read_goes_back_only_to_a_console_path(console_client, tenant, back):
    notification = Notification.objects.create(account=tenant.account, user=tenant.owner, notification_type="content_published", title="Published", message="It is live")

    response = console_client(tenant.owner).post(f"/app/notifications/{notification.pk}/read/", {"back": back})

    assert response.status_code == 302
    assert response.headers["Location"] == "/app/notifications/"


def test_opening_a_notification_marks_it_read_and_leads_to_its_subject(console_client, tenant):
    notification = events.content_ready_for_review(account=tenant.account, site=tenant.site, content_id=7, content_title="Tomatoes")

    response = console_client(tenant.admin).post(f"/app/notifications/{notification.pk}/open/")

    assert (response.status_code, response.headers["Location"]) == (302, "/app/content/7/")
    assert selectors.notification_list(tenant.account, user=tenant.admin, site_ids=None).get(pk=notification.pk).is_read
    assert not selectors.notification_list(tenant.account, user=tenant.owner, site_ids=None).get(pk=notification.pk).is_read


def test_a_notification_leading_outside_the_console_opens_the_notifications_page(console_client, tenant):
    notification = Notification.objects.create(account=tenant.account, notification_type="system_info", title="Hello", message="m", action_url="/api/v1/auth/me/")

    response = console_client(tenant.owner).post(f"/app/notifications/{notification.pk}/open/")

    assert response.headers["Location"] == "/app/notifications/"


@pytest.mark.parametrize("target", ELSEWHERE)
def test_sign_in_goes_only_to_a_console_path(client, tenant, target):
    response = client.post("/app/signin/", {"email": tenant.owner.email, "password": "correct-horse-1", "next": target})

    assert response.headers["Location"] == "/app/"
