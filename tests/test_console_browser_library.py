"""The keywords library's selection in a real browser, against gunicorn (issue 30, case 10): ticks
on one page survive paging and filtering, the action bar says how many are selected across them,
the review takes them all, and "Clear the selection" unticks everything.

Screenshots go under ``$TEST_OUTPUT_DIR/console/`` (``library-*.png``), each screen checked with
axe-core (no serious or critical violation) in light and dark mode, and no CSP refusal.
"""

import re

import pytest

from tests import test_console_browser as part_one
from tests.live_server import gunicorn_server, manage, server_environment
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, output_dir, press, type_into  # noqa: F401  (fixtures)

chromium_path, browser = part_one.chromium_path, part_one.browser

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

EMAIL = "library@example.com"
SETUP = f"""
from types import SimpleNamespace
from inkwell.keywords.stats import refresh_library_stats
from inkwell.planner.tests.factories import make_sector, make_seed_keywords
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Site

owner = tenancy.account_register(email="{EMAIL}", password="{PASSWORD}", account_name="Trail Press")
site = Site.objects.create(account=owner.account, name="Trail", domain="trail.example.com", slug="trail")
sector = make_sector(SimpleNamespace(account=owner.account, site=site), site=site)
make_seed_keywords(sector.industry_sector, texts=[f"{{'trail' if n % 12 == 0 else 'road'}} running shoes {{n:02d}}" for n in range(60)])
refresh_library_stats([sector.industry_sector_id])
print(site.pk)
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env:
        site_id = int(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
        with gunicorn_server(env) as server:
            yield server, site_id


def _count(page) -> str:
    return page.locator("#library-selection [data-selected-count]").inner_text()


def _wait_for_count(page, text: str) -> None:
    page.locator("#library-selection [data-selected-count]", has_text=re.compile(rf"^{text}$")).wait_for()


def test_ticks_survive_paging_and_filtering_and_the_selection_is_cleared(browser, deployment, output_dir):  # noqa: F811
    server, site_id = deployment
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    screens = Screens(page, output_dir, server.base_url)

    page.goto(server.base_url + "/app/signin/")
    type_into(page.get_by_label("Email"), EMAIL)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_role("button", name="Sign in"))
    page.wait_for_url(re.compile(r".*/app/(?!signin).*"))
    page.goto(server.base_url + f"/app/sites/{site_id}/library/")
    assert _count(page) == "None selected"

    boxes = page.locator("#results tbody input[type=checkbox]")
    press(boxes.nth(0), "Space")
    press(boxes.nth(1), "Space")
    _wait_for_count(page, "2 selected")

    press(page.get_by_role("link", name="Next"))
    page.wait_for_url("**page=2*")
    page.locator(".pager__where", has_text="Page 2 of 2").wait_for()
    assert _count(page) == "2 selected"
    press(page.locator("#results tbody input[type=checkbox]").nth(0), "Space")
    _wait_for_count(page, "3 selected")
    screens.capture("library-01-selection-across-pages")

    type_into(page.get_by_label("Search"), "trail")
    page.wait_for_url("**search=trail*")
    page.locator("#results tbody tr").first.wait_for()
    page.wait_for_load_state("networkidle")
    assert _count(page) == "3 selected"
    assert page.locator("#results tbody tr").count() == 5

    page.get_by_label("Search").fill("")
    press(page.get_by_label("Search"))
    page.wait_for_url(re.compile(r".*/library/\?(?!.*search=trail).*$"))
    page.wait_for_load_state("networkidle")
    boxes = page.locator("#results tbody input[type=checkbox]")
    assert [boxes.nth(index).is_checked() for index in range(3)] == [True, True, False]
    assert _count(page) == "3 selected"

    press(page.get_by_role("button", name="Review the selection"))
    page.locator("#selection-review form").wait_for()
    assert "Add 3 keywords" in page.locator("#selection-review").inner_text()
    screens.capture("library-02-review-of-the-whole-selection")

    press(page.get_by_role("button", name="Clear the selection"))
    _wait_for_count(page, "None selected")
    assert page.locator("#results tbody input[type=checkbox]:checked").count() == 0
    assert page.get_by_role("button", name="Clear the selection").count() == 0
    screens.capture("library-03-cleared")

    page.emulate_media(color_scheme="dark")
    screens.capture("library-04-cleared-dark")
    screens.save("library-axe.json")
    assert not screens.serious(), screens.serious()
    assert not screens.policy_violations, screens.policy_violations
    context.close()
