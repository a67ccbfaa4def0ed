"""Reads of the notifications domain: what a member of an account sees."""

from django.db.models import Q, QuerySet

from inkwell.notifications.models import CATEGORY_BY_TYPE, TYPES_BY_CATEGORY, Notification
from inkwell.tenancy.models import Account, User


def visible(queryset: QuerySet, *, user: User, site_ids: frozenset[int] | None) -> QuerySet:
    """The notifications of ``queryset`` that ``user`` sees: the account's (no user) and their own;
    of those with a site, only the sites in ``site_ids`` (None: every site, as for owners and admins)."""
    queryset = queryset.filter(Q(user__isnull=True) | Q(user=user))
    if site_ids is not None:
        queryset = queryset.filter(Q(site__isnull=True) | Q(site_id__in=site_ids))
    return queryset


def filtered(queryset: QuerySet, *, is_read: bool | None = None, notification_type: str | None = None) -> QuerySet:
    """The list filters: ``notification_type`` is an event name or a category (which stands for its events)."""
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
