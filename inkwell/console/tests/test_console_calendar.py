"""The publishing calendar through the console's pages, as a browser without JavaScript sends them:
the site's time zone (across a daylight-saving change), the publish days, slots and limits, and
scheduling, moving, unscheduling and publishing approved articles under the publishing rules."""

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from inkwell.integration.tests.factories import make_integration
from inkwell.publishing.models import PublishingRecord, PublishStatus, PublishTrigger
from inkwell.sitesettings.services import unified_settings_update
from inkwell.tenancy.models import SiteUserAccess
from inkwell.writer.models import Content, ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db


def calendar(client, site, **query):
    response = client.get(f"/app/sites/{site.pk}/calendar/", query)
    assert response.status_code == 200
    return response.content.decode()


def day_cell(html: str, day: str) -> str:
    """The markup of one day of the calendar (``data-day``), up to the next day."""
    match = re.search(rf'data-day="{day}">(.*?)(?=data-day="|</ol>|</tbody>)', html, re.DOTALL)
    assert match, f"{day} is not on the calendar"
    return match.group(1)


def item_block(html: str, content_id: int) -> str:
    """The markup of one calendar item."""
    return html[html.index(f'data-content-id="{content_id}"') :].split("</div>")[0]


def in_zone(site, year, month, day, hour, minute=0, fold=0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=ZoneInfo(site.time_zone), fold=fold).astimezone(UTC)


@pytest.fixture
def berlin(tenant):
    tenant.site.time_zone = "Europe/Berlin"
    tenant.site.save()
    make_integration(tenant)
    return tenant


@pytest.fixture
def owner_client(console_client, berlin):
    return console_client(berlin.owner)


def next_year_monday() -> datetime:
    """A Monday in about a year: free of anything the test did not place, and never in the past."""
    day = timezone.now().date() + timedelta(days=370)
    return datetime.combine(day - timedelta(days=day.weekday()), datetime.min.time())


def test_the_calendar_says_its_time_zone_and_shows_publish_days_slots_and_limits(owner_client, berlin):
    html = calendar(owner_client, berlin.site)
    assert "Times are in the site's time zone, <strong>Europe/Berlin</strong>" in html
    assert "Mon, Tue, Wed, Thu, Fri" in html
    assert "09:00–10:00, 14:00–15:00, 18:00–19:00" in html
    assert "3 a day · 15 a week · 50 a month" in html


def test_scheduling_at_a_chosen_time_reads_the_time_in_the_sites_time_zone(owner_client, berlin):
    content = make_content(berlin, status=ContentStatus.APPROVED)
    monday = next_year_monday()
    response = owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": monday.strftime("%Y-%m-%dT09:30")})
    assert response.status_code == 302
    content.refresh_from_db()
    assert content.site_status == SiteStatus.SCHEDULED
    assert content.scheduled_publish_at == in_zone(berlin.site, monday.year, monday.month, monday.day, 9, 30)
    assert f"date={monday.date().isoformat()}" in response.headers["Location"] and "view=week" in response.headers["Location"]
    cell = day_cell(calendar(owner_client, berlin.site, view="week", date=monday.date().isoformat()), monday.date().isoformat())
    assert "09:30 CET" in cell and content.title in cell


def test_the_next_free_slot_is_the_slot_planners(owner_client, berlin):
    monday = next_year_monday()
    taken = make_content(berlin, status=ContentStatus.APPROVED, title="Already there")
    Content.objects.for_account(berlin.account).filter(pk=taken.pk).update(site_status=SiteStatus.SCHEDULED, scheduled_publish_at=in_zone(berlin.site, monday.year, monday.month, monday.day, 9))
    content = make_content(berlin, status=ContentStatus.APPROVED)
    # Every slot before that Monday's is full: the days up to it are at their daily limit.
    unified_settings_update(site=berlin.site, changes={"publishing_settings": {"publish_days": ["mon"], "daily_publish_limit": 0, "weekly_publish_limit": 0, "monthly_publish_limit": 0}})
    filler_days = [monday - timedelta(weeks=weeks) for weeks in range(1, 60) if (monday - timedelta(weeks=weeks)).date() > timezone.now().date()]
    for day in filler_days:
        for hour in (9, 14, 18):
            filler = make_content(berlin, status=ContentStatus.APPROVED, title=f"Filler {day.date()} {hour}")
            Content.objects.for_account(berlin.account).filter(pk=filler.pk).update(site_status=SiteStatus.SCHEDULED, scheduled_publish_at=in_zone(berlin.site, day.year, day.month, day.day, hour))

    assert owner_client.post(f"/app/content/{content.pk}/schedule/", {"when": "next"}).status_code == 302
    content.refresh_from_db()
    assert content.scheduled_publish_at == in_zone(berlin.site, monday.year, monday.month, monday.day, 14)


def test_a_scheduled_article_moves_and_comes_off_the_schedule(owner_client, berlin):
    monday = next_year_monday()
    content = make_content(berlin, status=ContentStatus.APPROVED)
    owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": monday.strftime("%Y-%m-%dT09:00")})
    owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": (monday + timedelta(days=2)).strftime("%Y-%m-%dT18:00")})
    content.refresh_from_db()
    moved_day = (monday + timedelta(days=2)).date()
    assert content.scheduled_publish_at == in_zone(berlin.site, moved_day.year, moved_day.month, moved_day.day, 18)
    html = calendar(owner_client, berlin.site, view="week", date=moved_day.isoformat())
    assert content.title in day_cell(html, moved_day.isoformat()) and content.title not in day_cell(html, monday.date().isoformat())

    response = owner_client.post(f"/app/content/{content.pk}/unschedule/", {"view": "week", "date": moved_day.isoformat()})
    assert response.status_code == 302 and f"date={moved_day.isoformat()}" in response.headers["Location"]
    content.refresh_from_db()
    assert (content.site_status, content.scheduled_publish_at) == (SiteStatus.NOT_PUBLISHED, None)
    assert content.title not in calendar(owner_client, berlin.site, view="week", date=moved_day.isoformat()).split('id="ready-h"')[0]


def test_only_approved_content_is_scheduled(owner_client, berlin):
    draft = make_content(berlin, status=ContentStatus.DRAFT)
    for data in ({"when": "next"}, {"at": next_year_monday().strftime("%Y-%m-%dT09:00")}):
        response = owner_client.post(f"/app/content/{draft.pk}/schedule/", data)
        assert response.status_code == 409
        assert "Only approved content can be published or scheduled" in response.content.decode()
    draft.refresh_from_db()
    assert draft.site_status == SiteStatus.NOT_PUBLISHED
    assert draft.title not in calendar(owner_client, berlin.site)


def test_a_site_without_a_cms_cannot_schedule(owner_client, berlin):
    content = make_content(berlin, status=ContentStatus.APPROVED)
    berlin.site.integrations.all().delete()
    response = owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": next_year_monday().strftime("%Y-%m-%dT09:00")})
    assert response.status_code == 409 and "no active CMS integration" in response.content.decode()


@pytest.mark.parametrize("at", ["", "tomorrow", "2026-13-40T09:00", "2020-01-06T09:00"], ids=["empty", "words", "no-such-day", "past"])
def test_a_time_that_is_not_one_or_is_past_is_a_400(owner_client, berlin, at):
    content = make_content(berlin, status=ContentStatus.APPROVED)
    response = owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": at})
    assert response.status_code == 400
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED


def test_a_published_item_links_to_its_post_and_a_failed_one_shows_the_cms_reason_and_the_next_retry(owner_client, berlin):
    now = timezone.now()
    published = make_content(berlin, status=ContentStatus.PUBLISHED, title="Live one", site_status=SiteStatus.PUBLISHED, published_at=now, external_url="https://blog.example.com/live-one/")
    retry_at = now + timedelta(minutes=2)
    retrying = make_content(berlin, status=ContentStatus.APPROVED, title="Retrying one", site_status=SiteStatus.SCHEDULED, scheduled_publish_at=retry_at)
    failed = make_content(berlin, status=ContentStatus.APPROVED, title="Failed one", site_status=SiteStatus.FAILED, scheduled_publish_at=now - timedelta(minutes=5))
    for content, error, code, retry in ((retrying, "WordPress is down for maintenance", "cms_unavailable", retry_at), (failed, "Sorry, you are not allowed to create posts as this user.", "cms_forbidden", None)):
        PublishingRecord.objects.create(
            account=berlin.account, site=berlin.site, content=content, platform="wordpress", trigger=PublishTrigger.SCHEDULED, status=PublishStatus.FAILED, error=error, error_code=code, retry_at=retry
        )

    html = calendar(owner_client, berlin.site, view="week")
    assert re.search(r'<a class="cal-item__post" href="https://blog.example.com/live-one/">Live one', html)
    retry_block = item_block(html, retrying.pk)
    assert "WordPress is down for maintenance" in retry_block
    local_retry = retry_at.astimezone(ZoneInfo("Europe/Berlin"))
    assert f'Next retry: <time datetime="{retry_at.isoformat()}">{local_retry:%a} {local_retry.day} {local_retry:%b %H:%M %Z}</time>' in retry_block
    failed_block = item_block(html, failed.pk)
    assert "Sorry, you are not allowed to create posts as this user." in failed_block and "No retry planned" in failed_block
    assert published.pk and "Failed one" in html.split('id="ready-h"')[1]  # failed and approved: it may be scheduled again


def test_a_chosen_item_shows_its_actions_to_writers_and_none_to_viewers(owner_client, console_client, berlin):
    monday = next_year_monday()
    content = make_content(berlin, status=ContentStatus.APPROVED, title="To be moved")
    owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": monday.strftime("%Y-%m-%dT14:00")})
    query = {"view": "week", "date": monday.date().isoformat(), "item": str(content.pk)}
    panel = calendar(owner_client, berlin.site, **query).split('id="item-panel"')[1].split("</section>")[0]
    assert f'value="{monday:%Y-%m-%d}T14:00"' in panel
    for action in ("schedule", "unschedule", "publish"):
        assert f'action="/app/content/{content.pk}/{action}/"' in panel
    SiteUserAccess.objects.create(account=berlin.account, user=berlin.viewer, site=berlin.site)
    viewer_page = calendar(console_client(berlin.viewer), berlin.site, **query)
    assert 'id="item-panel"' in viewer_page and 'method="post"' not in viewer_page.split("</header>")[1].replace('action="/app/signout/"', "")


def test_a_busy_day_lists_a_few_items_and_links_to_the_day_with_the_rest(owner_client, berlin):
    monday = next_year_monday()
    for minute in range(7):
        content = make_content(berlin, status=ContentStatus.APPROVED, title=f"Busy {minute}")
        Content.objects.for_account(berlin.account).filter(pk=content.pk).update(site_status=SiteStatus.SCHEDULED, scheduled_publish_at=in_zone(berlin.site, monday.year, monday.month, monday.day, 9, minute))
    month = day_cell(calendar(owner_client, berlin.site, view="month", date=monday.date().isoformat()), monday.date().isoformat())
    assert month.count("cal-item ") == 4 and f'href="?view=day&amp;date={monday.date().isoformat()}">3 more' in month
    day = calendar(owner_client, berlin.site, view="day", date=monday.date().isoformat())
    assert day.count("cal-item ") == 7 and "more on" not in day


def test_a_day_at_its_limit_offers_no_free_slot(owner_client, berlin):
    monday = next_year_monday()
    unified_settings_update(site=berlin.site, changes={"publishing_settings": {"daily_publish_limit": 1}})
    content = make_content(berlin, status=ContentStatus.APPROVED)
    owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": monday.strftime("%Y-%m-%dT09:00")})
    html = calendar(owner_client, berlin.site, view="week", date=monday.date().isoformat())
    cell = day_cell(html, monday.date().isoformat())
    assert "1/1" in cell and "limit reached" in cell and "cal-slot--free" not in cell
    assert "cal-slot--free" in day_cell(html, (monday + timedelta(days=1)).date().isoformat())


def test_the_month_view_shows_the_weeks_the_month_touches(owner_client, berlin):
    html = calendar(owner_client, berlin.site, view="month", date="2027-02-10")
    days = re.findall(r'data-day="([\d-]+)"', html)
    # February 2027 starts on a Monday and ends on a Sunday: exactly four weeks.
    assert days[0] == "2027-02-01" and days[-1] == "2027-02-28" and len(days) == 28
    assert "February 2027" in html


def test_a_date_that_is_not_one_shows_today(owner_client, berlin):
    html = calendar(owner_client, berlin.site, view="week", date="not-a-date")
    assert timezone.now().astimezone(ZoneInfo("Europe/Berlin")).date().isoformat() in html


@pytest.mark.parametrize(
    ("time_zone", "week", "placed"),
    [
        # New York falls back on Sunday 1 November 2026 at 02:00 EDT (06:00 UTC) to 01:00 EST.
        (
            "America/New_York",
            "2026-10-26",
            [
                ("2026-10-31", "23:30 EDT", datetime(2026, 11, 1, 3, 30, tzinfo=UTC)),  # already Sunday in UTC
                ("2026-11-01", "01:30 EDT", datetime(2026, 11, 1, 5, 30, tzinfo=UTC)),  # the first 01:30
                ("2026-11-01", "01:30 EST", datetime(2026, 11, 1, 6, 30, tzinfo=UTC)),  # the second 01:30
                ("2026-11-01", "09:00 EST", datetime(2026, 11, 1, 14, 0, tzinfo=UTC)),
                ("2026-10-30", "09:00 EDT", datetime(2026, 10, 30, 13, 0, tzinfo=UTC)),
            ],
        ),
        # Berlin falls back on Sunday 25 October 2026 at 03:00 CEST (01:00 UTC) to 02:00 CET.
        (
            "Europe/Berlin",
            "2026-10-19",
            [
                ("2026-10-24", "23:30 CEST", datetime(2026, 10, 24, 21, 30, tzinfo=UTC)),
                ("2026-10-25", "00:30 CEST", datetime(2026, 10, 24, 22, 30, tzinfo=UTC)),  # still Saturday in UTC
                ("2026-10-25", "09:00 CET", datetime(2026, 10, 25, 8, 0, tzinfo=UTC)),
                ("2026-10-23", "09:00 CEST", datetime(2026, 10, 23, 7, 0, tzinfo=UTC)),
            ],
        ),
    ],
    ids=["new-york", "berlin"],
)
def test_across_a_daylight_saving_change_items_are_on_their_local_day_and_hour(console_client, tenant, time_zone, week, placed):
    tenant.site.time_zone = time_zone
    tenant.site.save()
    client = console_client(tenant.owner)
    for day, shown, at in placed:
        make_content(tenant, status=ContentStatus.PUBLISHED, title=f"Published {shown} on {day}", site_status=SiteStatus.PUBLISHED, published_at=at, external_url="https://blog.example.com/p/")

    html = calendar(client, tenant.site, view="week", date=week)
    for day, shown, _ in placed:
        cell = day_cell(html, day)
        assert re.search(rf"{shown}</time>\s*<a[^>]*>Published {shown} on {day}<", cell), f"{shown} on {day} is not in its day:\n{cell}"


def test_a_script_link_stored_before_the_rule_is_not_rendered_on_the_calendar(owner_client, berlin):
    content = make_content(berlin, status=ContentStatus.PUBLISHED, title="Live one", site_status=SiteStatus.PUBLISHED, published_at=timezone.now(), external_url="javascript:alert(document.cookie)")

    week = owner_client.get(f"/app/sites/{berlin.site.pk}/calendar/", {"view": "week"}).content.decode()
    chosen = owner_client.get(f"/app/sites/{berlin.site.pk}/calendar/", {"view": "week", "item": content.pk}).content.decode()

    assert "Live one" in week
    assert "javascript:" not in week and "javascript:" not in chosen


def test_a_time_outside_the_publishing_rules_is_refused_with_a_readable_message_and_schedule_anyway_is_a_recorded_override(owner_client, berlin):
    """Issue 30, case 4: Saturday 11:30 was accepted ("Scheduled.") while the same calendar column
    said "No publishing on this day". Contract section 12: refused, unless overridden explicitly."""
    from inkwell.publishing.models import ScheduleOverride

    content = make_content(berlin, status=ContentStatus.APPROVED)
    saturday = next_year_monday() + timedelta(days=5)
    at = saturday.strftime("%Y-%m-%dT11:30")

    refused = owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": at, "view": "week", "date": saturday.date().isoformat()})

    assert refused.status_code == 409
    page = refused.content.decode()
    assert "Outside the publishing rules: Saturday is not a publishing day of this site" in page
    assert "Schedule anyway" in page and 'name="override_rules" value="1"' in page and f'name="at" value="{at}"' in page
    assert 'id="calendar-zone"' in page  # the calendar again, not a page of its own
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED

    anyway = owner_client.post(f"/app/content/{content.pk}/schedule/", {"at": at, "view": "week", "date": saturday.date().isoformat(), "override_rules": "1"})

    assert anyway.status_code == 302
    content.refresh_from_db()
    assert (content.site_status, content.scheduled_publish_at) == (SiteStatus.SCHEDULED, in_zone(berlin.site, saturday.year, saturday.month, saturday.day, 11, 30))
    [override] = ScheduleOverride.objects.for_account(berlin.account).filter(content=content)
    assert (override.rule, override.created_by) == ("Saturday is not a publishing day of this site", berlin.owner)
