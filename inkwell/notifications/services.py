"""Writes of the notifications domain. ``notify`` is the one way any module raises a notification."""

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from inkwell.notifications import selectors
from inkwell.notifications.models import Notification, NotificationType, Severity
from inkwell.tenancy.models import Account, Site, User

BROADCAST_BATCH_SIZE = 500


class InvalidNotification(ValueError):
    """A caller asked for a notification the model cannot hold: a programming error, not bad user input."""


def _checked(notification: Notification) -> Notification:
    try:
        # account, site and user are checked below without a query per foreign key.
        notification.clean_fields(exclude=["account", "site", "user"])
    except ValidationError as error:
        raise InvalidNotification(error.message_dict) from None
    if not isinstance(notification.metadata, dict):
        raise InvalidNotification({"metadata": ["metadata must be a JSON object"]})
    return notification


def notify(
    account: Account,
    notification_type: str,
    *,
    title: str,
    message: str,
    severity: str = Severity.INFO,
    action_label: str = "",
    action_url: str = "",
    metadata: dict[str, Any] | None = None,
    site: Site | None = None,
    user: User | None = None,
) -> Notification:
    """Raises a notification for the whole account (``user`` None) or one of its users.

    ``notification_type`` is an event name of ``NotificationType``; ``title`` may be empty for the
    event's own label; ``action_url`` is an application-relative path. ``site`` and ``user`` must
    belong to ``account``. Anything invalid raises ``InvalidNotification``.
    """
    if notification_type not in NotificationType.values:
        raise InvalidNotification({"notification_type": [f"Unknown notification type {notification_type!r}"]})
    if site is not None and site.account_id != account.pk:
        raise InvalidNotification({"site": ["The site belongs to another account"]})
    if user is not None and user.account_id != account.pk:
        raise InvalidNotification({"user": ["The user belongs to another account"]})
    notification = _checked(
        Notification(
            account=account,
            site=site,
            user=user,
            notification_type=notification_type,
            severity=severity,
            title=title or NotificationType(notification_type).label,
            message=message,
            action_label=action_label,
            action_url=action_url,
            metadata={} if metadata is None else metadata,
        )
    )
    notification.save()
    return notification


def broadcast_system_info(title: str, message: str, *, accounts: Iterable[Account] | None = None) -> int:
    """A ``system_info`` announcement to every member of each account (all accounts when None); the number sent."""
    account_ids = [account.pk for account in accounts] if accounts is not None else list(Account.objects.values_list("pk", flat=True))
    template = _checked(Notification(notification_type=NotificationType.SYSTEM_INFO, title=title, message=message))
    created_at = timezone.now()
    rows = [
        Notification(
            account_id=account_id,
            notification_type=template.notification_type,
            severity=template.severity,
            title=template.title,
            message=template.message,
            created_at=created_at,
        )
        for account_id in account_ids
    ]
    # One transaction for every batch (bulk_create's own), so an announcement reaches all or none.
    Notification.objects.bulk_create(rows, batch_size=BROADCAST_BATCH_SIZE)
    return len(rows)


def mark_read(account: Account, notification_id: int) -> Notification:
    """Marks the account's notification read; ``read_at`` keeps the time it was first read."""
    notifications = Notification.objects.for_account(account)
    notifications.filter(pk=notification_id, is_read=False).update(is_read=True, read_at=timezone.now())
    return notifications.get(pk=notification_id)


def mark_all_read(account: Account, *, user: User, site_ids: frozenset[int] | None = None) -> int:
    """Marks read, in one UPDATE, every unread notification ``user`` sees (``site_ids`` as in
    ``selectors.visible``); the number marked."""
    unread = selectors.visible(Notification.objects.for_account(account), user=user, site_ids=site_ids).filter(is_read=False)
    return unread.update(is_read=True, read_at=timezone.now())


def delete(account: Account, notification_id: int) -> None:
    Notification.objects.for_account(account).filter(pk=notification_id).delete()
