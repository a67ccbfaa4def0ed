"""When a job ends, the screens that show its subject update through one mechanism (issue 30, case
1), in a real browser against gunicorn and a Celery worker: after "Generate draft" the task card no
longer offers the paid action while the job works, and once the job is done it opens the draft; the
header's credits show what remains and the bell counts the new notification, without a reload.

Screenshots go under ``$TEST_OUTPUT_DIR/console/`` (``jobs-*.png``), each checked with axe-core in
light and dark mode, and no CSP refusal.
"""

import re

import pytest

from tests import test_console_browser as part_one
from tests.live_server import celery_worker, gunicorn_server, manage, server_environment
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, Screens, output_dir, press, type_into  # noqa: F401  (fixtures)

chromium_path, browser = part_one.chromium_path, part_one.browser

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

EMAIL = "drafts@example.com"
CREDITS = 100
SETUP = f"""
from types import SimpleNamespace
from inkwell.billing.services import grant
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Site
from inkwell.writer.tests.factories import make_task

owner = tenancy.account_register(email="{EMAIL}", password="{PASSWORD}", account_name="Draft Press")
site = Site.objects.create(account=owner.account, name="Drafts", domain="drafts.example.com", slug="drafts")
grant(account=owner.account, amount={CREDITS}, description="test funds")
make_task(SimpleNamespace(account=owner.account, site=site), site=site, title="Choosing trail running shoes", word_count=300)
print(site.pk)
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env:
        site_id = int(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
        with celery_worker(env, beat=False), gunicorn_server(env) as server:
            yield server, site_id


def test_a_finished_draft_updates_the_task_card_the_credits_and_the_bell_without_a_reload(browser, deployment, output_dir):  # noqa: F811
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
    page.goto(server.base_url + f"/app/sites/{site_id}/tasks/")
    card = page.locator(".queue__item", has_text="Choosing trail running shoes")
    generate = card.get_by_role("button", name=re.compile("Generate draft"))
    cost = int(re.search(r"(\d+) credits?", generate.inner_text()).group(1))
    credits = int(page.locator("#credit-balance").inner_text())
    assert credits >= CREDITS  # the grant, and what the plan gives
    loaded = page.evaluate("() => performance.timeOrigin")
    refreshed: list[str] = []
    page.on("request", lambda request: refreshed.append(request.url) if request.headers.get("hx-request") else None)

    press(generate)
    page.locator("#jobs .job").wait_for()
    # While the job works, the card offers its progress, not the paid action again.
    card.get_by_role("link", name="Progress").or_(card.get_by_role("link", name="Open the draft")).wait_for()
    assert card.get_by_role("button", name=re.compile("Generate draft")).count() == 0

    card.get_by_role("link", name="Open the draft").wait_for(timeout=120_000)
    page.locator("#credit-balance", has_text=re.compile(rf"^{credits - cost}$")).wait_for()
    # The bell fetched itself again too (whether it counts something depends on the events the person gets).
    assert any("/app/notifications/bell/" in url for url in refreshed), "\n".join(refreshed)
    assert card.get_by_role("button", name=re.compile("Draft again")).is_visible()
    assert page.evaluate("() => performance.timeOrigin") == loaded  # the same page: nothing reloaded
    screens.capture("jobs-01-task-card-after-the-draft")

    page.emulate_media(color_scheme="dark")
    screens.capture("jobs-02-task-card-after-the-draft-dark")
    screens.save("jobs-axe.json")
    assert not screens.serious(), screens.serious()
    assert not screens.policy_violations, screens.policy_violations
    context.close()
