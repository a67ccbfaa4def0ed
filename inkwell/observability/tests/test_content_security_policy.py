"""A strict Content-Security-Policy on every answer: scripts only from this server's files, never
inline; no framing; violations reported to /csp-report/ and written to the log."""

import json
import logging
import re
from pathlib import Path

import pytest

from inkwell.observability.views import CSP_REPORT_MAX_BYTES
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2]
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in header.split(";") if part.strip())}


@pytest.mark.parametrize("path", ["/app/signin/", "/app/", "/api/docs/", "/api/redoc/", "/app/no-such-page/", "/api/v1/auth/me/"])
def test_every_answer_carries_a_policy_that_refuses_inline_script_and_framing(client, path):
    response = client.get(path)

    directives = policy(response)
    assert directives["script-src"] == ["'self'"]
    assert directives["default-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["report-uri"] == ["/csp-report/"]


def test_the_signed_in_console_carries_the_policy(client, tenant):
    client.force_login(tenant.owner)
    response = client.get("/app/", follow=True)

    assert response.status_code == 200
    assert policy(response)["script-src"] == ["'self'"]


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_the_api_docs_start_without_an_inline_script(client, path):
    html = client.get(path).content.decode()

    assert not INLINE_SCRIPT.search(html), INLINE_SCRIPT.search(html).group(0)


def test_swagger_ui_start_up_script_is_a_file_of_the_server(client):
    response = client.get("/api/docs/", {"script": ""})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in response.content.decode()


def test_no_template_holds_an_inline_script_or_an_event_handler():
    found = []
    for template in TEMPLATES.rglob("templates/**/*.html"):
        text = template.read_text()
        found += [f"{template.name}: {match.group(0)}" for pattern in (INLINE_SCRIPT, EVENT_HANDLER) for match in pattern.finditer(text)]
    assert not found


def test_a_violation_report_is_logged_without_the_query_of_its_addresses(client, caplog):
    caplog.set_level(logging.WARNING, logger="inkwell.csp")
    report = {"csp-report": {"document-uri": "https://inkwell.example/app/?token=secret", "violated-directive": "script-src", "blocked-uri": "inline", "line-number": 12, "original-policy": "x" * 50}}

    response = client.post("/csp-report/", json.dumps(report), content_type="application/csp-report")

    assert response.status_code == 204
    [record] = [record for record in caplog.records if record.name == "inkwell.csp"]
    assert "https://inkwell.example/app/" in record.getMessage() and "script-src" in record.getMessage()
    assert "secret" not in record.getMessage() and "original-policy" not in record.getMessage()


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"csp-report": "text"}', b"{" + b" " * CSP_REPORT_MAX_BYTES + b"}"])
def test_a_malformed_or_oversized_report_is_ignored(client, caplog, body):
    caplog.set_level(logging.WARNING, logger="inkwell.csp")

    response = client.post("/csp-report/", body, content_type="application/csp-report")

    assert response.status_code == 204
    assert not [record for record in caplog.records if record.name == "inkwell.csp"]


def test_the_editors_import_map_is_the_one_inline_script_and_carries_the_pages_nonce(client, tenant):
    content = make_content(tenant)
    client.force_login(tenant.owner)

    response = client.get(f"/app/content/{content.pk}/")

    [nonce] = [value.removeprefix("'nonce-").removesuffix("'") for value in policy(response)["script-src"] if value.startswith("'nonce-")]
    html = response.content.decode()
    assert f'<script type="importmap" nonce="{nonce}">' in html
    assert [match.group(0) for match in INLINE_SCRIPT.finditer(html)] == [f'<script type="importmap" nonce="{nonce}">']
