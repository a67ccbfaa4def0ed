"""Password reset over a real SMTP conversation (an in-process aiosmtpd server on loopback)."""

import re
import socket

import pytest
from aiosmtpd.controller import Controller


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class CollectingHandler:
    def __init__(self):
        self.messages: list[tuple[list[str], str]] = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.rcpt_tos, envelope.content.decode()))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp_sink(settings):
    handler = CollectingHandler()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    yield handler
    controller.stop()


@pytest.mark.django_db
def test_reset_mail_travels_over_smtp_and_its_token_sets_a_new_password(smtp_sink, api_client, tenant):
    response = api_client.post("/api/v1/auth/password/reset/", {"email": tenant.owner.email}, format="json")
    assert response.status_code == 200

    [(recipients, body)] = smtp_sink.messages
    assert recipients == [tenant.owner.email]
    uid = re.search(r'"uid": "([^"]+)"', body).group(1)
    token = re.search(r'"token": "([^"]+)"', body).group(1)

    response = api_client.post(
        "/api/v1/auth/password/reset/confirm/", {"uid": uid, "token": token, "new_password": "a brand new one"}, format="json"
    )
    assert response.status_code == 200
    tenant.owner.refresh_from_db()
    assert tenant.owner.check_password("a brand new one")


@pytest.mark.django_db
def test_an_unreachable_mail_server_answers_like_an_unknown_address_and_is_logged(settings, api_client, tenant, caplog):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", _free_port(), 2

    known = api_client.post("/api/v1/auth/password/reset/", {"email": tenant.owner.email}, format="json")
    unknown = api_client.post("/api/v1/auth/password/reset/", {"email": "nobody@example.com"}, format="json")

    assert known.status_code == unknown.status_code == 200
    assert known.json()["data"] == unknown.json()["data"]
    assert "could not be sent" in caplog.text
    assert tenant.owner.email not in caplog.text
