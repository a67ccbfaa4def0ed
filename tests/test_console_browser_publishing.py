"""Publishing from the console in a real browser: connect the site to the real WordPress the test
suite starts, approve an article, schedule it in the calendar, and see the scheduler (Celery beat
sweeping due content every two seconds, with a worker) publish it; then follow the calendar's
link to the post on WordPress.

Screenshots under ``$TEST_OUTPUT_DIR/console/`` (``30-…``), axe-core on every screen (no serious
or critical violation), the calendar and the CMS page also 360 px wide. No request leaves the
server's origin until the test follows the link to WordPress.
"""

import json
import re
import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.live_server import celery_worker, gunicorn_server, manage, server_environment
# The browser, Chromium and the screenshots' folder are the fixtures of the console's first browser test.
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

TIME_ZONE = "America/New_York"
EMAIL = "publisher@example.com"
# The scheduler publishes within a sweep of the article's minute: at most about two minutes.
PUBLISH_TIMEOUT_SECONDS = 240

# The article to approve, and two whose publication failed earlier: one the scheduler retries
# in half an hour, one that will not be retried (so the calendar shows both with the CMS's reason).
SEED = """
from datetime import timedelta
from django.utils import timezone
from inkwell.publishing.models import PublishingRecord
from inkwell.sitesettings.tests import publish_any_time
from inkwell.tenancy import services
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content
owner = services.account_register(email={email!r}, password={password!r}, account_name="Harbour Press")
site = Site.objects.create(account=owner.account, name="Harbour", domain="harbour.example.com", slug="harbour", time_zone={time_zone!r})
publish_any_time(site)  # a minute ahead, whatever the day: the publishing rules are not this test's subject
Content.objects.create(account=owner.account, site=site, title={title!r}, html="<h2>Tides</h2><p>Read the tide table before you sail.</p>", word_count=8, status="draft")
now = timezone.now()
for title, site_status, at, retry_at, error, code in (
    ("Knots every sailor needs", "scheduled", now + timedelta(minutes=30), now + timedelta(minutes=30), "WordPress answered 503: the site is in maintenance mode", "cms_unavailable"),
    ("Winter mooring checklist", "failed", now - timedelta(hours=3), None, "Sorry, you are not allowed to create posts as this user.", "cms_forbidden"),
):
    content = Content.objects.create(account=owner.account, site=site, title=title, html="<p>Soon.</p>", word_count=1, status="approved", site_status=site_status, scheduled_publish_at=at)
    PublishingRecord.objects.create(account=owner.account, site=site, content=content, platform="wordpress", trigger="scheduled", status="failed", error=error, error_code=code, retry_at=retry_at, finished_at=now)
"""


@pytest.fixture(scope="module")
def deployment():
    """gunicorn, and a Celery worker with beat sweeping due content every two seconds."""
    with server_environment(RATE_LIMIT_AUTH="1000", CMS_ALLOW_PRIVATE_URLS="1", PUBLISH_SWEEP_SECONDS="2") as env, celery_worker(env, beat=True), gunicorn_server(env) as server:
        yield server, env


def test_an_approved_article_is_scheduled_in_the_calendar_and_the_scheduler_publishes_it_to_wordpress(browser, deployment, output_dir, wordpress):  # noqa: F811
    title = f"Reading the tides {uuid.uuid4().hex[:6]}"
    server, env = deployment
    manage(env, "shell", "-c", SEED.format(email=EMAIL, password=PASSWORD, time_zone=TIME_ZONE, title=title))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    base = server.base_url
    screens = Screens(page, output_dir, base)

    page.goto(base + "/app/signin/")
    type_into(page.get_by_label("Email"), EMAIL)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))
    page.wait_for_url("**/keywords/")
    workspace = page.get_by_role("navigation", name="Workspace")

    # 1. The CMS: an address that does not answer says so; then the real WordPress connects.
    press(workspace.get_by_role("link", name="CMS"))
    page.wait_for_url("**/cms/")
    screens.capture("30-cms-connect")
    type_into(page.get_by_label("WordPress address"), "http://127.0.0.1:9")
    type_into(page.get_by_label("User name"), wordpress.user)
    type_into(page.get_by_label("Application password"), wordpress.app_password)
    press(page.get_by_role("button", name="Connect WordPress and test"))
    page.get_by_text("WordPress could not be reached at this address").wait_for()
    screens.capture("31-cms-unreachable")
    press(page.get_by_text("Change the address, user or application password"))
    type_into(page.get_by_label("WordPress address"), wordpress.url)
    press(page.get_by_role("button", name="Save and test"))
    page.locator("#connection-result").get_by_text("Connected", exact=True).wait_for()
    press(page.get_by_role("button", name="Read the content types"))
    page.get_by_text(re.compile(r"Read \d+ content types")).wait_for()
    page.once("dialog", lambda dialog: dialog.accept())
    press(page.get_by_role("button", name="Set up the webhook"))
    page.get_by_label("wp-config.php").wait_for()
    assert "INKWELL_WEBHOOK_SECRET" in page.get_by_label("wp-config.php").input_value()
    screens.capture("32-cms-connected")

    # 2. The article: send to review, approve.
    press(workspace.get_by_role("link", name="Content"))
    press(page.get_by_role("link", name=title))
    page.wait_for_url("**/app/content/*/")
    press(page.get_by_role("button", name="Send to review"))
    page.wait_for_load_state("networkidle")
    press(page.get_by_role("button", name="Approve"))
    page.wait_for_load_state("networkidle")
    assert page.locator(".editor__side .badge").first.inner_text() == "Approved"

    # 3. The calendar, in the site's time zone: schedule it a minute or two ahead.
    press(workspace.get_by_role("link", name="Calendar"))
    page.wait_for_url("**/calendar/")
    assert TIME_ZONE in page.locator("#calendar-zone").inner_text()
    screens.capture("33-calendar-month")
    at = (datetime.now(ZoneInfo(TIME_ZONE)) + timedelta(seconds=70)).replace(second=0, microsecond=0) + timedelta(minutes=1)
    ready = page.locator(".cal-ready", has_text=title)
    ready.get_by_label(re.compile("Date and time")).fill(at.strftime("%Y-%m-%dT%H:%M"))
    press(ready.get_by_role("button", name="Schedule", exact=True))
    page.wait_for_url("**scheduled=*")
    item = page.locator(f'[data-day="{at.date().isoformat()}"] .cal-item', has_text=title)
    assert item.locator("time").inner_text() == at.strftime("%H:%M %Z")
    assert "Scheduled" in item.inner_text()
    retrying = page.locator(".cal-item--retrying", has_text="Knots every sailor needs")
    assert "WordPress answered 503" in retrying.inner_text() and "Next retry:" in retrying.inner_text()
    press(item.get_by_role("link", name=title))
    panel = page.locator("#item-panel")
    assert panel.get_by_label(re.compile("Move to")).input_value() == at.strftime("%Y-%m-%dT%H:%M")
    assert panel.get_by_role("button", name="Unschedule").count() == 1 and panel.get_by_role("button", name="Publish now").count() == 1
    screens.capture("34-calendar-week-scheduled")

    # 4. The scheduler publishes it; the calendar links to the post.
    post_link = page.locator(f'[data-day="{at.date().isoformat()}"] a.cal-item__post', has_text=title)
    deadline = datetime.now().timestamp() + PUBLISH_TIMEOUT_SECONDS
    while post_link.count() == 0:
        assert datetime.now().timestamp() < deadline, "the scheduler did not publish the article in time"
        page.wait_for_timeout(3000)
        page.reload()
    screens.capture("35-calendar-week-published")
    press(page.get_by_role("link", name="Month", exact=True))
    page.wait_for_url("**view=month*")
    screens.capture("36-calendar-month-published")

    # The same screens on a phone, 360 px wide.
    phone = browser.new_context(viewport={"width": 360, "height": 780}, storage_state=context.storage_state())
    phone_page = phone.new_page()
    phone_screens = Screens(phone_page, output_dir, base)
    for name, path in (("calendar", page.url), ("cms", page.url.split("/calendar/")[0] + "/cms/")):
        phone_page.goto(path)
        phone_screens.capture(f"37-phone-{name}")
        assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name} scrolls sideways at 360 px"
    phone.close()

    screens.report.update({f"phone {name}": items for name, items in phone_screens.report.items()})
    screens.save("axe-report-publishing.json")
    assert not screens.serious(), f"axe found serious or critical violations: {json.dumps(screens.serious(), indent=1)}"
    assert not screens.foreign_requests + phone_screens.foreign_requests, "the console fetched from another host"

    # 5. Follow the link to the post on WordPress.
    press(page.get_by_role("link", name=re.compile(re.escape(title))))
    page.wait_for_url(wordpress.url + "/**")
    assert title in page.title() or page.get_by_text(title).count() > 0
    context.close()
