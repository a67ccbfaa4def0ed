"""The OpenAPI document is valid, and a real server answers what it documents (schemathesis)."""

import http.client
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from tests.live_server import HIGH_RATE_LIMITS, REPO_ROOT, live_server, register_and_login

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
CHECKS = "all"
# Generated cases per operation in the fuzzing phases. The coverage phase adds its own boundary
# cases (most of the ~18,000 requests for 186 operations); the whole run takes 2-4 minutes on 2 cores.
MAX_EXAMPLES = 15
RUN_TIMEOUT_SECONDS = 900
SEED = 20260101
EXCLUDED_PATHS = [
    # Without a body, logout revokes every token of the user: the rest of the run would be 401s.
    "/api/v1/auth/logout/",
    # A successful password change revokes every earlier token, so the run's Bearer token with them.
    # Only a request with the current password succeeds, which the generator cannot produce today;
    # excluded so that the run never depends on that (an example added to the schema would change it).
    "/api/v1/auth/password/change/",
    "/api/v1/auth/change-password/",
]
# Run on their own, after the rest: switching modules off makes every operation of a module a 403
# (module_disabled), so in the same run schemathesis would reach most operations only as refusals.
RUN_LAST_PATHS = ["/api/v1/system/modules/"]
# Not excluded, and why that is safe: the services refuse (409) deleting or deactivating oneself and
# demoting the last owner; a demoted token still authenticates (its writes get documented 403s);
# deleting the site created below takes no credential away.

# Only the application's answers are judged. gunicorn refuses a request line over 4094 bytes with
# its own 414 page before Django sees it, and the generator builds such query strings now and then.
# Every answer from Django carries X-Request-ID (RequestIdMiddleware); those refusals do not.
HOOKS = """
import schemathesis


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    refused_by_http_server = "X-Request-ID" not in response.headers and 400 <= response.status_code < 500
    return not refused_by_http_server
"""


def test_the_openapi_document_is_valid_without_warnings(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3.")


@pytest.fixture(scope="module")
def server():
    with live_server(**HIGH_RATE_LIMITS) as server:
        yield server


@pytest.mark.live_server_process
def test_every_operation_answers_as_its_schema_documents(server, tmp_path):
    token = register_and_login(server)
    auth = {"Authorization": f"Bearer {token}"}
    site = requests.post(server.url("/api/v1/auth/sites/"), json={"name": "Blog", "domain": "blog.example.com"}, headers=auth, timeout=10)
    assert site.status_code == 201, site.text

    common = [
        str(SCHEMATHESIS), "run", server.url("/api/schema/"),
        "--header", f"Authorization: Bearer {token}",
        "--checks", CHECKS,
        "--max-examples", str(MAX_EXAMPLES),
        "--seed", str(SEED),
        "--request-timeout", "10",
        "--generation-database", "none",
        "--no-color",
    ]
    hooks = tmp_path / "hooks.py"
    hooks.write_text(HOOKS)
    # Run in an empty folder: schemathesis reads a schemathesis.toml from its working directory.
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(hooks)}

    def run(*selection: str) -> str:
        result = subprocess.run([*common, *selection], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS)
        assert result.returncode == 0, (
            f"schemathesis exited with {result.returncode}\n{result.stdout}\n{result.stderr}\n"
            f"--- server log (last 20000 characters) ---\n{server.log()[-20000:]}"
        )
        return result.stdout

    first = run(*[option for path in EXCLUDED_PATHS + RUN_LAST_PATHS for option in ("--exclude-path", path)])
    last = run(*[option for path in RUN_LAST_PATHS for option in ("--include-path", path)])
    # Each excluded path has one operation (POST); everything else was run, in one run or the other.
    selected, total = map(int, re.search(r"Selected: (\d+)/(\d+)", first).groups())
    selected_last = int(re.search(r"Selected: (\d+)/", last).group(1))
    assert selected_last == 2 and selected + selected_last == total - len(EXCLUDED_PATHS), first + last
    # The modules stayed on through the first run, so no operation was reached only as a refusal but
    # the two that no account's token may use: staff credit grants and the ApiKey-signed CMS webhook.
    refused_only = re.search(r"Authentication failed: (\d+) operations? returned only 401/403", first)
    assert refused_only is None or int(refused_only.group(1)) <= 2, first


# The hostile inputs of tests/test_hostile_input.py, sent to every operation of the live schema.
HOSTILE_BODIES = {
    "array nested 1,000 deep": "[" * 1_000 + "]" * 1_000,
    "array nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "object nested 1,000 deep": '{"a":' * 1_000 + "1" + "}" * 1_000,
    "not JSON": '{"a": ',
}
EDGE_DATES = ["9999-12-31", "0001-01-01", "9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+01:00", "275760-09-13T00:00:00Z"]
BODY_LIMIT = 2_621_440  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE


def _declared_oversize(server, method: str, path: str, headers: dict) -> int:
    """The status of a request that declares a body over the limit: the server must refuse it
    from the header (413) before reading, so only its first bytes are sent."""
    parts = urlsplit(server.base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.putrequest(method.upper(), path)
        for name, value in {**headers, "Content-Type": "application/json", "Content-Length": str(BODY_LIMIT + 1)}.items():
            connection.putheader(name, value)
        connection.endheaders(b'{"a": "')
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.live_server_process
def test_hostile_input_to_every_operation_never_answers_a_server_error(server):
    token = register_and_login(server)
    auth = {"Authorization": f"Bearer {token}"}
    requests.post(server.url("/api/v1/auth/sites/"), json={"name": "Blog", "domain": "hostile.example.com"}, headers=auth, timeout=10)
    schema = requests.get(server.url("/api/schema/"), params={"format": "json"}, timeout=30).json()
    session = requests.Session()
    answers: list[tuple[str, str, int]] = []
    for template, operations in schema["paths"].items():
        if template in EXCLUDED_PATHS:
            continue
        path = re.sub(r"\{[^}]+\}", "1", template)
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            label = f"{method.upper()} {template}"
            if "requestBody" in operation:
                for kind, body in HOSTILE_BODIES.items():
                    response = session.request(method, server.url(path), data=body, headers={**auth, "Content-Type": "application/json"}, timeout=10)
                    answers.append((label, kind, response.status_code))
                answers.append((label, "body over the size limit", _declared_oversize(server, method, path, auth)))
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("schema", {}).get("format") in ("date", "date-time"):
                    for value in EDGE_DATES:
                        response = session.request(method, server.url(path), params={parameter["name"]: value}, headers=auth, timeout=10)
                        answers.append((label, f"{parameter['name']}={value}", response.status_code))

    assert len({label for label, _, _ in answers}) > 70
    assert [answer for answer in answers if answer[2] >= 500] == []
    # Every operation that reads its body refuses it for its size; the others answer as without one.
    assert 413 in {status for _, kind, status in answers if kind == "body over the size limit"}
