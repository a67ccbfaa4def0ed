"""A Ghost integration: its credentials through the API (an Admin API key, never returned), and
against the real Ghost (scripts/ghost-up) a connection test, publishing (now, again, after an
unpublish), a sync, and Ghost's own signed webhooks delivered by Ghost to a live Inkwell.

The Ghost is shared by every test of the run, so names are unique and nothing counts what others
made."""

import random
import socket
import time
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from inkwell.api.exceptions import CMSPublishFailed

from inkwell.api.tests import assert_error
from inkwell.cms.base import PostPayload
from inkwell.integration.models import ConnectionStatus, Platform, SiteIntegration, SyncStatus, WebhookDelivery
from inkwell.integration.serializers import ADMIN_API_KEY_FORMAT, NOT_FOR_GHOST, NOT_FOR_WORDPRESS
from inkwell.integration.services import NOT_GHOST_INTEGRATION, STALE_TIMESTAMP, adapter_for, ghost_webhooks_setup
from inkwell.integration.tests.factories import make_integration
from inkwell.jobs.models import Job, JobStatus
from inkwell.publishing.models import PublishingRecord, PublishStatus
from inkwell.publishing.services import publish_due, publish_now
from inkwell.publishing.tests.helpers import ready_content
from inkwell.writer.models import ContentStatus, Image, SiteStatus, Taxonomy
from inkwell.writer.tests.factories import make_content

INTEGRATIONS = "/api/v1/integration/"


def fresh_id() -> int:
    """A content id no earlier run used: our reference on Ghost is "{account}-{content}", and the
    Ghost is shared by runs whose databases number their rows alike."""
    return random.randint(10**8, 2 * 10**9)
KEY = f"{'a1' * 12}:{'b2' * 32}"


def ghost_body(tenant, **fields) -> dict:
    return {"site_id": tenant.site.pk, "platform": "ghost", "base_url": "https://blog.example.com/", "admin_api_key": KEY, **fields}


def stored_column(integration_id: int, column: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM integration_siteintegration WHERE id = %s", [integration_id])
        return cursor.fetchone()[0]


# Credentials through the API


@pytest.mark.django_db
def test_a_ghost_integration_takes_an_admin_api_key_that_is_stored_encrypted_and_never_returned(tenant, as_user):
    client = as_user(tenant.owner)

    response = client.post(INTEGRATIONS, ghost_body(tenant, admin_api_key=f"  {KEY.upper()} "), format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["platform"], data["username"], data["admin_api_key_set"], data["app_password_set"]) == ("ghost", "", True, False)
    integration = SiteIntegration.objects.for_account(tenant.account).get()
    assert integration.app_password == KEY  # spaces and case forgiven
    assert KEY not in stored_column(integration.pk, "app_password")
    for answer in (response, client.get(f"{INTEGRATIONS}{integration.pk}/"), client.get(INTEGRATIONS)):
        assert KEY.split(":")[1] not in answer.content.decode()


@pytest.mark.django_db
def test_each_platform_refuses_the_other_platforms_credentials_on_their_fields(tenant, as_user):
    client = as_user(tenant.owner)

    assert_error(
        client.post(INTEGRATIONS, ghost_body(tenant, username="editor", app_password="abcd efgh"), format="json"),
        400,
        "validation_error",
        errors={"username": [NOT_FOR_GHOST], "app_password": [NOT_FOR_GHOST]},
    )
    wordpress = {"site_id": tenant.site.pk, "platform": "wordpress", "base_url": "https://wp.example.com", "username": "editor", "app_password": "abcd efgh", "admin_api_key": KEY}
    assert_error(client.post(INTEGRATIONS, wordpress, format="json"), 400, "validation_error", errors={"admin_api_key": [NOT_FOR_WORDPRESS]})
    assert_error(client.post(INTEGRATIONS, ghost_body(tenant, admin_api_key=None) | {"admin_api_key": ""}, format="json"), 400, "validation_error", errors={"admin_api_key": ["This field is required"]})
    body = ghost_body(tenant)
    del body["admin_api_key"]
    assert_error(client.post(INTEGRATIONS, body, format="json"), 400, "validation_error", errors={"admin_api_key": ["This field is required"]})
    assert not SiteIntegration.objects.for_account(tenant.account).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["abc", "a1" * 12 + "b2" * 32, "g1" * 12 + ":" + "b2" * 32, "a1" * 12 + ":" + "b2" * 31, "a1" * 12 + ":" + "b2" * 200])
def test_an_admin_api_key_of_the_wrong_shape_is_refused_with_how_it_looks(tenant, as_user, key):
    response = as_user(tenant.owner).post(INTEGRATIONS, ghost_body(tenant, admin_api_key=key), format="json")

    assert_error(response, 400, "validation_error", errors={"admin_api_key": [ADMIN_API_KEY_FORMAT]})


@pytest.mark.django_db
def test_a_new_key_replaces_the_stored_one_and_wordpress_fields_are_refused_on_update(tenant, as_user):
    integration = make_integration(tenant, platform=Platform.GHOST, username="", app_password=KEY, connection_status=ConnectionStatus.CONNECTED)
    client = as_user(tenant.owner)
    new_key = f"{'c3' * 12}:{'d4' * 32}"

    response = client.patch(f"{INTEGRATIONS}{integration.pk}/", {"admin_api_key": new_key}, format="json")

    assert response.status_code == 200 and response.json()["data"]["connection_status"] == "untested"
    integration.refresh_from_db()
    assert integration.app_password == new_key
    assert_error(client.patch(f"{INTEGRATIONS}{integration.pk}/", {"app_password": "x y z"}, format="json"), 400, "validation_error", errors={"app_password": [NOT_FOR_GHOST]})
    assert client.put(f"{INTEGRATIONS}{integration.pk}/", {"base_url": "https://other.example.com"}, format="json").status_code == 200
    integration.refresh_from_db()
    assert (integration.base_url, integration.app_password) == ("https://other.example.com", new_key)


@pytest.mark.django_db
def test_webhooks_are_made_through_the_api_only_for_ghost(tenant, as_user):
    integration = make_integration(tenant)  # WordPress: its webhook is the plugin's

    response = as_user(tenant.owner).post(f"{INTEGRATIONS}{integration.pk}/register_webhooks/")

    assert_error(response, 409, "state_conflict", errors={"platform": [NOT_GHOST_INTEGRATION]})


# Against the real Ghost


@pytest.fixture
def ghost_integration(tenant, ghost, allow_private_cms):
    return make_integration(tenant, platform=Platform.GHOST, base_url=ghost.url, username="", app_password=ghost.admin_key)


@pytest.mark.django_db
def test_the_connection_test_uses_the_admin_api_key_and_names_a_wrong_one(tenant, ghost_integration, ghost, as_user):
    client = as_user(tenant.owner)

    data = client.post(f"{INTEGRATIONS}{ghost_integration.pk}/test_connection/").json()["data"]

    assert (data["connected"], data["error_code"], data["user"]["can_publish"]) == (True, None, True)
    assert data["site_name"] and data["message"].startswith(f'Connected to "{data["site_name"]}"')
    assert SiteIntegration.objects.for_account(tenant.account).get().connection_status == ConnectionStatus.CONNECTED
    key_id = ghost.admin_key.split(":")[0]
    SiteIntegration.objects.for_account(tenant.account).update(app_password=f"{key_id}:{'0' * 64}")
    refused = client.post(f"{INTEGRATIONS}{ghost_integration.pk}/test_connection/").json()["data"]
    assert (refused["connected"], refused["error_code"], refused["message"]) == (False, "cms_auth_failed", "Ghost refused the Admin API key")


@pytest.mark.django_db
def test_content_is_published_to_ghost_with_its_images_and_tags_and_updated_in_place(tenant, ghost_integration, ghost, settings):
    name = uuid.uuid4().hex[:8]
    content = ready_content(tenant, id=fresh_id(), title=f"Tomatoes {name}", slug=f"tomatoes-{name}", meta_title=f"Meta {name}", meta_description=f"About tomatoes {name}")

    outcome = publish_now(content=content, user=tenant.owner)

    assert outcome.published
    content.refresh_from_db()
    assert (content.site_status, content.status) == (SiteStatus.PUBLISHED, ContentStatus.PUBLISHED)
    assert content.external_url == f"{ghost.url}/tomatoes-{name}/"
    with ghost.client() as client:
        post = client.get(f"/posts/{content.external_id}/", params={"formats": "html", "include": "tags"}).json()["posts"][0]
    images = {image.alt_text: image for image in Image.objects.for_account(tenant.account).filter(content=content)}
    assert post["feature_image"] == images["Featured tomatoes"].external_url and post["feature_image_alt"] == "Featured tomatoes"
    assert images["Tomatoes in a pot"].external_url in post["html"] and "kg-image-card" in post["html"]
    assert [tag["slug"] for tag in post["tags"]] == ["vegetables", "balcony"]  # the category first: Ghost's primary tag
    assert (post["meta_title"], post["meta_description"]) == (f"Meta {name}", f"About tomatoes {name}")
    assert set(Taxonomy.objects.for_account(tenant.account).values_list("external_id", flat=True)) == {tag["id"] for tag in post["tags"]}

    content.title = f"Tomatoes, revised {name}"
    content.save(update_fields=["title"])
    again = publish_now(content=content, user=tenant.owner)

    assert again.published and again.record.external_id == content.external_id
    with ghost.client() as client:
        assert client.get(f"/posts/{content.external_id}/").json()["posts"][0]["title"] == f"Tomatoes, revised {name}"
    assert PublishingRecord.objects.for_account(tenant.account).filter(status=PublishStatus.SUCCEEDED).count() == 2


@pytest.mark.django_db
def test_a_sync_imports_ghost_tags_and_reconciles_an_unpublished_post(tenant, ghost_integration, ghost, as_user, eager_jobs):
    name = uuid.uuid4().hex[:8]
    adapter = adapter_for(integration=ghost_integration)
    tag = adapter.ensure_term("tag", name=f"Tag {name}", slug=f"tag-{name}")
    post = adapter.create_post(PostPayload(reference=f"sync-{name}", title=f"Sync {name}", html="<p>Body</p>"))
    adapter.update_post(post.external_id, PostPayload(reference=f"sync-{name}", title=f"Sync {name}", html="<p>Body</p>", status="draft"))
    content = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id=post.external_id, external_url=post.url)

    with eager_jobs():
        response = as_user(tenant.owner).post(f"{INTEGRATIONS}{ghost_integration.pk}/sync/")

    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    assert job.status == JobStatus.SUCCEEDED, job.error
    row = Taxonomy.objects.for_account(tenant.account).get(site=tenant.site, slug=f"tag-{name}")
    assert (row.taxonomy_type, row.external_id) == ("tag", tag.external_id)
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED
    ghost_integration.refresh_from_db()
    assert ghost_integration.sync_status == SyncStatus.SUCCEEDED
    assert [item["slug"] for item in ghost_integration.structure["content_types"]] == ["post", "page"]


@pytest.mark.django_db
def test_webhooks_ghost_refuses_leave_everything_as_it_was_and_say_why(tenant, ghost_integration, ghost, as_user):
    SiteIntegration.objects.for_account(tenant.account).update(app_password=f"{ghost.admin_key.split(':')[0]}:{'0' * 64}")
    secret = ghost_integration.webhook_secret

    data = as_user(tenant.owner).post(f"{INTEGRATIONS}{ghost_integration.pk}/register_webhooks/").json()["data"]

    assert (data["registered"], data["error_code"], data["events"]) == (False, "cms_auth_failed", [])
    assert data["target_url"].startswith(f"http://testserver/api/v1/integration/webhook/ghost/{ghost_integration.pk}/?setup=")
    ghost_integration.refresh_from_db()
    assert (ghost_integration.webhook_secret, ghost_integration.remote_webhook_ids) == (secret, [])


# Publishing failures against the real Ghost: named, recorded, retried with back-off when worth it


@pytest.fixture
def retry_settings(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "PUBLISH_MAX_ATTEMPTS": 3, "PUBLISH_RETRY_SECONDS": 60}
    return settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.django_db
def test_ghost_down_puts_the_content_back_on_the_schedule_and_the_scheduler_publishes_it_when_ghost_is_back(tenant, ghost_integration, ghost, retry_settings):
    SiteIntegration.objects.for_account(tenant.account).update(base_url=f"http://127.0.0.1:{free_port()}")
    content = ready_content(tenant, id=fresh_id(), title=f"Retried {uuid.uuid4().hex[:8]}", images=False)
    before = timezone.now()

    with pytest.raises(CMSPublishFailed) as failure:
        publish_now(content=content, user=tenant.owner)

    assert (failure.value.status_code, failure.value.code) == (502, "cms_unreachable")
    assert failure.value.errors["attempts_left"] == ["2"]
    content.refresh_from_db()
    assert content.site_status == SiteStatus.SCHEDULED
    assert before + timedelta(seconds=59) < content.scheduled_publish_at < timezone.now() + timedelta(seconds=61)

    SiteIntegration.objects.for_account(tenant.account).update(base_url=ghost.url)  # Ghost is back
    assert publish_due(now=content.scheduled_publish_at - timedelta(seconds=1)) == 0  # not before its time
    assert publish_due(now=content.scheduled_publish_at + timedelta(seconds=1)) == 1

    content.refresh_from_db()
    assert content.site_status == SiteStatus.PUBLISHED and content.external_url.startswith(ghost.url)
    records = list(PublishingRecord.objects.for_account(tenant.account).filter(content=content).order_by("attempt").values_list("attempt", "status", "error_code", "trigger"))
    assert records == [(1, "failed", "cms_unreachable", "manual"), (2, "succeeded", "", "scheduled")]


@pytest.mark.django_db
def test_a_wrong_key_fails_the_publish_at_once_without_a_retry(tenant, ghost_integration, ghost, retry_settings):
    SiteIntegration.objects.for_account(tenant.account).update(app_password=f"{ghost.admin_key.split(':')[0]}:{'0' * 64}")
    content = ready_content(tenant, id=fresh_id(), images=False)

    with pytest.raises(CMSPublishFailed) as failure:
        publish_now(content=content, user=tenant.owner)

    assert (failure.value.code, failure.value.error) == ("cms_auth_failed", "Ghost refused the Admin API key")
    assert failure.value.errors == {"next_retry_at": [], "attempts_left": ["0"]}
    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED


@pytest.mark.django_db
def test_ghosts_422_fails_the_publish_with_ghosts_reason(tenant, ghost_integration, ghost, retry_settings):
    adapter = adapter_for(integration=ghost_integration)
    name = uuid.uuid4().hex[:8]
    gone = adapter.ensure_term("tag", name=f"Gone {name}", slug=f"gone-{name}")
    with ghost.client() as client:  # deleted in Ghost after Inkwell remembered its id
        client.delete(f"/tags/{gone.external_id}/").raise_for_status()
    content = ready_content(tenant, id=fresh_id(), images=False)
    tag = Taxonomy.objects.for_account(tenant.account).create(account=tenant.account, site=tenant.site, taxonomy_type="tag", name=f"Gone {name}", slug=f"gone-{name}", external_id=gone.external_id)
    content.taxonomies.add(tag)

    with pytest.raises(CMSPublishFailed) as failure:
        publish_now(content=content, user=tenant.owner)

    assert failure.value.code == "cms_rejected" and "Validation error, cannot save post. Value in [tags.name] cannot be blank" in failure.value.error
    record = PublishingRecord.objects.for_account(tenant.account).get(content=content)
    assert (record.status, record.error_code, record.retry_at) == (PublishStatus.FAILED, "cms_rejected", None)
    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED


# Ghost's webhooks, delivered by the real Ghost to a live Inkwell


def wait_for(check, *, seconds: float = 20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return False


@pytest.fixture
def registered_webhooks(ghost_integration, live_server):
    # Ghost resolves names through DNS only (no hosts file): the live server by its address.
    base = live_server.url.replace("//localhost:", "//127.0.0.1:")
    target = f"{base}{reverse('integration-webhook-ghost', kwargs={'pk': ghost_integration.pk})}"
    result = ghost_webhooks_setup(integration=ghost_integration, target_url=target)
    assert result["registered"], result
    yield result
    # Ghost calls every webhook it has on each post event: none may outlive this server.
    ghost_integration.refresh_from_db()
    with adapter_for(integration=ghost_integration) as adapter:
        for webhook_id in ghost_integration.remote_webhook_ids:
            adapter._call("DELETE", f"/webhooks/{webhook_id}/", expect=(404,))


@pytest.mark.django_db(transaction=True)
def test_ghost_delivers_signed_webhooks_that_unpublish_and_forget_our_content(tenant, ghost_integration, ghost, registered_webhooks):
    assert set(registered_webhooks["events"]) >= {"post.published", "post.unpublished", "post.deleted"}
    ghost_integration.refresh_from_db()
    assert len(ghost_integration.remote_webhook_ids) == len(registered_webhooks["events"])
    name = uuid.uuid4().hex[:8]
    content = ready_content(tenant, id=fresh_id(), title=f"Hooked {name}", images=False)
    publish_now(content=content, user=tenant.owner)
    content.refresh_from_db()
    deliveries = WebhookDelivery.objects.for_account(tenant.account).filter(integration=ghost_integration, external_id=content.external_id)
    assert wait_for(lambda: deliveries.exists()), "Ghost did not deliver post.published"

    with ghost.client() as client:  # unpublished in Ghost's editor
        updated_at = client.get(f"/posts/{content.external_id}/").json()["posts"][0]["updated_at"]
        client.put(f"/posts/{content.external_id}/", json={"posts": [{"status": "draft", "updated_at": updated_at}]}).raise_for_status()

    assert wait_for(lambda: content.__class__.objects.for_account(tenant.account).get(pk=content.pk).site_status == SiteStatus.NOT_PUBLISHED)
    assert deliveries.filter(outcome="applied").exists()

    with ghost.client() as client:  # deleted in Ghost
        client.delete(f"/posts/{content.external_id}/").raise_for_status()

    assert wait_for(lambda: content.__class__.objects.for_account(tenant.account).get(pk=content.pk).external_id == "")
    assert deliveries.filter(event="post.deleted").exists()


@pytest.mark.django_db
def test_a_delivery_not_signed_with_the_integrations_secret_is_refused(tenant, ghost_integration, client, settings):
    from inkwell.cms.ghost import webhook_signature

    url = reverse("integration-webhook-ghost", kwargs={"pk": ghost_integration.pk})
    body = b'{"post":{"current":{},"previous":{"id":"' + b"a" * 24 + b'"}}}'
    now_ms = str(int(time.time() * 1000))
    good = webhook_signature(secret=ghost_integration.webhook_secret, raw_body=body, timestamp_ms=now_ms)
    wrong = webhook_signature(secret="another secret", raw_body=body, timestamp_ms=now_ms)
    stale_ms = str(int(time.time() * 1000) - 3_600_000)
    stale = webhook_signature(secret=ghost_integration.webhook_secret, raw_body=body, timestamp_ms=stale_ms)

    def post(signature, pk=ghost_integration.pk, payload=body):
        headers = {"HTTP_X_GHOST_SIGNATURE": signature} if signature is not None else {}
        return client.post(reverse("integration-webhook-ghost", kwargs={"pk": pk}), payload, content_type="application/json", **headers)

    invalid = {"X-Ghost-Signature": ["Invalid signature"]}
    assert_error(post(None), 401, "authentication_required", errors=invalid)
    assert_error(post(f"sha256={wrong}, t={now_ms}"), 401, "authentication_required", errors=invalid)
    assert_error(post(f"sha256={stale}, t={stale_ms}"), 401, "authentication_required", errors={"X-Ghost-Signature": [STALE_TIMESTAMP]})
    assert_error(post(f"sha256={good}, t={now_ms}", pk=ghost_integration.pk + 1000), 401, "authentication_required", errors=invalid)
    assert_error(post(f"sha256={good}, t={now_ms}", payload=b"[1]"), 401, "authentication_required", errors=invalid)  # signed for another body
    assert post(f"sha256={good}, t={now_ms}").json()["data"] == {"ignored": True}
    assert post(f"sha256={good}, t={now_ms}").json()["data"] == {"duplicate": True}
    assert url.endswith(f"/webhook/ghost/{ghost_integration.pk}/")


@pytest.mark.django_db
@pytest.mark.parametrize(("body", "field"), [(b"not json", None), (b'{"post": []}', "post"), (b'{"post": {"current": {"id": "x", "status": "published"}}}', "post"), (b"{}", "post")])
def test_a_signed_body_that_is_not_ghosts_post_payload_is_a_400_never_a_500(ghost_integration, client, body, field):
    from inkwell.cms.ghost import webhook_signature

    now_ms = str(int(time.time() * 1000))
    signature = webhook_signature(secret=ghost_integration.webhook_secret, raw_body=body, timestamp_ms=now_ms)

    response = client.post(reverse("integration-webhook-ghost", kwargs={"pk": ghost_integration.pk}), body, content_type="application/json", HTTP_X_GHOST_SIGNATURE=f"sha256={signature}, t={now_ms}")

    assert response.status_code == 400
    assert field is None or field in response.json()["errors"]
    assert not WebhookDelivery.objects.for_account(ghost_integration.account_id).filter(integration=ghost_integration).exists()
