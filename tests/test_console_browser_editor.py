"""An editor's work is never lost (issue #29, cases 1 to 3), in a real browser against gunicorn.

1. A refused save (the editor with a blank title, the first-site form, the calendar's Move to a
   past time) shows the same page again with everything typed, the message beside its field and a
   summary at the top linking to it.
2. The editor warns before leaving with unsaved changes, saves on Ctrl+S, and autosaves: the work
   of a tab left without saving is offered back when the article is opened again.
3. Two people edit one article: the later save is refused, both versions are shown side by side,
   and the editor keeps theirs (the other's stays under Revisions) or takes the other's (theirs is
   kept as an autosave).

Screenshots under ``$TEST_OUTPUT_DIR/console/`` (``70-…``), axe-core on the changed screens in
light and dark mode (no serious or critical violation); the Content-Security-Policy refuses
nothing (``Screens``).
"""

import re

import pytest

from tests.live_server import gunicorn_server, manage, server_environment
# The browser, Chromium and the screenshots' folder are the fixtures of the console's first browser test.
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

OWNER = "lead@example.com"
EDITOR = "writer@example.com"
SEED = """
from datetime import timedelta
from zoneinfo import ZoneInfo
from django.utils import timezone
from inkwell.integration.models import SiteIntegration
from inkwell.tenancy import services
from inkwell.tenancy.models import Role, Site, SiteUserAccess, User
from inkwell.writer.models import Content
owner = services.account_register(email={owner!r}, password={password!r}, account_name="Allotment Press")
editor = User.dangerously_unscoped.create_user({editor!r}, {password!r}, account=owner.account, role=Role.objects.get(name="editor"), first_name="Wren")
site = Site.objects.create(account=owner.account, name="Allotment", domain="allotment.example.com", slug="allotment", time_zone="Europe/Berlin")
SiteUserAccess.objects.create(account=owner.account, user=editor, site=site)
SiteIntegration.objects.create(account=owner.account, site=site, base_url="https://allotment.example.com", username="editor", app_password="abcd EFGH ijkl MNOP qrst UVWX", webhook_secret="secret-allotment")
body = "<h2>Soil</h2><p>Tomatoes like deep, warm soil.</p><h2>Water</h2><p>Water them at the root.</p>"
article = Content.objects.create(account=owner.account, site=site, title="Growing tomatoes", html=body, excerpt="The old excerpt", word_count=14)
shared = Content.objects.create(account=owner.account, site=site, title="Saving seeds", html="<p>Dry the seeds on paper.</p>", word_count=5)
scheduled = Content.objects.create(
    account=owner.account, site=site, title="Planting garlic", html="<p>Plant in autumn.</p>", status="approved",
    site_status="scheduled", scheduled_publish_at=timezone.now() + timedelta(days=2), word_count=3,
)
print(site.pk, article.pk, shared.pk, scheduled.pk, timezone.localtime(scheduled.scheduled_publish_at, ZoneInfo(site.time_zone)).date())
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env, gunicorn_server(env) as server:
        ids = manage(env, "shell", "-c", SEED.format(owner=OWNER, editor=EDITOR, password=PASSWORD)).strip().splitlines()[-1]
        *numbers, scheduled_day = ids.split()
        yield server, {**dict(zip(("site", "article", "shared", "scheduled"), map(int, numbers))), "scheduled_day": scheduled_day}


def signed_in_page(browser, base: str, email: str, *, scheme: str = "light"):  # noqa: F811  (the fixture, passed on by the tests)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(base + "/app/signin/")
    type_into(page.get_by_label("Email"), email)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))
    page.wait_for_load_state("networkidle")
    return page


def body_editor(page):
    return page.locator(".prose-wrap [contenteditable=true]")


def type_in_body(page, text: str) -> None:
    region = body_editor(page)
    region.click()
    page.keyboard.press("Control+End")
    page.keyboard.press("Enter")
    page.keyboard.type(text)


def summary_of(page) -> str:
    return page.locator(".error-summary").inner_text()


def test_a_refused_form_keeps_what_was_typed_with_the_message_beside_its_field(browser, deployment, output_dir):  # noqa: F811
    server, ids = deployment
    base = server.base_url
    for scheme in ("light", "dark"):
        page = signed_in_page(browser, base, OWNER, scheme=scheme)
        screens = Screens(page, output_dir, base)

        # The editor: a paragraph and an excerpt typed, the title three spaces.
        page.goto(f"{base}/app/content/{ids['article']}/")
        body_editor(page).wait_for()
        # The body follows the colour scheme (django-prose-editor paints it white unless told).
        background = body_editor(page).evaluate("region => getComputedStyle(region).backgroundColor")
        assert background == ("rgb(26, 31, 39)" if scheme == "dark" else "rgb(255, 255, 255)"), background
        type_in_body(page, "A paragraph typed before the refusal.")
        type_into(page.get_by_label("Excerpt"), "An excerpt typed before the refusal")
        type_into(page.get_by_label("Title", exact=True), "   ")
        press(page.get_by_role("button", name="Save", exact=True))
        page.locator(".error-summary").wait_for()
        assert "Title: This field is required" in summary_of(page)
        assert "A paragraph typed before the refusal." in body_editor(page).inner_text()
        assert page.get_by_label("Excerpt").input_value() == "An excerpt typed before the refusal"
        assert page.locator(".field--invalid").filter(has=page.get_by_label("Title", exact=True)).locator(".field__error").inner_text() == "This field is required"
        screens.capture(f"70-editor-refused-{scheme}")
        press(page.locator(".error-summary a").first)
        page.wait_for_function("() => document.activeElement && document.activeElement.id === 'id_title'")

        # The first-site form: the domain left out.
        page.goto(f"{base}/app/sites/new/")
        type_into(page.get_by_label("Name"), "Orchard")
        page.get_by_label("Time zone").select_option("Europe/Paris")
        press(page.get_by_role("button", name="Continue"))
        page.locator(".error-summary").wait_for()
        assert page.get_by_label("Name").input_value() == "Orchard" and page.get_by_label("Time zone").input_value() == "Europe/Paris"
        assert "Domain:" in summary_of(page)
        screens.capture(f"71-site-new-refused-{scheme}")

        # The calendar: Move to a time that has just passed (the minute the page allows).
        page.goto(f"{base}/app/sites/{ids['site']}/calendar/?view=day&date={ids['scheduled_day']}&item={ids['scheduled']}")
        move = page.get_by_label(re.compile("Move to"))
        earliest = move.get_attribute("min")
        page.wait_for_timeout(1_000)
        move.fill(earliest)
        press(page.get_by_role("button", name="Move"))
        page.locator(".error-summary").wait_for()
        assert page.get_by_label(re.compile("Move to")).input_value() == earliest
        assert "Publishing time:" in summary_of(page) and page.locator("#move-at-error").is_visible()
        screens.capture(f"72-calendar-move-refused-{scheme}")
        assert screens.serious() == {}, screens.serious()
        page.context.close()


def test_the_editor_asks_before_leaving_unsaved_work_autosaves_it_and_saves_on_ctrl_s(browser, deployment, output_dir):  # noqa: F811
    server, ids = deployment
    base = server.base_url
    editor_url = f"{base}/app/content/{ids['article']}/"
    page = signed_in_page(browser, base, EDITOR)
    screens = Screens(page, output_dir, base)
    page.goto(editor_url)
    body_editor(page).wait_for()
    type_in_body(page, "Work that must not be lost.")

    # Another page of the console: the browser asks first, and staying keeps the text.
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
    page.locator("nav.crumbs a").click()
    page.wait_for_timeout(1_000)
    assert asked == ["beforeunload"] and page.url == editor_url
    assert "Work that must not be lost." in body_editor(page).inner_text()

    # A few seconds after the typing stops, the work is autosaved (the article is not saved).
    page.locator("[data-autosave-status]").get_by_text(re.compile("Autosaved at")).wait_for()
    screens.capture("73-editor-autosaved")

    # Leaving anyway, then opening the article again: the autosave is offered back.
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("nav.crumbs a").click()
    page.wait_for_url(re.compile(r".*/content/$"))
    page.goto(editor_url)
    assert "Work that must not be lost." not in body_editor(page).inner_text()
    press(page.get_by_role("link", name="Restore them in the editor"))
    page.wait_for_url(re.compile(r".*\?autosave=\d+$"))
    body_editor(page).get_by_text("Work that must not be lost.").wait_for()
    screens.capture("74-editor-autosave-restored")
    # The same offer in dark mode.
    dark = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark", storage_state=page.context.storage_state())
    dark_page = dark.new_page()
    dark_page.set_default_timeout(TIMEOUT_MS)
    dark_screens = Screens(dark_page, output_dir, base)
    dark_page.goto(editor_url)
    dark_page.get_by_role("link", name="Restore them in the editor").wait_for()
    dark_screens.capture("74-editor-autosave-offered-dark")
    assert dark_screens.serious() == {}, dark_screens.serious()
    dark.close()

    # Ctrl+S saves the article.
    type_into(page.get_by_label("Excerpt"), "Saved with the keyboard")
    page.keyboard.press("Control+s")
    page.wait_for_url(re.compile(r".*\?saved=1$"))
    assert "Work that must not be lost." in body_editor(page).inner_text()
    assert page.get_by_label("Excerpt").input_value() == "Saved with the keyboard"
    assert screens.serious() == {}, screens.serious()
    page.context.close()


def test_two_people_edit_one_article_and_the_later_save_shows_both_versions_and_loses_nothing(browser, deployment, output_dir):  # noqa: F811
    server, ids = deployment
    base = server.base_url
    editor_url = f"{base}/app/content/{ids['shared']}/"
    lead = signed_in_page(browser, base, OWNER, scheme="light")
    writer = signed_in_page(browser, base, EDITOR, scheme="dark")
    lead_screens, writer_screens = Screens(lead, output_dir, base), Screens(writer, output_dir, base)
    for page in (lead, writer):
        page.goto(editor_url)
        body_editor(page).wait_for()

    # The lead saves a new title first; the writer's save, made from the older version, is refused.
    type_into(lead.get_by_label("Title", exact=True), "Saving tomato seeds")
    press(lead.get_by_role("button", name="Save", exact=True))
    lead.wait_for_url(re.compile(r".*\?saved=1$"))
    type_into(writer.get_by_label("Excerpt"), "The writer's excerpt")
    type_in_body(writer, "The writer's paragraph.")
    press(writer.get_by_role("button", name="Save", exact=True))
    conflict = writer.locator("#conflict")
    conflict.wait_for()
    assert "Someone else saved this article" in conflict.inner_text()
    pair = conflict.locator(".conflict__pair").first
    assert "Saving seeds" in pair.locator(".conflict__side").nth(0).inner_text() and "Saving tomato seeds" in pair.locator(".conflict__side").nth(1).inner_text()
    assert writer.get_by_label("Excerpt").input_value() == "The writer's excerpt"
    assert "The writer's paragraph." in body_editor(writer).inner_text()
    writer_screens.capture("75-editor-conflict-dark")

    # The writer copies the lead's title into their version and keeps theirs: both changes are in.
    press(conflict.get_by_role("button", name="Use theirs for the title"))
    assert writer.get_by_label("Title", exact=True).input_value() == "Saving tomato seeds"
    press(writer.get_by_role("button", name="Keep mine"))
    writer.wait_for_url(re.compile(r".*\?saved=1$"))
    assert writer.get_by_label("Title", exact=True).input_value() == "Saving tomato seeds"
    assert writer.get_by_label("Excerpt").input_value() == "The writer's excerpt"

    # The lead, still on the version before, saves too: refused; the lead takes the writer's.
    type_into(lead.get_by_label("Meta title"), "The lead's meta title")
    press(lead.get_by_role("button", name="Save", exact=True))
    lead.locator("#conflict").wait_for()
    lead_screens.capture("76-editor-conflict-light")
    press(lead.locator("#conflict").get_by_role("link", name="open the saved article"))
    lead.wait_for_url(editor_url)
    assert lead.get_by_label("Excerpt").input_value() == "The writer's excerpt"
    # ... and the lead's own version is offered back.
    press(lead.get_by_role("link", name="Restore them in the editor"))
    lead.wait_for_url(re.compile(r".*\?autosave=\d+$"))
    assert lead.get_by_label("Meta title").input_value() == "The lead's meta title"
    assert lead_screens.serious() == {} and writer_screens.serious() == {}, (lead_screens.serious(), writer_screens.serious())
    lead.context.close()
    writer.context.close()
