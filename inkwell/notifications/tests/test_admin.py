"""Staff see every account's notifications and send system_info announcements from the admin."""

import pytest

from inkwell.notifications import services
from inkwell.notifications.models import Notification
from inkwell.tenancy.models import User

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/notifications/notification/"
ANNOUNCE = f"{CHANGELIST}announce/"


@pytest.fixture
def staff(client):
    user = User.dangerously_unscoped.create_superuser("ops@example.com", "a long operator password")
    client.force_login(user)
    return client


def test_staff_see_every_accounts_notifications(staff, tenant, other_tenant):
    services.notify(account=tenant.account, notification_type="credits_low", title="Low in A", message="m")
    services.notify(account=other_tenant.account, notification_type="cms_sync_failed", title="Sync failed in B", message="m")
    body = staff.get(CHANGELIST).content.decode()
    assert "Low in A" in body and "Sync failed in B" in body
    assert ANNOUNCE in body


def test_notifications_are_read_only_in_the_admin(staff, tenant):
    notification = services.notify(account=tenant.account, notification_type="system_info", title="t", message="m")
    assert staff.get(f"{CHANGELIST}add/").status_code == 403
    response = staff.post(f"{CHANGELIST}{notification.pk}/change/", {"title": "changed"})
    assert response.status_code == 403
    assert Notification.objects.for_account(tenant.account).get().title == "t"


def test_an_announcement_to_one_account_reaches_only_that_account(staff, tenant, other_tenant):
    assert staff.get(ANNOUNCE).status_code == 200
    response = staff.post(ANNOUNCE, {"title": "Maintenance", "message": "Down at 02:00 UTC", "account": other_tenant.account.pk}, follow=True)
    assert response.redirect_chain[-1][0] == CHANGELIST
    assert "Announcement sent to 1 account." in response.content.decode()
    assert not Notification.objects.for_account(tenant.account).exists()
    (notification,) = Notification.objects.for_account(other_tenant.account)
    assert (notification.notification_type, notification.title, notification.message) == ("system_info", "Maintenance", "Down at 02:00 UTC")
    assert (notification.user_id, notification.site_id) == (None, None)


def test_an_announcement_without_an_account_reaches_every_account(staff, tenant, other_tenant, as_user):
    response = staff.post(ANNOUNCE, {"title": "New feature", "message": "Try it", "account": ""}, follow=True)
    assert "Announcement sent to 2 accounts." in response.content.decode()
    for member in (tenant.viewer, other_tenant.editor):
        listed = as_user(member).get("/api/v1/notifications/", {"notification_type": "system"}).json()["results"]
        assert [item["title"] for item in listed] == ["New feature"]


def test_an_announcement_needs_a_title_and_a_message(staff, tenant):
    response = staff.post(ANNOUNCE, {"title": "", "message": "", "account": ""})
    assert response.status_code == 200
    assert response.content.decode().count("This field is required.") == 2
    assert not Notification.dangerously_unscoped.exists()


def test_staff_without_the_add_permission_cannot_announce(client, tenant):
    clerk = User.dangerously_unscoped.create_user("clerk@example.com", "a long operator password", is_staff=True)
    client.force_login(clerk)
    assert client.get(ANNOUNCE).status_code == 403
    assert client.post(ANNOUNCE, {"title": "t", "message": "m", "account": ""}).status_code == 403
    assert not Notification.dangerously_unscoped.exists()


def test_a_member_who_is_not_staff_is_sent_to_the_admin_login(client, tenant):
    client.force_login(tenant.owner)
    response = client.get(ANNOUNCE)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_the_list_counts_the_members_who_read_each_notification(staff, tenant):
    read_twice = services.notify(account=tenant.account, notification_type="system_info", title="read twice", message="m")
    services.notify(account=tenant.account, notification_type="system_info", title="unread", message="m")
    for member in (tenant.owner, tenant.viewer):
        services.mark_read(account=tenant.account, notification_id=read_twice.pk, user=member)
    services.delete(account=tenant.account, notification_id=read_twice.pk, user=tenant.admin)
    body = staff.get(CHANGELIST).content.decode()
    assert body.count('<td class="field-read_by">2</td>') == 1
    assert body.count('<td class="field-read_by">0</td>') == 1
    most_read_first = staff.get(CHANGELIST, {"o": "-10"}).content.decode()
    assert most_read_first.index(">read twice<") < most_read_first.index(">unread<")
    least_read_first = staff.get(CHANGELIST, {"o": "10"}).content.decode()
    assert least_read_first.index(">unread<") < least_read_first.index(">read twice<")
