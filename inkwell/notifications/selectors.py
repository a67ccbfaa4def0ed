"""Reads of the notifications domain: what a member of an account sees.

Read and deleted are each member's own (``NotificationReceipt``): the querysets here carry the
caller's state as the annotations ``is_read`` and ``read_at``, correlated subqueries on the caller's
receipt, so a page of notifications costs one query however many rows it holds.
"""

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery

from inkwell.notifications.models import CATEGORY_BY_TYPE, TYPES_BY_CATEGORY, Notification, NotificationReceipt
from inkwell.tenancy.models import Account, User


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


def unread_count(account: Account, *, user: User, site_ids: frozenset[int] | None) -> int:
    return notification_list(account, user=user, site_ids=site_ids, is_read=False).count()
