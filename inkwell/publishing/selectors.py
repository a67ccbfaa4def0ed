"""Reads of publishing: where one content stands on its CMS, and a site's publishing calendar."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.db.models import Q

from inkwell.publishing import slots
from inkwell.publishing.defaults import DAYS
from inkwell.publishing.models import PublishingRecord, PublishStatus
from inkwell.publishing.site_settings import effective_settings
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, ContentStatus, SiteStatus


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


# The publishing calendar


class CalendarState:
    """What a calendar item shows: ``retrying`` is content back on the schedule after a failed attempt."""

    SCHEDULED = "scheduled"
    RETRYING = "retrying"
    PUBLISHING = "publishing"
    PUBLISHED = "published"
    FAILED = "failed"


@dataclass(frozen=True)
class CalendarItem:
    content_id: int
    title: str
    state: str
    at: datetime  # UTC: the scheduled time, the publication, or the failed attempt
    local: datetime  # ``at`` in the site's time zone
    external_url: str
    error: str
    error_code: str
    next_retry_at: datetime | None


@dataclass(frozen=True)
class CalendarSlot:
    starts: datetime  # UTC
    local_start: datetime
    local_end: time
    free: bool


@dataclass(frozen=True)
class CalendarDay:
    day: date
    is_publish_day: bool
    at_limit: bool
    used: dict
    items: list
    slots: list


@dataclass(frozen=True)
class PublishingCalendar:
    time_zone: str
    first_day: date
    last_day: date
    limits: dict
    publish_days: tuple
    time_slots: tuple
    days: list


def _calendar_rows(site: Site, *, start: datetime, end: datetime):
    """The site's content on the calendar between ``start`` and ``end`` (one query, indexes
    ``content_site_schedule`` and ``content_site_published``): scheduled or being published by
    their time, published by their publication, failed by their last time on the schedule (or,
    published at once, their last change)."""
    upcoming = (SiteStatus.SCHEDULED, SiteStatus.PUBLISHING)
    return (
        Content.objects.for_account(site.account_id)
        .filter(site=site)
        .filter(
            Q(site_status__in=upcoming, scheduled_publish_at__range=(start, end))
            | Q(site_status=SiteStatus.PUBLISHED, published_at__range=(start, end))
            | Q(site_status=SiteStatus.FAILED, scheduled_publish_at__range=(start, end))
            | Q(site_status=SiteStatus.FAILED, scheduled_publish_at__isnull=True, updated_at__range=(start, end))
        )
        .only("pk", "account_id", "title", "site_status", "scheduled_publish_at", "published_at", "updated_at", "external_url")
    )


def _failed_records(account_id: int, content_ids: list[int]) -> dict[int, PublishingRecord]:
    """The newest attempt of each content, when that attempt failed (one query)."""
    newest: dict[int, PublishingRecord] = {}
    records = (
        PublishingRecord.objects.for_account(account_id)
        .filter(content_id__in=content_ids)
        .order_by("content_id", "-created_at", "-id")
        .only("content_id", "status", "error", "error_code", "retry_at", "created_at")
    )
    for record in records:
        newest.setdefault(record.content_id, record)
    return {content_id: record for content_id, record in newest.items() if record.status == PublishStatus.FAILED}


def _calendar_item(content: Content, record: PublishingRecord | None, tz: ZoneInfo) -> CalendarItem:
    state = {
        SiteStatus.PUBLISHED: CalendarState.PUBLISHED,
        SiteStatus.PUBLISHING: CalendarState.PUBLISHING,
        SiteStatus.FAILED: CalendarState.FAILED,
    }.get(content.site_status, CalendarState.RETRYING if record is not None and record.retry_at else CalendarState.SCHEDULED)
    if state == CalendarState.PUBLISHED:
        at = content.published_at
    else:
        at = content.scheduled_publish_at or content.updated_at
    failed = state in (CalendarState.FAILED, CalendarState.RETRYING) and record is not None
    return CalendarItem(
        content_id=content.pk,
        title=content.title,
        state=state,
        at=at,
        local=at.astimezone(tz),
        external_url=content.external_url if state == CalendarState.PUBLISHED else "",
        error=record.error if failed else "",
        error_code=record.error_code if failed else "",
        next_retry_at=record.retry_at if state == CalendarState.RETRYING else None,
    )


def publishing_calendar(site: Site, *, first_day: date, last_day: date, now: datetime) -> PublishingCalendar:
    """The site's publishing calendar from ``first_day`` to ``last_day`` (local days, in the
    site's time zone): each day's content, its publishing slots (free when the slot is still to
    come, holds no publication, and its day, week and month are under their limits, as the slot
    planner decides) and how much of each limit it uses. Counted over the whole weeks and months
    the days touch, so the limits shown are those the planner applies. Three queries."""
    tz = ZoneInfo(site.time_zone)
    publishing = effective_settings(site).publishing
    counted_from = min(first_day - timedelta(days=first_day.weekday()), first_day.replace(day=1))
    month_end = (last_day.replace(day=28) + timedelta(days=4)).replace(day=1)
    counted_to = max(last_day + timedelta(days=7 - last_day.weekday()), month_end)
    start, end = slots.local_instant(counted_from, time.min, tz), slots.local_instant(counted_to, time.min, tz)
    contents = list(_calendar_rows(site, start=start, end=end))
    records = _failed_records(site.account_id, [content.pk for content in contents if content.site_status != SiteStatus.PUBLISHED])
    items = sorted((_calendar_item(content, records.get(content.pk), tz) for content in contents), key=lambda item: (item.at, item.content_id))
    taken = [item.at for item in items if item.state != CalendarState.FAILED]
    book = slots.SlotBook(
        time_zone=site.time_zone,
        taken=taken,
        daily_limit=publishing.daily_publish_limit,
        weekly_limit=publishing.weekly_publish_limit,
        monthly_limit=publishing.monthly_publish_limit,
    )
    windows = slots.slot_windows(publishing.time_slots)
    weekdays = {DAYS.index(day) for day in publishing.publish_days}
    by_day: dict[date, list[CalendarItem]] = {}
    for item in items:
        by_day.setdefault(item.local.date(), []).append(item)
    days = []
    for offset in range((last_day - first_day).days + 1):
        day = first_day + timedelta(days=offset)
        is_publish_day, at_limit = day.weekday() in weekdays, book.at_limit(day)
        day_slots = []
        if is_publish_day:
            for begins_at, ends_at in windows:
                starts = slots.local_instant(day, begins_at, tz)
                free = starts > now and not at_limit and not book.slot_taken(day, begins_at, ends_at)
                day_slots.append(CalendarSlot(starts=starts, local_start=starts.astimezone(tz), local_end=ends_at, free=free))
        days.append(
            CalendarDay(day=day, is_publish_day=is_publish_day, at_limit=at_limit, used=book.used(day), items=by_day.get(day, []), slots=day_slots)
        )
    return PublishingCalendar(
        time_zone=site.time_zone,
        first_day=first_day,
        last_day=last_day,
        limits={"day": publishing.daily_publish_limit, "week": publishing.weekly_publish_limit, "month": publishing.monthly_publish_limit},
        publish_days=publishing.publish_days,
        time_slots=publishing.time_slots,
        days=days,
    )


def schedulable_content(site: Site):
    """The site's approved articles that are not on the calendar yet, or whose publication failed:
    what may be scheduled or published now (the editorial gate: approved only)."""
    return (
        Content.objects.for_account(site.account_id)
        .filter(site=site, status=ContentStatus.APPROVED, site_status__in=(SiteStatus.NOT_PUBLISHED, SiteStatus.FAILED))
        .only("pk", "account_id", "title", "site_status", "updated_at")
        .order_by("-updated_at", "-id")
    )
