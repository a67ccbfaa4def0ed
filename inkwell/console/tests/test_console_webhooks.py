"""Settings → Webhooks through the console's pages: the API's serializers, services and roles, the
secret shown once, the delivery log, and its actions."""

import re

import pytest

from inkwell.tenancy.models import RoleName
from inkwell.webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint
from inkwell.webhooks.tests.factories import make_delivery, make_endpoint
from inkwell.webhooks.tests.receiver import webhook_receiver

pytestmark = pytest.mark.django_db

WEBHOOKS = "/app/settings/webhooks/"


def _text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_an_owner_adds_an_endpoint_and_sees_its_secret_once(console_client, tenant):
    client = console_client(tenant.owner)

    response = client.post(WEBHOOKS, {"form": "endpoint", "url": "https://hooks.example.com/in", "description": "Relay", "events": ["content.published", "content.approved"]})

    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    endpoint = WebhookEndpoint.objects.for_account(tenant.account).get()
    assert (endpoint.url, endpoint.description, sorted(endpoint.events)) == ("https://hooks.example.com/in", "Relay", ["content.approved", "content.published"])
    assert f'value="{endpoint.secret}"' in response.content.decode()
    assert endpoint.secret not in client.get(WEBHOOKS).content.decode()
    assert endpoint.secret not in client.get(f"{WEBHOOKS}{endpoint.pk}/").content.decode()


def test_a_refused_endpoint_shows_the_apis_messages_and_what_was_typed(console_client, tenant):
    response = console_client(tenant.owner).post(WEBHOOKS, {"form": "endpoint", "url": "ftp://hooks.example.com/in", "events": []})

    assert response.status_code == 400
    text = _text(response)
    assert "Enter an http or https URL" in text and "Choose at least one event" in text
    assert 'value="ftp://hooks.example.com/in"' in text
    assert not WebhookEndpoint.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize("role", [RoleName.EDITOR, RoleName.VIEWER])
def test_only_owners_and_admins_see_and_manage_webhooks(console_client, tenant, role):
    endpoint = make_endpoint(tenant, url="https://hooks.example.com/secret-path")
    client = console_client(tenant.user(role))

    for url in (WEBHOOKS, f"{WEBHOOKS}{endpoint.pk}/"):
        page = client.get(url).content.decode()
        assert "Only owners and admins see and manage webhooks" in page and "secret-path" not in page
    assert client.post(WEBHOOKS, {"form": "endpoint", "url": "https://x.example.com/", "events": ["content.updated"]}).status_code == 403
    assert client.post(f"{WEBHOOKS}{endpoint.pk}/", {"form": "delete"}).status_code == 403
    assert WebhookEndpoint.objects.for_account(tenant.account).count() == 1


def test_the_endpoint_page_lists_deliveries_with_their_attempts_and_redelivers_a_failed_one(console_client, tenant):
    endpoint = make_endpoint(tenant)
    failed = make_delivery(endpoint, attempts=2, marker="upstream exploded")
    client = console_client(tenant.admin)

    page = _text(client.get(f"{WEBHOOKS}{endpoint.pk}/"))
    assert failed.event.message_id in page and "HTTP 500" in page and "upstream exploded" in page
    assert page.count("<li>") >= 2

    response = client.post(f"{WEBHOOKS}{endpoint.pk}/", {"form": "redeliver", "delivery_id": failed.pk})

    assert response.headers["Location"] == f"{WEBHOOKS}{endpoint.pk}/?redelivered=1"
    failed.refresh_from_db()
    assert failed.status == DeliveryStatus.PENDING


def test_a_delivery_of_another_endpoint_cannot_be_redelivered_from_this_one(console_client, tenant, other_tenant):
    endpoint = make_endpoint(tenant)
    foreign = make_delivery(make_endpoint(other_tenant))

    response = console_client(tenant.owner).post(f"{WEBHOOKS}{endpoint.pk}/", {"form": "redeliver", "delivery_id": foreign.pk})

    assert response.status_code == 404
    foreign.refresh_from_db()
    assert foreign.status == DeliveryStatus.FAILED


def test_rotating_shows_the_new_secret_once_and_switching_off_and_removing_work(console_client, tenant):
    endpoint = make_endpoint(tenant)
    client = console_client(tenant.owner)

    rotated = client.post(f"{WEBHOOKS}{endpoint.pk}/", {"form": "rotate"})
    endpoint.refresh_from_db()
    assert rotated.status_code == 200 and rotated.headers["Cache-Control"] == "no-store"
    assert f'value="{endpoint.secret}"' in rotated.content.decode() and endpoint.previous_secret

    client.post(f"{WEBHOOKS}{endpoint.pk}/", {"form": "switch"})
    endpoint.refresh_from_db()
    assert not endpoint.is_active

    assert client.post(f"{WEBHOOKS}{endpoint.pk}/", {"form": "delete"}).headers["Location"] == f"{WEBHOOKS}?removed=1"
    assert not WebhookEndpoint.objects.for_account(tenant.account).exists()
    assert not WebhookDelivery.objects.for_account(tenant.account).exists()


def test_the_test_ping_from_the_console_reaches_the_receiver(console_client, tenant, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}  # the receiver is on loopback
    with webhook_receiver() as receiver:
        endpoint = make_endpoint(tenant, url=receiver.url)
        receiver.verify_with(endpoint.secret)

        response = console_client(tenant.owner).post(f"{WEBHOOKS}{endpoint.pk}/", {"form": "test"})

        assert response.headers["Location"] == f"{WEBHOOKS}{endpoint.pk}/?tested=succeeded"
        (request,) = receiver.wait_for(1)
        assert request.verified and request.payload["type"] == "webhook.test"
