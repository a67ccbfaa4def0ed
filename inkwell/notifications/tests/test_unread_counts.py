"""Kept unread counts (``selectors.unread_count``): on Redis a member's count is kept between
writes and served without a query; every write to the account's notifications or receipts
forgets it, so the count always equals what the unread list holds, member by member and account
by account. On the embedded profile nothing is kept and every count is counted; these tests check
the same answers there."""

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.cache import RedisCache
from inkwell.notifications import selectors, services
from inkwell.notifications.models import Notification
from inkwell.tenancy.models import Site, User

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/notifications/notification/"


def unread(tenant, user, site_ids=None) -> int:
    """The count as the API answers it, asked twice (the second answer comes from what the first
    kept), checked against the unread list's own length."""
    first = selectors.unread_count(tenant.account, user=user, site_ids=site_ids)
    kept = selectors.unread_count(tenant.account, user=user, site_ids=site_ids)
    listed = selectors.notification_list(tenant.account, user=user, site_ids=site_ids, is_read=False).count()
    assert first == kept == listed
    return kept


def note(tenant, **fields) -> Notification:
    return services.notify(account=tenant.account, notification_type="system_info", title=fields.pop("title", "t"), message="m", **fields)


@pytest.fixture
def redis_cache():
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        pytest.skip("counts are kept on the production profile's Redis cache (REDIS_URL)")
    return backend


def test_a_kept_count_is_answered_without_a_query(tenant, redis_cache):
    note(tenant)
    note(tenant)
    assert unread(tenant, tenant.owner) == 2

    with CaptureQueriesContext(connection) as queries:
        assert selectors.unread_count(tenant.account, user=tenant.owner, site_ids=None) == 2

    assert len(queries) == 0


def test_the_count_follows_a_new_notification(tenant):
    note(tenant)
    assert unread(tenant, tenant.owner) == 1

    note(tenant)
    note(tenant, user=tenant.owner)
    note(tenant, user=tenant.admin)  # someone else's

    assert unread(tenant, tenant.owner) == 3
    assert unread(tenant, tenant.admin) == 3


def test_the_count_follows_a_broadcast(tenant, other_tenant):
    assert unread(tenant, tenant.owner) == 0
    assert unread(other_tenant, other_tenant.owner) == 0

    services.broadcast_system_info(title="Maintenance", message="Tonight", accounts=[tenant.account])

    assert unread(tenant, tenant.owner) == 1
    assert unread(other_tenant, other_tenant.owner) == 0


def test_reading_one_lowers_the_readers_count_only(tenant):
    first = note(tenant)
    note(tenant)
    assert (unread(tenant, tenant.owner), unread(tenant, tenant.admin)) == (2, 2)

    services.mark_read(account=tenant.account, notification_id=first.pk, user=tenant.owner)

    assert (unread(tenant, tenant.owner), unread(tenant, tenant.admin)) == (1, 2)


def test_read_all_brings_the_readers_count_to_zero(tenant):
    for _ in range(3):
        note(tenant)
    assert unread(tenant, tenant.owner) == 3

    services.mark_all_read(account=tenant.account, user=tenant.owner, site_ids=None)

    assert (unread(tenant, tenant.owner), unread(tenant, tenant.admin)) == (0, 3)


def test_deleting_an_unread_one_lowers_the_deleters_count_only(tenant):
    doomed = note(tenant)
    note(tenant)
    assert unread(tenant, tenant.owner) == 2

    services.delete(account=tenant.account, notification_id=doomed.pk, user=tenant.owner)

    assert (unread(tenant, tenant.owner), unread(tenant, tenant.admin)) == (1, 2)


def test_counts_are_kept_per_account(tenant, other_tenant):
    note(tenant)
    assert (unread(tenant, tenant.owner), unread(other_tenant, other_tenant.owner)) == (1, 0)

    note(other_tenant)
    note(other_tenant)

    assert (unread(tenant, tenant.owner), unread(other_tenant, other_tenant.owner)) == (1, 2)
    services.mark_all_read(account=other_tenant.account, user=other_tenant.owner, site_ids=None)
    assert (unread(tenant, tenant.owner), unread(other_tenant, other_tenant.owner)) == (1, 0)


def test_counts_are_kept_per_set_of_visible_sites(tenant):
    second = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug="second-kept")
    note(tenant, site=tenant.site)
    note(tenant, site=second)
    note(tenant)
    granted = frozenset({tenant.site.pk})

    assert unread(tenant, tenant.editor, granted) == 2
    assert unread(tenant, tenant.editor, frozenset()) == 1
    # Granted the second site too: another set, counted afresh.
    assert unread(tenant, tenant.editor, granted | {second.pk}) == 3


def test_deleting_a_site_forgets_the_counts_of_its_notifications(tenant):
    second = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug="second-deleted")
    note(tenant, site=second)
    note(tenant)
    assert unread(tenant, tenant.owner) == 2

    second.delete()

    assert unread(tenant, tenant.owner) == 1


def test_deleting_in_the_admin_forgets_the_counts(client, tenant):
    doomed = note(tenant)
    note(tenant)
    assert unread(tenant, tenant.owner) == 2
    client.force_login(User.dangerously_unscoped.create_superuser("ops@example.com", "a long operator password"))

    response = client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": [doomed.pk], "post": "yes"})

    assert response.status_code == 302
    assert unread(tenant, tenant.owner) == 1


def test_a_count_taken_before_a_write_is_not_kept_after_it(tenant, redis_cache):
    """The race the versions close: a request counts, a write commits and forgets, and only then
    does the request try to keep its (now stale) count."""
    note(tenant)
    version_key = selectors.unread_version_key(tenant.account.pk)
    key = f"race-{tenant.account.pk}"
    version, kept = redis_cache.get_versioned_count(version_key, key)
    assert kept is None

    note(tenant)  # bumps the version

    assert redis_cache.set_versioned_count(version_key, version, key, 1, timeout=60) is False
    assert redis_cache.get_versioned_count(version_key, key)[1] is None
    current, _ = redis_cache.get_versioned_count(version_key, key)
    assert redis_cache.set_versioned_count(version_key, current, key, 2, timeout=60) is True
    assert redis_cache.get_versioned_count(version_key, key) == (current, 2)
