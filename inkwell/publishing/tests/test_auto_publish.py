"""Auto-publish: approved content of a site that auto-publishes is placed in the next free slot."""


import pytest

from inkwell.integration.models import SiteIntegration
from inkwell.notifications.models import Notification
from inkwell.sitesettings.services import unified_settings_update
from inkwell.writer.models import ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db


def approve(as_user, tenant, content):
    response = as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/update_content/", {"status": "approved"}, format="json")
    assert response.status_code == 200
    content.refresh_from_db()
    return content


@pytest.fixture
def connected(tenant):
    """An active CMS integration: what scheduling needs (the editorial gate)."""
    return SiteIntegration.objects.create(account=tenant.account, site=tenant.site, base_url="https://cms.example.com", username="u", app_password="p", webhook_secret="s" * 32)


def test_approval_schedules_into_the_next_free_slot_when_the_site_auto_publishes(tenant, as_user, connected):
    unified_settings_update(site=tenant.site, changes={"publishing_settings": {"auto_publish_enabled": True, "publish_days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]}})
    first = approve(as_user, tenant, make_content(tenant, title="First", status=ContentStatus.REVIEW))
    second = approve(as_user, tenant, make_content(tenant, title="Second", status=ContentStatus.REVIEW))

    assert first.site_status == second.site_status == SiteStatus.SCHEDULED
    assert first.scheduled_publish_at != second.scheduled_publish_at
    for content in (first, second):
        assert content.scheduled_publish_at.strftime("%H:%M") in {"09:00", "14:00", "18:00"}


def test_approval_schedules_nothing_when_auto_publish_is_off(tenant, as_user):
    content = approve(as_user, tenant, make_content(tenant, status=ContentStatus.REVIEW))

    assert content.site_status == SiteStatus.NOT_PUBLISHED and content.scheduled_publish_at is None


def test_with_no_free_slot_the_approval_stands_and_the_account_is_told(tenant, as_user):
    unified_settings_update(site=tenant.site, changes={"publishing_settings": {"auto_publish_enabled": True, "publish_days": []}})

    content = approve(as_user, tenant, make_content(tenant, status=ContentStatus.REVIEW))

    assert content.status == ContentStatus.APPROVED and content.site_status == SiteStatus.NOT_PUBLISHED
    [notice] = Notification.objects.for_account(tenant.account).filter(notification_type="content_publish_failed")
    assert "No free publishing slot within the limits" in notice.message




def test_without_an_active_cms_integration_the_approval_stands_and_the_account_is_told(tenant, as_user):
    unified_settings_update(site=tenant.site, changes={"publishing_settings": {"auto_publish_enabled": True}})

    content = approve(as_user, tenant, make_content(tenant, status=ContentStatus.REVIEW))

    assert content.status == ContentStatus.APPROVED and content.site_status == SiteStatus.NOT_PUBLISHED
    [notice] = Notification.objects.for_account(tenant.account).filter(notification_type="content_publish_failed")
    assert "no active CMS integration" in notice.message
