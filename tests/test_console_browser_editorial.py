"""The site's editorial screens in a real browser (issue 35): the brief rule and the quality
thresholds on the site's settings, the site's voice (proposed from its published posts, then
edited), and a task's brief (made, edited, approved), used from the keyboard. axe-core finds no serious or critical violation in light and in
dark mode, and the Content-Security-Policy refuses nothing. Screenshots under
``$TEST_OUTPUT_DIR/console/`` (``50-…`` to ``52-…``)."""

import json

import pytest

from tests.live_server import gunicorn_server, manage, server_environment
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

EMAIL = "editorial-owner@example.com"
SEED = """
from inkwell.tenancy import services
from inkwell.tenancy.models import Site
from inkwell.tenancy.models import IndustrySector, Sector
from inkwell.writer.models import Content, Task
owner = services.account_register(email={email!r}, password={password!r}, account_name="Roof Gardens")
site = Site.objects.create(account=owner.account, name="Roof", domain="roof.example.com", slug="roof")
Content.objects.create(
    account=owner.account, site=site, title="Roof tomatoes", status="published", site_status="published",
    html=(
        "<p>We grow our tomatoes on the roof in deep pots of rich compost. We water them at dawn and we feed them every week "
        "once the first flowers open. Our best crop came from plants we pinched back hard in early summer, and we keep doing that "
        "because the fruit ripens sooner on a plant that does not sprawl across the whole of the roof garden.</p>"
    ),
)
industry = IndustrySector.objects.order_by("id").first()
sector = Sector.objects.create(account=owner.account, site=site, industry_sector=industry, name=industry.name)
for title in ("Growing Tomatoes for Beginners", "Staking tomatoes"):
    Task.objects.create(account=owner.account, site=site, sector=sector, title=title, keywords=["growing tomatoes"], outline=["Choosing a Sunny Spot"], word_count=900)
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env, gunicorn_server(env) as server:
        manage(env, "shell", "-c", SEED.format(email=EMAIL, password=PASSWORD))
        yield server, env


def signed_in(browser, server, output_dir, scheme):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    screens = Screens(page, output_dir, server.base_url)
    page.goto(server.base_url + "/app/signin/")
    type_into(page.get_by_label("Email"), EMAIL)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))
    page.wait_for_url("**/keywords/")
    return context, page, screens


def test_the_brief_rule_and_thresholds_and_the_voice_are_set_from_the_keyboard_in_light_and_dark_mode(browser, deployment, output_dir):  # noqa: F811
    server, _env = deployment
    report = {}
    for scheme, reading_ease in (("light", "50"), ("dark", "55")):
        context, page, screens = signed_in(browser, server, output_dir, scheme)
        press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Site settings"))
        page.wait_for_url("**/settings/")
        section = page.locator("#editorial")
        brief = section.get_by_role("checkbox", name="Write drafts from an approved brief")
        if not brief.is_checked():
            press(brief, " ")
        type_into(section.get_by_label("Reading ease, at least"), reading_ease)
        press(section.get_by_role("button", name="Save briefs and thresholds"))
        page.wait_for_url("**saved=editorial*")
        assert page.locator("#editorial").get_by_role("checkbox", name="Write drafts from an approved brief").is_checked()
        assert page.locator("#editorial").get_by_label("Reading ease, at least").input_value() == f"{float(reading_ease)}"
        screens.capture(f"50-site-settings-editorial-{scheme}")

        press(page.get_by_role("navigation", name="Settings").get_by_role("link", name="Voice"))
        page.wait_for_url("**/voice/")
        press(page.get_by_role("button", name="Propose from 1 published post"))
        page.wait_for_url("**saved=proposed")
        assert page.get_by_text("The last proposal measured 1 post.").is_visible()
        assert page.get_by_label("Person").input_value() == "first"
        assert page.get_by_label("Example 1").input_value().startswith("We grow our tomatoes")
        type_into(page.get_by_label("Words to avoid"), "journey, delve")
        press(page.get_by_role("button", name="Save the voice"))
        page.wait_for_url("**saved=voice")
        assert page.get_by_label("Words to avoid").input_value() == "journey\ndelve"
        screens.capture(f"51-site-voice-{scheme}")
        report.update(screens.report)
        assert not screens.serious(), f"axe found serious or critical violations ({scheme}): {json.dumps(screens.serious(), indent=1)}"
        context.close()
    (output_dir / "axe-editorial.json").write_text(json.dumps(report, indent=2))


def test_a_tasks_brief_is_made_edited_and_approved_from_the_keyboard_in_light_and_dark_mode(browser, deployment, output_dir):  # noqa: F811
    server, _env = deployment
    report = {}
    for scheme, title in (("light", "Growing Tomatoes for Beginners"), ("dark", "Staking tomatoes")):
        context, page, screens = signed_in(browser, server, output_dir, scheme)
        press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Tasks"))
        page.wait_for_url("**/tasks/")
        press(page.get_by_role("link", name=f"Brief of {title}"))
        page.wait_for_url("**/brief/")
        press(page.get_by_role("button", name="Make the brief"))
        page.wait_for_url("**saved=made")
        type_into(page.get_by_label("Outline"), "Choosing a Sunny Spot\n### Balconies and Patios")
        type_into(page.get_by_label("Sources the writer must use"), "https://extension.example.org/tomatoes Watering guide")
        press(page.get_by_role("button", name="Save the brief"))
        page.wait_for_url("**saved=brief")
        assert page.get_by_label("Outline").input_value() == "Choosing a Sunny Spot\n### Balconies and Patios"
        assert page.get_by_text("Brief ready").first.is_visible()
        screens.capture(f"52-brief-ready-{scheme}")
        press(page.get_by_role("button", name="Approve the brief"))
        page.wait_for_url("**saved=approved")
        assert page.get_by_text("Brief approved").first.is_visible()
        press(page.get_by_role("link", name="Tasks").first)
        page.wait_for_url("**/tasks/")
        item = page.locator(".queue__item", has_text=title)
        assert item.get_by_text("Brief approved").is_visible()
        screens.capture(f"53-tasks-briefs-{scheme}")
        report.update(screens.report)
        assert not screens.serious(), f"axe found serious or critical violations ({scheme}): {json.dumps(screens.serious(), indent=1)}"
        context.close()
    (output_dir / "axe-brief.json").write_text(json.dumps(report, indent=2))
