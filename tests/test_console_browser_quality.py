"""The editor's quality highlights in a real browser (issue 35): each finding of the report is
marked in the article's text and its entry in the report links to the mark, from the keyboard;
axe-core finds no serious or critical violation in light and in dark mode, and the
Content-Security-Policy refuses nothing. Screenshots under ``$TEST_OUTPUT_DIR/console/`` (``40-…``)."""

import json

import pytest

from tests.live_server import gunicorn_server, manage, server_environment
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

EMAIL = "quality-editor@example.com"
SEED = """
from inkwell.tenancy import services
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content
owner = services.account_register(email={email!r}, password={password!r}, account_name="Balcony Gardens")
site = Site.objects.create(account=owner.account, name="Balcony", domain="balcony.example.com", slug="balcony")
Content.objects.create(
    account=owner.account, site=site, title="Growing Tomatoes for Beginners", focus_keyword="growing tomatoes",
    meta_title="Growing tomatoes for beginners", meta_description="Growing tomatoes on a balcony, from seed to harvest.",
    html=(
        "<p>Growing tomatoes for beginners starts with a sunny spot. Last spring our editor grew twelve varieties on a small balcony; "
        "here is what worked. You will find plenty of conflicting advice about tomatoes, so this guide sorts the useful from the noise. "
        "You will find plenty of conflicting advice about tomatoes, so this guide sorts the useful from the noise.</p>"
        "<h2>Growing tomatoes in pots</h2><p>Water the soil, not the leaves.</p>"
    ),
    word_count=70, status="review",
)
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env, gunicorn_server(env) as server:
        yield server, env


def test_the_editor_highlights_each_finding_and_its_list_leads_to_it_in_light_and_dark_mode(browser, deployment, output_dir):  # noqa: F811
    server, env = deployment
    manage(env, "shell", "-c", SEED.format(email=EMAIL, password=PASSWORD))
    report = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        screens = Screens(page, output_dir, server.base_url)
        page.goto(server.base_url + "/app/signin/")
        type_into(page.get_by_label("Email"), EMAIL)
        type_into(page.get_by_label("Password"), PASSWORD)
        press(page.get_by_label("Password"))
        page.wait_for_url("**/keywords/")
        press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Content"))
        press(page.get_by_role("link", name="Growing Tomatoes for Beginners"))
        page.wait_for_url("**/app/content/*/")

        marks = page.locator("mark.quality-mark")
        assert marks.count() == 2
        assert marks.nth(0).get_attribute("data-kind") == "unsupported_claim"
        assert marks.nth(0).inner_text().startswith("Last spring our editor grew twelve varieties")
        assert marks.nth(1).get_attribute("data-kind") == "repetition"
        assert page.get_by_text("Does not pass").is_visible()
        # The report's entry leads to its passage in the text.
        press(page.locator(".quality-finding a").first)
        page.wait_for_url("**#finding-1")
        assert page.evaluate("document.querySelector(':target').id") == "finding-1"
        screens.capture(f"40-editor-quality-{scheme}")
        report.update({f"{name}": items for name, items in screens.report.items()})
        assert not screens.serious(), f"axe found serious or critical violations ({scheme}): {json.dumps(screens.serious(), indent=1)}"
        context.close()
    (output_dir / "axe-quality.json").write_text(json.dumps(report, indent=2))
