"""Reads of publishing: where one content stands on its CMS, and a site's publishing calendar."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from html.parser import HTMLParser
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.db.models import Case, F, Q, When
from django.db.models.functions import Coalesce

from inkwell.publishing.models import PublishingRecord, PublishStatus
from inkwell.sitesettings import slots
from inkwell.sitesettings.defaults import DAYS
from inkwell.sitesettings.selectors import effective_settings
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


STATE_OF = {SiteStatus.PUBLISHED: CalendarState.PUBLISHED, SiteStatus.PUBLISHING: CalendarState.PUBLISHING, SiteStatus.FAILED: CalendarState.FAILED}


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
    items: list  # the first ``items_per_day``, by time
    more: int  # how many more the day holds
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


def _placed_rows(site: Site, *, start: datetime, end: datetime) -> list[tuple[int, str, datetime]]:
    """``(id, site_status, at)`` of the site's content on the calendar between ``start`` and
    ``end`` (one query, indexes ``content_site_schedule`` and ``content_site_published``):
    scheduled or being published by their time, published by their publication, failed by their
    last time on the schedule (or, published at once, their last change). Plain tuples: a month
    may hold thousands, and all of them count towards the limits."""
    upcoming = (SiteStatus.SCHEDULED, SiteStatus.PUBLISHING)
    placed_at = Case(When(site_status=SiteStatus.PUBLISHED, then=F("published_at")), default=Coalesce(F("scheduled_publish_at"), F("updated_at")))
    return list(
        Content.objects.for_account(site.account_id)
        .filter(site=site)
        .filter(
            Q(site_status__in=upcoming, scheduled_publish_at__range=(start, end))
            | Q(site_status=SiteStatus.PUBLISHED, published_at__range=(start, end))
            | Q(site_status=SiteStatus.FAILED, scheduled_publish_at__range=(start, end))
            | Q(site_status=SiteStatus.FAILED, scheduled_publish_at__isnull=True, updated_at__range=(start, end))
        )
        .annotate(placed_at=placed_at)
        .values_list("pk", "site_status", "placed_at")
    )


def _failed_attempts(account_id: int, content_ids: list[int]) -> dict[int, tuple[str, str, datetime | None]]:
    """``(error, error_code, retry_at)`` of each content's newest attempt, when it failed (one query)."""
    newest: dict[int, tuple] = {}
    records = (
        PublishingRecord.objects.for_account(account_id)
        .filter(content_id__in=content_ids)
        .order_by("content_id", "-created_at", "-id")
        .values_list("content_id", "status", "error", "error_code", "retry_at")
    )
    for content_id, status, *attempt in records:
        newest.setdefault(content_id, (status, *attempt))
    return {content_id: tuple(attempt[1:]) for content_id, attempt in newest.items() if attempt[0] == PublishStatus.FAILED}


def _calendar_items(site: Site, placed: list[tuple[int, str, datetime]], tz: ZoneInfo) -> dict[int, CalendarItem]:
    """The items of the rows shown, with their titles, posts and failed attempts (two queries)."""
    rows = Content.objects.for_account(site.account_id).filter(pk__in=[pk for pk, _, _ in placed]).values_list("pk", "title", "external_url")
    details = {pk: (title, external_url) for pk, title, external_url in rows}
    attempts = _failed_attempts(site.account_id, [pk for pk, site_status, _ in placed if site_status != SiteStatus.PUBLISHED])
    items = {}
    for pk, site_status, at in placed:
        attempt = attempts.get(pk)
        state = STATE_OF.get(site_status, CalendarState.RETRYING if attempt is not None and attempt[2] else CalendarState.SCHEDULED)
        failed = state in (CalendarState.FAILED, CalendarState.RETRYING) and attempt is not None
        title, external_url = details[pk]
        items[pk] = CalendarItem(
            content_id=pk,
            title=title,
            state=state,
            at=at,
            local=at.astimezone(tz),
            external_url=external_url if state == CalendarState.PUBLISHED else "",
            error=attempt[0] if failed else "",
            error_code=attempt[1] if failed else "",
            next_retry_at=attempt[2] if state == CalendarState.RETRYING else None,
        )
    return items


def publishing_calendar(site: Site, *, first_day: date, last_day: date, now: datetime, items_per_day: int | None = None) -> PublishingCalendar:
    """The site's publishing calendar from ``first_day`` to ``last_day`` (local days, in the
    site's time zone): each day's content (the first ``items_per_day`` by time, and how many
    more), its publishing slots (free when the slot is still to come, holds no publication, and
    its day, week and month are under their limits, as the slot planner decides) and how much of
    each limit it uses. Counted over the whole weeks and months the days touch, so the limits
    shown are those the planner applies. Four queries, whatever the number of rows."""
    tz = ZoneInfo(site.time_zone)
    publishing = effective_settings(site=site).publishing
    counted_from = min(first_day - timedelta(days=first_day.weekday()), first_day.replace(day=1))
    month_end = (last_day.replace(day=28) + timedelta(days=4)).replace(day=1)
    counted_to = max(last_day + timedelta(days=7 - last_day.weekday()), month_end)
    placed = _placed_rows(site, start=slots.local_instant(counted_from, time.min, tz), end=slots.local_instant(counted_to, time.min, tz))
    book = slots.SlotBook(
        time_zone=site.time_zone,
        taken=[at for _, site_status, at in placed if site_status != SiteStatus.FAILED],
        daily_limit=publishing.daily_publish_limit,
        weekly_limit=publishing.weekly_publish_limit,
        monthly_limit=publishing.monthly_publish_limit,
    )
    by_day: dict[date, list] = {}
    for row in sorted(placed, key=lambda row: (row[2], row[0])):
        by_day.setdefault(row[2].astimezone(tz).date(), []).append(row)
    shown = {day: rows[:items_per_day] for day, rows in by_day.items() if first_day <= day <= last_day}
    items = _calendar_items(site, [row for rows in shown.values() for row in rows], tz)
    windows = slots.slot_windows(publishing.time_slots)
    weekdays = {DAYS.index(day) for day in publishing.publish_days}
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
        day_items = [items[pk] for pk, _, _ in shown.get(day, [])]
        days.append(
            CalendarDay(
                day=day,
                is_publish_day=is_publish_day,
                at_limit=at_limit,
                used=book.used(day),
                items=day_items,
                more=len(by_day.get(day, [])) - len(day_items),
                slots=day_slots,
            )
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


# Internal links checked before a publish or an update (issue #29): none may lead to a page the site does not have.


class _Hrefs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href") if tag == "a" else None
        if href:
            self.hrefs.append(href.strip())


def _address(url: str) -> tuple[str, str, str] | None:
    """Host without ``www.`` (empty for a site-relative path), path without its trailing slash, query."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("", "http", "https") or (not parts.netloc and not parts.path.startswith("/")):
        return None
    return ((parts.hostname or "").lower().removeprefix("www."), parts.path.rstrip("/") or "/", parts.query)


def broken_internal_links(*, content: Content, html: str | None = None) -> list[str]:
    """The links of ``html`` (the content's body by default) that point into the site (a path, or
    the site's or its live articles' host) at an address none of its live articles has, in order.
    The site's home page counts as live; fragments are ignored."""
    parser = _Hrefs()
    parser.feed(content.html if html is None else html)
    parser.close()
    domain = Site.objects.for_account(content.account_id).values_list("domain", flat=True).get(pk=content.site_id)
    live = [
        address
        for url in Content.objects.for_account(content.account_id).filter(site_id=content.site_id, site_status=SiteStatus.PUBLISHED).exclude(external_url="").values_list("external_url", flat=True)
        if (address := _address(url))
    ]
    hosts = {domain.lower().removeprefix("www.")} | {host for host, _, _ in live}
    paths = {(path, query) for _, path, query in live} | {("/", "")}
    broken = []
    for href in parser.hrefs:
        address = _address(href)
        if address is None or (address[0] and address[0] not in hosts):
            continue
        if (address[1], address[2]) not in paths:
            broken.append(href)
    return list(dict.fromkeys(broken))
