"""How the WordPress adapter fails: each way a CMS can go wrong becomes the matching ``CMSError``,
whose message and log lines hold no secret. Failures are injected by the test server."""

from __future__ import annotations

import base64
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from inkwell import netguard
from inkwell.cms import build_adapter, http
from inkwell.cms.base import (
    CMSAddressNotAllowed,
    CMSAuthFailed,
    CMSCredentials,
    CMSError,
    CMSForbidden,
    CMSNotFound,
    CMSRejected,
    CMSTimeout,
    CMSUnavailable,
    CMSUnreachable,
    PostPayload,
)
from inkwell.cms.tests.cms_server import WordPressTestServer
from inkwell.cms.wordpress import NOT_WORDPRESS, WordPressAdapter

pytestmark = pytest.mark.usefixtures("allow_private_cms")


def adapter_for(server: WordPressTestServer, *, password: str | None = None) -> WordPressAdapter:
    return build_adapter("wordpress", CMSCredentials(base_url=server.url, username=server.user, app_password=password or server.app_password))


@pytest.fixture
def cms(cms_server):
    with adapter_for(cms_server) as adapter:
        yield adapter


@pytest.fixture
def cms_logs(caplog):
    caplog.set_level(logging.DEBUG)
    return caplog


@pytest.mark.parametrize(
    ("status", "error", "retryable"),
    [
        (500, CMSUnavailable, True),
        (502, CMSUnavailable, True),
        (503, CMSUnavailable, True),
        (429, CMSUnavailable, True),
        (401, CMSAuthFailed, False),
        (403, CMSForbidden, False),
        (404, CMSNotFound, False),
        (400, CMSRejected, False),
    ],
)
def test_each_answer_status_becomes_its_error(cms, cms_server, status, error, retryable):
    cms_server.fail_next(1, status=status)
    with pytest.raises(error) as failure:
        cms.current_user()
    assert failure.value.status == status
    assert failure.value.retryable is retryable


def test_a_server_that_does_not_answer_in_time_is_a_timeout(cms_server, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "TIMEOUT_SECONDS": 0.3}
    cms_server.fail_next(1, status=None, delay=2)
    with adapter_for(cms_server) as adapter, pytest.raises(CMSTimeout) as failure:
        adapter.current_user()
    assert failure.value.retryable


def test_a_closed_port_is_unreachable():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    credentials = CMSCredentials(base_url=f"http://127.0.0.1:{port}", username="admin", app_password="x")
    with build_adapter("wordpress", credentials) as adapter, pytest.raises(CMSUnreachable) as failure:
        adapter.current_user()
    assert failure.value.retryable


def test_a_redirect_is_not_followed_and_names_only_where_it_leads(cms, cms_server):
    cms_server.fail_next(1, status=301, location="https://www.example.com/wp-json/wp/v2/users/me?token=secret-token")
    with pytest.raises(CMSError) as failure:
        cms.current_user()
    assert failure.value.status == 301
    assert failure.value.message == "The CMS redirects to https://www.example.com; redirects are not followed, so enter the address it redirects to"
    assert cms_server.count("GET", "/wp/v2/users/me") == 1


def test_wordpress_reason_is_passed_on_as_short_plain_text_without_the_password(cms, cms_server, cms_logs):
    cms_server.fail_next(1, status=400, message=f"<p>Bad <b>value</b> &amp; more: {cms_server.app_password}</p> " + "x" * 300)
    with pytest.raises(CMSRejected) as failure:
        cms.current_user()
    message = failure.value.message
    assert message.startswith("Bad value & more: *** xxx")
    assert len(message) == http.MESSAGE_LIMIT and message.endswith("…")
    assert cms_server.app_password not in cms_logs.text


def test_failures_leave_no_secret_in_messages_or_logs(cms_server, cms_logs):
    secret = cms_server.app_password
    errors = []
    for status in (400, 401, 403, 404, 500, 503, 301):
        cms_server.fail_next(1, status=status)
        with adapter_for(cms_server) as adapter, pytest.raises(CMSError) as failure:
            adapter.current_user()
        errors.append(failure.value.message)
    with adapter_for(cms_server, password="wrong wrong wrong") as adapter, pytest.raises(CMSAuthFailed) as failure:
        adapter.current_user()
    errors.append(failure.value.message)
    basic = base64.b64encode(f"{cms_server.user}:{secret}".encode()).decode()
    everything = " ".join(errors) + cms_logs.text  # httpx2's and httpcore2's own records included
    for forbidden in (secret, secret.replace(" ", ""), "wrong wrong", basic):
        assert forbidden not in everything
    ours = " ".join(errors) + " ".join(record.getMessage() for record in cms_logs.records if record.name == "inkwell.cms")
    for forbidden in ("Authorization", "Basic", "critical error", "<p>"):
        assert forbidden not in ours


@contextmanager
def other_server(answer: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[CMSCredentials]:
    """A server that is not WordPress, answering every GET with ``answer``."""
    handler = type("Handler", (BaseHTTPRequestHandler,), {"do_GET": answer, "log_message": lambda self, *args: None})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.handle_error = lambda request, client_address: None  # a client that gave up: expected
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield CMSCredentials(base_url=f"http://127.0.0.1:{server.server_address[1]}", username="admin", app_password="x")
    finally:
        server.shutdown()
        server.server_close()


def test_an_address_that_is_not_wordpress_says_so():
    def shop(handler):
        body = b"<html><body>Welcome to my shop</body></html>"
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    with other_server(shop) as credentials, build_adapter("wordpress", credentials) as adapter, pytest.raises(CMSError) as failure:
        adapter.site_info()
    assert failure.value.message == NOT_WORDPRESS


def test_an_answer_trickling_in_past_the_timeout_is_a_timeout(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "TIMEOUT_SECONDS": 0.4}

    def trickle(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", "40")
        handler.end_headers()
        for _ in range(40):  # one byte every 0.1 s: each wait is short, the whole is not
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.1)

    started = time.monotonic()
    with other_server(trickle) as credentials, build_adapter("wordpress", credentials) as adapter, pytest.raises(CMSTimeout):
        adapter.site_info()
    assert time.monotonic() - started < 2


def test_a_site_without_pretty_permalinks_is_reached_through_rest_route_and_remembered(cms_server):
    cms_server.pretty_permalinks = False
    with adapter_for(cms_server) as adapter:
        assert adapter.current_user().name == cms_server.user
        assert adapter.site_info().name == cms_server.site_name
        assert adapter.terms("category")
    outside_rest_api = [request for request in cms_server.requests if not request.route]
    assert len(outside_rest_api) == 1  # the one /wp-json/ attempt that found the theme's 404
    assert cms_server.count("GET", "/wp/v2/users/me") == 1


def test_a_wordpress_404_after_the_first_answer_is_not_found_not_a_fallback(cms, cms_server):
    cms.current_user()
    assert cms.get_post("424242") is None
    with pytest.raises(CMSNotFound):
        cms.update_post("424242", PostPayload(reference="missing-post", title="Missing", html="<p>Body</p>"))
    assert all(request.route for request in cms_server.requests)


def test_an_answer_larger_than_the_limit_is_refused(cms, monkeypatch):
    monkeypatch.setattr(http, "MAX_ANSWER_BYTES", 100)
    with pytest.raises(CMSError) as failure:
        cms.content_types()
    assert failure.value.message == "The CMS answer is too large"


def test_a_name_that_resolves_to_loopback_only_when_connecting_is_refused(cms_server, monkeypatch, settings):
    """DNS rebinding: the name looked public when the URL was checked, then resolves to loopback."""
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": False}
    monkeypatch.setattr(netguard, "check_url", lambda url, *, allow_private: None)
    with adapter_for(cms_server) as adapter, pytest.raises(CMSAddressNotAllowed):
        adapter.current_user()
    assert cms_server.requests == []


def test_build_adapter_knows_only_wordpress():
    with pytest.raises(ValueError):
        build_adapter("drupal", CMSCredentials(base_url="https://example.com", username="u", app_password="p"))


def test_a_reference_that_could_break_out_of_its_comment_is_a_programming_error(cms):
    with pytest.raises(ValueError):
        cms.find_post("x --> <script>")



def test_user_info_in_the_address_never_travels(cms_server, cms_logs):
    address = cms_server.url.replace("http://", "http://someone:hunter2@") + "/?page=1#top"
    credentials = CMSCredentials(base_url=address, username=cms_server.user, app_password=cms_server.app_password)
    with build_adapter("wordpress", credentials) as adapter:
        assert adapter.current_user().name == cms_server.user
    assert "hunter2" not in cms_logs.text
    assert [request.query for request in cms_server.requests] == [{"context": "edit"}]
