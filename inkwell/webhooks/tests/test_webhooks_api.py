"""/api/v1/webhooks/: endpoints, their deliveries, redelivery, the test ping and secret rotation."""

import base64

import pytest

from inkwell.tenancy import services as tenancy_services
from inkwell.webhooks.models import DeliveryStatus, EventType, WebhookDelivery, WebhookEndpoint
from inkwell.webhooks.tests.factories import make_delivery, make_endpoint

pytestmark = pytest.mark.django_db

WEBHOOKS = "/api/v1/webhooks/"


def detail(endpoint) -> str:
    return f"{WEBHOOKS}{endpoint.pk}/"


def body(**fields) -> dict:
    return {"url": "https://hooks.example.com/inkwell", "events": ["content.published", "content.publish_failed"], **fields}


def test_registering_an_endpoint_answers_its_secret_once(tenant, as_user):
    owner = as_user(tenant.owner)

    response = owner.post(WEBHOOKS, body(description="Slack relay"), format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert set(data) == {"id", "url", "events", "is_active", "description", "created_at", "secret"}
    assert data["secret"].startswith("whsec_") and len(base64.b64decode(data["secret"][6:])) == 32
    assert (data["events"], data["is_active"], data["description"]) == (["content.published", "content.publish_failed"], True, "Slack relay")
    endpoint = WebhookEndpoint.objects.for_account(tenant.account).get(pk=data["id"])
    assert endpoint.secret == data["secret"]
    # Never again: not in the list, not in the detail.
    listed = owner.get(WEBHOOKS).json()
    assert listed["count"] == 1 and "secret" not in listed["results"][0]
    assert data["secret"] not in owner.get(detail(endpoint)).content.decode()
    assert set(owner.get(detail(endpoint)).json()["data"]) == {"id", "url", "events", "is_active", "description", "created_at"}


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        ({"events": ["content.deleted"]}, {"events.0"}),
        ({"events": []}, {"events"}),
        ({"events": ["content.updated", "content.updated"]}, {"events"}),
        ({"url": "ftp://hooks.example.com/x"}, {"url"}),
        ({"url": "https://user:pass@hooks.example.com/x"}, {"url"}),
        ({"url": "http://169.254.169.254/latest/meta-data"}, {"url"}),
        ({"url": ""}, {"url"}),
        ({"secret": "whsec_mine"}, {"secret"}),
        ({"description": "x" * 201}, {"description"}),
    ],
)
def test_bad_input_is_a_400_naming_the_field(tenant, as_user, fields, errors):
    response = as_user(tenant.owner).post(WEBHOOKS, body(**fields), format="json")

    assert response.status_code == 400, response.content
    answer = response.json()
    assert answer["code"] == "validation_error"
    assert set(answer["errors"]) == errors
    assert not WebhookEndpoint.objects.for_account(tenant.account).exists()


def test_a_loopback_url_is_refused_unless_the_operator_allows_private_urls(tenant, as_user, settings):
    owner = as_user(tenant.owner)
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": False}
    refused = owner.post(WEBHOOKS, body(url="http://127.0.0.1:9/hook"), format="json")
    assert refused.status_code == 400
    assert "CMS_ALLOW_PRIVATE_URLS" in refused.json()["errors"]["url"][0]

    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}
    assert owner.post(WEBHOOKS, body(url="http://127.0.0.1:9/hook"), format="json").status_code == 201


def test_an_account_has_at_most_the_configured_number_of_endpoints(tenant, as_user, settings):
    settings.INKWELL_WEBHOOKS = {**settings.INKWELL_WEBHOOKS, "MAX_ENDPOINTS": 1}
    owner = as_user(tenant.owner)
    assert owner.post(WEBHOOKS, body(), format="json").status_code == 201

    response = owner.post(WEBHOOKS, body(), format="json")

    assert response.status_code == 422 and response.json()["errors"]["url"]
    assert WebhookEndpoint.objects.for_account(tenant.account).count() == 1


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_the_roles_that_manage_integrations_manage_webhooks(tenant, as_user, role):
    client = as_user(tenant.user(role))
    created = client.post(WEBHOOKS, body(), format="json")
    assert created.status_code == 201
    url = f"{WEBHOOKS}{created.json()['data']['id']}/"

    assert client.patch(url, {"events": ["content.updated"], "description": "changed"}, format="json").status_code == 200
    assert client.get(url).json()["data"]["events"] == ["content.updated"]
    assert client.delete(url).status_code == 204
    assert not WebhookEndpoint.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_editors_and_viewers_neither_see_nor_change_webhooks(tenant, as_user, role):
    endpoint = make_endpoint(tenant)
    delivery = make_delivery(endpoint)
    client = as_user(tenant.user(role))

    for method, url in [
        ("get", WEBHOOKS),
        ("post", WEBHOOKS),
        ("get", detail(endpoint)),
        ("patch", detail(endpoint)),
        ("delete", detail(endpoint)),
        ("get", f"{detail(endpoint)}deliveries/"),
        ("post", f"{detail(endpoint)}test/"),
        ("post", f"{detail(endpoint)}rotate_secret/"),
        ("post", f"{detail(endpoint)}deliveries/{delivery.pk}/redeliver/"),
    ]:
        response = getattr(client, method)(url, body() if method == "post" else {}, format="json")
        assert response.status_code == 403, f"{method} {url}: {response.status_code}"
    assert WebhookEndpoint.objects.for_account(tenant.account).get().secret == endpoint.secret


def test_an_api_key_bound_to_a_site_does_not_reach_the_accounts_webhooks(tenant, api_client):
    make_endpoint(tenant)
    _, raw_key = tenancy_services.api_key_create(account=tenant.account, user=tenant.owner, name="cms", site=tenant.site)
    api_client.credentials(HTTP_AUTHORIZATION=f"ApiKey {raw_key}")

    assert api_client.get(WEBHOOKS).status_code == 403
    assert api_client.post(WEBHOOKS, body(), format="json").status_code == 403


def test_patch_changes_only_what_it_names_and_refuses_bad_values(tenant, as_user):
    endpoint = make_endpoint(tenant, description="Keep me")
    owner = as_user(tenant.owner)

    response = owner.patch(detail(endpoint), {"url": "https://other.example.com/hook"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["description"] == "Keep me"
    for fields, error in [({"events": ["nope"]}, "events.0"), ({"is_active": "maybe"}, "is_active"), ({"url": None}, "url")]:
        refused = owner.patch(detail(endpoint), fields, format="json")
        assert refused.status_code == 400 and error in refused.json()["errors"], refused.content
    endpoint.refresh_from_db()
    assert (endpoint.url, endpoint.events) == ("https://other.example.com/hook", list(EventType.values))
    assert owner.put(detail(endpoint), body(), format="json").status_code == 405


def test_switching_an_endpoint_off_fails_what_waited_and_on_again_forgets_its_streak(tenant, as_user):
    from django.utils import timezone

    endpoint = make_endpoint(tenant, failing_since=timezone.now())
    waiting = make_delivery(endpoint, status=DeliveryStatus.PENDING)
    owner = as_user(tenant.owner)

    assert owner.patch(detail(endpoint), {"is_active": False}, format="json").json()["data"]["is_active"] is False
    waiting.refresh_from_db()
    assert waiting.status == DeliveryStatus.FAILED
    owner.patch(detail(endpoint), {"is_active": True}, format="json")
    endpoint.refresh_from_db()
    assert endpoint.is_active and endpoint.failing_since is None


def test_the_delivery_log_lists_every_attempt_newest_delivery_first_in_pages(tenant, as_user):
    endpoint = make_endpoint(tenant)
    older = make_delivery(endpoint, attempts=3, marker="older")
    newer = make_delivery(endpoint, attempts=1, marker="newer")
    make_delivery(make_endpoint(tenant), marker="another endpoint's")

    response = as_user(tenant.owner).get(f"{detail(endpoint)}deliveries/", {"page_size": 1})

    assert response.status_code == 200
    page = response.json()
    assert page["count"] == 2 and [item["id"] for item in page["results"]] == [newer.pk]
    second = as_user(tenant.owner).get(f"{detail(endpoint)}deliveries/", {"page_size": 1, "page": 2}).json()["results"][0]
    assert second["id"] == older.pk
    assert second["webhook_id"] == older.event.message_id and second["event_type"] == "content.updated"
    assert [(attempt["number"], attempt["outcome"], attempt["response_code"], attempt["body_excerpt"]) for attempt in second["attempt_log"]] == [
        (1, "failed", 500, "older"),
        (2, "failed", 500, "older"),
        (3, "failed", 500, "older"),
    ]
    assert {"duration_ms", "started_at", "error", "trigger"} <= set(second["attempt_log"][0])


def test_a_failed_delivery_is_redelivered_by_hand_and_anything_else_is_a_409(tenant, as_user):
    endpoint = make_endpoint(tenant)
    failed = make_delivery(endpoint, status=DeliveryStatus.FAILED)
    succeeded = make_delivery(endpoint, status=DeliveryStatus.SUCCEEDED)
    owner = as_user(tenant.owner)

    response = owner.post(f"{detail(endpoint)}deliveries/{failed.pk}/redeliver/")

    assert response.status_code == 202
    assert (response.json()["data"]["status"], response.json()["data"]["max_attempts"]) == ("pending", 2)
    again = owner.post(f"{detail(endpoint)}deliveries/{failed.pk}/redeliver/")
    assert again.status_code == 409 and again.json()["code"] == "state_conflict"
    assert owner.post(f"{detail(endpoint)}deliveries/{succeeded.pk}/redeliver/").status_code == 409


def test_a_delivery_of_another_endpoint_or_account_is_not_found_for_redelivery(tenant, other_tenant, as_user):
    endpoint = make_endpoint(tenant)
    foreign = make_delivery(make_endpoint(other_tenant))
    sibling = make_delivery(make_endpoint(tenant))
    owner = as_user(tenant.owner)

    for delivery in (foreign, sibling):
        response = owner.post(f"{detail(endpoint)}deliveries/{delivery.pk}/redeliver/")
        assert response.status_code == 404 and response.json()["code"] == "not_found"
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.FAILED


def test_an_endpoint_switched_off_is_switched_on_before_a_redelivery(tenant, as_user):
    endpoint = make_endpoint(tenant, is_active=False)
    failed = make_delivery(endpoint)

    response = as_user(tenant.owner).post(f"{detail(endpoint)}deliveries/{failed.pk}/redeliver/")

    assert response.status_code == 409 and "is_active" in response.json()["errors"]


def test_the_test_ping_answers_the_delivery_and_its_attempt(tenant, as_user, receiver):
    created = as_user(tenant.owner).post(WEBHOOKS, body(url=receiver.url), format="json").json()["data"]
    receiver.verify_with(created["secret"])

    response = as_user(tenant.owner).post(f"{WEBHOOKS}{created['id']}/test/")

    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["event_type"], data["status"], data["last_response_code"]) == ("webhook.test", "succeeded", 200)
    assert data["attempt_log"][0]["trigger"] == "test"
    (request,) = receiver.wait_for(1)
    assert request.verified and request.headers["webhook-id"] == data["webhook_id"]


def test_a_test_ping_to_a_receiver_that_refuses_is_a_200_saying_so(tenant, as_user, receiver):
    receiver.answers = [(410, "gone")]
    endpoint = make_endpoint(tenant, url=receiver.url)

    data = as_user(tenant.owner).post(f"{detail(endpoint)}test/").json()["data"]

    assert (data["status"], data["last_response_code"], data["attempt_log"][0]["body_excerpt"]) == ("failed", 410, "gone")


def test_rotating_the_secret_answers_the_new_one_once_and_keeps_the_old_one_signing_for_the_overlap(tenant, as_user):
    endpoint = make_endpoint(tenant)
    old = endpoint.secret

    response = as_user(tenant.owner).post(f"{detail(endpoint)}rotate_secret/")

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["secret"].startswith("whsec_") and data["secret"] != old
    endpoint.refresh_from_db()
    assert (endpoint.secret, endpoint.previous_secret) == (data["secret"], old)
    assert data["previous_secret_expires_at"].startswith(endpoint.previous_secret_expires_at.strftime("%Y-%m-%dT%H:%M"))


def test_no_response_or_log_line_carries_a_secret(tenant, as_user, caplog, receiver):
    owner = as_user(tenant.owner)
    created = owner.post(WEBHOOKS, body(url=receiver.url), format="json").json()["data"]
    url = f"{WEBHOOKS}{created['id']}/"
    caplog.set_level("DEBUG")
    responses = [owner.get(WEBHOOKS), owner.get(url), owner.get(f"{url}deliveries/"), owner.post(f"{url}test/"), owner.patch(url, {"description": "x"}, format="json")]

    for response in responses:
        assert created["secret"] not in response.content.decode()
        assert created["secret"][6:] not in response.content.decode()
    assert created["secret"][6:] not in caplog.text


def test_the_event_types_are_the_contracts(tenant):
    assert set(EventType.values) == {
        "content.approved",
        "content.scheduled",
        "content.published",
        "content.publish_failed",
        "content.updated",
        "automation.run_completed",
        "automation.run_failed",
    }
    assert not WebhookDelivery.objects.for_account(tenant.account).exists()
