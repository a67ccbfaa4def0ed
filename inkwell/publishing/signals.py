"""Publishing's receivers of other domains' signals."""

from django.dispatch import receiver

from inkwell.api.exceptions import BusinessRuleViolation, StateConflict
from inkwell.notifications.models import NotificationType, Severity
from inkwell.notifications.services import notify
from inkwell.publishing.services import schedule_in_next_slot
from inkwell.sitesettings.selectors import effective_settings
from inkwell.writer.models import Content
from inkwell.writer.signals import content_approved


@receiver(content_approved, sender=Content, dispatch_uid="publishing.auto_publish")
def auto_publish(sender, content: Content, **kwargs) -> None:
    """Approved content of a site that auto-publishes goes into its next free slot. When the
    limits leave none, or the site has no active CMS integration, the approval stands and the
    account is told why nothing was scheduled."""
    if not effective_settings(site=content.site).publishing.auto_publish_enabled:
        return
    try:
        schedule_in_next_slot(content=content)
    except (BusinessRuleViolation, StateConflict) as refused:
        reason = next(iter(refused.errors.values()))[0]
        notify(
            account=content.account,
            notification_type=NotificationType.CONTENT_PUBLISH_FAILED,
            title="",
            message=f'"{content.title}" was approved but not scheduled: {reason}.',
            severity=Severity.WARNING,
            action_label="Open",
            action_url=f"/writer/content/{content.pk}",
            metadata={"content_id": content.pk},
            site=content.site,
        )
