"""The console in a real browser: a content team signs up and goes from an empty account to an
approved article with images, with the keyboard only, against gunicorn and a Celery worker.

Every screen is saved as a screenshot under ``$TEST_OUTPUT_DIR/console/`` (test-output/ by
default) and checked with axe-core (axe-playwright-python): no serious or critical violation is
allowed. The same screens are checked 360 px wide. No request may leave the server's origin.
"""

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.live_server import REPO_ROOT, celery_worker, gunicorn_server, manage, server_environment

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-dev-shm-usage"]
TIMEOUT_MS = 30_000
JOB_TIMEOUT_MS = 90_000
SERIOUS = {"serious", "critical"}
PASSWORD = "a long password"


@pytest.fixture(scope="module")
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.skip(
            "CHROMIUM IS NOT INSTALLED: the console browser tests did not run. "
            "Install it with scripts/ensure-chromium (Debian's chromium, about 10 s)."
        )
    return path


@pytest.fixture(scope="module")
def output_dir() -> Path:
    directory = Path(os.environ.get("TEST_OUTPUT_DIR", REPO_ROOT / "test-output")) / "console"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture(scope="module")
def deployment():
    """gunicorn and a Celery worker on one fresh deployment holding the demo keywords library."""
    with server_environment(RATE_LIMIT_AUTH="1000") as env:
        manage(env, "import_keywords", "--demo", "--no-progress", timeout=300)
        with celery_worker(env, beat=False), gunicorn_server(env) as server:
            yield server


@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Screens:
    """Screenshots and axe results of every screen the test visits."""

    def __init__(self, page, output_dir: Path, origin: str):
        from axe_playwright_python.sync_playwright import Axe

        self.page, self.output_dir, self.origin, self.axe = page, output_dir, origin, Axe()
        self.report: dict[str, list] = {}
        self.foreign_requests: list[str] = []
        self.policy_violations: list[str] = []
        page.on("request", self._watch)
        page.on("console", self._watch_policy)

    def _watch(self, request):
        if not request.url.startswith((self.origin, "data:", "blob:", "about:")):
            self.foreign_requests.append(request.url)

    def _watch_policy(self, message):
        """Chromium says in the page's console what the Content-Security-Policy refused."""
        if "Content Security Policy" in message.text:
            self.policy_violations.append(f"{self.page.url}: {message.text}")

    def capture(self, name: str) -> None:
        self.page.wait_for_load_state("networkidle")
        assert not self.policy_violations, f"the Content-Security-Policy refused something before {name}: {self.policy_violations}"
        self.page.evaluate("window.scrollTo(0, 0)")  # the sticky header stays at the top of a full-page shot
        self.page.screenshot(path=str(self.output_dir / f"{name}.png"), full_page=True)
        violations = self.axe.run(self.page).response["violations"]
        self.report[name] = [
            {"id": item["id"], "impact": item["impact"], "help": item["help"], "nodes": [node["target"] for node in item["nodes"]][:5]}
            for item in violations
        ]

    def serious(self) -> dict[str, list]:
        return {name: [item for item in items if item["impact"] in SERIOUS] for name, items in self.report.items() if any(item["impact"] in SERIOUS for item in items)}

    def save(self, file_name: str) -> None:
        (self.output_dir / file_name).write_text(json.dumps(self.report, indent=2))


def press(locator, key: str = "Enter") -> None:
    """Acts as a keyboard user does: focus the control, then press the key."""
    locator.focus()
    locator.press(key)


def type_into(locator, text: str) -> None:
    locator.focus()
    locator.press("Control+a")
    locator.press_sequentially(text)


def run_job(page, button) -> None:
    """Presses a button that starts a job, sees its live progress appear, and waits for it to finish."""
    shown = page.locator("#jobs .job").count()
    press(button)
    page.wait_for_function(f"() => document.querySelectorAll('#jobs .job').length > {shown}")
    wait_for_jobs(page)


def wait_for_jobs(page) -> None:
    """Every job shown on the page has finished (htmx polls its progress)."""
    page.wait_for_function("() => document.querySelectorAll('#jobs .job--queued, #jobs .job--running').length === 0", timeout=JOB_TIMEOUT_MS)
    assert page.locator("#jobs .job--failed").count() == 0, page.locator("#jobs").inner_text()


def test_a_team_plans_and_writes_an_approved_article_with_images_from_the_keyboard(browser, deployment, output_dir):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    base = deployment.base_url
    screens = Screens(page, output_dir, base)
    email = "editor-in-chief@example.com"

    # 1. Sign up, sign out, password reset page, sign in.
    page.goto(base + "/")
    assert page.url.startswith(base + "/app/signin/")
    screens.capture("01-signin")
    press(page.get_by_role("link", name="Create an account"))
    page.wait_for_url("**/app/signup/")
    type_into(page.get_by_label("Team or company"), "Trailhead Media")
    type_into(page.get_by_label("Email"), email)
    type_into(page.get_by_label("Password"), "short")
    screens.capture("02-signup")
    press(page.get_by_label("Password"))
    assert "Password must be at least 8 characters" in page.content()
    screens.capture("03-signup-error")
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_label("Password"))

    # 2. The first site, then an industry and its sectors.
    page.wait_for_url("**/app/sites/new/")
    screens.capture("04-site-new")
    type_into(page.get_by_label("Name"), "Trailhead")
    type_into(page.get_by_label("Domain"), "trailhead.example.com")
    page.get_by_label("Time zone").select_option("Europe/Berlin")
    press(page.get_by_role("button", name="Continue"))
    page.wait_for_url("**/sectors/")
    page.get_by_label("Industry").select_option(label="Technology")
    press(page.get_by_role("button", name="Show sectors"))
    page.wait_for_url("**/sectors/?industry=*")
    screens.capture("05-site-sectors")
    press(page.get_by_role("checkbox", name=re.compile("SaaS")), "Space")
    press(page.get_by_role("button", name="Save sectors and open the library"))

    # 3. The keywords library: filter, statistics, select, see the cost, add.
    page.wait_for_url("**/library/")
    assert page.locator(".stat").count() == 1
    type_into(page.get_by_label("Search"), "crm")
    page.wait_for_url("**search=crm*")
    page.wait_for_load_state("networkidle")
    screens.capture("06-library")
    rows = page.locator("#results tbody input[type=checkbox]")
    assert rows.count() >= 6
    for index in range(6):
        press(rows.nth(index), "Space")
    page.locator("[data-selected-count]", has_text="6 selected").wait_for()  # the library keeps the selection on the server
    press(page.get_by_role("button", name="Review the selection"))
    page.locator("#selection-review form").wait_for()
    assert re.search(r"Add 6 keywords ·\s*\d+ credits?", page.locator("#selection-review").inner_text())
    screens.capture("07-library-review")
    press(page.locator("#selection-review button"))

    # 4. The planner: keywords, cluster with AI (live progress), clusters, ideas, tasks.
    page.wait_for_url("**/keywords/**")
    assert page.locator("#results tbody tr").count() == 6
    screens.capture("08-keywords")
    press(page.get_by_role("button", name=re.compile("Cluster 6 with AI")))
    page.locator("#jobs .job").wait_for()
    screens.capture("09-clustering-progress")
    wait_for_jobs(page)
    press(page.locator("#jobs").get_by_role("link", name="See the result"))
    page.wait_for_url("**/clusters/")
    screens.capture("10-clusters")
    press(page.locator("#results tbody input[type=checkbox]").first, "Space")
    type_into(page.get_by_label("Ideas per cluster"), "2")
    run_job(page, page.get_by_role("button", name=re.compile("Write ideas with AI")))
    press(page.locator("#results tbody a").first)
    page.wait_for_url("**/app/clusters/*/")
    screens.capture("11-cluster")
    press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Ideas"))
    page.wait_for_url("**/ideas/")
    screens.capture("12-ideas")
    press(page.locator("#results tbody input[type=checkbox]").first, "Space")
    press(page.get_by_role("button", name="Make tasks"))

    # 5. The writer: the queue, the task's brief (a new site writes drafts from approved briefs), a draft with progress, the editor.
    page.wait_for_url("**/tasks/")
    screens.capture("13-tasks")
    press(page.locator(".queue__item").first.get_by_role("link", name=re.compile("^Brief of ")))
    page.wait_for_url("**/brief/")
    press(page.get_by_role("button", name="Make the brief"))
    page.wait_for_url("**saved=made")
    press(page.get_by_role("button", name="Approve the brief"))
    page.wait_for_url("**saved=approved")
    screens.capture("13-brief")
    press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Tasks"))
    page.wait_for_url("**/tasks/")
    run_job(page, page.get_by_role("button", name=re.compile("Generate draft")))
    press(page.locator("#jobs").get_by_role("link", name="See the result"))
    page.wait_for_url("**/app/content/*/")
    page.locator(".ProseMirror[contenteditable=true]").wait_for()
    screens.capture("14-editor")
    type_into(page.get_by_label("Meta title"), "A calm guide to choosing a CRM")
    assert page.locator('[data-count-for="id_meta_title"]').inner_text() == "30"
    type_into(page.get_by_label("Excerpt"), "How to pick a CRM your team will use.")
    press(page.get_by_role("button", name="Save", exact=True))
    page.wait_for_url("**saved=1")

    run_job(page, page.get_by_role("button", name=re.compile("Generate images")))
    page.reload()
    assert page.locator(".images img").count() >= 1
    type_into(page.locator(".images input[name=alt_text]").first, "A team comparing CRM dashboards")
    press(page.get_by_role("button", name="Save alt text").first)
    page.wait_for_url("**#images")
    assert page.locator(".images img").first.get_attribute("alt") == "A team comparing CRM dashboards"
    run_job(page, page.get_by_role("button", name=re.compile("Optimize with AI")))
    page.reload()
    screens.capture("15-editor-with-images")

    press(page.get_by_role("link", name=re.compile("Revisions")))
    page.wait_for_url("**/revisions/")
    assert page.locator(".diff").count() >= 1
    screens.capture("16-revisions")
    page.go_back()

    press(page.get_by_role("button", name="Send to review"))
    page.wait_for_load_state("networkidle")
    press(page.get_by_role("button", name="Approve"))
    page.wait_for_load_state("networkidle")
    assert page.locator(".editor__side .badge").first.inner_text() == "Approved"
    screens.capture("17-approved")

    press(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Content"))
    screens.capture("18-content")
    press(page.locator("#bell"))
    page.wait_for_url("**/notifications/")
    screens.capture("19-notifications")
    # A notification's button marks it read and opens the page of its subject.
    unread = page.locator(".note--unread").count()
    press(page.locator(".note--unread .note__body button").first)
    page.wait_for_load_state("networkidle")
    assert "/app/" in page.url and "/notifications/" not in page.url
    press(page.locator("#bell"))
    page.wait_for_url("**/notifications/")
    assert page.locator(".note--unread").count() == unread - 1
    press(page.get_by_role("button", name="Mark all read"))
    page.wait_for_load_state("networkidle")
    assert page.locator("#bell .bell__count").count() == 0

    # The same screens on a phone, 360 px wide.
    phone = browser.new_context(viewport={"width": 360, "height": 780}, storage_state=context.storage_state())
    phone_page = phone.new_page()
    phone_screens = Screens(phone_page, output_dir, base)
    for name, path in (("keywords", "/app/"), ("editor", page.url)):
        phone_page.goto(base + path if path.startswith("/") else path)
        if name == "editor":
            phone_page.goto(base + "/app/")
            phone_page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Content").click()
            phone_page.locator("#results a").first.click()
        phone_screens.capture(f"20-phone-{name}")
        assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), f"{name} scrolls sideways at 360 px"
    phone.close()

    # Password reset, signed out.
    page.get_by_role("button", name=re.compile("Sign out")).click()
    page.wait_for_url("**/signin/")
    press(page.get_by_role("link", name="Forgot your password?"))
    type_into(page.get_by_label("Email"), email)
    press(page.get_by_role("button", name="Send the link"))
    page.get_by_text("a link to choose a new password is on its way").wait_for()
    screens.capture("21-password-reset")

    screens.report.update({f"phone {name}": items for name, items in phone_screens.report.items()})
    screens.save("axe-report.json")
    assert not screens.serious(), f"axe found serious or critical violations: {json.dumps(screens.serious(), indent=1)}"
    assert not screens.foreign_requests + phone_screens.foreign_requests, "the console fetched from another host"
    context.close()
