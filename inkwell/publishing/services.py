"""Publishing content to its site's CMS, now or when it falls due, exactly once.

One attempt is three steps, each safe to die in:

1. claim (one transaction): a conditional UPDATE moves the content to ``publishing``, and a
   PublishingRecord is opened. Two workers racing for the same content: one UPDATE matches, the
   other finds nothing and stops.
2. push (no transaction held): terms, media and the post go to the CMS. The post carries a
   reference to our content, and an existing post is looked up by it before one is created, so an
   attempt that created the post and died before step 3 is not repeated as a second post.
3. finish (one transaction): the content becomes ``published`` (or goes back on the schedule with
   a back-off, or ``failed``), the record is closed and the notification raised.

A worker that dies in step 2 leaves a record ``publishing``; ``recover_stalled`` (run by every
scheduler sweep) closes such records after ``PUBLISH_STALE_SECONDS`` and puts their content back
on the schedule.
"""

import copy
import dataclasses
import logging
import mimetypes
import os
import re
import time
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from inkwell.api.exceptions import BusinessRuleViolation, CMSPublishFailed, OutsidePublishingRules, StateConflict
from inkwell.cms.base import CMSAdapter, CMSError, CMSNotFound, PostPayload, RemotePost
from inkwell.integration.models import SiteIntegration
from inkwell.integration.services import adapter_for
from inkwell.notifications import events
from inkwell.observability.metrics import record_publish_attempt
from inkwell.publishing.models import PublishingRecord, PublishStatus, PublishTrigger, ScheduleOverride
from inkwell.publishing.selectors import broken_internal_links, taken_publish_times
from inkwell.sitesettings import slots
from inkwell.sitesettings.selectors import effective_settings
from inkwell.system.selectors import content_settings
from inkwell.tenancy.models import Site, User
from inkwell.writer.models import Content, ContentRefresh, ContentRevision, ContentStatus, Image, ImageStatus, ImageType, RefreshSendStatus, SiteStatus, Taxonomy, TaxonomyType, cms_slug
from inkwell.webhooks import services as webhooks
from inkwell.webhooks.models import EventType
from inkwell.writer.sanitize import visible_word_count
from inkwell.writer.services import NOT_LIVE, PUBLISHABLE_STATUSES, check_publishable, check_refresh_sendable, webhook_data

logger = logging.getLogger("inkwell.publishing")

NO_CMS_INTEGRATION = "This site has no CMS integration"
BEING_PUBLISHED = "The content is being published"
WORKER_LOST = ("worker_lost", "The worker publishing this content stopped before it finished")
CMS_STATUS_LIVE = "publish"
NO_FREE_SLOT = "No free publishing slot within the limits"
# The CMS's own post statuses that leave a post off the public site.
REMOTE_UNPUBLISHED = frozenset({"draft", "pending", "private", "trash"})
BROKEN_INTERNAL_LINKS = "These internal links lead to addresses the site does not have (no live article is there); remove them or publish their articles first: {links}"
NO_ACTIVE_INTEGRATION = "This site has no active CMS integration: connect one (POST /api/v1/integration/) or activate it first"


@dataclass(frozen=True)
class PublishOutcome:
    """What one attempt did: the record, and whether the content is now live on the CMS."""

    record: PublishingRecord
    published: bool


def _cms_settings() -> dict:
    return settings.INKWELL_CMS


def active_integration(*, content: Content) -> SiteIntegration | None:
    return (
        SiteIntegration.objects.for_account(content.account_id)
        .filter(site_id=content.site_id, is_active=True)
        .order_by("id")
        .first()
    )


def reference_of(*, content: Content) -> str:
    """The token that marks our content's post on the CMS (see ``CMSAdapter.find_post``)."""
    return f"{content.account_id}-{content.pk}"


# Step 1: the claim


def _claim(content: Content, *, trigger: str, user: User | None, integration: SiteIntegration | None, now: datetime) -> PublishingRecord | None:
    """Moves the content to ``publishing`` and opens its record, or returns None when the content
    is not (or no longer) in a state this trigger may publish from."""
    # The editorial gate, again in the claim itself: content moved out of approved meanwhile is not published.
    candidates = Content.objects.for_account(content.account_id).filter(pk=content.pk, status__in=PUBLISHABLE_STATUSES)
    if trigger == PublishTrigger.SCHEDULED:
        candidates = candidates.filter(site_status=SiteStatus.SCHEDULED, scheduled_publish_at__lte=now)
    else:
        candidates = candidates.exclude(site_status=SiteStatus.PUBLISHING)
    with transaction.atomic():
        if not candidates.update(site_status=SiteStatus.PUBLISHING, updated_at=now):
            return None
        records = PublishingRecord.objects.for_account(content.account_id).filter(content=content)
        return _attempt_record(records, integration=integration, trigger=trigger, user=user, account_id=content.account_id, site_id=content.site_id, content=content)


def _attempt_record(earlier: QuerySet, *, integration, trigger: str, user: User | None, **owner) -> PublishingRecord:
    """The record of a claimed attempt: the next attempt of a failed one that has a retry
    planned, else the first. ``earlier``: the records of the same thing sent (a content, a refresh)."""
    previous = earlier.order_by("-created_at", "-id").first()
    retrying = previous is not None and previous.status == PublishStatus.FAILED and previous.retry_at is not None
    return PublishingRecord.objects.create(
        platform=integration.platform if integration else "",
        trigger=trigger,
        attempt=previous.attempt + 1 if retrying else 1,
        created_by=user,
        **owner,
    )


# Step 2: the push


def _term_ids(adapter: CMSAdapter, content: Content) -> tuple[list[str], list[str]]:
    """The CMS ids of the content's categories and tags, made on the CMS where missing (a
    category's parents first); new ids are kept on our taxonomies for the next time."""
    categories, tags = [], []
    for taxonomy in content.taxonomies.select_related("parent").order_by("id"):
        external_id = _ensure_term(adapter, taxonomy)
        (categories if taxonomy.taxonomy_type == TaxonomyType.CATEGORY else tags).append(external_id)
    return categories, tags


def _ensure_term(adapter: CMSAdapter, taxonomy: Taxonomy, depth: int = 0) -> str:
    if taxonomy.external_id:
        return taxonomy.external_id
    parent_id = ""
    if taxonomy.parent_id and depth < 10:
        parent_id = _ensure_term(adapter, taxonomy.parent, depth + 1)
    kind = "category" if taxonomy.taxonomy_type == TaxonomyType.CATEGORY else "tag"
    term = adapter.ensure_term(kind, name=taxonomy.name, slug=taxonomy.slug, parent_external_id=parent_id)
    Taxonomy.objects.for_account(taxonomy.account_id).filter(pk=taxonomy.pk).update(external_id=term.external_id)
    taxonomy.external_id = term.external_id
    return term.external_id


def _upload(adapter: CMSAdapter, image: Image) -> Image:
    """The image on the CMS, uploaded once: its media id and URL are kept on the image."""
    if image.external_id:
        return image
    with image.file.open("rb") as handle:
        data = handle.read()
    filename = os.path.basename(image.file.name)
    mime_type = image.mime_type or mimetypes.guess_type(filename)[0] or "application/octet-stream"
    media = adapter.upload_media(filename=filename, content_type=mime_type, data=data, alt_text=image.alt_text)
    Image.objects.for_account(image.account_id).filter(pk=image.pk).update(external_id=media.external_id, external_url=media.url)
    image.external_id, image.external_url = media.external_id, media.url
    return image


_H2 = re.compile(r"<h2[\s>]", re.IGNORECASE)


def body_with_images(*, html: str, figures: list[str]) -> str:
    """The article with its in-article images (``figures``: each image's markup, made by the
    CMS adapter's ``image_html``) placed as figures: the n-th image before the (n+1)-th H2, so
    that each lands at the start of a section after the first; images beyond the headings go at
    the end."""
    starts = [match.start() for match in _H2.finditer(html)][1:]
    pieces, cursor = [], 0
    for figure, start in zip(figures, starts, strict=False):
        pieces += [html[cursor:start], figure]
        cursor = start
    pieces.append(html[cursor:])
    pieces += figures[len(starts) :]
    return "".join(pieces)


def _payload(adapter: CMSAdapter, content: Content) -> PostPayload:
    images = list(Image.objects.for_account(content.account_id).filter(content=content, status=ImageStatus.GENERATED).exclude(file="").order_by("position", "id"))
    featured = next((image for image in images if image.image_type == ImageType.FEATURED), None)
    in_article = [_upload(adapter, image) for image in images if image.image_type == ImageType.IN_ARTICLE]
    category_ids, tag_ids = _term_ids(adapter, content)
    featured = _upload(adapter, featured) if featured else None
    figures = [adapter.image_html(url=image.external_url, alt=image.alt_text) for image in in_article]
    return PostPayload(
        reference=reference_of(content=content),
        title=content.title,
        html=body_with_images(html=content.html, figures=figures),
        excerpt=content.excerpt or content.meta_description,
        slug=cms_slug(slug=content.slug, title=content.title, content_id=content.pk),
        status=content_settings(content.account, "publishing")["default_publish_status"],
        category_ids=category_ids,
        tag_ids=tag_ids,
        featured_media_id=featured.external_id if featured else "",
        featured_media_url=featured.external_url if featured else "",
        featured_media_alt=featured.alt_text if featured else "",
        meta_title=content.meta_title,
        meta_description=content.meta_description,
    )


def push(*, adapter: CMSAdapter, content: Content) -> RemotePost:
    """Sends the content to the CMS: an update of its post when it has one (known by id, or found
    by our reference after an attempt that died before recording it), a new post otherwise."""
    payload = _payload(adapter, content)
    if content.external_id:
        # A post deleted on the CMS since is published anew.
        with suppress(CMSNotFound):
            return adapter.update_post(content.external_id, payload)
    existing = adapter.find_post(payload.reference)
    if existing is not None:
        return adapter.update_post(existing.external_id, payload)
    return adapter.create_post(payload)


# Step 3: the finish


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _succeed(content: Content, record: PublishingRecord, remote: RemotePost, started: float) -> PublishOutcome:
    now = timezone.now()
    live = remote.status == CMS_STATUS_LIVE
    with transaction.atomic():
        changes = {"external_id": remote.external_id, "external_url": remote.url, "updated_at": now}
        if live:
            changes.update(site_status=SiteStatus.PUBLISHED, status=ContentStatus.PUBLISHED, published_at=now)
        else:
            changes.update(site_status=SiteStatus.NOT_PUBLISHED)
        Content.objects.for_account(content.account_id).filter(pk=content.pk, site_status=SiteStatus.PUBLISHING).update(**changes)
        record.status = PublishStatus.SUCCEEDED
        record.external_id, record.external_url = remote.external_id, remote.url
        record.finished_at, record.duration_ms = now, _elapsed_ms(started)
        record.save(update_fields=["status", "external_id", "external_url", "finished_at", "duration_ms"])
        if live:
            webhooks.enqueue_event(
                account_id=content.account_id,
                type=EventType.CONTENT_PUBLISHED,
                data={**webhook_data(content), "status": ContentStatus.PUBLISHED, "site_status": SiteStatus.PUBLISHED, "published_at": now,
                      "scheduled_publish_at": None if content.site_status == SiteStatus.SCHEDULED else content.scheduled_publish_at,
                      "external_id": remote.external_id, "external_url": remote.url, "record_id": record.pk},
            )
        where = "published on" if live else f"sent as a {remote.status} to"
        events.content_published(
            account=content.account,
            site=content.site,
            content_id=content.pk,
            content_title=content.title,
            where=where,
            external_id=remote.external_id,
            url=remote.url,
            record_id=record.pk,
        )
        transaction.on_commit(lambda: record_publish_attempt("published" if live else "sent"))
    return PublishOutcome(record=record, published=live)


def retry_delay(*, attempt: int) -> timedelta:
    """The back-off after the ``attempt``-th failure: the base delay, doubled each time."""
    return timedelta(seconds=_cms_settings()["PUBLISH_RETRY_SECONDS"] * 2 ** (attempt - 1))


def _fail(content: Content, record: PublishingRecord, code: str, message: str, *, retryable: bool, started: float | None) -> PublishOutcome:
    """Closes a failed attempt: back on the schedule after a back-off when the failure is worth
    another try and attempts remain, ``failed`` with ``content_publish_failed`` otherwise."""
    now = timezone.now()
    retry_at = now + retry_delay(attempt=record.attempt) if retryable and record.attempt < _cms_settings()["PUBLISH_MAX_ATTEMPTS"] else None
    with transaction.atomic():
        changes = {"site_status": SiteStatus.SCHEDULED, "scheduled_publish_at": retry_at} if retry_at else {"site_status": SiteStatus.FAILED}
        Content.objects.for_account(content.account_id).filter(pk=content.pk, site_status=SiteStatus.PUBLISHING).update(updated_at=now, **changes)
        record.status = PublishStatus.FAILED
        record.error_code, record.error, record.retry_at = code, message[:300], retry_at
        record.finished_at = now
        record.duration_ms = _elapsed_ms(started) if started is not None else None
        record.save(update_fields=["status", "error_code", "error", "retry_at", "finished_at", "duration_ms"])
        if retry_at is None:
            webhooks.enqueue_event(
                account_id=content.account_id,
                type=EventType.CONTENT_PUBLISH_FAILED,
                data={**webhook_data(content), "site_status": SiteStatus.FAILED, "error_code": code, "error": message[:300], "attempts": record.attempt, "record_id": record.pk},
            )
            events.content_not_published(
                account=content.account,
                site=content.site,
                content_id=content.pk,
                content_title=content.title,
                attempts=record.attempt,
                reason=message,
                error_code=code,
                record_id=record.pk,
            )
        transaction.on_commit(lambda: record_publish_attempt("retrying" if retry_at else "failed"))
    logger.warning("publishing content %s failed (%s, attempt %s, retry at %s)", content.pk, code, record.attempt, retry_at)
    return PublishOutcome(record=record, published=False)


# The attempt


def _attempt(content: Content, *, trigger: str, user: User | None = None, now: datetime | None = None) -> PublishOutcome | None:
    integration = active_integration(content=content)
    record = _claim(content, trigger=trigger, user=user, integration=integration, now=now or timezone.now())
    if record is None:
        return None
    if integration is None:
        return _fail(content, record, "no_integration", NO_CMS_INTEGRATION, retryable=False, started=None)
    started = time.monotonic()
    try:
        with adapter_for(integration=integration) as adapter:
            remote = push(adapter=adapter, content=content)
    except CMSError as error:
        return _fail(content, record, error.code, error.message, retryable=error.retryable, started=started)
    return _succeed(content, record, remote, started)


def check_internal_links(*, content: Content, html: str | None = None) -> None:
    """Refuses (422, with the list) a body whose internal links lead to addresses the site does
    not have: an article not live yet, or one that never existed. A link that is a 404 on the
    live site is worse than no link."""
    broken = broken_internal_links(content=content, html=html)
    if broken:
        raise BusinessRuleViolation({"html": [BROKEN_INTERNAL_LINKS.format(links=", ".join(broken))]})


def publish_now(*, content: Content, user: User | None) -> PublishOutcome:
    """Publishes approved content at once (``publish_to_cms``, ``/publisher/publish/``). Content
    that is not approved, a site without an active integration, or content already being
    published is a 409. A CMS failure is recorded (the content goes back on the schedule when a
    retry is planned, else ``failed``) and then answered as a 502 (``CMSPublishFailed``)."""
    check_publishable(content=content)
    if active_integration(content=content) is None:
        raise StateConflict({"site": [NO_CMS_INTEGRATION]})
    check_internal_links(content=content)
    outcome = _attempt(content, trigger=PublishTrigger.MANUAL, user=user)
    if outcome is None:
        content.refresh_from_db(fields=["status", "site_status"])
        check_publishable(content=content)
        raise StateConflict({"site_status": [BEING_PUBLISHED]})
    if outcome.record.status == PublishStatus.FAILED:
        raise publish_failure(record=outcome.record)
    return outcome


def publish_failure(*, record: PublishingRecord) -> CMSPublishFailed:
    """The 502 of a failed attempt: its cause as ``code``, the CMS's reason as ``error``, and the
    retry plan (``next_retry_at``, empty when none is planned, and ``attempts_left``)."""
    attempts_left = _cms_settings()["PUBLISH_MAX_ATTEMPTS"] - record.attempt if record.retry_at else 0
    plan = {
        "next_retry_at": [record.retry_at.isoformat().replace("+00:00", "Z")] if record.retry_at else [],
        "attempts_left": [str(attempts_left)],
    }
    return CMSPublishFailed(plan, error=record.error, code=record.error_code)


def publish_scheduled(*, content_id: int, now: datetime | None = None) -> PublishOutcome | None:
    """The scheduler's attempt at one content due by ``now``; None when it is not (or no longer)
    due, which is how a duplicate delivery or a second scheduler ends up doing nothing."""
    content = Content.dangerously_unscoped.select_related("site", "account").filter(pk=content_id).first()
    if content is None:
        return None
    if content.status not in PUBLISHABLE_STATUSES:
        _unschedule_unapproved(content, now=now or timezone.now())
        return None
    return _attempt(content, trigger=PublishTrigger.SCHEDULED, now=now)


def _unschedule_unapproved(content: Content, *, now: datetime) -> None:
    """Due content that is no longer approved (moved back after it was scheduled) is taken off
    the schedule, and the team is told why it did not go live."""
    with transaction.atomic():
        unscheduled = (
            Content.objects.for_account(content.account_id)
            .filter(pk=content.pk, site_status=SiteStatus.SCHEDULED, scheduled_publish_at__lte=now)
            .exclude(status__in=PUBLISHABLE_STATUSES)
            .update(site_status=SiteStatus.NOT_PUBLISHED, scheduled_publish_at=None, updated_at=now)
        )
        if not unscheduled:
            return
        events.scheduled_content_not_approved(account=content.account, site=content.site, content_id=content.pk, content_title=content.title, status=content.status)
    logger.info("scheduled content %s was not approved at its time and was unscheduled", content.pk)


# The scheduler


def due_content_ids(*, now: datetime | None = None, limit: int = 1000) -> list[int]:
    """Scheduled content whose time has come, oldest first (index ``content_due``)."""
    now = now or timezone.now()
    due = Content.dangerously_unscoped.filter(site_status=SiteStatus.SCHEDULED, scheduled_publish_at__lte=now)
    return list(due.order_by("scheduled_publish_at", "id").values_list("pk", flat=True)[:limit])


def recover_stalled(*, now: datetime | None = None) -> int:
    """Closes attempts whose worker died mid-push and puts their content back on the schedule
    (the next attempt finds the post by reference if it was made). Returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=_cms_settings()["PUBLISH_STALE_SECONDS"])
    stalled = PublishingRecord.dangerously_unscoped.filter(status=PublishStatus.PUBLISHING, created_at__lt=cutoff).select_related("content__site", "content__account", "refresh")
    recovered = 0
    for record in stalled:
        code, message = WORKER_LOST
        if record.refresh_id is not None:
            _refresh_fail(record.refresh, record.content, record, code, message, retryable=True, started=None)
        else:
            _fail(record.content, record, code, message, retryable=True, started=None)
        recovered += 1
    return recovered


def publish_due(*, now: datetime | None = None, limit: int = 1000) -> int:
    """One scheduler pass in this process: recover stalled attempts, then publish what is due.
    Safe to run in several processes at once. Returns how many this pass published or failed."""
    recover_stalled(now=now)
    published = sum(1 for content_id in due_content_ids(now=now, limit=limit) if publish_scheduled(content_id=content_id, now=now) is not None)
    return published + sum(1 for refresh_id in due_refresh_ids(now=now, limit=limit) if send_scheduled_refresh(refresh_id=refresh_id, now=now) is not None)


# Publications made elsewhere


@transaction.atomic
def record_publication(*, content: Content, external_url: str, external_id: str = "", user: User | None) -> PublishingRecord:
    """Records that the content went live on the CMS by other means (pasted by hand, another
    tool): the content becomes ``published`` with that URL, and the record says so."""
    now = timezone.now()
    changed = (
        Content.objects.for_account(content.account_id)
        .filter(pk=content.pk)
        .exclude(site_status=SiteStatus.PUBLISHING)
        .update(
            site_status=SiteStatus.PUBLISHED,
            status=ContentStatus.PUBLISHED,
            external_url=external_url,
            external_id=external_id,
            published_at=now,
            updated_at=now,
        )
    )
    if not changed:
        raise StateConflict({"site_status": [BEING_PUBLISHED]})
    integration = active_integration(content=content)
    webhooks.enqueue_event(
        account_id=content.account_id,
        type=EventType.CONTENT_PUBLISHED,
        data={**webhook_data(content), "status": ContentStatus.PUBLISHED, "site_status": SiteStatus.PUBLISHED, "published_at": now, "external_id": external_id, "external_url": external_url},
    )
    return PublishingRecord.objects.create(
        account_id=content.account_id,
        site_id=content.site_id,
        content=content,
        platform=integration.platform if integration else "",
        trigger=PublishTrigger.RECORDED,
        status=PublishStatus.SUCCEEDED,
        external_id=external_id,
        external_url=external_url,
        created_by=user,
        finished_at=now,
        duration_ms=0,
    )


def publishing_rule_broken(*, content: Content, at: datetime) -> str | None:
    """The publishing rule of the content's site that publishing it at ``at`` would break (its
    publishing days, time slots, daily, weekly and monthly limits, in the site's time zone), or None."""
    site = content.site
    publishing = effective_settings(site=site).publishing
    start = slots.window_start(at, site.time_zone)
    taken = taken_publish_times(site=site, start=start, end=at + timedelta(days=32), exclude=content)
    return slots.broken_rule(
        at=at,
        time_zone=site.time_zone,
        publish_days=publishing.publish_days,
        time_slots=publishing.time_slots,
        daily_limit=publishing.daily_publish_limit,
        weekly_limit=publishing.weekly_publish_limit,
        monthly_limit=publishing.monthly_publish_limit,
        taken=taken,
    )


@transaction.atomic
def content_schedule(*, content: Content, scheduled_publish_at, override_rules: bool = False, user: User | None = None) -> dict:
    """Places approved content of a site with an active CMS integration on the publishing
    schedule (any publishing status but ``publishing``). What would fail at its time is refused
    now: content that is not approved, or a site with no active integration (409). A time outside
    the site's publishing rules is a 409 ``outside_publishing_rules`` naming the rule, unless
    ``override_rules``: then it is scheduled anyway and the override recorded on the content
    (``ScheduleOverride``; contract section 12). Raises the ``content.scheduled`` webhook event in
    the same transaction."""
    _check_schedulable(content)
    rule = publishing_rule_broken(content=content, at=scheduled_publish_at)
    if rule and not override_rules:
        raise OutsidePublishingRules(error=rule)
    if rule:
        ScheduleOverride.objects.create(
            account_id=content.account_id, content=content, scheduled_publish_at=scheduled_publish_at, rule=rule, created_by=user if user and user.pk else None
        )
    return {**_schedule_at(content, scheduled_publish_at), "overridden_rule": rule if override_rules else None}


def _check_schedulable(content: Content) -> None:
    check_publishable(content=content)
    if not SiteIntegration.objects.for_account(content.account_id).filter(site_id=content.site_id, is_active=True).exists():
        raise StateConflict({"site": [NO_ACTIVE_INTEGRATION]})


def _schedule_at(content: Content, scheduled_publish_at) -> dict:
    scheduled = (
        Content.objects.for_account(content.account_id)
        .filter(pk=content.pk, status__in=PUBLISHABLE_STATUSES)
        .exclude(site_status=SiteStatus.PUBLISHING)
        .update(site_status=SiteStatus.SCHEDULED, scheduled_publish_at=scheduled_publish_at, updated_at=timezone.now())
    )
    if not scheduled:
        raise StateConflict({"site_status": ["Content that is being published cannot be scheduled"]})
    webhooks.enqueue_event(
        account_id=content.account_id,
        type=EventType.CONTENT_SCHEDULED,
        data={**webhook_data(content), "site_status": SiteStatus.SCHEDULED, "scheduled_publish_at": scheduled_publish_at},
    )
    return {"content_id": content.pk, "site_status": SiteStatus.SCHEDULED, "scheduled_publish_at": scheduled_publish_at}


def content_unschedule(*, content: Content) -> dict:
    """Takes scheduled content off the schedule: ``not_published``, no publish time."""
    unscheduled = (
        Content.objects.for_account(content.account_id)
        .filter(pk=content.pk, site_status=SiteStatus.SCHEDULED)
        .update(site_status=SiteStatus.NOT_PUBLISHED, scheduled_publish_at=None, updated_at=timezone.now())
    )
    if not unscheduled:
        raise StateConflict({"site_status": ["Content is not scheduled"]})
    return {"content_id": content.pk, "site_status": SiteStatus.NOT_PUBLISHED, "scheduled_publish_at": None}


@transaction.atomic
def schedule_in_next_slot(*, content: Content, after: datetime | None = None) -> dict:
    """Schedules the content in its site's next free publishing slot after ``after`` (now by
    default): a publish day and time slot in the site's time zone whose day, week and month are
    under their limits (``slots.next_free_slot``). Returns the schedule result.

    The site row is locked first, so two approvals on one site never take the same slot. None
    free within the planner's horizon is a 422 on ``scheduled_publish_at``.
    """
    site = Site.objects.for_account(content.account_id).select_for_update().get(pk=content.site_id)
    after = after or timezone.now()
    publishing = effective_settings(site=site).publishing
    taken = taken_publish_times(
        site=site, start=slots.window_start(after, site.time_zone), end=after + timedelta(days=slots.HORIZON_DAYS + 2), exclude=content
    )
    slot = slots.next_free_slot(
        after=after,
        time_zone=site.time_zone,
        publish_days=publishing.publish_days,
        time_slots=publishing.time_slots,
        daily_limit=publishing.daily_publish_limit,
        weekly_limit=publishing.weekly_publish_limit,
        monthly_limit=publishing.monthly_publish_limit,
        taken=taken,
    )
    if slot is None:
        raise BusinessRuleViolation({"scheduled_publish_at": [NO_FREE_SLOT]})
    # The slot was chosen under the site's rules: no second check.
    _check_schedulable(content)
    return _schedule_at(content, slot)


# What the CMS reports of our posts


def remote_post_changes(*, content: Content, remote: RemotePost | None) -> dict:
    """What the CMS's state of the content's post changes on the content (``remote`` None: the
    post is gone).

    publish → ``published`` with the post's URL (and ``published_at`` when it had none);
    draft, pending, private, trash → ``not_published``; gone → ``not_published`` without an
    external id or URL; future, and statuses we do not know, change nothing. Content the
    publisher is sending (``publishing``) is the publisher's to settle, and content on our
    schedule stays scheduled: only a gone post is forgotten, so that the scheduler creates it anew.
    """
    if content.site_status == SiteStatus.PUBLISHING:
        return {}
    if remote is None:
        changes = {"external_id": "", "external_url": "", "site_status": SiteStatus.NOT_PUBLISHED}
    elif remote.status == CMS_STATUS_LIVE:
        changes = {"site_status": SiteStatus.PUBLISHED}
        if remote.url:
            changes["external_url"] = remote.url[:500]
        if content.published_at is None:
            changes["published_at"] = remote.modified_at or timezone.now()
    elif remote.status in REMOTE_UNPUBLISHED:
        changes = {"site_status": SiteStatus.NOT_PUBLISHED}
    else:
        return {}
    if content.site_status == SiteStatus.SCHEDULED:
        changes = {name: value for name, value in changes.items() if name in ("external_id", "external_url") and remote is None}
    return {name: value for name, value in changes.items() if getattr(content, name) != value}


def apply_remote_post(*, content: Content, remote: RemotePost | None) -> bool:
    """Applies ``remote_post_changes`` to the content, only if it is still as it was read (a
    publish or another delivery that changed it in between wins); True when it changed. The one
    way a sync and a webhook change our content (integration reports each post it reads with
    ``remote_post_read``, received in ``publishing.signals``)."""
    changes = remote_post_changes(content=content, remote=remote)
    if not changes:
        return False
    updated = (
        Content.objects.for_account(content.account_id)
        .filter(pk=content.pk, site_status=content.site_status, external_id=content.external_id)
        .update(**changes, updated_at=timezone.now())
    )
    if updated:
        for name, value in changes.items():
            setattr(content, name, value)
    return bool(updated)


# Refreshes of live articles (issue #37): a new revision of a live post, sent as an update of it
#
# The same three steps as a publication. The claim moves the refresh to ``sending`` and the content
# from ``published`` to ``publishing`` in one transaction (a publication and a refresh of one post
# never cross); the push updates the post by its id, kept live whatever the account's default post
# status; the finish writes the refresh's fields into the content (its previous text kept as a
# revision) and marks the refresh ``sent``, or puts the content back to ``published`` unchanged and
# the refresh back on the schedule after a back-off (or ``failed``).

REFRESH_NOT_SENDABLE = "The refresh is being sent or was sent already"
POST_GONE = ("post_gone", "The article's post is no longer on the CMS: publish the article again first")


def _live_content(content: Content) -> None:
    if content.site_status != SiteStatus.PUBLISHED or not content.external_id:
        raise StateConflict({"content": [NOT_LIVE]})


class _NotClaimed(Exception):
    pass


def _refresh_claim(refresh: ContentRefresh, *, trigger: str, user: User | None, integration: SiteIntegration | None, now: datetime) -> PublishingRecord | None:
    candidates = ContentRefresh.objects.for_account(refresh.account_id).filter(pk=refresh.pk, status=ContentStatus.APPROVED)
    if trigger == PublishTrigger.SCHEDULED:
        candidates = candidates.filter(send_status=RefreshSendStatus.SCHEDULED, scheduled_at__lte=now)
    else:
        candidates = candidates.filter(send_status__in=(RefreshSendStatus.NOT_SENT, RefreshSendStatus.SCHEDULED, RefreshSendStatus.FAILED))
    try:
        with transaction.atomic():
            if not candidates.update(send_status=RefreshSendStatus.SENDING, updated_at=now):
                raise _NotClaimed
            live = Content.objects.for_account(refresh.account_id).filter(pk=refresh.content_id, site_status=SiteStatus.PUBLISHED).exclude(external_id="")
            if not live.update(site_status=SiteStatus.PUBLISHING, updated_at=now):
                raise _NotClaimed
            records = PublishingRecord.objects.for_account(refresh.account_id).filter(refresh=refresh)
            return _attempt_record(
                records, integration=integration, trigger=trigger, user=user, account_id=refresh.account_id, site_id=refresh.site_id, content_id=refresh.content_id, refresh=refresh
            )
    except _NotClaimed:
        return None


def refreshed_content(*, content: Content, refresh: ContentRefresh) -> Content:
    """The content as it reads once the refresh is out (an unsaved copy)."""
    refreshed = copy.copy(content)
    for name in ("title", "html", "meta_title", "meta_description"):
        setattr(refreshed, name, getattr(refresh, name))
    return refreshed


def _refresh_push(adapter: CMSAdapter, content: Content, refresh: ContentRefresh) -> RemotePost:
    payload = _payload(adapter, refreshed_content(content=content, refresh=refresh))
    # The post is live and stays live (the account's default status is for new posts), at the
    # address it has: no slug, so a new title does not move it (its links and ranking stay).
    payload = dataclasses.replace(payload, status=CMS_STATUS_LIVE, slug="")
    return adapter.update_post(content.external_id, payload)


def _refresh_succeed(refresh: ContentRefresh, content: Content, record: PublishingRecord, remote: RemotePost, started: float) -> PublishOutcome:
    now = timezone.now()
    with transaction.atomic():
        ContentRevision.objects.create(
            account_id=content.account_id,
            content=content,
            title=content.title,
            html=content.html,
            meta_title=content.meta_title,
            meta_description=content.meta_description,
            status=content.status,
            created_by=record.created_by,
        )
        Content.objects.for_account(content.account_id).filter(pk=content.pk, site_status=SiteStatus.PUBLISHING).update(
            title=refresh.title,
            html=refresh.html,
            meta_title=refresh.meta_title,
            meta_description=refresh.meta_description,
            word_count=visible_word_count(refresh.html),
            site_status=SiteStatus.PUBLISHED,
            external_url=remote.url or content.external_url,
            updated_at=now,
        )
        ContentRefresh.objects.for_account(refresh.account_id).filter(pk=refresh.pk, send_status=RefreshSendStatus.SENDING).update(
            send_status=RefreshSendStatus.SENT, sent_at=now, updated_at=now
        )
        record.status = PublishStatus.SUCCEEDED
        record.external_id, record.external_url = remote.external_id, remote.url
        record.finished_at, record.duration_ms = now, _elapsed_ms(started)
        record.save(update_fields=["status", "external_id", "external_url", "finished_at", "duration_ms"])
        events.content_published(
            account=content.account,
            site=content.site,
            content_id=content.pk,
            content_title=refresh.title,
            where="refreshed on",
            external_id=remote.external_id,
            url=remote.url,
            record_id=record.pk,
        )
        transaction.on_commit(lambda: record_publish_attempt("published"))
    return PublishOutcome(record=record, published=True)


def _refresh_fail(refresh: ContentRefresh, content: Content, record: PublishingRecord, code: str, message: str, *, retryable: bool, started: float | None) -> PublishOutcome:
    now = timezone.now()
    retry_at = now + retry_delay(attempt=record.attempt) if retryable and record.attempt < _cms_settings()["PUBLISH_MAX_ATTEMPTS"] else None
    with transaction.atomic():
        # The live post was not changed: the content is published as it was.
        Content.objects.for_account(content.account_id).filter(pk=content.pk, site_status=SiteStatus.PUBLISHING).update(site_status=SiteStatus.PUBLISHED, updated_at=now)
        changes = {"send_status": RefreshSendStatus.SCHEDULED, "scheduled_at": retry_at} if retry_at else {"send_status": RefreshSendStatus.FAILED}
        ContentRefresh.objects.for_account(refresh.account_id).filter(pk=refresh.pk, send_status=RefreshSendStatus.SENDING).update(updated_at=now, **changes)
        record.status = PublishStatus.FAILED
        record.error_code, record.error, record.retry_at = code, message[:300], retry_at
        record.finished_at = now
        record.duration_ms = _elapsed_ms(started) if started is not None else None
        record.save(update_fields=["status", "error_code", "error", "retry_at", "finished_at", "duration_ms"])
        if retry_at is None:
            events.content_not_published(
                account=content.account,
                site=content.site,
                content_id=content.pk,
                content_title=f"Refresh: {refresh.title}",
                attempts=record.attempt,
                reason=message,
                error_code=code,
                record_id=record.pk,
            )
        transaction.on_commit(lambda: record_publish_attempt("retrying" if retry_at else "failed"))
    logger.warning("sending refresh %s failed (%s, attempt %s, retry at %s)", refresh.pk, code, record.attempt, retry_at)
    return PublishOutcome(record=record, published=False)


def _refresh_attempt(refresh: ContentRefresh, *, trigger: str, user: User | None = None, now: datetime | None = None) -> PublishOutcome | None:
    content = Content.objects.for_account(refresh.account_id).select_related("site", "account").get(pk=refresh.content_id)
    integration = active_integration(content=content)
    record = _refresh_claim(refresh, trigger=trigger, user=user, integration=integration, now=now or timezone.now())
    if record is None:
        return None
    refresh.refresh_from_db()
    if integration is None:
        return _refresh_fail(refresh, content, record, "no_integration", NO_CMS_INTEGRATION, retryable=False, started=None)
    started = time.monotonic()
    try:
        with adapter_for(integration=integration) as adapter:
            remote = _refresh_push(adapter, content, refresh)
    except CMSNotFound:
        code, message = POST_GONE
        return _refresh_fail(refresh, content, record, code, message, retryable=False, started=started)
    except CMSError as error:
        return _refresh_fail(refresh, content, record, error.code, error.message, retryable=error.retryable, started=started)
    return _refresh_succeed(refresh, content, record, remote, started)


def _check_refresh_can_go(refresh: ContentRefresh) -> Content:
    check_refresh_sendable(refresh=refresh)
    content = Content.objects.for_account(refresh.account_id).get(pk=refresh.content_id)
    _live_content(content)
    if active_integration(content=content) is None:
        raise StateConflict({"site": [NO_ACTIVE_INTEGRATION]})
    check_internal_links(content=content, html=refresh.html)
    return content


def refresh_send_now(*, refresh: ContentRefresh, user: User | None) -> PublishOutcome:
    """Sends an approved refresh as an update of its live post now. Not approved, an article that
    is not live, no active integration, or a refresh already sending or sent: 409. A CMS failure
    is recorded (a retry planned when worth it) and answered as a 502."""
    _check_refresh_can_go(refresh)
    outcome = _refresh_attempt(refresh, trigger=PublishTrigger.MANUAL, user=user)
    if outcome is None:
        raise StateConflict({"send_status": [REFRESH_NOT_SENDABLE]})
    if outcome.record.status == PublishStatus.FAILED:
        raise publish_failure(record=outcome.record)
    return outcome


def refresh_rule_broken(*, refresh: ContentRefresh, at: datetime) -> str | None:
    """The publishing rule of the refresh's site that updating its live post at ``at`` would break:
    its publishing days and time slots, in the site's time zone, or None. A refresh changes a post
    that is already out, so it neither counts against nor is held by the daily, weekly and monthly
    limits, which count new publications."""
    site = refresh.site
    publishing = effective_settings(site=site).publishing
    return slots.broken_rule(
        at=at,
        time_zone=site.time_zone,
        publish_days=publishing.publish_days,
        time_slots=publishing.time_slots,
        daily_limit=0,
        weekly_limit=0,
        monthly_limit=0,
        taken=(),
    )


@transaction.atomic
def refresh_schedule(*, refresh: ContentRefresh, scheduled_at: datetime, override_rules: bool = False, user: User | None = None) -> ContentRefresh:
    """Puts an approved refresh on the schedule: the live post is updated at ``scheduled_at``
    (PublishPress Revisions' "scheduled changes to published posts"). 409 as ``refresh_send_now``;
    a time outside the site's publishing days or time slots is a 409 ``outside_publishing_rules``
    unless ``override_rules``, which schedules it anyway and records the override (contract
    section 12, as for content)."""
    _check_refresh_can_go(refresh)
    rule = refresh_rule_broken(refresh=refresh, at=scheduled_at)
    if rule and not override_rules:
        raise OutsidePublishingRules(error=rule)
    scheduled = (
        ContentRefresh.objects.for_account(refresh.account_id)
        .filter(pk=refresh.pk, status=ContentStatus.APPROVED, send_status__in=(RefreshSendStatus.NOT_SENT, RefreshSendStatus.SCHEDULED, RefreshSendStatus.FAILED))
        .update(send_status=RefreshSendStatus.SCHEDULED, scheduled_at=scheduled_at, updated_at=timezone.now())
    )
    if not scheduled:
        raise StateConflict({"send_status": [REFRESH_NOT_SENDABLE]})
    if rule:
        ScheduleOverride.objects.create(
            account_id=refresh.account_id,
            content_id=refresh.content_id,
            refresh=refresh,
            scheduled_publish_at=scheduled_at,
            rule=rule,
            created_by=user if user and user.pk else None,
        )
    refresh.refresh_from_db()
    return refresh


def refresh_unschedule(*, refresh: ContentRefresh) -> ContentRefresh:
    """Takes a scheduled refresh off the schedule (409 when it is not scheduled)."""
    unscheduled = (
        ContentRefresh.objects.for_account(refresh.account_id)
        .filter(pk=refresh.pk, send_status=RefreshSendStatus.SCHEDULED)
        .update(send_status=RefreshSendStatus.NOT_SENT, scheduled_at=None, updated_at=timezone.now())
    )
    if not unscheduled:
        raise StateConflict({"send_status": ["The refresh is not scheduled"]})
    refresh.refresh_from_db()
    return refresh


def due_refresh_ids(*, now: datetime | None = None, limit: int = 1000) -> list[int]:
    """Scheduled refreshes whose time has come, oldest first (index ``refresh_due``)."""
    now = now or timezone.now()
    due = ContentRefresh.dangerously_unscoped.filter(send_status=RefreshSendStatus.SCHEDULED, scheduled_at__lte=now)
    return list(due.order_by("scheduled_at", "id").values_list("pk", flat=True)[:limit])


def send_scheduled_refresh(*, refresh_id: int, now: datetime | None = None) -> PublishOutcome | None:
    """The scheduler's attempt at one due refresh; None when it is not (or no longer) due, so a
    duplicate delivery or a second scheduler does nothing."""
    refresh = ContentRefresh.dangerously_unscoped.select_related("content").filter(pk=refresh_id).first()
    if refresh is None:
        return None
    content = refresh.content
    if content.site_status not in (SiteStatus.PUBLISHED, SiteStatus.PUBLISHING) or not content.external_id:
        _drop_refresh_of_unpublished(refresh, now=now or timezone.now())
        return None
    return _refresh_attempt(refresh, trigger=PublishTrigger.SCHEDULED, now=now)


def _drop_refresh_of_unpublished(refresh: ContentRefresh, *, now: datetime) -> None:
    """A due refresh whose article is no longer live (unpublished or its post gone since it was
    scheduled) is not sent: it becomes ``failed``, and the team is told, rather than waiting on
    every sweep for a post to update."""
    with transaction.atomic():
        dropped = (
            ContentRefresh.objects.for_account(refresh.account_id)
            .filter(pk=refresh.pk, send_status=RefreshSendStatus.SCHEDULED, scheduled_at__lte=now)
            .update(send_status=RefreshSendStatus.FAILED, updated_at=now)
        )
        if dropped:
            content = refresh.content
            events.content_not_published(
                account=content.account,
                site=content.site,
                content_id=content.pk,
                content_title=f"Refresh: {refresh.title}",
                attempts=0,
                reason=NOT_LIVE,
                error_code="not_live",
                record_id=None,
            )
    if dropped:
        logger.info("refresh %s was due but its article is no longer live: not sent", refresh.pk)
