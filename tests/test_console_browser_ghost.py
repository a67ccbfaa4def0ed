"""Connecting Ghost from the console in a real browser, with the keyboard, against the real Ghost
the test suite starts: the CMS screen offers WordPress and Ghost, a wrong Admin API key is named
with where to find the right one, the right key connects, and Ghost's webhooks are made from the
screen.

Screenshots under ``$TEST_OUTPUT_DIR/console/`` (``40-…``), axe-core on every screen in the light
and the dark colour scheme (no serious or critical violation), the screens also 360 px wide. No
request leaves the server's origin.
"""

import json

import pytest

from tests.live_server import gunicorn_server, manage, server_environment
# The browser, Chromium and the screenshots' folder are the fixtures of the console's first browser test.
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser, pytest.mark.ghost]

EMAIL = "ghost-publisher@example.com"

SEED = """
from inkwell.tenancy import services
from inkwell.tenancy.models import Site
owner = services.account_register(email={email!r}, password={password!r}, account_name="Lighthouse Press")
first = Site.objects.create(account=owner.account, name="Lighthouse", domain="lighthouse.example.com", slug="lighthouse")
second = Site.objects.create(account=owner.account, name="Lantern", domain="lantern.example.com", slug="lantern")
print(first.pk, second.pk)
"""

WEBHOOK_IDS = """
from inkwell.integration.models import SiteIntegration
print(" ".join(SiteIntegration.dangerously_unscoped.get(site_id={site_id}).remote_webhook_ids))
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000", CMS_ALLOW_PRIVATE_URLS="1") as env, gunicorn_server(env) as server:
        yield server, env


def test_an_owner_connects_ghost_from_the_cms_screen_and_sets_up_its_webhooks(browser, deployment, output_dir, ghost):  # noqa: F811
    server, env = deployment
    first, second = manage(env, "shell", "-c", SEED.format(email=EMAIL, password=PASSWORD)).split()[-2:]
    base = server.base_url
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    screens = Screens(page, output_dir, base)

    page.goto(base + "/app/signin/")
    type_into(page.get_by_label("Email"), EMAIL)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))
    page.wait_for_url("**/keywords/")

    # 1. Both platforms are offered; Ghost's form asks for its API URL and Admin API key.
    page.goto(f"{base}/app/sites/{first}/cms/")
    page.get_by_role("heading", name="Connect Ghost").wait_for()
    assert page.get_by_role("heading", name="Connect WordPress").count() == 1
    screens.capture("40-cms-ghost-connect")

    # 2. A wrong key: the failure is named, with where to find the right key.
    key_id = ghost.admin_key.split(":")[0]
    type_into(page.get_by_label("Ghost Admin API URL"), ghost.url)
    type_into(page.get_by_label("Admin API key"), f"{key_id}:{'0' * 64}")
    press(page.get_by_role("button", name="Connect Ghost and test"))
    page.get_by_text("Ghost refused the Admin API key", exact=True).wait_for()
    assert page.get_by_text("copy the Admin API key again").count() == 1
    screens.capture("41-cms-ghost-wrong-key")

    # 3. The right key connects.
    press(page.get_by_text("Change the Admin API URL or key"))
    type_into(page.get_by_label("Admin API key"), ghost.admin_key)
    press(page.get_by_role("button", name="Save and test"))
    page.locator("#connection-result").get_by_text("Connected", exact=True).wait_for()
    assert ghost.admin_key.split(":")[1] not in page.content()

    # 4. Ghost's webhooks, made through its Admin API from the screen.
    press(page.get_by_role("button", name="Set up the webhooks"))
    try:
        page.locator("#ghost-webhooks-result").get_by_text("Webhooks set up in Ghost").wait_for()
        assert "post.published" in page.locator("#ghost-webhooks-result").inner_text()
        screens.capture("42-cms-ghost-connected")

        # The same screens in the dark colour scheme, and 360 px wide.
        for scheme in ("dark", "light"):
            for width, height in ((1280, 900), (360, 780)):
                other = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme, storage_state=context.storage_state())
                other_page = other.new_page()
                other_screens = Screens(other_page, output_dir, base)
                for name, site in (("connected", first), ("connect", second)):
                    other_page.goto(f"{base}/app/sites/{site}/cms/")
                    other_screens.capture(f"43-cms-ghost-{name}-{scheme}-{width}")
                    assert other_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name} scrolls sideways at {width} px"
                screens.report.update(other_screens.report)
                screens.foreign_requests += other_screens.foreign_requests
                other.close()
    finally:
        webhook_ids = manage(env, "shell", "-c", WEBHOOK_IDS.format(site_id=first)).strip().splitlines()[-1].split()
        with ghost.client() as client:  # Ghost calls every webhook it has: none may outlive this server
            for webhook_id in webhook_ids:
                client.delete(f"/webhooks/{webhook_id}/")

    screens.save("axe-report-cms-ghost.json")
    assert not screens.serious(), f"axe found serious or critical violations: {json.dumps(screens.serious(), indent=1)}"
    assert not screens.foreign_requests, "the console fetched from another host"
    assert len(webhook_ids) == 5
    context.close()
