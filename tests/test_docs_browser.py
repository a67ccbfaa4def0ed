"""Swagger UI and ReDoc render the whole API in a real browser, with nothing fetched from another host."""

import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
import yaml

from tests.live_server import REPO_ROOT, live_server

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

# Served under a name that is not loopback, as in production: Swagger UI, for one, skips its online
# validator for localhost URLs, which would hide the very request this test looks for.
DOCS_HOST = "docs.inkwell.test"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
    f"--host-resolver-rules=MAP {DOCS_HOST} 127.0.0.1",
]
RENDER_TIMEOUT_MS = 20_000
SWAGGER_OPERATIONS_SEEN = """() => {
    window.__operationsSeen = window.__operationsSeen || new Set();
    document.querySelectorAll('.opblock').forEach(block => window.__operationsSeen.add(block.id));
    window.scrollBy(0, window.innerHeight / 2);
    return window.__operationsSeen.size;
}"""
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


@pytest.fixture(scope="module")
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.skip(
            "CHROMIUM IS NOT INSTALLED: the API-docs browser tests did not run. "
            "Install it with scripts/ensure-chromium (Debian's chromium, about 10 s)."
        )
    return path


@pytest.fixture(scope="module")
def server():
    with live_server(DJANGO_ALLOWED_HOSTS=f"127.0.0.1,{DOCS_HOST}") as server:
        yield server


@pytest.fixture(scope="module")
def docs_origin(server) -> str:
    return f"http://{DOCS_HOST}:{urlsplit(server.base_url).port}"


@pytest.fixture(scope="module")
def operation_count(server) -> int:
    schema = yaml.safe_load(requests.get(server.url("/api/schema/"), timeout=10).text)
    count = sum(1 for operations in schema["paths"].values() for key in operations if key in HTTP_METHODS)
    assert count > 10
    return count


@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    yield page
    page.close()


def _record_requests(page) -> list:
    made = []
    page.on("request", lambda request: made.append(request))
    return made


REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


def _record_policy_violations(page) -> list[str]:
    """What the Content-Security-Policy refused, as Chromium says in the page's console."""
    refused = []
    page.on("console", lambda message: refused.append(message.text) if "Content Security Policy" in message.text else None)
    return refused


def _screenshot_path(name: str) -> Path:
    folder = Path(os.environ.get("TEST_OUTPUT_DIR") or REPO_ROOT / "test-output")
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def _requests_to_other_hosts(made, origin: str) -> list[str]:
    """Requests that went, or tried to go, anywhere but ``origin``.

    ``blob:`` URLs (ReDoc's web worker) are judged by the origin they name; ``data:`` URLs are
    not requests at all. A request the page's own Content-Security-Policy blocked never left the
    browser, so it is not counted.
    """
    others = []
    for request in made:
        url = request.url.removeprefix("blob:")
        if url.startswith("data:") or request.failure == "csp":
            continue
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != origin:
            others.append(url)
    return others


def _fetched_the_schema(made) -> bool:
    return any(urlsplit(request.url).path == "/api/schema/" for request in made)


def test_swagger_ui_renders_every_operation_from_the_server_alone(page, docs_origin, operation_count):
    made = _record_requests(page)
    refused = _record_policy_violations(page)

    page.goto(f"{docs_origin}/api/docs/")
    # Swagger UI keeps only the operations in view in the page once the document is long: scroll
    # through it half a screen at a time and collect the id of every operation block that appears.
    page.wait_for_function(f"() => ({SWAGGER_OPERATIONS_SEEN})() >= {operation_count}", timeout=RENDER_TIMEOUT_MS, polling=100)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_load_state("networkidle")
    page.screenshot(path=_screenshot_path("docs-swagger.png"))

    assert page.evaluate("window.__operationsSeen.size") == operation_count
    assert page.evaluate("Array.from(window.__operationsSeen).some(id => id.endsWith('auth_sites_list'))")
    assert _fetched_the_schema(made)
    assert _requests_to_other_hosts(made, docs_origin) == []
    assert refused == []


def test_redoc_renders_every_operation_from_the_server_alone(page, docs_origin, operation_count):
    made = _record_requests(page)
    refused = _record_policy_violations(page)

    page.goto(f"{docs_origin}/api/redoc/")
    # ReDoc's ids for each operation's section (its deep links point there) and sidebar item.
    operations = '[data-section-id^="operation/"]'
    menu_items = 'li[role="menuitem"][data-item-id*="/operation/"]'
    page.wait_for_function(f"() => document.querySelectorAll('{operations}').length >= {operation_count}", timeout=RENDER_TIMEOUT_MS)
    page.wait_for_load_state("networkidle")
    page.screenshot(path=_screenshot_path("docs-redoc.png"))

    assert page.locator(operations).count() == operation_count
    assert page.locator(menu_items).count() == operation_count
    assert _fetched_the_schema(made)
    assert _requests_to_other_hosts(made, docs_origin) == []
    # ReDoc's footer always asks for its maker's logo from their CDN, and no option turns it off:
    # that refusal is the policy keeping the docs on this server. Nothing else may be refused.
    assert [text for text in refused if REDOC_LOGO not in text] == []
