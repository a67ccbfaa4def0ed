"""POST /integration/webhook/cms/: who may deliver, the signature and its window, replays, and
what a post's update, trash or deletion on the CMS changes on our content."""

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from inkwell.api.tests import assert_error
from inkwell.integration.models import WebhookDelivery
from inkwell.integration.services import signature_of
from inkwell.integration.tasks import purge_old_webhook_deliveries
from inkwell.integration.tests.factories import make_integration, make_site
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Subscription, SubscriptionStatus
from inkwell.writer.models import Content, SiteStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

WEBHOOK = "/api/v1/integration/webhook/cms/"
POST_URL = "https://blog.example.com/2026/11/running-shoes/"
INVALID_SIGNATURE = {"X-Inkwell-Signature": ["Invalid signature"]}
STALE = {"X-Inkwell-Timestamp": ["The timestamp is missing or outside the allowed window"]}


@pytest.fixture
def integration(tenant):
    return make_integration(tenant)


@pytest.fixture
def site_key(tenant):
    """An API key of the tenant bound to its site, as the CMS would hold it."""
    return tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="WordPress", site=tenant.site)[1]


@pytest.fixture
def published(tenant):
    return make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id="42", external_url=POST_URL, published_at=timezone.now() - timedelta(days=1))


def payload(event: str = "post.updated", post_id="42", status: str = "publish", **extra) -> dict:
    return {"event": event, "post": {"id": post_id, "status": status, "link": POST_URL, "modified_gmt": "2026-11-20 10:00:00"}, **extra}


def deliver(client, key: str | None, secret: str, data, *, timestamp: int | None = None, signature: str | None = None, raw: bytes | None = None):
    raw = raw if raw is not None else json.dumps(data).encode()
    timestamp = int(time.time()) if timestamp is None else timestamp
    headers = {"X-Inkwell-Timestamp": str(timestamp), "X-Inkwell-Signature": signature or f"sha256={signature_of(secret=secret, timestamp=str(timestamp), raw_body=raw)}"}
    if key is not None:
        headers["Authorization"] = f"ApiKey {key}"
    return client.post(WEBHOOK, data=raw, content_type="application/json", headers=headers)


def content_state(content: Content) -> tuple:
    content.refresh_from_db()
    return content.site_status, content.external_id, content.external_url


def test_an_update_to_draft_unpublishes_the_content(api_client, site_key, integration, published):
    response = deliver(api_client, site_key, integration.webhook_secret, payload(status="draft"))

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"applied": True, "content_id": published.pk, "site_status": "not_published", "external_url": POST_URL}
    assert content_state(published) == (SiteStatus.NOT_PUBLISHED, "42", POST_URL)
    assert WebhookDelivery.objects.for_account(integration.account).get().outcome == "applied"


def test_an_update_to_publish_publishes_the_content_with_its_link(api_client, site_key, integration, tenant):
    content = make_content(tenant, external_id="42")
    new_url = "https://blog.example.com/running-shoes-2/"

    response = deliver(api_client, site_key, integration.webhook_secret, {**payload(), "post": {**payload()["post"], "link": new_url}})

    assert response.json()["data"]["site_status"] == "published"
    assert content_state(content) == (SiteStatus.PUBLISHED, "42", new_url)
    assert content.published_at.isoformat() == "2026-11-20T10:00:00+00:00"


def test_a_trashed_post_unpublishes_the_content_and_keeps_its_link(api_client, site_key, integration, published):
    response = deliver(api_client, site_key, integration.webhook_secret, payload("post.trashed", status="trash"))

    assert response.json()["data"]["applied"] is True
    assert content_state(published) == (SiteStatus.NOT_PUBLISHED, "42", POST_URL)


def test_a_deleted_post_unpublishes_the_content_and_forgets_the_post(api_client, site_key, integration, published):
    response = deliver(api_client, site_key, integration.webhook_secret, {"event": "post.deleted", "post": {"id": 42}})

    assert response.json()["data"] == {"applied": True, "content_id": published.pk, "site_status": "not_published", "external_url": ""}
    assert content_state(published) == (SiteStatus.NOT_PUBLISHED, "", "")


def test_a_post_scheduled_on_the_cms_changes_nothing(api_client, site_key, integration, published):
    response = deliver(api_client, site_key, integration.webhook_secret, payload(status="future"))

    assert response.json()["data"]["applied"] is False
    assert content_state(published) == (SiteStatus.PUBLISHED, "42", POST_URL)
    assert WebhookDelivery.objects.for_account(integration.account).get().outcome == "unchanged"


def test_content_being_published_or_on_our_schedule_keeps_its_state(api_client, site_key, integration, tenant):
    sending = make_content(tenant, site_status=SiteStatus.PUBLISHING, external_id="7")
    scheduled = make_content(tenant, site_status=SiteStatus.SCHEDULED, external_id="8", external_url=POST_URL)

    deliver(api_client, site_key, integration.webhook_secret, payload(post_id="7", status="draft"))
    deliver(api_client, site_key, integration.webhook_secret, payload(post_id="8", status="draft"))
    deliver(api_client, site_key, integration.webhook_secret, {"event": "post.deleted", "post": {"id": "7"}})

    assert content_state(sending) == (SiteStatus.PUBLISHING, "7", "")
    assert content_state(scheduled) == (SiteStatus.SCHEDULED, "8", POST_URL)
    deliver(api_client, site_key, integration.webhook_secret, {"event": "post.deleted", "post": {"id": "8"}})
    assert content_state(scheduled) == (SiteStatus.SCHEDULED, "", "")


def test_an_unknown_post_is_acknowledged_and_ignored(api_client, site_key, integration, published):
    response = deliver(api_client, site_key, integration.webhook_secret, payload(post_id="999", status="draft"))

    assert response.status_code == 200
    assert response.json()["data"] == {"ignored": True}
    assert content_state(published) == (SiteStatus.PUBLISHED, "42", POST_URL)


def test_a_replayed_delivery_is_acknowledged_without_a_second_effect(api_client, site_key, integration, published):
    timestamp = int(time.time())
    first = deliver(api_client, site_key, integration.webhook_secret, payload(status="draft"), timestamp=timestamp)
    Content.objects.for_account(published.account).filter(pk=published.pk).update(site_status=SiteStatus.PUBLISHED)

    replay = deliver(api_client, site_key, integration.webhook_secret, payload(status="draft"), timestamp=timestamp)

    assert first.json()["data"]["applied"] is True
    assert replay.status_code == 200
    assert replay.json()["data"] == {"duplicate": True}
    assert content_state(published)[0] == SiteStatus.PUBLISHED
    assert WebhookDelivery.objects.for_account(integration.account).count() == 1


def test_a_wrong_signature_is_refused(api_client, site_key, integration, published):
    data = payload(status="draft")
    raw = json.dumps(data).encode()
    timestamp = int(time.time())
    forged = [
        f"sha256={signature_of(secret='another secret', timestamp=str(timestamp), raw_body=raw)}",
        f"sha256={signature_of(secret=integration.webhook_secret, timestamp=str(timestamp + 1), raw_body=raw)}",
        signature_of(secret=integration.webhook_secret, timestamp=str(timestamp), raw_body=raw),
        "sha256=",
        "sha256=" + "0" * 64,
    ]
    for signature in forged:
        assert_error(deliver(api_client, site_key, "", data, timestamp=timestamp, signature=signature), 401, "authentication_required", errors=INVALID_SIGNATURE)
    genuine = deliver(api_client, site_key, integration.webhook_secret, data, raw=raw, timestamp=timestamp)
    assert genuine.status_code == 200
    assert genuine["X-RateLimit-Limit"] == "300"
    # The body changed after signing.
    body_changed = json.dumps(payload(status="publish")).encode()
    signed_for_raw = f"sha256={signature_of(secret=integration.webhook_secret, timestamp=str(timestamp), raw_body=raw)}"
    assert_error(deliver(api_client, site_key, "", None, timestamp=timestamp, signature=signed_for_raw, raw=body_changed), 401, "authentication_required", errors=INVALID_SIGNATURE)


def test_a_missing_signature_is_refused(api_client, site_key, integration, published):
    raw = json.dumps(payload(status="draft")).encode()
    response = api_client.post(
        WEBHOOK, data=raw, content_type="application/json", headers={"Authorization": f"ApiKey {site_key}", "X-Inkwell-Timestamp": str(int(time.time()))}
    )

    assert_error(response, 401, "authentication_required", errors=INVALID_SIGNATURE)
    assert content_state(published)[0] == SiteStatus.PUBLISHED


# Two seconds past the 300 s window: the test's clock and the server's read whole seconds apart,
# so one second past it could land on a second boundary and fall inside.
@pytest.mark.parametrize("offset", [-302, 302, -3600])
def test_a_timestamp_outside_the_window_is_refused_even_when_signed(api_client, site_key, integration, published, offset):
    response = deliver(api_client, site_key, integration.webhook_secret, payload(status="draft"), timestamp=int(time.time()) + offset)

    assert_error(response, 401, "authentication_required", errors=STALE)
    assert content_state(published)[0] == SiteStatus.PUBLISHED


def test_the_window_follows_the_setting(api_client, site_key, integration, published, settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "WEBHOOK_TOLERANCE_SECONDS": 30}

    assert deliver(api_client, site_key, integration.webhook_secret, payload(status="draft"), timestamp=int(time.time()) - 60).status_code == 401
    assert deliver(api_client, site_key, integration.webhook_secret, payload(status="draft"), timestamp=int(time.time()) - 20).status_code == 200


@pytest.mark.parametrize("timestamp", ["", "soon", "1.5e9", "-5", "١٧٠٠٠٠٠٠٠٠"])
def test_a_malformed_timestamp_is_refused(api_client, site_key, integration, timestamp):
    raw = json.dumps(payload()).encode()
    headers = {"Authorization": f"ApiKey {site_key}", "X-Inkwell-Timestamp": timestamp, "X-Inkwell-Signature": f"sha256={signature_of(secret=integration.webhook_secret, timestamp=timestamp, raw_body=raw)}"}

    assert_error(api_client.post(WEBHOOK, data=raw, content_type="application/json", headers=headers), 401, "authentication_required", errors=STALE)


def test_a_missing_or_wrong_api_key_is_refused(api_client, site_key, integration, published, tenant, as_user):
    data = payload(status="draft")

    assert_error(deliver(api_client, None, integration.webhook_secret, data), 401, "authentication_required")
    assert_error(deliver(api_client, site_key[:-3] + "xyz", integration.webhook_secret, data), 401, "invalid_token")
    assert_error(deliver(api_client, "not-a-key", integration.webhook_secret, data), 401, "invalid_token")
    # A person's token is no CMS credential.
    assert_error(deliver(as_user(tenant.owner), None, integration.webhook_secret, data), 401, "authentication_required")
    assert content_state(published)[0] == SiteStatus.PUBLISHED


def test_an_account_wide_key_names_the_site_in_the_payload(api_client, tenant, integration, published):
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="All sites")[1]

    missing = deliver(api_client, key, integration.webhook_secret, payload(status="draft"))
    assert_error(missing, 400, "validation_error", errors={"site_id": ["This field is required"]})
    for site_id in ("12", True, 0, 2**70):
        wrong = deliver(api_client, key, integration.webhook_secret, payload(status="draft", site_id=site_id))
        assert_error(wrong, 400, "validation_error", errors={"site_id": ["Site must belong to your account"]})
    response = deliver(api_client, key, integration.webhook_secret, payload(status="draft", site_id=tenant.site.pk))
    assert response.json()["data"]["applied"] is True


def test_a_webhook_for_another_accounts_site_is_refused(api_client, tenant, other_tenant, integration, published):
    theirs = make_integration(other_tenant)
    their_content = make_content(other_tenant, site_status=SiteStatus.PUBLISHED, external_id="42")
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="All sites")[1]

    response = deliver(api_client, key, theirs.webhook_secret, payload(status="draft", site_id=other_tenant.site.pk))

    # Their integration's secret signs nothing for this key's account.
    assert_error(response, 401, "authentication_required", errors=INVALID_SIGNATURE)
    assert content_state(their_content)[0] == SiteStatus.PUBLISHED
    assert not WebhookDelivery.objects.for_account(other_tenant.account).exists()


def test_a_site_bound_key_serves_its_own_site_only(api_client, tenant, site_key, integration):
    other_site = make_site(tenant)
    other = make_integration(tenant, site=other_site)

    signed_by_its_own_site = deliver(api_client, site_key, integration.webhook_secret, payload(site_id=other_site.pk))
    signed_by_the_other_site = deliver(api_client, site_key, other.webhook_secret, payload(site_id=other_site.pk))

    assert_error(signed_by_its_own_site, 403, "permission_denied")
    assert_error(signed_by_the_other_site, 401, "authentication_required", errors=INVALID_SIGNATURE)


def test_an_account_wide_key_must_be_signed_by_the_named_sites_integration(api_client, tenant, integration, published):
    other_site = make_site(tenant)
    other = make_integration(tenant, site=other_site)
    key = tenancy.api_key_create(account=tenant.account, user=tenant.owner, name="All sites")[1]

    crossed = deliver(api_client, key, other.webhook_secret, payload(status="draft", site_id=tenant.site.pk))
    assert_error(crossed, 401, "authentication_required", errors=INVALID_SIGNATURE)
    assert content_state(published)[0] == SiteStatus.PUBLISHED

    site_without_integration = make_site(tenant)
    unintegrated = deliver(api_client, key, other.webhook_secret, payload(status="draft", site_id=site_without_integration.pk))
    assert_error(unintegrated, 409, "state_conflict", errors={"site_id": ["This site has no CMS integration"]})


def test_the_signature_is_verified_before_the_body_is_parsed(api_client, site_key, integration):
    """An unsigned body is never read: garbage or a deeply nested body with a wrong signature
    is refused for its signature, not parsed."""
    for raw in (b"{not json", b"[" * 100_000 + b"]" * 100_000):
        response = deliver(api_client, site_key, integration.webhook_secret, None, raw=raw, signature="sha256=" + "0" * 64)
        assert_error(response, 401, "authentication_required", errors=INVALID_SIGNATURE)


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_signed_body_nested_too_deeply_is_a_parse_error(api_client, site_key, integration, depth):
    raw = b'{"a":' * depth + b"1" + b"}" * depth
    response = deliver(api_client, site_key, integration.webhook_secret, None, raw=raw)
    assert_error(response, 400, "parse_error", errors={"body": ["The JSON is nested more than 32 levels deep"]})
    assert not WebhookDelivery.objects.for_account(integration.account).exists()


def test_a_site_without_an_integration_is_a_conflict(api_client, tenant, site_key):
    response = deliver(api_client, site_key, "any", payload())

    assert_error(response, 409, "state_conflict", errors={"site_id": ["This site has no CMS integration"]})


def test_an_inactive_integration_ignores_deliveries(api_client, site_key, tenant, published):
    integration = make_integration(tenant, is_active=False)

    response = deliver(api_client, site_key, integration.webhook_secret, payload(status="draft"))

    assert response.json()["data"] == {"ignored": True}
    assert content_state(published)[0] == SiteStatus.PUBLISHED


def test_a_body_that_is_not_json_is_a_bad_request(api_client, site_key, integration):
    for raw, message in ((b"{not json", "The body is not valid JSON"), (b"[1, 2]", "The body must be a JSON object")):
        assert_error(deliver(api_client, site_key, integration.webhook_secret, None, raw=raw), 400, "parse_error", errors={"body": [message]})


def test_a_signed_payload_with_bad_fields_is_a_bad_request(api_client, site_key, integration):
    cases = [
        ({"post": {"id": 1}}, {"event": ["This field is required"]}),
        ({"event": "post.renamed", "post": {"id": 1}}, {"event": ["Invalid event"]}),
        ({"event": "post.updated"}, {"post": ["This field is required"]}),
        ({"event": "post.updated", "post": {"id": 1}}, {"post.status": ["This field is required"]}),
        ({"event": "post.updated", "post": {"status": "publish"}}, {"post.id": ["This field is required"]}),
        ({"event": "post.updated", "post": {"id": 1, "status": "publish", "link": "not a url"}}, {"post.link": ["Enter a valid URL."]}),
    ]
    for data, errors in cases:
        assert_error(deliver(api_client, site_key, integration.webhook_secret, data), 400, "validation_error", errors=errors)
    assert not WebhookDelivery.objects.for_account(integration.account).exists()


def test_an_account_whose_plan_lapsed_is_refused(api_client, site_key, integration, tenant):
    Subscription.objects.for_account(tenant.account).update(status=SubscriptionStatus.EXPIRED)

    assert_error(deliver(api_client, site_key, integration.webhook_secret, payload()), 403, "plan_inactive")


def test_old_deliveries_are_purged(integration, tenant):
    old = WebhookDelivery.objects.create(account=tenant.account, integration=integration, signature="a" * 64, event="post.updated", outcome="applied")
    recent = WebhookDelivery.objects.create(account=tenant.account, integration=integration, signature="b" * 64, event="post.updated", outcome="applied")
    WebhookDelivery.objects.for_account(tenant.account).filter(pk=old.pk).update(received_at=timezone.now() - timedelta(days=2))

    assert purge_old_webhook_deliveries() == 1
    assert list(WebhookDelivery.objects.for_account(tenant.account).values_list("pk", flat=True)) == [recent.pk]
