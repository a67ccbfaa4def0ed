"""The integration against a real WordPress: a connection test, and a sync that imports
categories (with their parents) and tags and reconciles a post's state. The WordPress is shared
by every test of the run, so names are unique and nothing counts what others made."""

import uuid

import pytest

from inkwell.cms.base import PostPayload
from inkwell.integration.models import ConnectionStatus, SiteIntegration, SyncRun, SyncStatus
from inkwell.integration.services import adapter_for
from inkwell.integration.tests.factories import make_integration
from inkwell.jobs.models import Job, JobStatus
from inkwell.writer.models import SiteStatus, Taxonomy
from inkwell.writer.tests.factories import make_content

pytestmark = [pytest.mark.django_db, pytest.mark.wordpress]


@pytest.fixture
def wp_integration(tenant, wordpress, allow_private_cms):
    return make_integration(tenant, base_url=wordpress.url, username=wordpress.user, app_password=wordpress.app_password)


def test_the_connection_test_logs_in_to_wordpress(tenant, wp_integration, as_user):
    client = as_user(tenant.owner)

    data = client.post(f"/api/v1/integration/{wp_integration.pk}/test_connection/").json()["data"]

    assert (data["connected"], data["error_code"], data["user"]["can_publish"]) == (True, None, True)
    assert data["site_name"] and data["message"].startswith(f'Connected to "{data["site_name"]}"')
    assert SiteIntegration.objects.for_account(tenant.account).get().connection_status == ConnectionStatus.CONNECTED
    SiteIntegration.objects.for_account(tenant.account).update(app_password="wrong pass word 1234")
    refused = client.post(f"/api/v1/integration/{wp_integration.pk}/test_connection/").json()["data"]
    assert (refused["connected"], refused["error_code"]) == (False, "cms_auth_failed")


def test_a_sync_imports_wordpress_categories_and_tags_and_reconciles_posts(tenant, wp_integration, wordpress, as_user, eager_jobs):
    unique = uuid.uuid4().hex[:8]
    adapter = adapter_for(integration=wp_integration)
    parent = adapter.ensure_term("category", name=f"Parent {unique}", slug=f"parent-{unique}")
    child = adapter.ensure_term("category", name=f"Child {unique}", slug=f"child-{unique}", parent_external_id=parent.external_id)
    tag = adapter.ensure_term("tag", name=f"tag {unique}", slug=f"tag-{unique}")
    post = adapter.create_post(PostPayload(reference=f"sync-{unique}", title=f"Sync test {unique}", html="<p>Body</p>", status="publish"))
    with wordpress.client() as client:
        client.post(f"/wp/v2/posts/{post.external_id}", json={"status": "draft"}).raise_for_status()
    content = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id=post.external_id, external_url=post.url)

    with eager_jobs():
        response = as_user(tenant.owner).post(f"/api/v1/integration/{wp_integration.pk}/sync/")

    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    assert job.status == JobStatus.SUCCEEDED, job.error
    rows = {row.slug: row for row in Taxonomy.objects.for_account(tenant.account).filter(site=tenant.site).select_related("parent")}
    assert (rows[f"parent-{unique}"].external_id, rows[f"parent-{unique}"].parent) == (parent.external_id, None)
    assert (rows[f"child-{unique}"].external_id, rows[f"child-{unique}"].parent.slug) == (child.external_id, f"parent-{unique}")
    assert (rows[f"tag-{unique}"].taxonomy_type, rows[f"tag-{unique}"].external_id) == ("tag", tag.external_id)
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED
    assert SyncRun.objects.for_account(tenant.account).get().status == SyncStatus.SUCCEEDED
