"""Writes of the notifications domain. ``notify`` is the one way any module raises a notification."""

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.mail import send_mail
from django.db import transaction

from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import Exists, QuerySet
from django.utils import timezone

from inkwell.api.cache import forget_versions
from inkwell.notifications import selectors
from inkwell.notifications.models import Channel, Notification, NotificationPreference, NotificationReceipt, NotificationType, Severity
from inkwell.tenancy.models import Account, Site, User

logger = logging.getLogger(__name__)

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
    *,
    account: Account,
    notification_type: str,
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
    forget_unread_counts(account_ids=[account.pk])
    return notification


def broadcast_system_info(*, title: str, message: str, accounts: Iterable[Account] | None = None) -> int:
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
    forget_unread_counts(account_ids=account_ids)
    return len(rows)


def forget_unread_counts(*, account_ids: Iterable[int]) -> None:
    """The kept unread counts of every member of these accounts are stale: after any write to their
    notifications or receipts (``selectors.unread_count``)."""
    forget_versions([selectors.unread_version_key(account_id) for account_id in account_ids])


def _inbox(account: Account, user: User) -> QuerySet:
    # Site access is the request's own check (the view's get_object); a receipt grants nothing.
    return selectors.visible(Notification.objects.for_account(account), user=user, site_ids=None)


def _stamp(account: Account, notifications: QuerySet, *, user: User, field: str) -> int:
    """Sets ``field`` (``read_at`` or ``deleted_at``) of ``user``'s receipt of each of ``notifications``
    where it is not set yet: one UPDATE of the receipts that exist, one INSERT ... SELECT of those that
    do not, whatever the number of rows. The number of receipts stamped."""
    now = timezone.now()
    unstamped = NotificationReceipt.objects.for_account(account).filter(user=user, **{f"{field}__isnull": True})
    stamped = unstamped.filter(notification__in=notifications.values("pk")).update(**{field: now})

    # Selects (account_id, id), in that order: the first two columns of the INSERT.
    without_receipt = notifications.filter(~Exists(selectors.receipt_of(user))).order_by().values("account_id", "pk")
    source, params = without_receipt.query.get_compiler(connection=connection).as_sql()
    quote = connection.ops.quote_name
    # ON CONFLICT: a concurrent request of the same user may insert the receipt first; theirs stands.
    # WHERE TRUE keeps SQLite from reading ON CONFLICT as a join constraint.
    insert = (
        f"INSERT INTO {quote(NotificationReceipt._meta.db_table)} (account_id, notification_id, user_id, {quote(field)}) "
        f"SELECT source.*, %s, %s FROM ({source}) source WHERE TRUE ON CONFLICT DO NOTHING"
    )
    at = NotificationReceipt._meta.get_field(field).get_db_prep_value(now, connection)
    with connection.cursor() as cursor:
        cursor.execute(insert, [user.pk, at, *params])
        inserted = cursor.rowcount
    forget_unread_counts(account_ids=[account.pk])
    return stamped + inserted


def mark_read(*, account: Account, notification_id: int, user: User) -> Notification:
    """Marks the notification read for ``user`` alone; ``read_at`` keeps the time they first read it.
    Raises ``Notification.DoesNotExist`` when it is not in their inbox (another account's, another
    member's, or deleted by them)."""
    notification = _inbox(account, user).filter(pk=notification_id)
    _stamp(account, notification, user=user, field="read_at")
    return notification.get()


def mark_all_read(*, account: Account, user: User, site_ids: frozenset[int] | None) -> int:
    """Marks read for ``user`` every notification they see unread (``site_ids`` as in
    ``selectors.visible``), in two statements; the number marked."""
    unread = selectors.visible(Notification.objects.for_account(account), user=user, site_ids=site_ids).filter(is_read=False)
    return _stamp(account, unread, user=user, field="read_at")


def delete(*, account: Account, notification_id: int, user: User) -> None:
    """Removes the notification from ``user``'s inbox (list, detail, counts); other members keep it.
    Nothing happens when it is not in their inbox."""
    _stamp(account, _inbox(account, user).filter(pk=notification_id), user=user, field="deleted_at")


# To one person, by their preferences (#36).


@dataclass(frozen=True)
class Delivery:
    """How a person was told: in the app, by e-mail."""

    in_app: bool
    emailed: bool


def notify_person(*, account: Account, user: User, notification_type: str, email_subject: str, email_body: str, **fields) -> Delivery:
    """Raises an event addressed to ``user`` on the channels they chose (``selectors.channels_for``):
    an in-app notification (``notify`` with ``fields``) and an e-mail through Django's mail backend.
    A mail the backend refuses is logged and reported as not sent; it never fails the caller."""
    channels = selectors.channels_for(user=user, notification_type=notification_type)
    in_app = emailed = False
    if Channel.IN_APP in channels:
        notify(account=account, user=user, notification_type=notification_type, **fields)
        in_app = True
    if Channel.EMAIL in channels and user.email:
        try:
            emailed = send_mail(subject=email_subject, message=email_body, from_email=None, recipient_list=[user.email]) == 1
        except Exception:  # a mail server that is down must not lose the comment
            logger.exception("notification mail to user %s could not be sent", user.pk)
    return Delivery(in_app=in_app, emailed=emailed)


@transaction.atomic
def preferences_update(*, account: Account, user: User, changes: list[dict]) -> None:
    """Stores a person's channels per event: ``[{notification_type, in_app?, email?}]`` (validated)."""
    for change in changes:
        current = selectors.channels_for(user=user, notification_type=change["notification_type"])
        NotificationPreference.objects.for_account(account).update_or_create(
            account=account,
            user=user,
            notification_type=change["notification_type"],
            defaults={"in_app": change.get("in_app", Channel.IN_APP in current), "email": change.get("email", Channel.EMAIL in current)},
        )
