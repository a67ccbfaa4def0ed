"""Reads of publishing: where one content stands on its CMS."""

from datetime import datetime

from django.db.models import Q

from inkwell.publishing.models import PublishingRecord
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, SiteStatus


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


def taken_publish_times(*, site: Site, start: datetime, end: datetime, exclude: Content) -> list[datetime]:
    """When the site's other content is scheduled or was published, between ``start`` and ``end`` (one query)."""
    upcoming = (SiteStatus.SCHEDULED, SiteStatus.PUBLISHING)
    rows = (
        Content.objects.for_account(site.account_id)
        .filter(site=site)
        .filter(Q(site_status__in=upcoming, scheduled_publish_at__range=(start, end)) | Q(published_at__range=(start, end)))
        .exclude(pk=exclude.pk)
        .values_list("site_status", "scheduled_publish_at", "published_at")
    )
    taken = []
    for site_status, scheduled_at, published_at in rows:
        if site_status in upcoming and scheduled_at is not None and start <= scheduled_at <= end:
            taken.append(scheduled_at)
        if published_at is not None and start <= published_at <= end:
            taken.append(published_at)
    return taken
