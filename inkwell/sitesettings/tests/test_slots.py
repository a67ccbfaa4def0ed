"""The slot planner and the automation schedule (inkwell.sitesettings.slots), table by table: limits,
publish days, several slots, time zones, DST changes and week/month boundaries."""

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from inkwell.sitesettings import slots
from inkwell.sitesettings.slots import local_instant, next_free_slot, next_run_at, window_start

WEEKDAYS = ["mon", "tue", "wed", "thu", "fri"]
EVERY_DAY = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
THREE_SLOTS = [{"start": "09:00", "end": "10:00"}, {"start": "14:00", "end": "15:00"}, {"start": "18:00", "end": "19:00"}]
NINE_ONLY = [{"start": "09:00", "end": "10:00"}]


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def plan(after: str, *, time_zone="UTC", days=WEEKDAYS, time_slots=THREE_SLOTS, daily=0, weekly=0, monthly=0, taken=()):
    return next_free_slot(
        after=utc(after),
        time_zone=time_zone,
        publish_days=days,
        time_slots=time_slots,
        daily_limit=daily,
        weekly_limit=weekly,
        monthly_limit=monthly,
        taken=[utc(moment) for moment in taken],
    )


# 2026-03-02 is a Monday (ISO week 10); 2026-03-08 a Sunday; 2026-03-31 a Tuesday; 2026-04-01 a Wednesday.
SLOT_CASES = [
    # Days and slots.
    ("first slot of the day", dict(after="2026-03-02T08:00"), "2026-03-02T09:00"),
    ("strictly after: a slot starting now is not next", dict(after="2026-03-02T09:00"), "2026-03-02T14:00"),
    ("later slots of the same day", dict(after="2026-03-02T15:30"), "2026-03-02T18:00"),
    ("after the last slot: the next day", dict(after="2026-03-02T18:30"), "2026-03-03T09:00"),
    ("the weekend is not a publish day", dict(after="2026-03-06T18:30"), "2026-03-09T09:00"),
    ("only the days named", dict(after="2026-03-02T08:00", days=["thu"]), "2026-03-05T09:00"),
    ("slots in any order", dict(after="2026-03-02T08:00", time_slots=list(reversed(THREE_SLOTS))), "2026-03-02T09:00"),
    # Taken slots.
    ("a slot with content at its start is taken", dict(after="2026-03-02T08:00", taken=["2026-03-02T09:00"]), "2026-03-02T14:00"),
    ("a slot with content inside its window is taken", dict(after="2026-03-02T08:00", taken=["2026-03-02T09:40"]), "2026-03-02T14:00"),
    ("content at the slot's end leaves it free", dict(after="2026-03-02T08:00", taken=["2026-03-02T10:00"]), "2026-03-02T09:00"),
    ("every slot taken", dict(after="2026-03-02T08:00", taken=["2026-03-02T09:00", "2026-03-02T14:00", "2026-03-02T18:00"]), "2026-03-03T09:00"),
    # Limits (0: none).
    ("daily limit reached: the next day", dict(after="2026-03-02T08:00", daily=1, taken=["2026-03-02T07:00"]), "2026-03-03T09:00"),
    ("daily limit not reached", dict(after="2026-03-02T08:00", daily=2, taken=["2026-03-02T07:00"]), "2026-03-02T09:00"),
    ("weekly limit reached", dict(after="2026-03-02T08:00", weekly=2, taken=["2026-03-02T09:00", "2026-03-03T09:00"]), "2026-03-09T09:00"),
    ("monthly limit reached: next month", dict(after="2026-03-02T08:00", monthly=1, taken=["2026-03-02T07:00"]), "2026-04-01T09:00"),
    ("no limit reached", dict(after="2026-03-02T08:00", daily=3, weekly=15, monthly=50, taken=["2026-03-02T07:00"]), "2026-03-02T09:00"),
    # Week and month boundaries (ISO weeks start on Monday).
    (
        "a full week ends on Sunday",
        dict(after="2026-03-08T11:00", days=EVERY_DAY, weekly=1, taken=["2026-03-08T10:00"]),
        "2026-03-09T09:00",
    ),
    (
        "a full month ends on its last day",
        dict(after="2026-03-31T10:00", days=EVERY_DAY, monthly=1, taken=["2026-03-31T09:00"]),
        "2026-04-01T09:00",
    ),
    # Time zones: slots are wall-clock times of the site.
    ("New York in winter (UTC-5)", dict(after="2026-01-05T12:00", time_zone="America/New_York"), "2026-01-05T14:00"),
    ("New York in summer (UTC-4)", dict(after="2026-07-06T12:00", time_zone="America/New_York"), "2026-07-06T13:00"),
    ("Kolkata (UTC+5:30)", dict(after="2026-03-02T00:00", time_zone="Asia/Kolkata"), "2026-03-02T03:30"),
    # 09:00 on Monday 2 March in Auckland (UTC+13) is 20:00Z on Sunday 1 March.
    ("a local Monday that is still Sunday in UTC", dict(after="2026-03-01T19:00", time_zone="Pacific/Auckland"), "2026-03-01T20:00"),
    (
        "the limit counts the local day of the content",
        # 20:00Z on Monday is 01:30 on Tuesday in Kolkata: Monday's slot is free, Tuesday is full.
        dict(after="2026-03-02T02:00", time_zone="Asia/Kolkata", time_slots=NINE_ONLY, daily=1, taken=["2026-03-02T20:00"]),
        "2026-03-02T03:30",
    ),
    (
        "a full local day is skipped",
        dict(after="2026-03-02T04:00", time_zone="Asia/Kolkata", time_slots=NINE_ONLY, daily=1, taken=["2026-03-02T20:00"]),
        "2026-03-04T03:30",
    ),
    # DST: 2026-03-08 New York springs forward 02:00 → 03:00; 2026-11-01 falls back 02:00 → 01:00.
    (
        "a slot in the spring-forward gap moves to the end of the gap",
        dict(after="2026-03-08T00:00", time_zone="America/New_York", days=["sun"], time_slots=[{"start": "02:30", "end": "03:30"}]),
        "2026-03-08T07:00",
    ),
    (
        "a slot after the spring-forward change keeps its wall time",
        dict(after="2026-03-08T00:00", time_zone="America/New_York", days=["sun"], time_slots=NINE_ONLY),
        "2026-03-08T13:00",
    ),
    (
        "an ambiguous slot on the fall-back day is its first occurrence",
        dict(after="2026-11-01T00:00", time_zone="America/New_York", days=["sun"], time_slots=[{"start": "01:30", "end": "02:30"}]),
        "2026-11-01T05:30",
    ),
    (
        "the second occurrence does not free a taken fall-back slot",
        dict(
            after="2026-11-01T00:00",
            time_zone="America/New_York",
            days=["sun"],
            time_slots=[{"start": "01:30", "end": "02:30"}],
            taken=["2026-11-01T05:30"],
        ),
        "2026-11-08T06:30",
    ),
    (
        "Lord Howe springs forward half an hour: 02:15 becomes 02:30",
        dict(after="2026-10-03T00:00", time_zone="Australia/Lord_Howe", days=["sun"], time_slots=[{"start": "02:15", "end": "03:00"}]),
        "2026-10-03T15:30",
    ),
]


@pytest.mark.parametrize(("case", "arguments", "expected"), SLOT_CASES, ids=[case[0] for case in SLOT_CASES])
def test_next_free_slot(case, arguments, expected):
    assert plan(**arguments) == utc(expected)


def test_the_result_is_aware_utc():
    slot = plan("2026-03-02T00:00", time_zone="Asia/Kolkata")
    assert slot.tzinfo is UTC


def test_no_publish_day_means_no_slot():
    assert plan("2026-03-02T08:00", days=[]) is None


def test_no_free_slot_within_the_horizon_is_none():
    mondays = [date(2026, 3, 2).toordinal() + 7 * week for week in range(slots.HORIZON_DAYS // 7 + 2)]
    taken = [datetime.combine(date.fromordinal(day), time(9)).isoformat() for day in mondays]
    assert plan("2026-03-02T08:00", days=["mon"], time_slots=NINE_ONLY, taken=taken) is None
    # One Monday free again, and it is found.
    assert plan("2026-03-02T08:00", days=["mon"], time_slots=NINE_ONLY, taken=taken[:10] + taken[11:]) == utc("2026-05-11T09:00")


@pytest.mark.parametrize(
    ("time_zone", "after", "expected"),
    [
        ("UTC", "2026-03-04T12:00", "2026-03-01T00:00"),  # the month began before the week
        ("UTC", "2026-04-02T12:00", "2026-03-30T00:00"),  # the week began in the month before
        ("America/New_York", "2026-03-04T03:00", "2026-03-01T05:00"),  # still 3 March locally
        ("Asia/Kolkata", "2026-03-31T20:00", "2026-03-29T18:30"),  # already 1 April locally: week from Monday 30 March
    ],
)
def test_limits_count_from_the_start_of_the_local_week_or_month(time_zone, after, expected):
    assert window_start(utc(after), time_zone) == utc(expected)


@pytest.mark.parametrize(
    ("day", "at", "time_zone", "expected"),
    [
        (date(2026, 3, 8), time(2, 0), "America/New_York", "2026-03-08T07:00"),  # the first minute of the gap
        (date(2026, 3, 8), time(2, 59), "America/New_York", "2026-03-08T07:00"),
        (date(2026, 3, 8), time(3, 0), "America/New_York", "2026-03-08T07:00"),
        (date(2026, 3, 8), time(1, 59), "America/New_York", "2026-03-08T06:59"),
        (date(2026, 11, 1), time(1, 0), "America/New_York", "2026-11-01T05:00"),  # ambiguous: first occurrence (EDT)
        (date(2026, 3, 29), time(2, 30), "Europe/Berlin", "2026-03-29T01:00"),
        (date(2026, 10, 25), time(2, 30), "Europe/Berlin", "2026-10-25T00:30"),
    ],
)
def test_wall_clock_times_on_dst_days(day, at, time_zone, expected):
    assert local_instant(day, at, ZoneInfo(time_zone)) == utc(expected)


@pytest.mark.parametrize(
    ("start", "end"), [("09:00", "10:00"), ("23:00", "23:59"), ("23:30", "23:59"), ("00:00", "01:00"), ("12:45", "13:45")]
)
def test_a_slot_without_an_end_lasts_an_hour_within_its_day(start, end):
    assert slots.default_slot_end(start) == end


SCHEDULE_CASES = [
    ("daily: today's time still ahead", dict(after="2026-03-02T01:00", frequency="daily", days=EVERY_DAY), "2026-03-02T02:00"),
    ("daily: tomorrow once today's time passed", dict(after="2026-03-02T02:00", frequency="daily", days=EVERY_DAY), "2026-03-03T02:00"),
    ("daily: only the days named", dict(after="2026-03-02T03:00", frequency="daily", days=["wed", "sat"]), "2026-03-04T02:00"),
    ("weekly: the first named day of the week", dict(after="2026-03-03T03:00", frequency="weekly", days=["tue", "fri"]), "2026-03-10T02:00"),
    ("weekly: this week's first day still ahead", dict(after="2026-03-02T03:00", frequency="weekly", days=["tue", "fri"]), "2026-03-03T02:00"),
    ("monthly: the first named day of the next month", dict(after="2026-03-03T03:00", frequency="monthly", days=["mon"]), "2026-04-06T02:00"),
    ("monthly: this month's first day still ahead", dict(after="2026-03-01T03:00", frequency="monthly", days=["mon"]), "2026-03-02T02:00"),
    (
        "in the site's time zone, across the spring-forward gap",
        dict(after="2026-03-08T00:00", frequency="daily", days=EVERY_DAY, time_zone="America/New_York", at=time(2, 30)),
        "2026-03-08T07:00",
    ),
    ("hourly: the coming hour at its minute", dict(after="2026-03-02T10:20", frequency="hourly", days=EVERY_DAY, at=time(2, 15)), "2026-03-02T11:15"),
    ("hourly: strictly after", dict(after="2026-03-02T10:15", frequency="hourly", days=EVERY_DAY, at=time(2, 15)), "2026-03-02T11:15"),
    ("hourly: this hour's minute still ahead", dict(after="2026-03-02T10:05", frequency="hourly", days=EVERY_DAY, at=time(2, 15)), "2026-03-02T10:15"),
    ("hourly: with seconds", dict(after="2026-03-02T10:20", frequency="hourly", days=EVERY_DAY, at=time(2, 15, 30)), "2026-03-02T11:15:30"),
    ("hourly: the next scheduled day's first hour", dict(after="2026-03-02T23:30", frequency="hourly", days=["mon", "tue"], at=time(2, 15)), "2026-03-03T00:15"),
    ("hourly: only the days named", dict(after="2026-03-02T10:20", frequency="hourly", days=["wed"], at=time(2, 15)), "2026-03-04T00:15"),
    ("hourly: a week later on the only day", dict(after="2026-03-02T23:30", frequency="hourly", days=["mon"], at=time(2, 15)), "2026-03-09T00:15"),
    (
        "hourly: in the site's time zone",
        dict(after="2026-03-02T14:45", frequency="hourly", days=EVERY_DAY, time_zone="America/New_York", at=time(0, 30)),
        "2026-03-02T15:30",
    ),
    (
        "hourly: the skipped hour runs at the end of the gap",
        dict(after="2026-03-08T06:30", frequency="hourly", days=EVERY_DAY, time_zone="America/New_York", at=time(0, 30)),
        "2026-03-08T07:00",
    ),
    (
        "hourly: after the gap, the minute again",
        dict(after="2026-03-08T07:00", frequency="hourly", days=EVERY_DAY, time_zone="America/New_York", at=time(0, 30)),
        "2026-03-08T07:30",
    ),
    (
        "hourly: the hour that happens twice runs once",
        dict(after="2026-11-01T05:30", frequency="hourly", days=EVERY_DAY, time_zone="America/New_York", at=time(0, 30)),
        "2026-11-01T07:30",
    ),
]


@pytest.mark.parametrize(("case", "arguments", "expected"), SCHEDULE_CASES, ids=[case[0] for case in SCHEDULE_CASES])
def test_next_run_at(case, arguments, expected):
    arguments = {"time_zone": "UTC", "at": time(2, 0), **arguments}
    arguments["after"] = utc(arguments["after"])
    assert next_run_at(**arguments) == utc(expected)


def test_no_scheduled_day_means_no_next_run():
    assert next_run_at(after=utc("2026-03-02T00:00"), time_zone="UTC", frequency="daily", days=[], at=time(2)) is None


def test_no_scheduled_day_means_no_hourly_run():
    assert next_run_at(after=utc("2026-03-02T00:00"), time_zone="UTC", frequency="hourly", days=[], at=time(2)) is None
