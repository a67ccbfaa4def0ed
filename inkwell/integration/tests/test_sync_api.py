"""POST /integration/{id}/sync/ and /integration/site_sync/: the sync job against the
WordPress-faithful test server, its run record, retries and notifications."""

import httpx2
import pytest

from inkwell.api.tests import assert_error
from inkwell.cms.base import PostPayload
from inkwell.integration.models import SiteIntegration, SyncRun, SyncStatus
from inkwell.integration.services import adapter_for
from inkwell.integration.tests.factories import make_integration
from inkwell.jobs.models import Job, JobStatus
from inkwell.notifications.models import Notification
from inkwell.tenancy.models import SiteUserAccess
from inkwell.writer.models import Content, SiteStatus, Taxonomy
from inkwell.writer.tests.factories import make_content, make_taxonomy

pytestmark = pytest.mark.django_db


def sync(client, integration):
    return client.post(f"/api/v1/integration/{integration.pk}/sync/")


def job_of(response) -> Job:
    assert response.status_code == 202, response.content
    data = response.json()["data"]
    assert data == {"job_id": data["job_id"], "status": "queued"}
    return Job.dangerously_unscoped.get(pk=data["job_id"])


def wp(cms_server) -> httpx2.Client:
    return httpx2.Client(base_url=f"{cms_server.url}/wp-json", auth=(cms_server.user, cms_server.app_password), timeout=10)


def taxonomies(tenant) -> dict[tuple, tuple]:
    rows = Taxonomy.objects.for_account(tenant.account).filter(site=tenant.site).select_related("parent")
    return {(row.taxonomy_type, row.slug): (row.name, row.external_id, row.parent.slug if row.parent else None) for row in rows}


def notifications(tenant, event: str) -> list[Notification]:
    return list(Notification.objects.for_account(tenant.account).filter(notification_type=event))


def test_a_sync_imports_categories_with_parents_and_tags(tenant, cms_integration, as_user, eager_jobs):
    adapter = adapter_for(integration=cms_integration)
    sport = adapter.ensure_term("category", name="Sport", slug="sport")
    running = adapter.ensure_term("category", name="Running", slug="running", parent_external_id=sport.external_id)
    trail = adapter.ensure_term("category", name="Trail & Mountain", slug="trail", parent_external_id=running.external_id)
    beginners = adapter.ensure_term("tag", name="beginners", slug="beginners")
    local = make_taxonomy(tenant, name="Ours only")
    client = as_user(tenant.owner)

    with eager_jobs():
        job = job_of(sync(client, cms_integration))

    job.refresh_from_db()
    assert (job.kind, job.status, job.progress) == ("integration.sync", JobStatus.SUCCEEDED, 100)
    assert taxonomies(tenant) == {
        ("category", "uncategorized"): ("Uncategorized", "1", None),
        ("category", "sport"): ("Sport", sport.external_id, None),
        ("category", "running"): ("Running", running.external_id, "sport"),
        ("category", "trail"): ("Trail & Mountain", trail.external_id, "running"),
        ("category", local.slug): ("Ours only", "", None),
        ("tag", "beginners"): ("beginners", beginners.external_id, None),
    }
    run = SyncRun.objects.for_account(tenant.account).get()
    assert (run.status, run.job_id, run.error) == (SyncStatus.SUCCEEDED, job.pk, "")
    assert run.counts["categories"] == {"created": 4, "updated": 0, "unchanged": 0, "skipped": 0}
    assert run.counts["tags"] == {"created": 1, "updated": 0, "unchanged": 0, "skipped": 0}
    assert run.finished_at and run.duration_ms is not None
    assert job.result == {"sync_run_id": run.pk, **run.counts}
    integration = SiteIntegration.objects.for_account(tenant.account).get()
    assert (integration.sync_status, integration.sync_job_id) == (SyncStatus.SUCCEEDED, job.pk)
    assert integration.last_synced_at is not None
    assert "post" in {content_type["slug"] for content_type in integration.structure["content_types"]}
    [success] = notifications(tenant, "cms_sync_success")
    assert (success.severity, success.site_id, success.metadata["sync_run_id"]) == ("success", tenant.site.pk, run.pk)
    assert "4 categories, 1 tags" in success.message


def test_a_sync_reconciles_the_published_state_of_our_content(tenant, cms_integration, cms_server, as_user, eager_jobs):
    adapter = adapter_for(integration=cms_integration)
    remote = {
        name: adapter.create_post(PostPayload(reference=f"ref-{name}", title=f"A {name} post", html="<p>Body</p>", status=status))
        for name, status in (("publish", "publish"), ("draft", "draft"), ("trashed", "publish"), ("deleted", "publish"))
    }
    with wp(cms_server) as client:
        client.delete(f"/wp/v2/posts/{remote['trashed'].external_id}").raise_for_status()
        client.delete(f"/wp/v2/posts/{remote['deleted'].external_id}", params={"force": "true"}).raise_for_status()
    went_live = make_content(tenant, site_status=SiteStatus.NOT_PUBLISHED, external_id=remote["publish"].external_id)
    drafted = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id=remote["draft"].external_id, external_url="https://old.example.com/a/")
    trashed = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id=remote["trashed"].external_id, external_url="https://old.example.com/b/")
    deleted = make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id=remote["deleted"].external_id, external_url="https://old.example.com/c/")
    unlinked = make_content(tenant, site_status=SiteStatus.NOT_PUBLISHED)

    with eager_jobs():
        job_of(sync(as_user(tenant.owner), cms_integration))

    states = {content.pk: (content.site_status, content.external_id, content.external_url) for content in Content.objects.for_account(tenant.account)}
    assert states == {
        went_live.pk: (SiteStatus.PUBLISHED, remote["publish"].external_id, remote["publish"].url),
        drafted.pk: (SiteStatus.NOT_PUBLISHED, remote["draft"].external_id, "https://old.example.com/a/"),
        trashed.pk: (SiteStatus.NOT_PUBLISHED, remote["trashed"].external_id, "https://old.example.com/b/"),
        deleted.pk: (SiteStatus.NOT_PUBLISHED, "", ""),
        unlinked.pk: (SiteStatus.NOT_PUBLISHED, "", ""),
    }
    went_live.refresh_from_db()
    assert went_live.published_at is not None
    assert SyncRun.objects.for_account(tenant.account).get().counts["contents"] == {"checked": 4, "changed": 4, "gone": 1}


def test_sync_status_shows_the_finished_job_and_run(tenant, cms_integration, as_user, eager_jobs):
    client = as_user(tenant.owner)
    with eager_jobs():
        job = job_of(sync(client, cms_integration))

    data = client.get(f"/api/v1/integration/{cms_integration.pk}/sync_status/").json()["data"]

    assert data["sync_status"] == "succeeded" and data["last_synced_at"]
    assert data["job"] == {**data["job"], "id": job.pk, "status": "succeeded", "progress": 100, "error": None}
    assert data["last_run"] == {**data["last_run"], "job_id": job.pk, "status": "succeeded", "error_code": "", "error": ""}
    assert data["last_run"]["counts"]["contents"] == {"checked": 0, "changed": 0, "gone": 0}


def test_a_second_sync_while_one_is_queued_is_a_conflict(tenant, cms_integration, as_user):
    client = as_user(tenant.owner)
    job = job_of(sync(client, cms_integration))

    assert_error(sync(client, cms_integration), 409, "state_conflict", errors={"sync_status": ["A sync of this integration is queued or running already"]})
    assert Job.objects.for_account(tenant.account).filter(kind="integration.sync").count() == 1
    status = client.get(f"/api/v1/integration/{cms_integration.pk}/sync_status/").json()["data"]
    assert (status["sync_status"], status["job"]["id"], status["job"]["status"], status["last_run"]["status"]) == ("queued", job.pk, "queued", "queued")


def test_a_transient_cms_failure_is_retried(tenant, cms_integration, cms_server, as_user, eager_jobs):
    cms_server.fail_next(1, status=503)

    with eager_jobs():
        job = job_of(sync(as_user(tenant.owner), cms_integration))

    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.SUCCEEDED, 2)
    assert SyncRun.objects.for_account(tenant.account).get().status == SyncStatus.SUCCEEDED
    assert notifications(tenant, "cms_sync_failed") == []


def test_a_cms_that_stays_down_ends_the_sync_failed_with_a_clear_message(tenant, cms_integration, cms_server, as_user, eager_jobs):
    cms_server.fail_next(10, status=503)

    with eager_jobs():
        job = job_of(sync(as_user(tenant.owner), cms_integration))

    job.refresh_from_db()
    assert (job.status, job.attempts, job.error) == (JobStatus.FAILED, 3, {"code": "cms_unavailable", "message": "The CMS is unavailable"})
    run = SyncRun.objects.for_account(tenant.account).get()
    assert (run.status, run.error_code, run.error) == (SyncStatus.FAILED, "cms_unavailable", "The CMS is unavailable")
    assert run.finished_at and run.duration_ms is not None
    assert SiteIntegration.objects.for_account(tenant.account).get().sync_status == SyncStatus.FAILED
    [failed] = notifications(tenant, "cms_sync_failed")
    assert (failed.severity, failed.site_id) == ("error", tenant.site.pk)
    assert failed.message.endswith("failed: The CMS is unavailable")
    assert notifications(tenant, "cms_sync_success") == []


def test_rejected_credentials_fail_the_sync_without_retrying(tenant, cms_integration, as_user, eager_jobs):
    SiteIntegration.objects.for_account(tenant.account).filter(pk=cms_integration.pk).update(app_password="wrong pass word 1234")

    with eager_jobs():
        job = job_of(sync(as_user(tenant.owner), cms_integration))

    job.refresh_from_db()
    assert (job.status, job.attempts, job.error["code"]) == (JobStatus.FAILED, 1, "cms_auth_failed")
    assert len(notifications(tenant, "cms_sync_failed")) == 1


def test_a_sync_can_start_again_after_it_ended(tenant, cms_integration, as_user, eager_jobs):
    client = as_user(tenant.owner)
    with eager_jobs():
        job_of(sync(client, cms_integration))
    with eager_jobs():
        second = job_of(sync(client, cms_integration))

    second.refresh_from_db()
    assert second.status == JobStatus.SUCCEEDED
    assert SyncRun.objects.for_account(tenant.account).filter(status=SyncStatus.SUCCEEDED).count() == 2
    assert len(notifications(tenant, "cms_sync_success")) == 2


def test_an_integration_deleted_before_its_sync_ran_fails_the_job(tenant, cms_integration, as_user, eager_jobs):
    client = as_user(tenant.owner)
    with eager_jobs():
        job = job_of(sync(client, cms_integration))
        assert client.delete(f"/api/v1/integration/{cms_integration.pk}/").status_code == 204

    job.refresh_from_db()
    assert (job.status, job.error) == (JobStatus.FAILED, {"code": "integration_missing", "message": "The integration was deleted before it synced"})
    assert len(notifications(tenant, "cms_sync_failed")) == 1


def test_a_cancelled_sync_is_recorded_without_a_failure_notification(tenant, cms_integration, as_user):
    client = as_user(tenant.owner)
    job = job_of(sync(client, cms_integration))

    assert client.post(f"/api/v1/jobs/{job.pk}/cancel/").status_code == 200

    assert SyncRun.objects.for_account(tenant.account).get().status == SyncStatus.CANCELLED
    assert SiteIntegration.objects.for_account(tenant.account).get().sync_status == SyncStatus.CANCELLED
    assert notifications(tenant, "cms_sync_failed") == []
    assert sync(client, cms_integration).status_code == 202


def test_an_inactive_integration_does_not_sync(tenant, as_user):
    integration = make_integration(tenant, is_active=False)

    assert_error(sync(as_user(tenant.owner), integration), 409, "state_conflict", errors={"is_active": ["This integration is not active"]})


def test_site_sync_syncs_the_sites_integration(tenant, cms_integration, as_user, eager_jobs):
    with eager_jobs():
        response = as_user(tenant.owner).post("/api/v1/integration/site_sync/", {"site_id": tenant.site.pk}, format="json")

    job = job_of(response)
    job.refresh_from_db()
    assert (job.status, job.params, job.site_id) == (JobStatus.SUCCEEDED, {"integration_id": cms_integration.pk}, tenant.site.pk)


def test_site_sync_needs_a_site_of_the_caller_with_an_integration(tenant, other_tenant, second_site, as_user):
    make_integration(other_tenant)
    client = as_user(tenant.owner)

    assert_error(client.post("/api/v1/integration/site_sync/", {}, format="json"), 400, "validation_error", errors={"site_id": ["This field is required"]})
    assert_error(
        client.post("/api/v1/integration/site_sync/", {"site_id": other_tenant.site.pk}, format="json"),
        400,
        "validation_error",
        errors={"site_id": ["Site must belong to your account"]},
    )
    assert_error(
        client.post("/api/v1/integration/site_sync/", {"site_id": second_site.pk}, format="json"),
        409,
        "state_conflict",
        errors={"site_id": ["This site has no CMS integration"]},
    )


def test_editors_may_sync_their_sites_and_viewers_may_not(tenant, cms_integration, second_site, as_user):
    for role in ("editor", "viewer"):
        SiteUserAccess.objects.create(account=tenant.account, user=tenant.user(role), site=tenant.site)
    make_integration(tenant, site=second_site)

    assert_error(sync(as_user(tenant.viewer), cms_integration), 403, "permission_denied")
    assert_error(as_user(tenant.viewer).post("/api/v1/integration/site_sync/", {"site_id": tenant.site.pk}, format="json"), 403, "permission_denied")
    assert_error(as_user(tenant.editor).post("/api/v1/integration/site_sync/", {"site_id": second_site.pk}, format="json"), 403, "permission_denied")
    assert job_of(sync(as_user(tenant.editor), cms_integration)).created_by_id == tenant.editor.pk
