"""The move from one shared read flag to per-member receipts keeps what each member saw read."""

import importlib
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from inkwell.notifications import services
from inkwell.notifications.models import NotificationReceipt

SHARED_FLAG = [("notifications", "0001_initial")]
ROLES = ("owner", "admin", "editor", "viewer")


def migrate(targets=None):
    """Migrates the notifications app to ``targets`` (its latest migration when None); the models then."""
    executor = MigrationExecutor(connection)
    targets = targets or executor.loader.graph.leaf_nodes("notifications")
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_what_was_read_stays_read_for_every_member_who_saw_it_read_and_back(make_tenant):
    tenant, other = make_tenant("a"), make_tenant("b")
    read_at = (timezone.now() - timedelta(days=1)).replace(microsecond=0)
    try:
        Notification = migrate(SHARED_FLAG).get_model("notifications", "Notification")

        def stored(account, title, **fields):
            return Notification._default_manager.create(account_id=account.pk, notification_type="system_info", title=title, message="m", **fields).pk

        shared = stored(tenant.account, "shared", is_read=True, read_at=read_at)
        personal = stored(tenant.account, "personal", user_id=tenant.admin.pk, is_read=True, read_at=read_at)
        unread = stored(tenant.account, "unread")
        theirs = stored(other.account, "theirs", is_read=True, read_at=read_at)

        migrate()
        receipts = NotificationReceipt.dangerously_unscoped.values_list("notification_id", "user_id", "read_at", "deleted_at")
        assert set(receipts) == {
            *((shared, tenant.user(role).pk, read_at, None) for role in ROLES),
            (personal, tenant.admin.pk, read_at, None),
            *((theirs, other.user(role).pk, read_at, None) for role in ROLES),
        }

        first_read = services.mark_read(account=tenant.account, notification_id=unread, user=tenant.viewer).read_at
        services.mark_read(account=tenant.account, notification_id=unread, user=tenant.owner)
        Notification = migrate(SHARED_FLAG).get_model("notifications", "Notification")
        # Backwards: read when any member read it, at the first read.
        flags = {pk: (is_read, at) for pk, is_read, at in Notification._default_manager.values_list("pk", "is_read", "read_at")}
        assert flags == {shared: (True, read_at), personal: (True, read_at), unread: (True, first_read), theirs: (True, read_at)}
    finally:
        migrate()


@pytest.mark.parametrize(
    ("old", "site_id", "new"),
    [
        ("/writer/content/7", 3, "/app/content/7/"),
        ("/planner/clusters/?site_id=3", 3, "/app/sites/3/clusters/"),
        ("/planner/keywords/?site_id=3&sector_id=12", 3, "/app/sites/3/keywords/?sector_id=12"),
        ("/planner/ideas/?site_id=3", 3, "/app/sites/3/ideas/"),
        ("/integration/5", 3, "/app/sites/3/cms/"),
        ("/integration/5", None, ""),
        ("/webhooks/9", None, "/app/settings/webhooks/9/"),
        ("/sites/3", 3, "/app/sites/3/library/"),
        ("/billing/balance/", None, "/app/credits/"),
        ("/automation/runs/11", 3, "/app/automation/runs/11/"),
        ("/billing/credits?from=notification", None, "/billing/credits?from=notification"),
    ],
)
def test_stored_action_urls_become_the_console_pages_of_their_subjects(old, site_id, new):
    migration = importlib.import_module("inkwell.notifications.migrations.0008_console_action_urls")
    assert migration.console_action_url(old, site_id) == new
