"""The console's Automation and Credits screens in a real browser, against gunicorn and a Celery
worker, with the offline ``local`` AI provider: the configuration form (a field error, then a
saved change), a start refused for want of credits, a run started from the form, paused and
resumed on its live page and followed to its completed view, the run history, and the credits
screen with its chart.

Screenshots go to ``$TEST_OUTPUT_DIR/console/`` (test-output/ by default), console-run.png among
them for the README (docs/console-run.png); every screen is
checked with axe-core (no serious or critical violation) and no request may leave the origin.
"""

import json

import pytest

from tests import test_console_browser as part_one
from tests.live_server import celery_worker, gunicorn_server, manage, server_environment
from tests.test_console_browser import JOB_TIMEOUT_MS, PASSWORD, TIMEOUT_MS, Screens, press, type_into

# The browser, its executable and the screenshot folder are part 1's fixtures, shared.
chromium_path, browser, output_dir = part_one.chromium_path, part_one.browser, part_one.output_dir

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

EMAIL = "automation-lead@example.com"
SETUP = f"""
from types import SimpleNamespace
from inkwell.automation.tests.pipeline_data import add_keywords, fund, quick_settings
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Plan, Site, Subscription

owner = tenancy.account_register(email="{EMAIL}", password="{PASSWORD}", account_name="Trail Notes")
Subscription.objects.for_account(owner.account).update(plan=Plan.objects.get(slug="scale"))
site = Site.objects.create(account=owner.account, name="Trail Notes", domain="trailnotes.example.com", slug="trail-notes", time_zone="Europe/Berlin")
tenant = SimpleNamespace(account=owner.account, owner=owner, site=site)
add_keywords(tenant, 10)
quick_settings(tenant)
fund(owner.account, 2)
"""
FUND = f"""
from inkwell.automation.tests.pipeline_data import fund
from inkwell.tenancy.models import User
fund(User.dangerously_unscoped.get(email="{EMAIL}").account, 5000)
"""
RUN_TIMEOUT_MS = 180_000


@pytest.fixture(scope="module")
def deployment():
    """gunicorn and a Celery worker on one fresh deployment, with an account whose site has keywords."""
    with server_environment(RATE_LIMIT_AUTH="1000") as env:
        manage(env, "shell", "-c", SETUP)
        with celery_worker(env, beat=False), gunicorn_server(env) as server:
            yield env, server


def site_id(page) -> str:
    """The site the header's workspace tabs are for."""
    return page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Automation").get_attribute("href").split("/")[3]


def run_status(page) -> str:
    return page.locator("#run-live").get_attribute("data-status")


def wait_for_status(page, status: str, timeout: int = JOB_TIMEOUT_MS) -> None:
    """The live view shows ``status`` (it reloads the page itself when the status changes)."""
    page.wait_for_function(f"() => {{ const live = document.querySelector('#run-live'); return live && live.dataset.status === '{status}'; }}", timeout=timeout)
    page.wait_for_load_state("networkidle")


def test_an_automation_run_from_the_configuration_form_to_its_completed_view_with_a_pause_and_a_resume(browser, deployment, output_dir):
    env, server = deployment
    base = server.base_url
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    screens = Screens(page, output_dir, base)

    page.goto(base + "/app/signin/")
    type_into(page.get_by_label("Email"), EMAIL)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_role("button", name="Sign in"))
    page.wait_for_url("**/keywords/")

    # The configuration form: a field error first, then a saved change.
    press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Automation"))
    page.wait_for_url("**/automation/")
    assert "Europe/Berlin" in page.locator(".page-head").inner_text()
    screens.capture("40-automation")
    type_into(page.get_by_label("Stage 2 batch size"), "0")
    press(page.get_by_role("button", name="Save the configuration"))
    page.get_by_text("Ensure this value is greater than or equal to 1.").wait_for()
    screens.capture("41-automation-field-error")
    type_into(page.get_by_label("Stage 2 batch size"), "1")
    for stage, share in ((1, "100"), (2, "0"), (4, "0")):
        type_into(page.get_by_label(f"Stage {stage} budget percent"), share)
    # A second between items leaves time to pause the run while it works.
    type_into(page.get_by_label("Between items (seconds)"), "1")
    type_into(page.get_by_label("Between stages (seconds)"), "1")
    press(page.get_by_role("button", name="Save the configuration"))
    page.wait_for_url("**/automation/?saved=1")
    page.get_by_text("The configuration is saved.").wait_for()
    assert page.get_by_label("Stage 1 budget percent").input_value() == "100"
    estimate = int(page.locator("#estimate-credits").inner_text())
    assert estimate > 2 and page.locator("#estimate-balance").inner_text() == "2"

    # Two credits cannot pay for the run: the refusal says what it needs and what shrinks it.
    press(page.get_by_role("button", name="Run now"))
    page.locator("#refused").wait_for()
    assert f"This run needs {estimate} credits; you have 2 available." in page.locator("#refused").inner_text()
    screens.capture("42-automation-refused")

    manage(env, "shell", "-c", FUND)
    page.goto(page.url.removesuffix("run/"))
    assert page.locator("#estimate-balance").inner_text() == "5000"

    # Run now, pause while it works, resume, and follow it to its end.
    press(page.get_by_role("button", name="Run now"))
    page.wait_for_url("**/app/automation/runs/*/")
    wait_for_status(page, "running")
    screens.capture("43-automation-run-running")
    press(page.get_by_role("button", name="Pause"))
    wait_for_status(page, "paused")
    paused_items = int(page.locator("#run-items").inner_text())
    assert page.get_by_role("button", name="Resume").is_visible()
    screens.capture("44-automation-run-paused")
    page.wait_for_timeout(3000)
    page.reload()
    assert run_status(page) == "paused"
    assert int(page.locator("#run-items").inner_text()) <= paused_items + 1  # at most the item in hand was finished
    press(page.get_by_role("button", name="Resume"))
    wait_for_status(page, "completed", timeout=RUN_TIMEOUT_MS)
    assert int(page.locator("#run-items").inner_text()) > paused_items
    assert int(page.locator("#run-credits").inner_text().split()[0]) > 0
    assert page.locator("#run-stages tbody tr").count() == 7
    assert not page.get_by_role("button", name="Pause").count()
    screens.capture("45-automation-run-completed")
    run_url = page.url
    # The README's picture of a run (docs/console-run.png is a copy): the first screenful of it.
    page.screenshot(path=str(output_dir / "console-run.png"))
    assert "Run completed" in page.locator(".run-log").inner_text()

    press(page.get_by_role("link", name="Run history"))
    page.wait_for_url("**/automation/runs/")
    assert page.locator("#results tbody tr").count() == 1 and "Completed" in page.locator("#results").inner_text()
    screens.capture("46-automation-runs")

    # Credits and plan: the header's balance leads there; the chart is drawn from the vendored library.
    press(page.locator(".credits"))
    page.wait_for_url("**/app/credits/")
    page.locator("#usage-chart[data-drawn=true]").wait_for()
    assert page.locator("#transactions tbody tr").count() >= 2
    screens.capture("47-credits")

    # The same screens on a phone, 360 px wide: no sideways scrolling (wide tables scroll in their frame).
    phone = browser.new_context(viewport={"width": 360, "height": 780}, storage_state=context.storage_state())
    phone_page = phone.new_page()
    phone_screens = Screens(phone_page, output_dir, base)
    for name, url in (("automation", base + f"/app/sites/{site_id(page)}/automation/"), ("run", run_url), ("credits", base + "/app/credits/")):
        phone_page.goto(url)
        phone_screens.capture(f"48-phone-{name}")
        assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name} scrolls sideways at 360 px"
    phone.close()

    screens.report.update({f"phone {name}": items for name, items in phone_screens.report.items()})
    screens.save("axe-report-automation.json")
    assert not screens.serious(), f"axe found serious or critical violations: {json.dumps(screens.serious(), indent=1)}"
    assert not screens.foreign_requests + phone_screens.foreign_requests, "the console fetched from another host"
    context.close()
