"""notify() and the other writes, called as the other modules call them."""

import pytest
from django.utils import timezone

from inkwell.notifications import selectors, services
from inkwell.notifications.models import CATEGORY_BY_TYPE, TYPES_BY_CATEGORY, Notification, NotificationReceipt, NotificationType
from inkwell.tenancy.models import Site

pytestmark = pytest.mark.django_db

# The contract's sections 10 and 11, written out here so that a changed mapping fails; the outbound
# webhooks issue added webhook_endpoint_disabled (an endpoint failing for days switched off).
CONTRACT_CATEGORIES = {
    "ai_task": {
        "ai_cluster_complete", "ai_cluster_failed", "ai_ideas_complete", "ai_ideas_failed", "ai_content_complete",
        "ai_content_failed", "ai_images_complete", "ai_images_failed", "ai_prompts_complete", "ai_prompts_failed",
    },
    # Issue #36 (review together) adds the two events of comments and review links to content.
    "content": {"content_ready_review", "content_published", "content_publish_failed", "comment_mention", "review_decision"},
    "integration": {"cms_sync_success", "cms_sync_failed", "webhook_endpoint_disabled"},
    "credit": {"credits_low", "credits_depleted"},
    "billing": set(),
    "system": {"system_info"},
    "info": {"site_setup_complete", "keywords_imported"},
    "automation": {"automation_run_completed", "automation_run_failed", "automation_run_cancelled"},
}


def test_the_event_names_are_the_specs_events_table():
    assert set(NotificationType.values) == set().union(*CONTRACT_CATEGORIES.values())


def test_every_event_belongs_to_its_contract_category():
    assert {category: set(events) for category, events in TYPES_BY_CATEGORY.items()} == CONTRACT_CATEGORIES
    assert set(CATEGORY_BY_TYPE) == set(NotificationType.values)


def test_notify_stores_every_field(tenant):
    notification = services.notify(
        account=tenant.account,
        notification_type="credits_low",
        title="Credits are running low",
        message="40 credits left",
        severity="warning",
        action_label="Buy credits",
        action_url="/billing/credits?from=notification",
        metadata={"credits": 40},
        site=tenant.site,
        user=tenant.owner,
    )
    stored = Notification.objects.for_account(tenant.account).get(pk=notification.pk)
    assert (stored.notification_type, stored.severity, stored.title, stored.message) == ("credits_low", "warning", "Credits are running low", "40 credits left")
    assert (stored.action_label, stored.action_url, stored.metadata) == ("Buy credits", "/billing/credits?from=notification", {"credits": 40})
    assert (stored.site_id, stored.user_id) == (tenant.site.pk, tenant.owner.pk)
    assert not NotificationReceipt.objects.for_account(tenant.account).exists()
    assert stored.category == "credit"
    assert abs((timezone.now() - stored.created_at).total_seconds()) < 60


def test_notify_defaults_to_an_account_wide_info_notification_with_empty_metadata(tenant):
    notification = services.notify(account=tenant.account, notification_type="keywords_imported", title="Keywords imported", message="12 keywords added")
    assert (notification.severity, notification.user_id, notification.site_id, notification.metadata) == ("info", None, None, {})
    assert (notification.action_label, notification.action_url) == ("", "")


def test_notify_without_a_title_uses_the_events_own_label(tenant):
    assert services.notify(account=tenant.account, notification_type="cms_sync_failed", title="", message="Timed out").title == "CMS sync failed"


@pytest.mark.parametrize("notification_type", ["ai_task", "cluster_complete", "", "AI_CLUSTER_COMPLETE"])
def test_notify_refuses_a_type_that_is_not_an_event_name(tenant, notification_type):
    with pytest.raises(services.InvalidNotification, match="notification_type"):
        services.notify(account=tenant.account, notification_type=notification_type, title="t", message="m")
    assert not Notification.objects.for_account(tenant.account).exists()


def test_notify_refuses_an_unknown_severity(tenant):
    with pytest.raises(services.InvalidNotification, match="severity"):
        services.notify(account=tenant.account, notification_type="system_info", title="t", message="m", severity="critical")


@pytest.mark.parametrize(
    "action_url",
    ["https://evil.example/", "//evil.example/path", "writer/content/7", "javascript:alert(1)", "/\\evil.example", "/a path", "/x\n", "/x\x00"],
)
def test_notify_refuses_an_action_url_outside_the_application(tenant, action_url):
    with pytest.raises(services.InvalidNotification, match="action_url"):
        services.notify(account=tenant.account, notification_type="content_published", title="t", message="m", action_url=action_url)


@pytest.mark.parametrize("action_url", ["/", "/writer/content/7", "/planner/keywords?status=new#top"])
def test_notify_accepts_application_relative_paths(tenant, action_url):
    assert services.notify(account=tenant.account, notification_type="content_published", title="t", message="m", action_url=action_url).action_url == action_url


def test_notify_refuses_metadata_that_is_not_an_object(tenant):
    with pytest.raises(services.InvalidNotification, match="metadata"):
        services.notify(account=tenant.account, notification_type="keywords_imported", title="t", message="m", metadata=[1, 2])


def test_notify_refuses_a_title_longer_than_the_column(tenant):
    with pytest.raises(services.InvalidNotification, match="title"):
        services.notify(account=tenant.account, notification_type="system_info", title="x" * 201, message="m")


def test_notify_refuses_a_site_or_user_of_another_account(tenant, other_tenant):
    with pytest.raises(services.InvalidNotification, match="site"):
        services.notify(account=tenant.account, notification_type="cms_sync_success", title="t", message="m", site=other_tenant.site)
    with pytest.raises(services.InvalidNotification, match="user"):
        services.notify(account=tenant.account, notification_type="cms_sync_success", title="t", message="m", user=other_tenant.owner)
    assert not Notification.objects.for_account(tenant.account).exists()


def test_broadcast_sends_one_account_wide_system_info_to_every_account(tenant, other_tenant):
    assert services.broadcast_system_info(title="Maintenance", message="Down at 02:00 UTC") == 2
    for account in (tenant.account, other_tenant.account):
        (notification,) = Notification.objects.for_account(account)
        assert (notification.notification_type, notification.severity, notification.title) == ("system_info", "info", "Maintenance")
        assert (notification.message, notification.user_id, notification.site_id) == ("Down at 02:00 UTC", None, None)


def test_broadcast_to_chosen_accounts_reaches_only_them(tenant, other_tenant):
    assert services.broadcast_system_info(title="New feature", message="Try it", accounts=[other_tenant.account]) == 1
    assert not Notification.objects.for_account(tenant.account).exists()
    assert Notification.objects.for_account(other_tenant.account).count() == 1


def test_broadcast_refuses_an_empty_title(tenant):
    with pytest.raises(services.InvalidNotification, match="title"):
        services.broadcast_system_info(title="", message="Message")
    assert not Notification.dangerously_unscoped.exists()


def inbox(tenant, user, site_ids=None):
    return selectors.notification_list(tenant.account, user=user, site_ids=site_ids)


def test_mark_read_keeps_the_time_of_the_first_read(tenant):
    notification = services.notify(account=tenant.account, notification_type="system_info", title="t", message="m")
    first = services.mark_read(account=tenant.account, notification_id=notification.pk, user=tenant.owner)
    assert first.is_read is True and first.read_at is not None
    again = services.mark_read(account=tenant.account, notification_id=notification.pk, user=tenant.owner)
    assert again.read_at == first.read_at


def test_mark_read_marks_it_for_that_user_alone(tenant):
    notification = services.notify(account=tenant.account, notification_type="system_info", title="t", message="m")
    services.mark_read(account=tenant.account, notification_id=notification.pk, user=tenant.viewer)
    assert inbox(tenant, tenant.viewer).get().is_read is True
    for member in (tenant.owner, tenant.admin, tenant.editor):
        unread = inbox(tenant, member).get()
        assert (unread.is_read, unread.read_at) == (False, None)


def test_mark_read_refuses_what_is_not_in_the_users_inbox(tenant, other_tenant):
    personal = services.notify(account=tenant.account, notification_type="system_info", title="admin's", message="m", user=tenant.admin)
    deleted = services.notify(account=tenant.account, notification_type="system_info", title="deleted", message="m")
    services.delete(account=tenant.account, notification_id=deleted.pk, user=tenant.owner)
    theirs = services.notify(account=other_tenant.account, notification_type="system_info", title="theirs", message="m")
    for account, notification in [(tenant.account, personal), (tenant.account, deleted), (tenant.account, theirs), (other_tenant.account, deleted)]:
        with pytest.raises(Notification.DoesNotExist):
            services.mark_read(account=account, notification_id=notification.pk, user=tenant.owner)
    assert list(NotificationReceipt.dangerously_unscoped.values_list("notification_id", "user_id", "read_at")) == [(deleted.pk, tenant.owner.pk, None)]


def test_mark_all_read_is_two_statements_of_what_the_user_sees(tenant, django_assert_num_queries):
    other_site = Site.objects.create(account=tenant.account, name="Other", domain="other.example.com", slug="other-site")
    seen = [
        services.notify(account=tenant.account, notification_type="system_info", title="everyone", message="m"),
        services.notify(account=tenant.account, notification_type="system_info", title="mine", message="m", user=tenant.editor),
        services.notify(account=tenant.account, notification_type="cms_sync_success", title="my site", message="m", site=tenant.site),
    ]
    unseen = [
        services.notify(account=tenant.account, notification_type="system_info", title="owner's", message="m", user=tenant.owner),
        services.notify(account=tenant.account, notification_type="cms_sync_success", title="other site", message="m", site=other_site),
    ]
    deleted = services.notify(account=tenant.account, notification_type="system_info", title="deleted", message="m")
    services.delete(account=tenant.account, notification_id=deleted.pk, user=tenant.editor)
    # A receipt that exists unread is updated; the others are inserted.
    NotificationReceipt.objects.create(account=tenant.account, notification=seen[0], user=tenant.editor)
    services.mark_read(account=tenant.account, notification_id=seen[0].pk, user=tenant.owner)

    with django_assert_num_queries(2):
        assert services.mark_all_read(account=tenant.account, user=tenant.editor, site_ids=frozenset({tenant.site.pk})) == 3
    receipts = NotificationReceipt.objects.for_account(tenant.account)
    assert set(receipts.filter(user=tenant.editor, read_at__isnull=False).values_list("notification_id", flat=True)) == {n.pk for n in seen}
    assert not receipts.filter(notification__in=unseen).exists()
    assert receipts.get(notification=deleted).read_at is None
    # The owner's inbox is the owner's: read only what the owner read.
    assert [n.title for n in inbox(tenant, tenant.owner).filter(is_read=False)] == ["deleted", "other site", "owner's", "my site"]


def test_unread_count_counts_what_the_user_sees(tenant):
    services.notify(account=tenant.account, notification_type="system_info", title="everyone", message="m")
    services.notify(account=tenant.account, notification_type="system_info", title="admin's", message="m", user=tenant.admin)
    read = services.notify(account=tenant.account, notification_type="system_info", title="read by the owner", message="m")
    services.mark_read(account=tenant.account, notification_id=read.pk, user=tenant.owner)
    deleted = services.notify(account=tenant.account, notification_type="system_info", title="deleted by the admin", message="m")
    services.delete(account=tenant.account, notification_id=deleted.pk, user=tenant.admin)
    assert selectors.unread_count(tenant.account, user=tenant.owner, site_ids=None) == 2
    assert selectors.unread_count(tenant.account, user=tenant.admin, site_ids=None) == 3


def test_delete_hides_the_notification_from_that_user_only(tenant, other_tenant):
    mine = services.notify(account=tenant.account, notification_type="system_info", title="t", message="m")
    theirs = services.notify(account=other_tenant.account, notification_type="system_info", title="t", message="m")
    services.delete(account=tenant.account, notification_id=theirs.pk, user=tenant.owner)
    assert not NotificationReceipt.dangerously_unscoped.exists()
    assert inbox(other_tenant, other_tenant.owner).get() == theirs
    services.delete(account=tenant.account, notification_id=mine.pk, user=tenant.owner)
    assert not inbox(tenant, tenant.owner).exists()
    assert inbox(tenant, tenant.admin).get() == mine
    assert Notification.objects.for_account(tenant.account).get() == mine


def test_delete_of_another_members_personal_notification_changes_nothing(tenant):
    personal = services.notify(account=tenant.account, notification_type="system_info", title="admin's", message="m", user=tenant.admin)
    services.delete(account=tenant.account, notification_id=personal.pk, user=tenant.owner)
    assert not NotificationReceipt.objects.for_account(tenant.account).exists()
    assert inbox(tenant, tenant.admin).get() == personal


@pytest.mark.parametrize("site_ids", [None, "granted", "none"])
def test_the_unread_count_statement_counts_what_the_unread_list_holds(tenant, other_tenant, site_ids):
    """``unread_count`` is plain SQL for speed; it must agree with the list's own definition of unread."""
    second = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug="second-unread")
    me, colleague = tenant.editor, tenant.viewer
    notes = {
        "account-wide": services.notify(account=tenant.account, notification_type="system_info", title="all", message="m"),
        "mine": services.notify(account=tenant.account, notification_type="system_info", title="mine", message="m", user=me),
        "colleague's": services.notify(account=tenant.account, notification_type="system_info", title="theirs", message="m", user=colleague),
        "granted site": services.notify(account=tenant.account, notification_type="cms_sync_success", title="site", message="m", site=tenant.site),
        "other site": services.notify(account=tenant.account, notification_type="cms_sync_failed", title="second", message="m", site=second),
        "read": services.notify(account=tenant.account, notification_type="system_info", title="read", message="m"),
        "deleted": services.notify(account=tenant.account, notification_type="system_info", title="deleted", message="m"),
        "read by the colleague": services.notify(account=tenant.account, notification_type="system_info", title="their read", message="m"),
    }
    services.notify(account=other_tenant.account, notification_type="system_info", title="other account", message="m")
    services.mark_read(account=tenant.account, notification_id=notes["read"].pk, user=me)
    services.delete(account=tenant.account, notification_id=notes["deleted"].pk, user=me)
    services.mark_read(account=tenant.account, notification_id=notes["read by the colleague"].pk, user=colleague)
    visible_sites = {None: None, "granted": frozenset({tenant.site.pk}), "none": frozenset()}[site_ids]

    counted = selectors.unread_count(tenant.account, user=me, site_ids=visible_sites)

    listed = selectors.notification_list(tenant.account, user=me, site_ids=visible_sites, is_read=False)
    assert counted == listed.count()
    # account-wide, mine, read by the colleague; plus the sites visible to me.
    assert counted == 3 + {None: 2, "granted": 1, "none": 0}[site_ids]
