"""The Performance screen in a real browser (issue #37): a site with live articles imports a
Search Console export through the screen's form, sees its totals chart, opportunities, decaying
articles and the due-for-review queue, starts a refresh from an opportunity and takes it to
approval, and reads an article's performance panel in the editor; in light and in dark mode.

Screenshots under ``$TEST_OUTPUT_DIR/console/`` (``50-…``), axe-core on every screen (no serious or
critical violation), the Performance screen also 360 px wide; any Content-Security-Policy refusal
fails the test. No request leaves the server's origin.
"""

import json
from pathlib import Path

import pytest

from tests.live_server import celery_worker, gunicorn_server, manage, server_environment

# The browser, Chromium and the screenshots' folder are the fixtures of the console's first browser test.
from tests.test_console_browser import (  # noqa: F401
    PASSWORD,
    TIMEOUT_MS,
    Screens,
    browser,
    chromium_path,
    output_dir,
    press,
    type_into,
)

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

EMAIL = "analyst@example.com"
EXPORTS = Path(__file__).resolve().parents[1] / "inkwell" / "performance" / "tests" / "exports"

# Three live articles of the site, and the August data the September export is compared with.
SEED = """
from datetime import date, timedelta
from django.utils import timezone
from inkwell.performance import services as performance
from inkwell.tenancy import services
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content
owner = services.account_register(email={email!r}, password={password!r}, account_name="Stride Media")
site = Site.objects.create(account=owner.account, name="Stride", domain="blog.example.com", slug="stride", time_zone="Europe/Berlin")
long_ago = timezone.now() - timedelta(days=420)
for slug, title, post_id, html, keyword in (
    ("running-shoes", "How to choose running shoes", "301", "<h2>Fit</h2><p>Try shoes on in the evening. The best running shoes fit at the end of the day.</p>", "best running shoes"),
    ("trail-running", "Trail running for beginners", "302", "<h2>Start slow</h2><p>Trail running tips: walk the climbs.</p>", "trail running tips"),
    ("marathon-taper", "Marathon taper", "303", "<h2>Rest</h2><p>Run less in the last three weeks.</p>", ""),
):
    Content.objects.create(account=owner.account, site=site, title=title, html=html, word_count=20, status="published", site_status="published",
        external_id=post_id, external_url=f"https://blog.example.com/{{slug}}/", published_at=long_ago, focus_keyword=keyword)
august = open({pages!r}, "rb").read().replace(b'"1,234"', b'"2,900"').replace(b'310,', b'900,')
performance.search_performance_import(account=owner.account, site=site, data=august, filename="Pages.csv", start_date=date(2026, 8, 1), end_date=date(2026, 8, 31), user=None)
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env, celery_worker(env, beat=False), gunicorn_server(env) as server:
        yield server, env


def _sign_in(page, base):
    page.goto(base + "/app/signin/")
    type_into(page.get_by_label("Email"), EMAIL)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))
    page.wait_for_url("**/keywords/")


def test_a_team_imports_search_console_data_and_acts_on_its_opportunities(browser, deployment, output_dir):  # noqa: F811
    server, env = deployment
    manage(env, "shell", "-c", SEED.format(email=EMAIL, password=PASSWORD, pages=str(EXPORTS / "Pages.csv")))
    base = server.base_url
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    screens = Screens(page, output_dir, base)
    _sign_in(page, base)

    # 1. The Performance screen before September's data: August alone, nothing to compare with.
    press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Performance"))
    page.wait_for_url("**/performance/")
    performance_url = page.url
    assert "Import a Search Console export" not in page.content()  # August is there, from the seed
    screens.capture("50-performance-august")

    # 2. A file of another shape is refused with its reason, and nothing is imported.
    page.get_by_label("Export file").set_input_files(str(EXPORTS / "Countries.csv"))
    page.get_by_label("First day").fill("2026-09-01")
    page.get_by_label("Last day").fill("2026-09-30")
    press(page.get_by_role("button", name="Import"))
    page.wait_for_load_state("networkidle")
    assert "not a Search Console Performance table" in page.content()
    screens.capture("51-performance-refused")
    page.go_back()
    page.wait_for_url("**/performance/")

    # 3. September's ZIP, as Search Console exports it.
    page.get_by_label("Export file").set_input_files(str(EXPORTS / "performance-on-search-2026-09.zip"))
    page.get_by_label("First day").fill("2026-09-01")
    page.get_by_label("Last day").fill("2026-09-30")
    press(page.get_by_role("button", name="Import"))
    page.wait_for_url("**/performance/?imported=37*")
    page.wait_for_function("() => document.getElementById('performance-chart').dataset.drawn === 'true'")
    striking = page.get_by_role("region", name="Striking distance", exact=True)
    assert "best running shoes" in striking.inner_text() and "trail running tips" in striking.inner_text()
    decaying = page.get_by_role("region", name="Decaying articles", exact=True)
    assert "Trail running for beginners" in decaying.inner_text()
    due = page.get_by_role("region", name="Due for review", exact=True)
    assert due.get_by_role("link").count() == 3
    press(page.locator("#imports summary").first)
    assert "https://blog.example.com/not-ours/" in page.locator("#imports").inner_text()
    screens.capture("52-performance-september")

    # 4. An opportunity becomes a refresh, which goes through review while the post stays live.
    press(striking.get_by_role("row").filter(has_text="trail running tips").get_by_role("button", name="Start a refresh"))
    page.wait_for_url("**/app/refreshes/*/")
    assert "Striking distance for “trail running tips”" in page.content()
    type_into(page.get_by_label("Title", exact=True), "Trail running for beginners: tips for the first month")
    press(page.get_by_role("button", name="Save"))
    page.wait_for_url("**/?saved=1")
    press(page.get_by_role("button", name="Send to review"))
    page.wait_for_load_state("networkidle")
    press(page.get_by_role("button", name="Approve"))
    page.wait_for_load_state("networkidle")
    assert page.get_by_role("button", name="Update the live post now").is_visible()
    screens.capture("53-refresh-approved")

    # 5. The article's own panel in the editor: its periods, change and queries, and its review date.
    page.goto(performance_url)
    press(page.get_by_role("region", name="Decaying articles", exact=True).get_by_role("link", name="Trail running for beginners"))
    page.wait_for_url("**/app/content/*/")
    editor_url = page.url
    page.wait_for_function("() => document.getElementById('article-performance-chart').dataset.drawn === 'true'")
    panel = page.locator("section[aria-labelledby=perf-h]")
    assert "trail running tips" in panel.inner_text().lower() and "Review by" in panel.inner_text()
    assert "Open the refresh" in panel.inner_text()
    screens.capture("54-editor-performance")

    # 6. The same screens in dark mode, and the Performance screen 360 px wide.
    dark = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    dark_page = dark.new_page()
    dark_page.set_default_timeout(TIMEOUT_MS)
    dark_screens = Screens(dark_page, output_dir, base)
    _sign_in(dark_page, base)
    dark_page.goto(performance_url)
    dark_page.wait_for_function("() => document.getElementById('performance-chart').dataset.drawn === 'true'")
    dark_screens.capture("55-performance-dark")
    dark_page.goto(editor_url)
    dark_screens.capture("56-editor-performance-dark")
    phone = browser.new_context(viewport={"width": 360, "height": 780})
    phone_page = phone.new_page()
    phone_page.set_default_timeout(TIMEOUT_MS)
    phone_screens = Screens(phone_page, output_dir, base)
    _sign_in(phone_page, base)
    phone_page.goto(performance_url)
    phone_screens.capture("57-performance-phone")

    report = {**screens.report, **dark_screens.report, **phone_screens.report}
    (output_dir / "axe-report-performance.json").write_text(json.dumps(report, indent=2))
    serious = {**screens.serious(), **dark_screens.serious(), **phone_screens.serious()}
    assert not serious, f"axe found serious or critical violations: {json.dumps(serious, indent=1)}"
    assert not (screens.foreign_requests + dark_screens.foreign_requests + phone_screens.foreign_requests)
    assert not (dark_screens.policy_violations + phone_screens.policy_violations)
