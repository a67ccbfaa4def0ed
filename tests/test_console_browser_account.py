"""The settings and team screens in a real browser, against gunicorn: an owner sets up the site's
publishing and models, the account's AI provider (the key tested for real against the
OpenAI-compatible test server, then saved and shown masked), content settings, prompts and
modules; builds the team and an API key; then the person added sees the same screens read-only.

Screenshots go under ``$TEST_OUTPUT_DIR/console/`` (``account-*.png``) and every screen is checked
with axe-core: no serious or critical violation; the screens are checked 360 px wide too.
"""

import json
import re

import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY, OpenAICompatibleServer
from tests.live_server import gunicorn_server, server_environment
from tests.test_console_browser import TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

PASSWORD = "a long password"
WRONG_KEY = "sk-wrong-key-00000000000000000000"


@pytest.fixture(scope="module")
def provider():
    """The AI provider the account points at: the protocol-faithful OpenAI test server on loopback."""
    with OpenAICompatibleServer() as server:
        yield server


@pytest.fixture(scope="module")
def deployment():
    # The operator allows private endpoints: the provider of this test listens on loopback.
    with server_environment(RATE_LIMIT_AUTH="1000", AI_ALLOW_PRIVATE_ENDPOINTS="true") as env, gunicorn_server(env) as server:
        yield server


def _sign_up(page, base: str, email: str) -> None:
    page.goto(base + "/app/signup/")
    type_into(page.get_by_label("Team or company"), "Northwind Press")
    type_into(page.get_by_label("Email"), email)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))
    page.wait_for_url("**/app/sites/new/")
    type_into(page.get_by_label("Name"), "Northwind")
    type_into(page.get_by_label("Domain"), "northwind.example.com")
    page.get_by_label("Time zone").select_option("America/New_York")
    press(page.get_by_role("button", name="Continue"))
    page.wait_for_url("**/sectors/")


def test_an_owner_sets_up_the_account_and_its_team_and_a_viewer_reads_it(browser, deployment, provider, output_dir):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    base = deployment.base_url
    screens = Screens(page, output_dir, base)
    _sign_up(page, base, "owner@northwind.example")

    # 1. The site's settings: a refused save shows the API's message beside the field, then a save.
    press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Site settings"))
    page.wait_for_url("**/settings/")
    assert "America/New_York" in page.inner_text("main")
    screens.capture("account-01-site-settings")
    type_into(page.get_by_label("Per day"), "40")
    press(page.get_by_role("button", name="Save publishing"))
    page.get_by_text("The daily limit cannot be greater than the weekly limit").first.wait_for()
    assert page.locator(".field--invalid #id_daily_publish_limit").input_value() == "40"
    screens.capture("account-02-site-settings-refused")
    type_into(page.get_by_label("Per day"), "2")
    press(page.get_by_role("checkbox", name="Saturday"), "Space")
    page.get_by_label("Slot 4 starts").fill("20:30")
    press(page.get_by_role("button", name="Save publishing"))
    page.wait_for_url("**?saved=publishing")
    assert page.get_by_label("Per day").input_value() == "2"
    assert page.get_by_role("checkbox", name="Saturday").is_checked()
    assert page.get_by_label("Slot 4 starts").input_value() == "20:30"
    page.get_by_label("Live model").select_option(label="gpt-4o-mini · openai")
    press(page.get_by_role("button", name="Save models"))
    page.wait_for_url("**?saved=ai")
    assert page.get_by_label("Live model").locator("option:checked").inner_text() == "gpt-4o-mini · openai"

    # 2. The AI provider: a wrong key and the right one tested for real, then the key saved and masked.
    press(page.get_by_role("link", name="Settings", exact=True))
    page.wait_for_url("**/app/settings/")
    section = page.locator("#ai_provider")
    section.get_by_label("Provider", exact=True).select_option("openai")
    type_into(section.get_by_label("Endpoint"), provider.base_url)
    press(section.get_by_role("button", name="Save"))
    page.wait_for_url("**?saved=ai_provider*")
    section = page.locator("#ai_provider")
    type_into(section.get_by_label("API key of the AI provider"), WRONG_KEY)
    press(section.get_by_role("button", name="Test key"))
    section.get_by_text("The key did not work").wait_for()
    type_into(section.get_by_label("API key of the AI provider"), TEST_API_KEY)
    press(section.get_by_role("button", name="Test key"))
    section.get_by_text("The provider accepted the key").wait_for()
    screens.capture("account-03-key-tested")
    assert [request.headers.get("authorization") for request in provider.requests_to("models")][-2:] == [f"Bearer {WRONG_KEY}", f"Bearer {TEST_API_KEY}"]
    press(section.get_by_role("button", name="Save"))
    page.wait_for_url("**?saved=ai_provider*")
    assert page.locator("#ai_provider .mask").inner_text() == "…" + TEST_API_KEY[-4:]
    assert page.locator("#ai_provider").get_by_label("API key of the AI provider").input_value() == ""
    assert TEST_API_KEY not in page.content()
    screens.capture("account-04-providers")

    # 3. Content settings, prompts (own text, then back to the default), modules.
    press(page.get_by_role("navigation", name="Settings").get_by_role("link", name="Content"))
    page.wait_for_url("**/settings/content/")
    page.get_by_label("Tone").select_option("friendly")
    press(page.get_by_role("button", name="Save writing"))
    page.wait_for_url("**?saved=content_generation")
    assert page.get_by_label("Tone").input_value() == "friendly"
    screens.capture("account-05-content")
    press(page.get_by_role("navigation", name="Settings").get_by_role("link", name="Prompts"))
    page.wait_for_url("**/settings/prompts/")
    prompt = page.locator("#prompt-clustering")
    press(prompt.locator("summary"))
    text = prompt.get_by_role("textbox")
    text.focus()
    text.press("End")
    text.press("Control+End")
    text.press_sequentially("\nKeep cluster names short.")
    press(prompt.get_by_role("button", name="Save prompt"))
    page.wait_for_url("**?saved=clustering*")
    assert page.locator("#prompt-clustering .badge").inner_text() == "Your own"
    screens.capture("account-06-prompts")
    page.once("dialog", lambda dialog: dialog.accept())
    press(page.locator("#prompt-clustering").get_by_role("button", name="Reset to default"))
    page.wait_for_url("**?reset=clustering*")
    assert page.locator("#prompt-clustering .badge").inner_text() == "Default"
    press(page.get_by_role("navigation", name="Settings").get_by_role("link", name="Modules"))
    page.wait_for_url("**/settings/modules/")
    press(page.get_by_role("checkbox", name=re.compile("Optimizer")), "Space")
    press(page.get_by_role("button", name="Save modules"))
    page.wait_for_url("**?saved=1")
    assert not page.get_by_role("checkbox", name=re.compile("Optimizer")).is_checked()
    screens.capture("account-07-modules")

    # 4. The team: a person added as editor of the site, made a viewer.
    press(page.get_by_role("link", name="Team", exact=True))
    page.wait_for_url("**/app/team/")
    type_into(page.get_by_label("E-mail"), "reader@northwind.example")
    type_into(page.get_by_label("First name"), "Rea")
    type_into(page.get_by_label("First password"), PASSWORD)
    press(page.get_by_role("checkbox", name="Northwind"), "Space")
    screens.capture("account-08-team")
    press(page.get_by_role("button", name="Add to the team"))
    page.wait_for_url("**/app/team/users/*/?added=1")
    assert page.get_by_role("checkbox", name="Northwind").is_checked()
    press(page.get_by_role("radio", name=re.compile("^Viewer")), "Space")
    press(page.get_by_role("button", name="Change role"))
    page.wait_for_url("**?saved=role")
    assert page.get_by_role("radio", name=re.compile("^Viewer")).is_checked()
    screens.capture("account-09-team-person")

    # 5. An API key for one site: shown once, gone after a reload, then revoked.
    press(page.get_by_role("navigation", name="Team").get_by_role("link", name="API keys"))
    page.wait_for_url("**/team/api-keys/")
    type_into(page.get_by_label("Name"), "Newsletter bot")
    page.get_by_label("Scope").select_option(label="Only the site Northwind")
    press(page.get_by_role("button", name="Create key"))
    raw_key = page.get_by_label("New API key").input_value()
    assert re.fullmatch(r"iwk_[a-z0-9]{8}\.\S+", raw_key)
    screens.capture("account-10-api-key-created")
    page.goto(base + "/app/team/api-keys/")
    assert raw_key not in page.content()
    assert "Newsletter bot" in page.inner_text("main")
    screens.capture("account-11-api-keys")
    page.once("dialog", lambda dialog: dialog.accept())
    press(page.get_by_role("button", name="Revoke Newsletter bot"))
    page.wait_for_url("**?revoked=1")
    assert "Newsletter bot" not in page.inner_text("main")

    # 6. The viewer signs in: the same screens, read-only.
    reader = browser.new_context(viewport={"width": 1280, "height": 900})
    reader_page = reader.new_page()
    reader_page.set_default_timeout(TIMEOUT_MS)
    reader_screens = Screens(reader_page, output_dir, base)
    reader_page.goto(base + "/app/signin/")
    type_into(reader_page.get_by_label("Email"), "reader@northwind.example")
    type_into(reader_page.get_by_label("Password"), PASSWORD)
    press(reader_page.get_by_label("Password"))
    reader_page.wait_for_url(re.compile(r"/keywords/"))
    reader_page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Site settings").click()
    reader_page.wait_for_url("**/settings/")
    assert reader_page.get_by_role("button", name="Save publishing").count() == 0
    assert reader_page.get_by_label("Per day").is_disabled()
    reader_screens.capture("account-12-viewer-site-settings")
    reader_page.goto(base + "/app/settings/")
    assert reader_page.get_by_role("button", name="Test key").count() == 0
    assert "…" + TEST_API_KEY[-4:] in reader_page.inner_text("main") and TEST_API_KEY not in reader_page.content()
    reader_page.goto(base + "/app/team/api-keys/")
    assert "Only owners and admins see and manage API keys" in reader_page.inner_text("main")
    reader_screens.capture("account-13-viewer-api-keys")
    reader.close()

    # The same screens on a phone, 360 px wide.
    phone = browser.new_context(viewport={"width": 360, "height": 780}, storage_state=context.storage_state())
    phone_page = phone.new_page()
    phone_screens = Screens(phone_page, output_dir, base)
    for name, path in (("site-settings", "/app/"), ("providers", "/app/settings/"), ("team", "/app/team/")):
        phone_page.goto(base + path)
        if name == "site-settings":
            phone_page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Site settings").click()
            phone_page.wait_for_url("**/settings/")
        phone_screens.capture(f"account-14-phone-{name}")
        assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name} scrolls sideways at 360 px"
    phone.close()

    report = {**screens.report, **{f"viewer {name}": items for name, items in reader_screens.report.items()}, **{f"phone {name}": items for name, items in phone_screens.report.items()}}
    screens.report = report
    screens.save("axe-report-account.json")
    assert not screens.serious(), f"axe found serious or critical violations: {json.dumps(screens.serious(), indent=1)}"
    assert not screens.foreign_requests + reader_screens.foreign_requests + phone_screens.foreign_requests, "the console fetched from another host"
    context.close()
