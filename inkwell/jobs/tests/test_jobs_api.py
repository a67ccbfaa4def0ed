"""GET /jobs/, GET /jobs/{id}/ and POST /jobs/{id}/cancel/ through the real URLs."""

from unittest.mock import ANY

import pytest

from inkwell.api.tests import assert_error
from inkwell.jobs import services
from inkwell.jobs.models import Job, JobStatus
from inkwell.tenancy.models import SiteUserAccess
from tests.job_handlers import ECHO_KIND, FAIL_KIND

pytestmark = pytest.mark.django_db

JOB_FIELDS = {"id", "kind", "status", "progress", "progress_message", "result", "error", "site", "created_at", "started_at", "finished_at"}


def test_a_finished_job_shows_status_progress_result_and_times(tenant, as_user, eager_jobs):
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=ECHO_KIND, params={"value": "hi"}, site=tenant.site)
    response = as_user(tenant.viewer).get(f"/api/v1/jobs/{job.pk}/")
    assert response.status_code == 404, "a viewer without access to the job's site does not see it"
    data = as_user(tenant.owner).get(f"/api/v1/jobs/{job.pk}/").json()["data"]
    # One job also says its place in the queue (null once it left it).
    assert set(data) == JOB_FIELDS | {"queue_position"} and data["queue_position"] is None
    assert (data["status"], data["progress"], data["result"], data["error"]) == ("succeeded", 100, {"echo": "hi", "attempt": 1}, None)
    assert data["finished_at"].endswith("Z")


def test_a_failed_job_shows_its_error(tenant, as_user, eager_jobs):
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=FAIL_KIND, params={"message": "Nothing to do"})
    data = as_user(tenant.owner).get(f"/api/v1/jobs/{job.pk}/").json()["data"]
    assert (data["status"], data["error"]) == ("failed", {"code": "test_failure", "message": "Nothing to do"})


def test_the_job_list_is_newest_first_and_filters_by_status_kind_and_site(tenant, as_user, eager_jobs):
    with eager_jobs():
        done = services.start_job(account=tenant.account, kind=ECHO_KIND, site=tenant.site)
    waiting = services.start_job(account=tenant.account, kind=FAIL_KIND)
    client = as_user(tenant.owner)
    assert [item["id"] for item in client.get("/api/v1/jobs/").json()["results"]] == [waiting.pk, done.pk]
    assert [item["id"] for item in client.get("/api/v1/jobs/", {"status": "queued"}).json()["results"]] == [waiting.pk]
    assert [item["id"] for item in client.get("/api/v1/jobs/", {"kind": ECHO_KIND}).json()["results"]] == [done.pk]
    assert [item["id"] for item in client.get("/api/v1/jobs/", {"site_id": tenant.site.pk}).json()["results"]] == [done.pk]
    assert_error(client.get("/api/v1/jobs/", {"status": "sleeping"}), 400, "validation_error", errors={"status": ANY})


def test_editors_see_the_jobs_of_their_sites(tenant, as_user):
    job = services.start_job(account=tenant.account, kind=ECHO_KIND, site=tenant.site)
    editor = as_user(tenant.editor)
    assert editor.get("/api/v1/jobs/").json()["count"] == 0
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.editor, site=tenant.site)
    assert [item["id"] for item in editor.get("/api/v1/jobs/").json()["results"]] == [job.pk]


def test_cancel_stops_a_queued_job_and_refuses_a_finished_one(tenant, as_user, eager_jobs):
    job = services.start_job(account=tenant.account, kind=ECHO_KIND)
    client = as_user(tenant.owner)
    response = client.post(f"/api/v1/jobs/{job.pk}/cancel/")
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "cancelled"
    assert_error(client.post(f"/api/v1/jobs/{job.pk}/cancel/"), 409, "state_conflict", errors={"status": ANY})
    assert Job.objects.for_account(tenant.account).get(pk=job.pk).status == JobStatus.CANCELLED


def test_viewers_cannot_cancel_jobs(tenant, as_user):
    job = services.start_job(account=tenant.account, kind=ECHO_KIND)
    assert_error(as_user(tenant.viewer).post(f"/api/v1/jobs/{job.pk}/cancel/"), 403, "permission_denied")


def test_another_accounts_job_is_not_found(tenant, other_tenant, as_user):
    job = services.start_job(account=other_tenant.account, kind=ECHO_KIND)
    client = as_user(tenant.owner)
    assert_error(client.get(f"/api/v1/jobs/{job.pk}/"), 404, "not_found")
    assert_error(client.post(f"/api/v1/jobs/{job.pk}/cancel/"), 404, "not_found")
    assert client.get("/api/v1/jobs/").json()["count"] == 0
    assert Job.objects.for_account(other_tenant.account).get(pk=job.pk).status == JobStatus.QUEUED
