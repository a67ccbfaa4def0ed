"""Reads of the notifications domain: what a member of an account sees.

Read and deleted are each member's own (``NotificationReceipt``): the querysets here carry the
caller's state as the annotations ``is_read`` and ``read_at``, correlated subqueries on the caller's
receipt, so a page of notifications costs one query however many rows it holds.

Each member's unread count is kept on Redis, per the sites they see, as a versioned count
(``inkwell.api.cache``): every write to an account's notifications or receipts bumps the account's
version (``services``), and a count computed before a bump is never stored after it.
"""

import hashlib
import logging

from django.core.cache import caches
from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery

from inkwell.api.cache import RedisCache
from inkwell.notifications.models import (
    CATEGORY_BY_TYPE,
    DEFAULT_CHANNELS,
    PERSONAL_EVENTS,
    TYPES_BY_CATEGORY,
    Channel,
    Notification,
    NotificationPreference,
    NotificationReceipt,
    NotificationType,
)
from inkwell.tenancy.models import Account, User

logger = logging.getLogger(__name__)

# Longest life of a kept unread count: every write forgets it at once, this only bounds the memory.
UNREAD_COUNT_SECONDS = 600


def receipt_of(user: User) -> QuerySet:
    """``user``'s receipt of the notification of the enclosing query (at most one: unique per user).

    Never evaluated alone: correlated on the outer notification, it stays inside that query's account.
    """
    return NotificationReceipt.objects.filter(notification=OuterRef("pk"), user=user)


def visible(queryset: QuerySet, *, user: User, site_ids: frozenset[int] | None) -> QuerySet:
    """The notifications of ``queryset`` that ``user`` sees: the account's (no user) and their own,
    minus those they deleted; of those with a site, only the sites in ``site_ids`` (None: every site,
    as for owners and admins). Each carries ``user``'s ``is_read`` and ``read_at``."""
    queryset = queryset.filter(Q(user__isnull=True) | Q(user=user)).filter(~Exists(receipt_of(user).filter(deleted_at__isnull=False)))
    if site_ids is not None:
        queryset = queryset.filter(Q(site__isnull=True) | Q(site_id__in=site_ids))
    return queryset.annotate(
        is_read=Exists(receipt_of(user).filter(read_at__isnull=False)),
        read_at=Subquery(receipt_of(user).values("read_at")),
    )


def filtered(queryset: QuerySet, *, is_read: bool | None = None, notification_type: str | None = None) -> QuerySet:
    """The list filters on a ``visible`` queryset: ``notification_type`` is an event name or a category
    (which stands for its events)."""
    if is_read is not None:
        queryset = queryset.filter(is_read=is_read)
    if notification_type in TYPES_BY_CATEGORY:
        queryset = queryset.filter(notification_type__in=TYPES_BY_CATEGORY[notification_type])
    elif notification_type is not None:
        if notification_type not in CATEGORY_BY_TYPE:
            raise ValueError(f"not an event name or category: {notification_type!r}")
        queryset = queryset.filter(notification_type=notification_type)
    return queryset


def notification_list(account: Account, *, user: User, site_ids: frozenset[int] | None, **filters) -> QuerySet:
    """What ``user`` sees, newest first, narrowed by the list filters (see ``filtered``)."""
    return filtered(visible(Notification.objects.for_account(account), user=user, site_ids=site_ids), **filters)


def _unread_count_sql(site_count: int | None) -> str:
    notification = connection.ops.quote_name(Notification._meta.db_table)
    receipt = connection.ops.quote_name(NotificationReceipt._meta.db_table)
    if site_count is None:
        sites = ""
    elif site_count == 0:
        sites = "AND n.site_id IS NULL"
    else:
        sites = f"AND (n.site_id IS NULL OR n.site_id IN ({', '.join(['%s'] * site_count)}))"
    return (
        f"SELECT COUNT(*) FROM {notification} n "
        "WHERE n.account_id = %s AND (n.user_id IS NULL OR n.user_id = %s) "
        f"{sites} AND NOT EXISTS (SELECT 1 FROM {receipt} r WHERE r.notification_id = n.id AND r.user_id = %s "
        "AND (r.read_at IS NOT NULL OR r.deleted_at IS NOT NULL))"
    )


def _counted_unread(account_id: int, user_id: int, sorted_sites: list[int] | None) -> int:
    with connection.cursor() as cursor:
        cursor.execute(_unread_count_sql(None if sorted_sites is None else len(sorted_sites)), [account_id, user_id, *(sorted_sites or []), user_id])
        return cursor.fetchone()[0]


def unread_version_key(account_id: int) -> str:
    """The version of every unread count kept for the members of ``account_id``."""
    return f"notifications:unread-version:{account_id}"


def _unread_key(account_id: int, user_id: int, sorted_sites: list[int] | None) -> str:
    sites = "all" if sorted_sites is None else hashlib.blake2b(repr(sorted_sites).encode(), digest_size=8).hexdigest()
    return f"notifications:unread:{account_id}:{user_id}:{sites}"


def unread_count(account: Account, *, user: User, site_ids: frozenset[int] | None) -> int:
    """``notification_list(..., is_read=False).count()``: kept on Redis (one round trip, no query)
    until a write bumps the account's version; counted by one plain statement otherwise, as the
    console polls it and building that queryset cost several times its SQL. tests/test_services.py
    checks that the count agrees with the list."""
    sorted_sites = None if site_ids is None else sorted(site_ids)
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        return _counted_unread(account.pk, user.pk, sorted_sites)
    version_key, key = unread_version_key(account.pk), _unread_key(account.pk, user.pk, sorted_sites)
    try:
        version, kept = backend.get_versioned_count(version_key, key)
    except Exception:  # a cache outage must not take the count down with it
        logger.warning("unread counts unavailable; counting", exc_info=True)
        return _counted_unread(account.pk, user.pk, sorted_sites)
    if kept is not None:
        return kept
    count = _counted_unread(account.pk, user.pk, sorted_sites)
    try:
        backend.set_versioned_count(version_key, version, key, count, timeout=UNREAD_COUNT_SECONDS)
    except Exception:
        logger.warning("unread counts unavailable; not kept", exc_info=True)
    return count


# Per-person preferences (#36).


def channels_for(*, user: User, notification_type: str) -> frozenset[str]:
    """How ``user`` wants an event of ``notification_type`` addressed to them: their preference,
    else the default (``DEFAULT_CHANNELS``)."""
    row = NotificationPreference.objects.for_account(user.account_id).filter(user=user, notification_type=notification_type).first()
    if row is None:
        return DEFAULT_CHANNELS.get(notification_type, frozenset({Channel.IN_APP}))
    return frozenset(channel for channel, on in ((Channel.IN_APP, row.in_app), (Channel.EMAIL, row.email)) if on)


def preferences_of(*, user: User) -> list[dict]:
    """Every event a person may choose channels for, with their choice (or the default)."""
    result = []
    for event in PERSONAL_EVENTS:
        channels = channels_for(user=user, notification_type=event)
        result.append(
            {"notification_type": event, "label": NotificationType(event).label, "in_app": Channel.IN_APP in channels, "email": Channel.EMAIL in channels}
        )
    return result
