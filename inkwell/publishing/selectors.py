"""Reads of publishing: where one content stands on its CMS."""

from inkwell.publishing.models import PublishingRecord
from inkwell.writer.models import Content


def latest_record(content: Content) -> PublishingRecord | None:
    return PublishingRecord.objects.for_account(content.account_id).filter(content=content).order_by("-created_at", "-id").first()


def publish_status(content: Content) -> dict:
    """The content's publishing state and its newest attempt (``next_retry_at`` when the scheduler
    will try again after a failure)."""
    content = Content.objects.for_account(content.account_id).get(pk=content.pk)
    record = latest_record(content)
    retrying = record is not None and record.retry_at is not None and content.site_status == "scheduled"
    return {
        "content_id": content.pk,
        "status": content.status,
        "site_status": content.site_status,
        "scheduled_publish_at": content.scheduled_publish_at,
        "published_at": content.published_at,
        "external_id": content.external_id,
        "external_url": content.external_url,
        "next_retry_at": record.retry_at if retrying else None,
        "last_record": record,
    }
