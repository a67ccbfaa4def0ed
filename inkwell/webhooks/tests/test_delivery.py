"""Delivering the outbox to a real receiver on loopback, which verifies every signature with the
independent ``standardwebhooks`` package (inkwell/webhooks/tests/receiver.py)."""

import base64
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from inkwell.automation.engine import announce_end
from inkwell.automation.models import RunStatus
from inkwell.automation.tests.factories import make_run
from inkwell.integration.tests.factories import make_integration
from inkwell.notifications.models import Notification, NotificationType
from inkwell.publishing import services as publishing
from inkwell.sitesettings.tests import publish_any_time
from inkwell.webhooks import services
from inkwell.webhooks.models import AttemptTrigger, DeliveryStatus, EventType, WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from inkwell.webhooks.tests.factories import make_endpoint
from inkwell.webhooks.tests.receiver import webhook_receiver
from inkwell.writer import services as writer
from inkwell.writer.models import ContentStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db


def endpoint_for(tenant, receiver, **fields) -> WebhookEndpoint:
    """An endpoint of the tenant registered through the service, the receiver trusting its secret."""
    endpoint, secret = services.endpoint_create(account=tenant.account, url=receiver.url, events=fields.pop("events", list(EventType.values)), **fields)
    receiver.verify_with(secret)
    return endpoint


def approve(tenant, content):
    writer.content_update(account=tenant.account, content=content, user=tenant.owner, status=ContentStatus.REVIEW)
    return writer.content_update(account=tenant.account, content=content, user=tenant.owner, status=ContentStatus.APPROVED)


def make_due(delivery_ids=None) -> None:
    """The back-off has passed (the clock is not moved: the receiver checks the real timestamp)."""
    rows = WebhookDelivery.dangerously_unscoped.filter(status=DeliveryStatus.PENDING)
    if delivery_ids is not None:
        rows = rows.filter(pk__in=delivery_ids)
    rows.update(next_attempt_at=timezone.now() - timedelta(seconds=1))


def attempts_of(delivery) -> list[WebhookAttempt]:
    return list(WebhookAttempt.dangerously_unscoped.filter(delivery=delivery).order_by("number"))


def test_a_delivery_is_signed_per_standard_webhooks_and_an_independent_implementation_verifies_it(tenant, receiver):
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_APPROVED])
    content = make_content(tenant, status=ContentStatus.REVIEW)

    writer.content_update(account=tenant.account, content=content, user=tenant.owner, status=ContentStatus.APPROVED)
    assert services.deliver_due() == 1

    (request,) = receiver.wait_for(1)
    assert request.verified, request.verification_error
    assert request.headers["webhook-signature"].startswith("v1,")
    assert request.headers["content-type"] == "application/json"
    body = request.payload
    assert body["type"] == "content.approved"
    assert body["data"]["content_id"] == content.pk and body["data"]["status"] == "approved"
    assert body["timestamp"].endswith("Z")
    delivery = WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint)
    assert request.headers["webhook-id"] == delivery.event.message_id
    assert (delivery.status, delivery.attempts, delivery.last_response_code) == (DeliveryStatus.SUCCEEDED, 1, 200)
    (attempt,) = attempts_of(delivery)
    assert (attempt.outcome, attempt.response_code, attempt.body_excerpt) == ("succeeded", 200, "ok")
    assert attempt.duration_ms >= 0


def test_an_endpoint_receives_only_the_events_it_subscribed_to(tenant, receiver):
    endpoint_for(tenant, receiver, events=[EventType.CONTENT_APPROVED])
    content = make_content(tenant)

    writer.content_update(account=tenant.account, content=content, user=tenant.owner, title="A new title")

    assert not WebhookDelivery.dangerously_unscoped.exists()
    assert services.deliver_due() == 0 and receiver.requests == []


def test_the_outbox_row_is_written_with_the_change_and_waits_for_a_worker(tenant, receiver):
    endpoint = endpoint_for(tenant, receiver)
    content = make_content(tenant, status=ContentStatus.REVIEW)

    writer.content_update(account=tenant.account, content=content, user=tenant.owner, status=ContentStatus.APPROVED)

    # No worker has run: both events wait in the outbox, committed with the change.
    pending = WebhookDelivery.dangerously_unscoped.filter(endpoint=endpoint, status=DeliveryStatus.PENDING)
    assert sorted(pending.values_list("event__event_type", flat=True)) == ["content.approved", "content.updated"]
    assert receiver.requests == []
    assert services.deliver_due() == 2
    assert sorted(request.payload["type"] for request in receiver.wait_for(2)) == ["content.approved", "content.updated"]
    updated = next(request.payload for request in receiver.requests if request.payload["type"] == "content.updated")
    assert updated["data"]["changed"] == ["status"]


def test_a_rolled_back_change_leaves_nothing_to_send(tenant, receiver):
    endpoint_for(tenant, receiver)
    content = make_content(tenant, status=ContentStatus.REVIEW)

    with pytest.raises(RuntimeError), transaction.atomic():
        writer.content_update(account=tenant.account, content=content, user=tenant.owner, status=ContentStatus.APPROVED)
        assert WebhookDelivery.dangerously_unscoped.count() == 2  # written inside the change's transaction...
        raise RuntimeError("the change fails after the event was raised")

    assert WebhookDelivery.dangerously_unscoped.count() == 0 and WebhookEvent.dangerously_unscoped.count() == 0  # ...and gone with it
    assert services.deliver_due() == 0
    assert receiver.requests == []


def test_a_receiver_that_fails_then_recovers_gets_the_delivery_on_a_later_attempt(tenant, receiver):
    receiver.answers = [500, (503, "busy, come back later"), 200]
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")

    before = timezone.now()
    services.deliver_due()
    delivery = WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint)
    assert delivery.status == DeliveryStatus.PENDING
    # The first wait of the schedule: 5 s.
    assert timedelta(seconds=4) <= delivery.next_attempt_at - before <= timedelta(seconds=7)
    assert services.deliver_due() == 0  # not due yet

    make_due()
    services.deliver_due()
    make_due()
    services.deliver_due()

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.SUCCEEDED, 3)
    log = attempts_of(delivery)
    assert [(attempt.outcome, attempt.response_code) for attempt in log] == [("failed", 500), ("failed", 503), ("succeeded", 200)]
    assert log[1].body_excerpt == "busy, come back later"
    requests = receiver.wait_for(3)
    assert all(request.verified for request in requests)
    # One message: the same webhook-id on every attempt, a fresh timestamp and signature each time.
    assert len({request.headers["webhook-id"] for request in requests}) == 1
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None and endpoint.is_active


def test_a_receiver_that_does_not_answer_within_the_timeout_is_a_failed_attempt_retried_later(tenant, receiver, fast_webhooks):
    receiver.answers = [("sleep", 3), 200]
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")

    services.deliver_due()

    delivery = WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint)
    (attempt,) = attempts_of(delivery)
    assert (attempt.outcome, attempt.response_code, attempt.error) == ("failed", None, "timeout")
    assert 900 <= attempt.duration_ms < 2900
    assert delivery.status == DeliveryStatus.PENDING
    endpoint.refresh_from_db()
    assert endpoint.failing_since is not None
    make_due()
    services.deliver_due()
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED


def test_the_default_schedule_makes_at_least_five_attempts_over_at_least_an_hour():
    delays = services.retry_delays()
    assert services.automatic_attempts() >= 5
    assert [delay.total_seconds() for delay in delays] == [5, 300, 1800, 7200, 18000, 36000, 36000]
    assert sum(delays[: services.automatic_attempts() - 1], timedelta()) >= timedelta(hours=1)


def test_a_delivery_that_spends_its_attempts_fails_and_is_redelivered_by_hand(tenant, receiver, settings):
    settings.INKWELL_WEBHOOKS = {**settings.INKWELL_WEBHOOKS, "RETRY_SCHEDULE_SECONDS": [0]}
    receiver.answers = [500, 500, 204]
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")

    services.deliver_due()
    services.deliver_due()
    delivery = WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, 2)
    assert services.deliver_due() == 0

    services.delivery_redeliver(delivery=delivery)
    services.deliver_due()

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_response_code) == (DeliveryStatus.SUCCEEDED, 3, 204)
    assert attempts_of(delivery)[-1].trigger == AttemptTrigger.REDELIVERY
    assert len({request.headers["webhook-id"] for request in receiver.wait_for(3)}) == 1


def test_a_duplicate_kick_sends_a_delivery_once(tenant, receiver):
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")
    delivery = WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint)

    assert services.deliver(delivery_id=delivery.pk) is not None
    assert services.deliver(delivery_id=delivery.pk) is None

    assert len(receiver.requests) == 1


def test_a_claim_whose_worker_died_is_closed_by_the_sweep_and_the_delivery_goes_on(tenant, receiver):
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")
    delivery = WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint)
    # A worker claimed it three minutes ago and was never heard of again.
    WebhookDelivery.dangerously_unscoped.filter(pk=delivery.pk).update(status=DeliveryStatus.DELIVERING, attempts=1, claimed_at=timezone.now() - timedelta(minutes=3))

    services.deliver_due()

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING
    assert [(attempt.outcome, attempt.error) for attempt in attempts_of(delivery)] == [("failed", "worker_lost")]
    make_due()
    services.deliver_due()
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.SUCCEEDED, 2)


def test_during_a_rotation_both_secrets_sign_and_after_the_overlap_only_the_new_one(tenant, receiver):
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    old_secret = receiver.secrets[0]
    endpoint, new_secret = services.secret_rotate(endpoint=endpoint)
    assert new_secret != old_secret and new_secret.startswith("whsec_")
    assert endpoint.previous_secret_expires_at - timezone.now() > timedelta(hours=23)

    receiver.verify_with(old_secret)  # a receiver that has not switched yet
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="One")
    services.deliver_due()
    receiver.verify_with(new_secret)  # one that has
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Two")
    services.deliver_due()
    first, second = receiver.wait_for(2)
    assert first.verified and second.verified
    assert len(second.headers["webhook-signature"].split(" ")) == 2

    WebhookEndpoint.dangerously_unscoped.filter(pk=endpoint.pk).update(previous_secret_expires_at=timezone.now() - timedelta(seconds=1))
    receiver.verify_with(old_secret)
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Three")
    services.deliver_due()
    third = receiver.wait_for(3)[2]
    assert not third.verified
    assert len(third.headers["webhook-signature"].split(" ")) == 1


def test_an_endpoint_failing_for_days_is_switched_off_and_the_account_told(tenant, receiver):
    receiver.answers = [500]
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    WebhookEndpoint.dangerously_unscoped.filter(pk=endpoint.pk).update(failing_since=timezone.now() - timedelta(days=5, minutes=1))
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="One")
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Two")

    services.deliver(delivery_id=WebhookDelivery.dangerously_unscoped.order_by("id").first().pk)

    endpoint.refresh_from_db()
    assert not endpoint.is_active and endpoint.disabled_at is not None
    notification = Notification.dangerously_unscoped.get(account=tenant.account, notification_type=NotificationType.WEBHOOK_ENDPOINT_DISABLED)
    assert endpoint.url in notification.message and "HTTP 500" in notification.message
    assert notification.metadata == {"endpoint_id": endpoint.pk}
    # Nothing more goes to it: what waited is failed (to redeliver once it is fixed).
    assert set(WebhookDelivery.dangerously_unscoped.values_list("status", flat=True)) == {DeliveryStatus.FAILED}
    assert services.deliver_due() == 0
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Three")
    assert WebhookDelivery.dangerously_unscoped.count() == 2


def test_an_endpoint_failing_for_less_than_the_limit_stays_on(tenant, receiver):
    receiver.answers = [500]
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    WebhookEndpoint.dangerously_unscoped.filter(pk=endpoint.pk).update(failing_since=timezone.now() - timedelta(days=4))
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="One")

    services.deliver_due()

    endpoint.refresh_from_db()
    assert endpoint.is_active
    assert not Notification.dangerously_unscoped.filter(notification_type=NotificationType.WEBHOOK_ENDPOINT_DISABLED).exists()


def test_a_private_address_is_refused_at_connection_time_unless_the_operator_allows_it(tenant, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": False}
    with webhook_receiver() as receiver:
        # Registered while allowed (or before a DNS change): the guard runs again on every attempt.
        endpoint = make_endpoint(tenant, url=receiver.url, events=[EventType.CONTENT_UPDATED])
        writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")

        services.deliver_due()

        (attempt,) = attempts_of(WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint))
        assert (attempt.outcome, attempt.error, attempt.response_code) == ("failed", "address_not_allowed", None)
        assert receiver.requests == []


def test_a_redirect_is_not_followed_and_counts_as_a_failure(tenant, receiver):
    with webhook_receiver() as elsewhere:
        receiver.answers = [(307, elsewhere.url)]
        endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
        writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")

        services.deliver_due()

        (attempt,) = attempts_of(WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint))
        assert (attempt.outcome, attempt.response_code) == ("failed", 307)
        assert elsewhere.requests == []


def test_only_a_short_excerpt_of_the_answer_is_kept(tenant, receiver):
    receiver.answers = [(200, "é" * 5000)]
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")

    services.deliver_due()

    (attempt,) = attempts_of(WebhookDelivery.dangerously_unscoped.get(endpoint=endpoint))
    assert attempt.body_excerpt == "é" * 500


def test_the_secret_is_whsec_and_base64_of_32_random_bytes_and_encrypted_at_rest(tenant):
    endpoint, secret = services.endpoint_create(account=tenant.account, url="https://hooks.example.com/x", events=[EventType.CONTENT_UPDATED])

    assert secret.startswith("whsec_") and len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT secret FROM webhooks_webhookendpoint WHERE id = %s", [endpoint.pk])
        (stored,) = cursor.fetchone()
    assert stored != secret and "whsec_" not in stored
    assert WebhookEndpoint.dangerously_unscoped.get(pk=endpoint.pk).secret == secret


def test_scheduling_publishing_and_failing_to_publish_raise_their_events(tenant, receiver):
    endpoint_for(tenant, receiver, events=[EventType.CONTENT_SCHEDULED, EventType.CONTENT_PUBLISHED])
    make_integration(tenant)
    content = approve(tenant, make_content(tenant))
    when = timezone.now() + timedelta(days=2)
    publish_any_time(tenant.site)  # two days ahead, whatever the time: the rules are not this test's subject

    publishing.content_schedule(content=content, scheduled_publish_at=when)
    publishing.record_publication(content=content, external_url="https://blog.example.com/p/1", external_id="1", user=tenant.owner)
    services.deliver_due()

    scheduled, published = sorted((request.payload for request in receiver.wait_for(2)), key=lambda body: body["type"] != "content.scheduled")
    assert scheduled["type"] == "content.scheduled" and scheduled["data"]["site_status"] == "scheduled"
    assert scheduled["data"]["scheduled_publish_at"].startswith(when.strftime("%Y-%m-%dT%H:%M"))
    assert published["type"] == "content.published" and published["data"]["external_url"] == "https://blog.example.com/p/1"


def test_an_automation_run_ending_raises_its_event_but_a_cancelled_one_does_not(tenant, receiver):
    endpoint_for(tenant, receiver, events=[EventType.AUTOMATION_RUN_COMPLETED, EventType.AUTOMATION_RUN_FAILED])
    completed = make_run(tenant, status=RunStatus.COMPLETED)
    failed = make_run(tenant, status=RunStatus.FAILED, error_message="The AI provider is down")
    cancelled = make_run(tenant, status=RunStatus.CANCELLED)

    for run in (completed, failed, cancelled):
        announce_end(run)
    services.deliver_due()

    bodies = sorted((request.payload for request in receiver.wait_for(2)), key=lambda body: body["type"])
    assert [(body["type"], body["data"]["run_id"]) for body in bodies] == [("automation.run_completed", completed.pk), ("automation.run_failed", failed.pk)]
    assert bodies[1]["data"]["error"] == "The AI provider is down"
    assert len(receiver.requests) == 2


def test_a_run_that_completed_with_errors_raises_run_completed_naming_its_status(tenant, receiver):
    """A run with failed items still completed (contract section 12): its event is run_completed,
    and its status says it had errors."""
    endpoint_for(tenant, receiver, events=[EventType.AUTOMATION_RUN_COMPLETED])
    run = make_run(tenant, status=RunStatus.COMPLETED_WITH_ERRORS)

    announce_end(run)
    services.deliver_due()

    [request] = receiver.wait_for(1)
    assert (request.payload["type"], request.payload["data"]["run_id"], request.payload["data"]["status"]) == ("automation.run_completed", run.pk, "completed_with_errors")


def test_the_test_ping_is_sent_at_once_and_leaves_the_endpoints_health_alone(tenant, receiver):
    receiver.answers = [500]
    endpoint = endpoint_for(tenant, receiver)

    delivery = services.endpoint_test(endpoint=endpoint)

    (request,) = receiver.wait_for(1)
    assert request.verified and request.payload["type"] == "webhook.test"
    assert (delivery.status, delivery.attempts, delivery.last_response_code) == (DeliveryStatus.FAILED, 1, 500)
    assert attempts_of(delivery)[0].trigger == AttemptTrigger.TEST
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None


def test_old_finished_deliveries_are_purged(tenant, receiver):
    endpoint = endpoint_for(tenant, receiver, events=[EventType.CONTENT_UPDATED])
    writer.content_update(account=tenant.account, content=make_content(tenant), user=tenant.owner, title="Changed")
    services.deliver_due()
    WebhookDelivery.dangerously_unscoped.filter(endpoint=endpoint).update(created_at=timezone.now() - timedelta(days=31))
    WebhookEvent.dangerously_unscoped.update(created_at=timezone.now() - timedelta(days=31))

    assert services.purge_deliveries() == 1

    assert not WebhookDelivery.dangerously_unscoped.exists() and not WebhookAttempt.dangerously_unscoped.exists() and not WebhookEvent.dangerously_unscoped.exists()
