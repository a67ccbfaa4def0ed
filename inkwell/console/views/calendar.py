"""The publishing calendar of a site, in the site's time zone: a month or a week of scheduled,
published and failed content with the publish days, slots and limits; scheduling approved
articles into a free slot or at a chosen time, moving and unscheduling them, publishing now.

Every rule is the domains': the slot planner and the limits (``sitesettings.slots`` through
``publishing.selectors.publishing_calendar`` and ``schedule_in_next_slot``), the editorial gate
and the schedule (``writer.services``), the publisher (``publishing.services.publish_now``). Here
a wall-clock time typed in the site's time zone becomes an instant, as the planner reads one.
"""

from datetime import date, datetime, timedelta
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.urls import reverse
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from inkwell.api.exceptions import OutsidePublishingRules
from inkwell.console.base import ConsoleView, get_scoped, scoped, validated
from inkwell.console.views.forms import FormSubmission, outside_the_rules
from inkwell.console.views.library import SiteView
from inkwell.publishing import selectors, services
from inkwell.sitesettings.slots import local_instant
from inkwell.writer import serializers as writer_serializers
from inkwell.writer.models import Content, SiteStatus

MONTH, WEEK, DAY = "month", "week", "day"
# Items listed in a day of the month and of the week; the rest are a link to the day away.
ITEMS_SHOWN = {MONTH: 4, WEEK: 12, DAY: None}
WEEKDAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# Approved articles offered beside the calendar; older ones are a page of the content list away.
READY_LISTED = 10
NOT_A_TIME = "Give a date and a time, such as 2026-11-02 09:00"
LOCAL_INPUT_FORMAT = "%Y-%m-%dT%H:%M"


def site_today(site) -> date:
    return timezone.now().astimezone(ZoneInfo(site.time_zone)).date()


def anchor_of(site, value: str) -> date:
    """The day the calendar shows (``?date=``); today in the site's time zone when absent or not a date."""
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        return site_today(site)


def shown_days(mode: str, anchor: date) -> tuple[date, date]:
    """The anchor's day, Monday to Sunday of its week, or of the weeks its month touches."""
    if mode == DAY:
        return anchor, anchor
    if mode == WEEK:
        first = anchor - timedelta(days=anchor.weekday())
        return first, first + timedelta(days=6)
    month_first = anchor.replace(day=1)
    month_last = (month_first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return month_first - timedelta(days=month_first.weekday()), month_last + timedelta(days=6 - month_last.weekday())


def neighbours(mode: str, anchor: date) -> tuple[date, date]:
    if mode == DAY:
        return anchor - timedelta(days=1), anchor + timedelta(days=1)
    if mode == WEEK:
        return anchor - timedelta(days=7), anchor + timedelta(days=7)
    month_first = anchor.replace(day=1)
    return (month_first - timedelta(days=1)).replace(day=1), (month_first + timedelta(days=32)).replace(day=1)


def calendar_url(site_id: int, *, mode: str, day: date, **extra) -> str:
    query = urlencode({"view": mode, "date": day.isoformat(), **extra})
    return reverse("console:calendar", kwargs={"site_id": site_id}) + "?" + query


def mode_of(value: str) -> str:
    return value if value in (WEEK, DAY) else MONTH


def selected_item(calendar, value: str):
    """The item ``?item=`` names among those listed: its details and actions beside the calendar."""
    return next((item for day in calendar.days for item in day.items if str(item.content_id) == value), None)


class CalendarView(SiteView):
    module = "publisher"
    template_name = "console/publishing/calendar.html"

    def get(self, request, site_id):
        site = self.site_of(request, site_id)
        return self.page(request, calendar_context(self, request, site, request.GET))


def calendar_context(view: ConsoleView, request, site, query) -> dict:
    """The calendar of ``site`` as ``query`` asks for it (``view``, ``date``, the selected ``item``,
    the ``at`` chosen): from the address of the page, or from a refused schedule or move, which
    shows the calendar again with the time typed and the message beside it."""
    tz = ZoneInfo(site.time_zone)
    mode, anchor = mode_of(query.get("view", "")), anchor_of(site, query.get("date", ""))
    first, last = shown_days(mode, anchor)
    now = timezone.now()
    calendar = selectors.publishing_calendar(site, first_day=first, last_day=last, now=now, items_per_day=ITEMS_SHOWN[mode])
    previous, following = neighbours(mode, anchor)
    chosen = query.get("at", "")
    selected = selected_item(calendar, query.get("item", ""))
    ready = list(selectors.schedulable_content(site)[:READY_LISTED]) if request.user.role_name in view.write_roles else []
    return {
        "site": site,
        "calendar": calendar,
        "mode": mode,
        "anchor": anchor,
        "weekday_names": WEEKDAY_NAMES,
        "month_used": next(day.used["month"] for day in calendar.days if day.day == anchor),
        "weeks": [calendar.days[index : index + 7] for index in range(0, len(calendar.days), 7)],
        "previous_url": calendar_url(site.pk, mode=mode, day=previous),
        "next_url": calendar_url(site.pk, mode=mode, day=following),
        "today_url": calendar_url(site.pk, mode=mode, day=site_today(site)),
        "month_url": calendar_url(site.pk, mode=MONTH, day=anchor),
        "week_url": calendar_url(site.pk, mode=WEEK, day=anchor),
        "day_url": calendar_url(site.pk, mode=DAY, day=anchor),
        "here": urlencode({"view": mode, "date": anchor.isoformat()}),
        "selected": selected,
        "selected_local": selected.local.strftime(LOCAL_INPUT_FORMAT) if selected else "",
        "zone_now": now.astimezone(tz),
        "ready": ready,
        "chosen": chosen if _local_datetime(chosen) else "",
        "min_local": now.astimezone(tz).strftime(LOCAL_INPUT_FORMAT),
    }


def _local_datetime(value: str) -> datetime | None:
    try:
        return datetime.strptime(value, LOCAL_INPUT_FORMAT)
    except (TypeError, ValueError):
        return None


def chosen_instant(site, value: str) -> datetime:
    """A wall-clock time typed in the site's time zone as the instant it names (a time the
    clocks skip is the end of the gap; one they repeat, its first occurrence: as the planner)."""
    local = _local_datetime(value)
    if local is None:
        raise ValidationError({"scheduled_publish_at": [NOT_A_TIME]})
    return local_instant(local.date(), local.time(), ZoneInfo(site.time_zone))


def content_on_site(request, pk) -> Content:
    return get_scoped(Content, request, pk, queryset=scoped(Content, request).select_related("site"))


def back_to_calendar(view: ConsoleView, request, content: Content, *, at: datetime | None = None, **notice):
    """To the calendar week that shows ``at`` (or the week the form was sent from), with a notice."""
    site = content.site
    if at is not None:
        mode, day = WEEK, at.astimezone(ZoneInfo(site.time_zone)).date()
    else:
        mode, day = mode_of(request.POST.get("view", "")), anchor_of(site, request.POST.get("date", ""))
    return view.done(request, calendar_url(site.pk, mode=mode, day=day, **notice))


class ScheduleView(FormSubmission):
    """Schedules (or moves) an approved article: into the next free slot (``when=next``), or at a
    chosen wall-clock time of the site's time zone (``at``). The editorial gate and an active CMS
    integration are checked by the schedule itself (409). A refused time shows the calendar again,
    the article selected (a move) or listed as ready (a schedule) with the time typed beside the
    message."""

    module = "publisher"
    model = Content
    template_name = CalendarView.template_name
    field_labels = {"scheduled_publish_at": "Publishing time"}

    def context(self, request, *, pk, submitted) -> dict:
        content = content_on_site(request, pk)
        query = {"view": submitted.get("view", ""), "date": submitted.get("date", ""), "item": str(content.pk), "at": submitted.get("at", "")}
        anchor = "move-at" if content.site_status == SiteStatus.SCHEDULED else f"at-{content.pk}"
        self.field_anchors = {"scheduled_publish_at": anchor, "at": anchor}
        return {**calendar_context(self, request, content.site, query), "refused_content_id": content.pk}

    def save(self, request, pk):
        content = content_on_site(request, pk)
        if request.POST.get("when") == "next":
            result = services.schedule_in_next_slot(content=content)
        else:
            at = chosen_instant(content.site, request.POST.get("at", ""))
            override = request.POST.get("override_rules") == "1"
            data = validated(writer_serializers.ScheduleInputSerializer, request, {"scheduled_publish_at": at.isoformat(), "override_rules": override})
            try:
                result = services.content_schedule(content=content, user=request.user, **data)
            except OutsidePublishingRules as refused:
                # Refused as the API refuses it, with "Schedule anyway": an explicit override, recorded
                # on the content (contract section 12; issue 30: Saturday 11:30 was "Scheduled.").
                anyway = {key: request.POST.get(key, "") for key in ("at", "view", "date")}
                return self.refused(request, refused, pk=pk, extra=outside_the_rules(refused, action=request.path, fields=anyway))
        return back_to_calendar(self, request, content, at=result["scheduled_publish_at"], scheduled=content.pk)


class UnscheduleView(ConsoleView):
    module = "publisher"
    model = Content

    def post(self, request, pk):
        content = content_on_site(request, pk)
        services.content_unschedule(content=content)
        return back_to_calendar(self, request, content, unscheduled=content.pk)


class PublishNowView(ConsoleView):
    """Publishes an approved article on the site's CMS at once; the CMS's refusal is shown with its
    reason and the retry plan (502), as the API answers it."""

    module = "publisher"
    model = Content

    def post(self, request, pk):
        content = content_on_site(request, pk)
        services.publish_now(content=content, user=request.user)
        return back_to_calendar(self, request, content, at=timezone.now(), published=content.pk)
