"""The CMS issue end to end against a real WordPress, through Inkwell's HTTP API: connect a site,
test the connection, sync categories and tags, publish a post with categories, tags and a
featured image and read it back from WordPress, let the scheduler publish one scheduled a minute
ahead, then change the post on WordPress and deliver the signed webhook."""

import hashlib
import hmac
import json
import time
import uuid
from datetime import timedelta

import httpx2
import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from inkwell.publishing.services import publish_due
from inkwell.publishing.tests.helpers import add_image
from inkwell.sitesettings.tests import publish_any_time
from inkwell.writer.models import Content, ImageType, SiteStatus, Taxonomy
from inkwell.writer.tests.factories import make_content

pytestmark = [pytest.mark.django_db, pytest.mark.wordpress]

WEBHOOK = "/api/v1/integration/webhook/cms/"


def signed_delivery(api_client, *, api_key: str, secret: str, payload: dict):
    body = json.dumps(payload).encode()
    timestamp = str(int(time.time()))
    signature = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return api_client.post(
        WEBHOOK,
        data=body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"ApiKey {api_key}",
        HTTP_X_INKWELL_TIMESTAMP=timestamp,
        HTTP_X_INKWELL_SIGNATURE=f"sha256={signature}",
    )


def approve(client, content) -> None:
    for status in ("review", "approved"):
        moved = client.post(f"/api/v1/writer/content/{content.pk}/update_content/", {"status": status}, format="json")
        assert moved.status_code == 200, moved.json()


@pytest.fixture
def wp(wordpress) -> httpx2.Client:
    with wordpress.client() as client:
        yield client


def test_a_site_connects_syncs_publishes_schedules_and_hears_back_from_wordpress(tenant, as_user, api_client, wordpress, wp, allow_private_cms, eager_jobs):
    owner = as_user(tenant.owner)
    marker = uuid.uuid4().hex[:8]
    # It schedules a minute ahead, whenever it runs: any time is within the site's publishing rules.
    publish_any_time(tenant.site)

    # Connect and test the connection.
    created = owner.post(
        "/api/v1/integration/",
        {"site_id": tenant.site.pk, "platform": "wordpress", "base_url": wordpress.url, "username": wordpress.user, "app_password": wordpress.app_password},
        format="json",
    )
    assert created.status_code == 201, created.json()
    integration = created.json()["data"]
    assert wordpress.app_password not in created.content.decode()
    tested = owner.post(f"/api/v1/integration/{integration['id']}/test_connection/").json()["data"]
    assert tested["connected"] is True, tested

    # A category and a tag made on WordPress come in with a sync.
    category = wp.post("/wp/v2/categories", json={"name": f"Gardening {marker}"}).json()
    tag = wp.post("/wp/v2/tags", json={"name": f"balcony-{marker}"}).json()
    with eager_jobs():
        started = owner.post(f"/api/v1/integration/{integration['id']}/sync/")
    assert started.status_code == 202
    job = owner.get(f"/api/v1/jobs/{started.json()['data']['job_id']}/").json()["data"]
    assert job["status"] == "succeeded", job
    synced_category = Taxonomy.objects.for_account(tenant.account).get(external_id=str(category["id"]))
    synced_tag = Taxonomy.objects.for_account(tenant.account).get(external_id=str(tag["id"]))
    assert (synced_category.taxonomy_type, synced_tag.taxonomy_type) == ("category", "tag")

    # The editorial gate: a draft is refused on every path and nothing reaches WordPress.
    content = make_content(tenant, title=f"Tomatoes on a balcony {marker}", html="<p>Sun and water.</p><h2>Soil</h2><p>Loose.</p>")
    content.taxonomies.set([synced_category, synced_tag])
    add_image(content, image_type=ImageType.FEATURED, alt_text="Ripe tomatoes")
    for refused in (
        owner.post(f"/api/v1/writer/content/{content.pk}/publish_to_cms/"),
        owner.post("/api/v1/publisher/publish/", {"content_id": content.pk}, format="json"),
        owner.post(f"/api/v1/writer/content/{content.pk}/schedule/", {"scheduled_publish_at": (timezone.now() + timedelta(minutes=1)).isoformat()}, format="json"),
    ):
        assert refused.status_code == 409 and refused.json()["code"] == "state_conflict", refused.json()
    assert wp.get("/wp/v2/posts", params={"search": marker, "status": "any", "context": "edit"}).json() == []
    content.refresh_from_db()
    assert (content.status, content.site_status) == ("draft", SiteStatus.NOT_PUBLISHED)

    # Approved through the workflow, published now with both terms and a featured image, and read back from WordPress.
    approve(owner, content)
    published = owner.post(f"/api/v1/writer/content/{content.pk}/publish_to_cms/")
    assert published.status_code == 200, published.json()
    status = published.json()["data"]
    assert status["site_status"] == "published", status
    post = wp.get(f"/wp/v2/posts/{status['external_id']}", params={"context": "edit", "_embed": 1}).json()
    assert post["status"] == "publish" and post["title"]["raw"] == content.title
    assert post["categories"] == [category["id"]] and post["tags"] == [tag["id"]]
    assert post["link"] == status["external_url"]
    media = post["_embedded"]["wp:featuredmedia"][0]
    assert media["alt_text"] == "Ripe tomatoes"
    assert httpx2.get(media["source_url"], timeout=30).status_code == 200

    # Scheduled a minute ahead: nothing happens before its time, the scheduler publishes it then.
    later = make_content(tenant, title=f"Watering schedule {marker}", html="<p>Morning, deeply.</p>")
    approve(owner, later)
    when = timezone.now() + timedelta(minutes=1)
    scheduled = owner.post(f"/api/v1/writer/content/{later.pk}/schedule/", {"scheduled_publish_at": when.isoformat()}, format="json")
    assert scheduled.status_code == 200
    due_at = parse_datetime(scheduled.json()["data"]["scheduled_publish_at"])
    assert publish_due(now=due_at - timedelta(seconds=1)) == 0
    assert publish_due(now=due_at + timedelta(seconds=1)) == 1
    later.refresh_from_db()
    assert later.site_status == SiteStatus.PUBLISHED
    assert wp.get(f"/wp/v2/posts/{later.external_id}", params={"context": "edit"}).json()["status"] == "publish"

    # Scheduled, then sent back to review before its time: at its time it is unscheduled, not published, and the team is told.
    withdrawn = make_content(tenant, title=f"Pruning {marker}", html="<p>Pinch the side shoots.</p>")
    approve(owner, withdrawn)
    scheduled = owner.post(f"/api/v1/writer/content/{withdrawn.pk}/schedule/", {"scheduled_publish_at": when.isoformat()}, format="json")
    assert scheduled.status_code == 200
    assert owner.post(f"/api/v1/writer/content/{withdrawn.pk}/update_content/", {"status": "review"}, format="json").status_code == 200
    assert publish_due(now=due_at + timedelta(seconds=1)) == 0
    withdrawn.refresh_from_db()
    assert (withdrawn.site_status, withdrawn.scheduled_publish_at, withdrawn.external_id) == (SiteStatus.NOT_PUBLISHED, None, "")
    assert wp.get("/wp/v2/posts", params={"search": f"Pruning {marker}", "status": "any", "context": "edit"}).json() == []
    notices = owner.get("/api/v1/notifications/", {"notification_type": "content_publish_failed"}).json()["results"]
    assert any(withdrawn.title in notice["message"] and "not approved" in notice["message"] for notice in notices)

    # Changed on WordPress, then trashed: the signed webhook brings both home.
    api_key = owner.post("/api/v1/auth/api-keys/", {"name": "WordPress webhook", "site_id": tenant.site.pk}, format="json").json()["data"]["key"]
    updated = wp.post(f"/wp/v2/posts/{status['external_id']}", json={"slug": f"balcony-tomatoes-{marker}"}).json()
    delivered = signed_delivery(
        api_client,
        api_key=api_key,
        secret=integration["webhook_secret"],
        payload={"event": "post.updated", "post": {"id": updated["id"], "status": updated["status"], "link": updated["link"], "modified_gmt": updated["modified_gmt"]}},
    )
    assert delivered.status_code == 200, delivered.json()
    content.refresh_from_db()
    assert content.external_url == updated["link"] and f"balcony-tomatoes-{marker}" in content.external_url

    trashed = wp.delete(f"/wp/v2/posts/{updated['id']}").json()
    assert trashed["status"] == "trash"
    delivered = signed_delivery(api_client, api_key=api_key, secret=integration["webhook_secret"], payload={"event": "post.trashed", "post": {"id": trashed["id"], "status": "trash"}})
    assert delivered.status_code == 200
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED
    assert Content.objects.for_account(tenant.account).get(pk=later.pk).site_status == SiteStatus.PUBLISHED


def test_a_publish_wordpress_refuses_answers_502_with_its_reason_and_no_retry(tenant, as_user, wordpress, wp, allow_private_cms):
    owner = as_user(tenant.owner)
    created = owner.post(
        "/api/v1/integration/",
        {"site_id": tenant.site.pk, "platform": "wordpress", "base_url": wordpress.url, "username": wordpress.user, "app_password": "abcd efgh ijkl mnop qrst uvwx"},
        format="json",
    )
    assert created.status_code == 201, created.json()
    content = make_content(tenant, title=f"Refused {uuid.uuid4().hex[:8]}", html="<p>Nothing.</p>")
    approve(owner, content)

    response = owner.post("/api/v1/publisher/publish/", {"content_id": content.pk}, format="json")

    assert response.status_code == 502, response.json()
    body = response.json()
    # WordPress treats a wrong application password as no credentials: it refuses the request with its own reason.
    assert body["success"] is False and body["code"] in {"cms_auth_failed", "cms_rejected", "cms_forbidden"}, body
    assert body["errors"] == {"next_retry_at": [], "attempts_left": ["0"]}
    status = owner.get("/api/v1/publisher/publish/status/", {"content_id": content.pk}).json()["data"]
    assert status["site_status"] == "failed" and status["last_record"]["error_code"] == body["code"]
    assert status["last_record"]["error"] == body["error"]
