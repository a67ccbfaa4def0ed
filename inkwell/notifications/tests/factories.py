"""Notifications of one account for the cross-account matrix (tests/test_cross_account_matrix.py)."""

from inkwell.notifications import services
from inkwell.notifications.models import Notification, NotificationType


def _notification(tenant, marker: str) -> Notification:
    # Account-wide and without a site, so every member of the victim account sees it in their list.
    return services.notify(
        account=tenant.account,
        notification_type=NotificationType.KEYWORDS_IMPORTED,
        title=marker,
        message=f"{marker} keywords were added",
        action_label=marker,
        metadata={"count": 3, "note": marker},
    )


CROSS_ACCOUNT_FACTORIES = {Notification: _notification}
