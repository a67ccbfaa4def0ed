"""Settings → Webhooks in a real browser, against gunicorn: an owner adds a webhook endpoint (a
refused attempt first), copies the secret shown once, sends a test ping that a real receiver on
loopback verifies with the ``standardwebhooks`` package, reads the delivery log and rotates the
secret. Every screen is checked with axe-core, in light and in dark mode: no serious or critical
violation. Screenshots go under ``$TEST_OUTPUT_DIR/console/`` (``webhooks-*.png``).
"""

import pytest

from inkwell.webhooks.tests.receiver import webhook_receiver
from tests.live_server import gunicorn_server, server_environment
from tests.test_console_browser import TIMEOUT_MS, Screens, browser, chromium_path, output_dir, press, type_into  # noqa: F401  (fixtures)
from tests.test_console_browser_account import _sign_up

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]


@pytest.fixture(scope="module")
def deployment():
    # The operator allows private URLs: the receiver of this test listens on loopback.
    with server_environment(RATE_LIMIT_AUTH="1000", CMS_ALLOW_PRIVATE_URLS="true") as env, gunicorn_server(env) as server:
        yield server


def test_an_owner_adds_a_webhook_endpoint_and_pings_it(browser, deployment, output_dir):  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    base = deployment.base_url
    screens = Screens(page, output_dir, base)
    _sign_up(page, base, "hooks-owner@northwind.example")

    with webhook_receiver() as receiver:
        # 1. The Webhooks screen, under the account's settings.
        page.goto(base + "/app/settings/")
        press(page.get_by_role("navigation", name="Settings").get_by_role("link", name="Webhooks"))
        page.wait_for_url("**/app/settings/webhooks/")
        page.get_by_text("No webhook endpoints").wait_for()
        screens.capture("webhooks-01-empty")

        # 2. A refused endpoint: the API's messages beside the fields, what was typed kept.
        type_into(page.get_by_label("URL"), "ftp://hooks.example.com/in")
        press(page.get_by_role("button", name="Add endpoint"))
        page.get_by_text("Enter an http or https URL").first.wait_for()
        page.get_by_text("Choose at least one event").first.wait_for()
        assert page.get_by_label("URL").input_value() == "ftp://hooks.example.com/in"
        screens.capture("webhooks-02-refused")

        # 3. The endpoint added: its secret shown once.
        type_into(page.get_by_label("URL"), receiver.url)
        type_into(page.get_by_label("Description"), "Our relay")
        press(page.get_by_role("checkbox", name="content.published"), "Space")
        press(page.get_by_role("checkbox", name="content.publish_failed"), "Space")
        press(page.get_by_role("button", name="Add endpoint"))
        secret_field = page.get_by_label("Signing secret")
        secret_field.wait_for()
        secret = secret_field.input_value()
        assert secret.startswith("whsec_")
        receiver.verify_with(secret)
        assert receiver.url in page.get_by_role("table").inner_text()
        screens.capture("webhooks-03-added")

        # 4. The endpoint: a test ping, verified by the receiver, in the delivery log.
        press(page.get_by_role("link", name="Open the endpoint"))
        page.wait_for_url("**/app/settings/webhooks/*/")
        press(page.get_by_role("button", name="Send a test ping"))
        page.wait_for_url("**?tested=succeeded")
        (request,) = receiver.wait_for(1)
        assert request.verified and request.payload["type"] == "webhook.test"
        log = page.get_by_role("table").inner_text()
        assert "webhook.test" in log and "HTTP 200" in log and request.headers["webhook-id"] in log
        assert secret not in page.content()
        screens.capture("webhooks-04-endpoint-log")

        # 5. A new secret, shown once; the old one still signs during the overlap.
        page.once("dialog", lambda dialog: dialog.accept())
        press(page.get_by_role("button", name="Rotate the secret"))
        new_secret = page.get_by_label("New signing secret")
        new_secret.wait_for()
        assert new_secret.input_value().startswith("whsec_") and new_secret.input_value() != secret
        screens.capture("webhooks-05-rotated")
        endpoint_url = page.url

    # 6. The same screens in dark mode.
    dark = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    dark.add_cookies(context.cookies())
    dark_page = dark.new_page()
    dark_page.set_default_timeout(TIMEOUT_MS)
    dark_screens = Screens(dark_page, output_dir, base)
    dark_page.goto(base + "/app/settings/webhooks/")
    dark_page.get_by_role("table").wait_for()
    assert dark_page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    dark_screens.capture("webhooks-06-dark-list")
    dark_page.goto(endpoint_url)
    dark_page.get_by_text("Delivery log").wait_for()
    dark_screens.capture("webhooks-07-dark-endpoint")

    screens.save("webhooks-axe-light.json")
    dark_screens.save("webhooks-axe-dark.json")
    assert screens.serious() == {}, screens.serious()
    assert dark_screens.serious() == {}, dark_screens.serious()
    assert not screens.foreign_requests and not dark_screens.foreign_requests
    dark.close()
    context.close()
