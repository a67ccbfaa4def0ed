"""Calendar arithmetic of a site's publishing and automation schedules, in the site's time zone.

Pure functions (no database): the slot planner ``next_free_slot``, the automation's
``next_run_at``, and the wall-clock → UTC conversion both share, which settles what a time of day
means on a day the clocks change:

- a time that does not exist that day (clocks spring forward over it) means the first instant
  after the gap (02:30 on a New York spring-forward day is 03:00 EDT);
- a time that happens twice (clocks fall back) means its first occurrence.

Every datetime going in or out is aware; the results are UTC.
"""

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from inkwell.sitesettings.defaults import DAYS

# How far ahead the planner looks before it gives up.
HORIZON_DAYS = 400
SLOT_LENGTH = timedelta(hours=1)
END_OF_DAY = time(23, 59)


def parse_time(value: str | time) -> time:
    """``HH:MM`` or ``HH:MM:SS`` (already validated) as a ``time``."""
    return value if isinstance(value, time) else time.fromisoformat(value)


def default_slot_end(start: str | time) -> str:
    """A slot's end when none is given: an hour after its start, at most the end of the day."""
    begins = parse_time(start)
    ends = (datetime.combine(date.min, begins) + SLOT_LENGTH).time()
    return (ends if ends > begins else END_OF_DAY).strftime("%H:%M")


def local_instant(day: date, at: time, tz: ZoneInfo) -> datetime:
    """The UTC instant of wall-clock ``at`` on ``day`` in ``tz`` (see the module docstring for DST)."""
    wall = datetime.combine(day, at)
    first = wall.replace(tzinfo=tz, fold=0).astimezone(UTC)
    if first.astimezone(tz).replace(tzinfo=None) == wall:
        return first  # it exists; fold=0 is the first occurrence of an ambiguous time
    # In a gap: fold=1 reads the wall time with the offset after the change, which lands before
    # the change; fold=0 with the offset before it, which lands after. The change lies between.
    before, after = wall.replace(tzinfo=tz, fold=1).astimezone(UTC), first
    offset_after = after.astimezone(tz).utcoffset()
    while after - before > timedelta(seconds=1):
        middle = before + (after - before) / 2
        if middle.astimezone(tz).utcoffset() == offset_after:
            after = middle
        else:
            before = middle
    return after.replace(microsecond=0)


def _week(day: date) -> tuple[int, int]:
    year, week, _ = day.isocalendar()
    return year, week


def _month(day: date) -> tuple[int, int]:
    return day.year, day.month


def window_start(after: datetime, time_zone: str) -> datetime:
    """The earliest instant whose publications count towards a limit that applies after ``after``:
    the start of its local ISO week (Monday) or month, whichever comes first."""
    tz = ZoneInfo(time_zone)
    today = after.astimezone(tz).date()
    first = min(today - timedelta(days=today.weekday()), today.replace(day=1))
    return local_instant(first, time.min, tz)


def next_free_slot(
    *,
    after: datetime,
    time_zone: str,
    publish_days: Sequence[str],
    time_slots: Sequence[Mapping[str, str]],
    daily_limit: int,
    weekly_limit: int,
    monthly_limit: int,
    taken: Iterable[datetime],
) -> datetime | None:
    """The first free publishing slot strictly after ``after`` (UTC), or None within ``HORIZON_DAYS``.

    Slots are the ``start`` of each ``{start, end}`` of ``time_slots`` on the ``publish_days`` (day
    names), in ``time_zone``. ``taken`` are the times already scheduled or published on the site:
    a slot with one of them between its start and end is taken, and each counts towards the
    daily, weekly (ISO week, from Monday) and monthly limit of its local day. A day, week or month
    at its limit is skipped; a limit of 0 means no limit. Give ``taken`` from ``window_start(after)``
    on, so that what was published earlier this week or month counts.
    """
    book = SlotBook(time_zone=time_zone, taken=taken, daily_limit=daily_limit, weekly_limit=weekly_limit, monthly_limit=monthly_limit)
    windows = slot_windows(time_slots)
    weekdays = {DAYS.index(day) for day in publish_days}
    first_day = after.astimezone(book.tz).date()
    for offset in range(HORIZON_DAYS + 1):
        day = first_day + timedelta(days=offset)
        if day.weekday() not in weekdays or book.at_limit(day):
            continue
        for start, end in windows:
            begins = local_instant(day, start, book.tz)
            if begins > after and not book.slot_taken(day, start, end):
                return begins
    return None


DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def broken_rule(
    *,
    at: datetime,
    time_zone: str,
    publish_days: Sequence[str],
    time_slots: Sequence[Mapping[str, str]],
    daily_limit: int,
    weekly_limit: int,
    monthly_limit: int,
    taken: Iterable[datetime],
) -> str | None:
    """The first publishing rule a publication at ``at`` (UTC) would break, as a sentence naming it,
    or None: the site's publishing days, its time slots (``at`` from a slot's start up to its end), and
    its daily, weekly and monthly limits with the publications ``taken`` (contract section 12; the
    same rules ``next_free_slot`` plans by). Give ``taken`` from ``window_start(at)`` on."""
    book = SlotBook(time_zone=time_zone, taken=taken, daily_limit=daily_limit, weekly_limit=weekly_limit, monthly_limit=monthly_limit)
    local = at.astimezone(book.tz)
    day = local.date()
    if DAYS[day.weekday()] not in publish_days:
        return f"{DAY_NAMES[day.weekday()]} is not a publishing day of this site"
    windows = slot_windows(time_slots)
    # A slot ending at 23:59 runs to the end of its day.
    ends = {end: local_instant(day + timedelta(days=1), time.min, book.tz) if end >= END_OF_DAY else local_instant(day, end, book.tz) for _, end in windows}
    if not any(local_instant(day, start, book.tz) <= at < ends[end] for start, end in windows):
        slots_text = ", ".join(f"{start:%H:%M}-{end:%H:%M}" for start, end in windows)
        return f"{local:%H:%M} is outside this site's publishing time slots ({slots_text})"
    used = book.used(day)
    for name, limit, count in (("daily", daily_limit, used["day"]), ("weekly", weekly_limit, used["week"]), ("monthly", monthly_limit, used["month"])):
        if limit and count >= limit:
            return f"The {name} publishing limit of {limit} is reached"
    return None


def slot_windows(time_slots: Sequence[Mapping[str, str]]) -> list[tuple[time, time]]:
    """The ``(start, end)`` of each ``{start, end}`` slot, earliest first (an hour long when no end is given)."""
    return sorted((parse_time(slot["start"]), parse_time(slot.get("end") or default_slot_end(slot["start"]))) for slot in time_slots)


class SlotBook:
    """What is taken on a site's calendar, for the slot planner and the publishing calendar alike:
    the taken instants, and how many fall on each local day, ISO week and month against the
    daily, weekly and monthly limits (0: no limit)."""

    def __init__(self, *, time_zone: str, taken: Iterable[datetime], daily_limit: int, weekly_limit: int, monthly_limit: int):
        self.tz = ZoneInfo(time_zone)
        self.taken = sorted(moment.astimezone(UTC) for moment in taken)
        local_days = [moment.astimezone(self.tz).date() for moment in self.taken]
        self.per_day, self.per_week, self.per_month = Counter(local_days), Counter(map(_week, local_days)), Counter(map(_month, local_days))
        self.limits = ((daily_limit, self.per_day, lambda day: day), (weekly_limit, self.per_week, _week), (monthly_limit, self.per_month, _month))

    def at_limit(self, day: date) -> bool:
        """Whether the day, its week or its month already holds as many publications as its limit allows."""
        return any(limit and count[key(day)] >= limit for limit, count, key in self.limits)

    def slot_taken(self, day: date, start: time, end: time) -> bool:
        """Whether a publication is at or after the slot's start on ``day`` and before its end."""
        begins = local_instant(day, start, self.tz)
        index = bisect_left(self.taken, begins)
        return index < len(self.taken) and (self.taken[index] == begins or self.taken[index] < local_instant(day, end, self.tz))

    def used(self, day: date) -> dict[str, int]:
        """How many publications the day, its week and its month hold."""
        return {"day": self.per_day[day], "week": self.per_week[_week(day)], "month": self.per_month[_month(day)]}


def _next_hourly_run(*, after: datetime, tz: ZoneInfo, weekdays: set[int], at: time) -> datetime | None:
    """Every hour of the scheduled days at ``at``'s minute and second. A run in an hour the clocks
    skip happens at the end of the gap; an hour that happens twice runs once (its first time)."""
    today = after.astimezone(tz).date()
    for offset in range(8):
        day = today + timedelta(days=offset)
        if day.weekday() not in weekdays:
            continue
        for hour in range(24):
            moment = local_instant(day, at.replace(hour=hour), tz)
            if moment > after:
                return moment
    return None


def next_run_at(*, after: datetime, time_zone: str, frequency: str, days: Sequence[str], at: time) -> datetime | None:
    """The automation's next run strictly after ``after`` (UTC), at ``at`` in ``time_zone``.

    ``hourly``: every hour of ``days`` at the minute (and second) of ``at``; ``daily``: every one
    of ``days``; ``weekly``: the first of ``days`` in each week (Monday first); ``monthly``: the
    first of ``days`` in each month. None when ``days`` is empty.
    """
    tz = ZoneInfo(time_zone)
    weekdays = {DAYS.index(day) for day in days}
    if not weekdays:
        return None
    if frequency == "hourly":
        return _next_hourly_run(after=after, tz=tz, weekdays=weekdays, at=at)
    first_weekday = min(weekdays)
    today = after.astimezone(tz).date()
    # Back to the start of the week or month, so that its first run day is known; 40 days cover
    # the rest of a month and all of the next.
    start = today - timedelta(days=today.weekday()) if frequency == "weekly" else today.replace(day=1)
    month_first_run: dict[tuple[int, int], date] = {}
    for offset in range((today - start).days + 40):
        day = start + timedelta(days=offset)
        if day.weekday() not in weekdays:
            continue
        month_first_run.setdefault(_month(day), day)
        if frequency == "weekly" and day.weekday() != first_weekday:
            continue
        if frequency == "monthly" and month_first_run[_month(day)] != day:
            continue
        moment = local_instant(day, at, tz)
        if moment > after:
            return moment
    return None
