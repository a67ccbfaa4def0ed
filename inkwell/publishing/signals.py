"""Publishing's receivers of other domains' signals."""

from django.dispatch import receiver

from inkwell.api.exceptions import BusinessRuleViolation, StateConflict
from inkwell.cms.base import RemotePost
from inkwell.integration.services import remote_post_read
from inkwell.notifications import events
from inkwell.publishing.services import apply_remote_post, schedule_in_next_slot
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
        events.approved_content_not_scheduled(account=content.account, site=content.site, content_id=content.pk, content_title=content.title, reason=reason)


@receiver(remote_post_read, sender=Content, dispatch_uid="publishing.remote_post")
def apply_reported_post(sender, content: Content, remote: RemotePost | None, **kwargs) -> bool:
    """What a sync or a webhook read of the content's post on the CMS, applied to its publishing
    status; the answer says whether it changed."""
    return apply_remote_post(content=content, remote=remote)
