"""Review together (#36) in a real browser: a teammate comments on a passage and mentions a
colleague, who replies; an editor makes a review link with a passcode; an outside reviewer opens
it with no account, comments under their name and approves; the team then approves under the
site's rules (four eyes, the client first).

Screenshots under ``$TEST_OUTPUT_DIR/console/`` (``50-…``), axe-core on every screen in light and
dark mode (no serious or critical violation), the public page also 390 px wide. The
Content-Security-Policy refuses nothing (``Screens``), and no request leaves the server's origin.
"""

import re

import pytest

from tests.live_server import gunicorn_server, manage, server_environment
# The browser, Chromium and the screenshots' folder are the fixtures of the console's first browser test.
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

OWNER = "lead@example.com"
EDITOR = "writer@example.com"
PASSCODE = "tide-table"
SEED = """
from django.utils import timezone
from inkwell.sitesettings.services import unified_settings_update
from inkwell.tenancy import services
from inkwell.tenancy.models import Role, Site, SiteUserAccess, User
from inkwell.writer.models import Content
owner = services.account_register(email={owner!r}, password={password!r}, account_name="Harbour Press")
editor = User.dangerously_unscoped.create_user({editor!r}, {password!r}, account=owner.account, role=Role.objects.get(name="editor"), first_name="Wren")
site = Site.objects.create(account=owner.account, name="Harbour", domain="harbour.example.com", slug="harbour")
SiteUserAccess.objects.create(account=owner.account, user=editor, site=site)
unified_settings_update(site=site, changes={{"review_rules": {{"four_eyes": True, "client_approval": True}}}})
content = Content.objects.create(
    account=owner.account, site=site, title="Reading the tides", status="review", word_count=30,
    meta_title="Reading the tides: a sailor's guide to tide tables",
    meta_description="Tide tables tell you when the water is high and low. Learn to read them, plan around currents and never get stranded on a falling tide again.",
    html="<h2>Why tides matter</h2><p>Read the tide table before you sail, every single time.</p><h2>Currents</h2><p>Currents run strongest halfway between high and low water.</p>",
    last_edited_by=editor, last_edited_at=timezone.now(),
)
print(content.pk)
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env, gunicorn_server(env) as server:
        yield server, env


def sign_in(page, base: str, email: str) -> None:
    page.goto(base + "/app/signin/")
    type_into(page.get_by_label("Email"), email)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))
    page.wait_for_load_state("networkidle")


def select_passage(page, text: str) -> None:
    """Selects ``text`` in the preview as a person does, with the mouse (a triple click selects its paragraph)."""
    page.locator("[data-article] p", has_text=text).click(click_count=3)


def test_a_teammate_comments_and_an_outside_reviewer_approves_through_a_link(browser, deployment, output_dir):  # noqa: F811
    server, env = deployment
    base = server.base_url
    content_id = int(manage(env, "shell", "-c", SEED.format(owner=OWNER, editor=EDITOR, password=PASSWORD)).strip().splitlines()[-1])
    review_url = f"{base}/app/content/{content_id}/review/"

    # 1. The lead comments on a passage and mentions the writer (light mode).
    lead_context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    lead = lead_context.new_page()
    lead.set_default_timeout(TIMEOUT_MS)
    lead_screens = Screens(lead, output_dir, base)
    sign_in(lead, base, OWNER)
    lead.goto(review_url)
    lead_screens.capture("50-review-light")
    select_passage(lead, "Currents run strongest")
    lead.locator("[data-anchor-quote]").get_by_text("Currents run strongest").wait_for()
    type_into(lead.get_by_label("Comment", exact=True), f"@{EDITOR} can we add an example here?")
    press(lead.get_by_role("button", name="Comment", exact=True))
    lead.wait_for_url(re.compile(r".*#comment-\d+$"))
    thread = lead.locator(".thread").first
    assert "Currents run strongest halfway between high and low water." in thread.locator(".thread__quote").inner_text()
    assert f"Notified: {EDITOR} (in the app, e-mail)" in thread.inner_text()

    # 2. The writer sees the comment as new (dark mode) and replies.
    writer_context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    writer = writer_context.new_page()
    writer.set_default_timeout(TIMEOUT_MS)
    writer_screens = Screens(writer, output_dir, base)
    sign_in(writer, base, EDITOR)
    # The in-app notification of the mention leads to the comment.
    writer.goto(base + "/app/notifications/")
    press(writer.get_by_role("button", name="Open the comment"))
    writer.wait_for_url(re.compile(rf".*/content/{content_id}/review/#comment-\d+$"))
    assert writer.locator(".thread .badge--new").count() == 1
    writer_screens.capture("51-review-dark-new-comment")
    press(writer.locator(".thread__actions summary").first)
    type_into(writer.get_by_label("Your reply"), "Yes: the Solent at spring tides.")
    press(writer.get_by_role("button", name="Reply", exact=True))
    writer.wait_for_url(re.compile(r".*#comment-\d+$"))
    assert "Yes: the Solent at spring tides." in writer.locator(".thread").first.inner_text()

    # 3. The lead makes a review link with a passcode.
    lead.goto(review_url)
    type_into(lead.get_by_label("Passcode (optional, at least 4 characters)"), PASSCODE)
    press(lead.get_by_role("button", name="Create a review link"))
    lead.wait_for_url(re.compile(r".*#links$"))
    link_url = lead.locator(".links__url").first.input_value()
    assert link_url.startswith(base + "/review/")
    lead_screens.capture("52-review-link-made")

    # 4. The outside reviewer opens it with no account (dark mode): passcode, preview, comment, approval.
    client_context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    outside = client_context.new_page()
    outside.set_default_timeout(TIMEOUT_MS)
    client_screens = Screens(outside, output_dir, base)
    response = outside.goto(link_url)
    assert response.headers["x-robots-tag"].startswith("noindex") and response.headers["referrer-policy"] == "no-referrer"
    client_screens.capture("53-link-passcode-dark")
    type_into(outside.get_by_label("Passcode"), "wrong")
    press(outside.get_by_role("button", name="Open"))
    outside.get_by_text("That passcode is not right.").wait_for()
    type_into(outside.get_by_label("Passcode"), PASSCODE)
    press(outside.get_by_role("button", name="Open"))
    outside.get_by_role("heading", name="Review “Reading the tides”").wait_for()
    assert outside.locator('meta[name="robots"]').get_attribute("content").startswith("noindex")
    assert "Yes: the Solent at spring tides." in outside.locator("#comments").inner_text()
    client_screens.capture("54-link-page-dark")
    select_passage(outside, "Read the tide table")
    comments = outside.locator("#comments")
    type_into(comments.get_by_label("Your name").first, "Clara Client")
    type_into(comments.get_by_label("Comment", exact=True), "Lovely. Could this say 'tide tables'?")
    press(outside.get_by_role("button", name="Comment", exact=True))
    outside.wait_for_url(re.compile(r".*#comment-\d+$"))
    assert "Clara Client" in outside.locator("#comments").inner_text()
    # The phone width of the preview, and the search result cut for a phone.
    press(outside.get_by_label("Phone"), " ")
    assert outside.locator(".preview-serp__desc--phone").first.is_visible()
    outside.set_viewport_size({"width": 390, "height": 844})
    client_screens.capture("55-link-page-phone-dark")
    outside.set_viewport_size({"width": 1280, "height": 900})
    decision_name = outside.locator("#decision").get_by_label("Your name")
    assert decision_name.input_value() == "Clara Client"  # remembered for this link
    press(outside.get_by_role("button", name="Approve"))
    outside.get_by_text("Thank you: your approval is recorded.").wait_for()
    client_screens.capture("56-link-approved-dark")

    # 5. The team approves: the client approved after the last edit, and the lead is not its last editor.
    lead.goto(review_url)
    decisions = lead.locator(".decisions").inner_text()
    assert "Clara Client (Client (review link)) approved" in decisions
    assert "Clara Client" in lead.locator("#comments").inner_text()
    press(lead.get_by_role("button", name="Approve", exact=True))
    lead.wait_for_url(re.compile(rf".*/content/{content_id}/review/$"))
    assert "Approved" in lead.locator("main").inner_text()
    lead_screens.capture("57-review-approved-light")
    dark = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    dark_page = dark.new_page()
    dark_screens = Screens(dark_page, output_dir, base)
    sign_in(dark_page, base, OWNER)
    dark_page.goto(review_url)
    dark_screens.capture("58-review-approved-dark")

    # 6. Revoked, the link is gone.
    press(lead.get_by_role("button", name="Revoke").first)
    lead.wait_for_url(re.compile(r".*#links$"))
    assert outside.goto(link_url).status == 410

    for screens in (lead_screens, writer_screens, client_screens, dark_screens):
        assert not screens.foreign_requests, screens.foreign_requests
        assert not screens.serious(), screens.serious()
    lead_screens.save("review-axe-lead.json")
    client_screens.save("review-axe-client.json")


OTHER_SEED = """
from inkwell.tenancy import services
from inkwell.tenancy.models import Role, Site, SiteUserAccess, User
from inkwell.writer.models import Content
owner = services.account_register(email={owner!r}, password={password!r}, account_name="Quay Press")
writer = User.dangerously_unscoped.create_user({writer!r}, {password!r}, account=owner.account, role=Role.objects.get(name="editor"), first_name="Wren", last_name="Hale")
site = Site.objects.create(account=owner.account, name="Quay", domain="quay.example.com", slug="quay")
SiteUserAccess.objects.create(account=owner.account, user=writer, site=site)
content = Content.objects.create(
    account=owner.account, site=site, title="Mooring lines", status="review", word_count=20,
    html="<h2>Lines</h2><p>Double up the lines before a gale.</p>",
)
print(site.pk, content.pk)
"""


def test_a_mention_completed_from_a_name_a_comment_edited_and_each_persons_preferences(browser, deployment, output_dir):  # noqa: F811
    server, env = deployment
    base = server.base_url
    owner_email, writer_email = "harbourmaster@example.com", "w.hale@example.com"
    site_id, content_id = map(int, manage(env, "shell", "-c", OTHER_SEED.format(owner=owner_email, writer=writer_email, password=PASSWORD)).strip().splitlines()[-1].split())
    review_url = f"{base}/app/content/{content_id}/review/"

    # 1. The owner types "@wr", is offered Wren Hale, and inserts her with Enter (light mode).
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    screens = Screens(page, output_dir, base)
    sign_in(page, base, owner_email)
    page.goto(review_url)
    body = page.get_by_label("Comment", exact=True)
    type_into(body, "Thanks @wr")
    option = page.get_by_role("option", name="Wren Hale (w.hale@example.com)")
    option.wait_for()
    assert option.get_attribute("aria-selected") == "true"
    screens.capture("60-mention-offered-light")
    body.press("Enter")
    assert body.input_value() == "Thanks @w.hale "
    body.press_sequentially("can you add the spring lines?")
    press(page.get_by_role("button", name="Comment", exact=True))
    page.wait_for_url(re.compile(r".*#comment-\d+$"))
    thread = page.locator(".thread").first
    assert f"Notified: {writer_email} (in the app, e-mail)" in thread.inner_text()

    # 2. The owner corrects the comment; it shows as edited.
    press(thread.locator(".comment__edit summary"))
    type_into(thread.get_by_label("Your comment"), "Thanks @w.hale: can you add the spring lines and the breast lines?")
    press(thread.get_by_role("button", name="Save"))
    page.wait_for_url(re.compile(r".*#comment-\d+$"))
    thread = page.locator(".thread").first
    assert "the breast lines?" in thread.inner_text() and "(edited)" in thread.inner_text()
    screens.capture("61-comment-edited-light")

    # 3. The review-by default and the approval rules on the site's settings.
    page.goto(f"{base}/app/sites/{site_id}/settings/")
    type_into(page.get_by_label("Due for review after (months)"), "6")
    press(page.get_by_role("button", name="Save review-by dates"))
    page.wait_for_url(re.compile(r".*\?saved=performance$"))
    assert page.get_by_label("Due for review after (months)").input_value() == "6"
    page.get_by_text("Four eyes", exact=True).click()
    press(page.get_by_role("button", name="Save approval rules"))
    page.wait_for_url(re.compile(r".*\?saved=review$"))
    assert page.get_by_label("Four eyes").is_checked()
    screens.capture("62-site-settings-review-light")

    # 4. The writer turns off the e-mail of mentions on her own preferences (dark mode).
    dark = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    writer = dark.new_page()
    writer.set_default_timeout(TIMEOUT_MS)
    writer_screens = Screens(writer, output_dir, base)
    sign_in(writer, base, writer_email)
    writer.goto(base + "/app/notifications/")
    press(writer.get_by_role("link", name="Preferences"))
    writer.get_by_role("heading", name="Notification preferences").wait_for()
    writer_screens.capture("63-notification-preferences-dark")
    writer.get_by_text("By e-mail", exact=True).click()
    press(writer.get_by_role("button", name="Save preferences"))
    writer.wait_for_url(re.compile(r".*\?saved=1$"))
    assert not writer.get_by_label("By e-mail").is_checked() and writer.get_by_label("In the app").is_checked()
    writer_screens.capture("64-notification-preferences-saved-dark")
    writer.goto(review_url)
    writer_screens.capture("65-review-mention-dark")
    writer.goto(f"{base}/app/sites/{site_id}/settings/")
    writer_screens.capture("66-site-settings-review-dark")
    page.goto(base + "/app/notifications/preferences/")
    screens.capture("67-notification-preferences-light")

    for each in (screens, writer_screens):
        assert not each.foreign_requests, each.foreign_requests
        assert not each.serious(), each.serious()
    screens.save("review-axe-mentions.json")
