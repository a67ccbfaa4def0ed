"""The publishing calendar's read (``selectors.publishing_calendar``): days in the site's time
zone, slots at their wall-clock hours across a daylight-saving change, free as the slot planner
decides, and the limits counted over the whole weeks and months shown."""

from datetime import UTC, date, datetime

import pytest

from inkwell.publishing.selectors import CalendarState, publishing_calendar
from inkwell.sitesettings.services import unified_settings_update
from inkwell.writer.models import ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

BEFORE_EVERYTHING = datetime(2027, 1, 1, tzinfo=UTC)


@pytest.fixture
def new_york(tenant):
    tenant.site.time_zone = "America/New_York"
    tenant.site.save()
    return tenant


def test_slots_keep_their_wall_clock_hour_across_the_spring_change(new_york):
    # New York springs forward on Sunday 14 March 2027 at 02:00 EST to 03:00 EDT.
    unified_settings_update(site=new_york.site, changes={"publishing_settings": {"publish_days": ["fri", "sun", "mon"], "publish_time_slots": [{"start": "02:30", "end": "03:30"}, {"start": "09:00", "end": "10:00"}]}})
    calendar = publishing_calendar(new_york.site, first_day=date(2027, 3, 12), last_day=date(2027, 3, 15), now=BEFORE_EVERYTHING)
    starts = {day.day.isoformat(): [slot.starts for slot in day.slots] for day in calendar.days}
    assert starts["2027-03-12"] == [datetime(2027, 3, 12, 7, 30, tzinfo=UTC), datetime(2027, 3, 12, 14, 0, tzinfo=UTC)]
    # 02:30 does not exist that Sunday: the slot is at the end of the gap, 03:00 EDT.
    assert starts["2027-03-14"] == [datetime(2027, 3, 14, 7, 0, tzinfo=UTC), datetime(2027, 3, 14, 13, 0, tzinfo=UTC)]
    assert starts["2027-03-15"] == [datetime(2027, 3, 15, 6, 30, tzinfo=UTC), datetime(2027, 3, 15, 13, 0, tzinfo=UTC)]
    assert starts["2027-03-13"] == []  # Saturday is not a publish day


def test_a_slot_is_free_as_the_planner_decides(new_york):
    unified_settings_update(site=new_york.site, changes={"publishing_settings": {"daily_publish_limit": 2, "weekly_publish_limit": 3, "monthly_publish_limit": 0}})
    for at in (datetime(2027, 3, 1, 14, 0, tzinfo=UTC), datetime(2027, 3, 1, 19, 30, tzinfo=UTC), datetime(2027, 3, 3, 14, 0, tzinfo=UTC)):
        make_content(new_york, status=ContentStatus.APPROVED, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=at)
    make_content(new_york, status=ContentStatus.APPROVED, site_status=SiteStatus.FAILED, scheduled_publish_at=datetime(2027, 3, 8, 14, 0, tzinfo=UTC))

    calendar = publishing_calendar(new_york.site, first_day=date(2027, 3, 1), last_day=date(2027, 3, 8), now=BEFORE_EVERYTHING)
    days = {day.day.isoformat(): day for day in calendar.days}
    monday, tuesday, next_monday = days["2027-03-01"], days["2027-03-02"], days["2027-03-08"]
    assert monday.at_limit and monday.used == {"day": 2, "week": 3, "month": 3}
    assert not any(slot.free for slot in monday.slots)
    # The week holds three: its limit; every day of it is full.
    assert tuesday.at_limit and not any(slot.free for slot in tuesday.slots)
    # A failed publication takes no slot and counts towards no limit.
    assert [item.state for item in next_monday.items] == [CalendarState.FAILED]
    assert [slot.free for slot in next_monday.slots] == [True, True, True]
    assert calendar.limits == {"day": 2, "week": 3, "month": 0}
