"""GET /integration/{id}/sync_health/ and /sync_status/: the numbers a sync leaves behind."""

from datetime import timedelta
from unittest.mock import ANY

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from inkwell.api.tests import assert_error
from inkwell.integration.models import ConnectionStatus, SyncStatus
from inkwell.integration.tests.factories import make_integration, make_sync_run
from inkwell.jobs.models import Job, JobStatus
from inkwell.writer.models import SiteStatus, TaxonomyType
from inkwell.writer.tests.factories import make_content, make_taxonomy

pytestmark = pytest.mark.django_db


@pytest.fixture
def integration(tenant):
    return make_integration(tenant, connection_status=ConnectionStatus.CONNECTED, connection_message='Connected to "Blog" as editor')


def health(client, integration, **params) -> dict:
    response = client.get(f"/api/v1/integration/{integration.pk}/sync_health/", params)
    assert response.status_code == 200, response.content
    return response.json()["data"]


def test_counts_cover_what_came_from_the_cms_and_the_runs_in_the_window(tenant, integration, second_site, as_user):
    for n in range(3):
        make_taxonomy(tenant, name=f"Category {n}", external_id=str(n))
    make_taxonomy(tenant, taxonomy_type=TaxonomyType.TAG, name="tag", external_id="10")
    make_taxonomy(tenant, name="Local only")
    make_taxonomy(tenant, site=second_site, name="Elsewhere", external_id="11")
    make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id="1")
    make_content(tenant, site_status=SiteStatus.NOT_PUBLISHED, external_id="2")
    make_content(tenant, site_status=SiteStatus.PUBLISHED)
    now = timezone.now()
    make_sync_run(integration, status=SyncStatus.SUCCEEDED, started_at=now - timedelta(days=1))
    make_sync_run(integration, status=SyncStatus.SUCCEEDED, started_at=now - timedelta(days=2))
    make_sync_run(integration, status=SyncStatus.FAILED, started_at=now - timedelta(days=3), error="The CMS is unavailable")
    make_sync_run(integration, status=SyncStatus.SUCCEEDED, started_at=now - timedelta(days=40))

    data = health(as_user(tenant.owner), integration)

    assert data["counts"] == {
        "categories": 3, "tags": 1, "contents_linked": 2, "contents_published": 1, "runs": 3, "runs_succeeded": 2, "runs_failed": 1,
    }
    assert data["window_days"] == 30
    assert data["connection"] == {"status": "connected", "message": 'Connected to "Blog" as editor', "last_tested_at": None}
    assert health(as_user(tenant.owner), integration, window_days=60)["counts"]["runs_succeeded"] == 3


def test_the_last_five_errors_come_newest_first(tenant, integration, as_user):
    now = timezone.now()
    for n in range(7):
        make_sync_run(integration, status=SyncStatus.FAILED, started_at=now - timedelta(hours=n), finished_at=now - timedelta(hours=n), error=f"failure {n}", error_code="cms_unavailable")
    make_sync_run(integration, status=SyncStatus.SUCCEEDED, started_at=now)

    errors = health(as_user(tenant.owner), integration)["last_errors"]

    assert [error["message"] for error in errors] == [f"failure {n}" for n in range(5)]
    assert set(errors[0]) == {"run_id", "at", "code", "message"}
    assert errors[0]["code"] == "cms_unavailable"


def test_timings_are_last_average_95th_percentile_and_longest_of_recent_runs(tenant, integration, as_user):
    now = timezone.now()
    durations = [100 * n for n in range(1, 21)]  # 100 .. 2000 ms, the last started most recently
    for n, duration in enumerate(durations):
        make_sync_run(integration, duration_ms=duration, started_at=now - timedelta(minutes=len(durations) - n))
    make_sync_run(integration, status=SyncStatus.RUNNING, duration_ms=None, started_at=now)

    timings = health(as_user(tenant.owner), integration)["timings"]

    assert timings == {"runs_measured": 20, "last_ms": 2000, "avg_ms": 1050, "p95_ms": 1900, "max_ms": 2000}


def test_timings_only_cover_the_fifty_most_recent_runs(tenant, integration, as_user):
    now = timezone.now()
    make_sync_run(integration, duration_ms=999_999, started_at=now - timedelta(days=1))
    for n in range(50):
        make_sync_run(integration, duration_ms=1000, started_at=now - timedelta(minutes=n))

    timings = health(as_user(tenant.owner), integration)["timings"]

    assert timings == {"runs_measured": 50, "last_ms": 1000, "avg_ms": 1000, "p95_ms": 1000, "max_ms": 1000}


def test_a_new_integration_has_empty_health(tenant, integration, as_user):
    data = health(as_user(tenant.owner), integration)

    assert data["last_errors"] == []
    assert data["timings"] == {"runs_measured": 0, "last_ms": None, "avg_ms": None, "p95_ms": None, "max_ms": None}
    assert data["sync_status"] == "never"


def queries_of(client, path: str) -> int:
    client.get(path)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def test_health_costs_the_same_queries_for_one_run_or_many(tenant, integration, as_user, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "integration-health"}}
    client = as_user(tenant.owner)
    path = f"/api/v1/integration/{integration.pk}/sync_health/"
    make_sync_run(integration, status=SyncStatus.FAILED, error="x")
    one = queries_of(client, path)
    for n in range(30):
        make_sync_run(integration, status=SyncStatus.FAILED if n % 3 else SyncStatus.SUCCEEDED, error="x", duration_ms=n + 1)
        make_content(tenant, external_id=str(n), site_status=SiteStatus.PUBLISHED)
        make_taxonomy(tenant, name=f"Category {n}", external_id=str(n))

    assert queries_of(client, path) == one <= 10


def test_window_days_is_validated(tenant, integration, as_user):
    client = as_user(tenant.owner)

    for value in ("0", "366", "soon"):
        assert_error(client.get(f"/api/v1/integration/{integration.pk}/sync_health/", {"window_days": value}), 400, "validation_error", errors={"window_days": [ANY]})


def test_sync_status_shows_the_job_and_the_last_run(tenant, integration, as_user):
    job = Job.objects.create(account=tenant.account, site=tenant.site, kind="integration.sync", status=JobStatus.RUNNING, progress=45, progress_message="Reading content types")
    integration.sync_job = job
    integration.sync_status = SyncStatus.RUNNING
    integration.save()
    run = make_sync_run(integration, status=SyncStatus.RUNNING, duration_ms=None, job=job)

    data = as_user(tenant.owner).get(f"/api/v1/integration/{integration.pk}/sync_status/").json()["data"]

    assert data["sync_status"] == "running"
    assert data["job"] == {**data["job"], "id": job.pk, "status": "running", "progress": 45, "progress_message": "Reading content types", "error": None}
    assert data["last_run"] == {**data["last_run"], "id": run.pk, "job_id": job.pk, "status": "running", "duration_ms": None}


def test_sync_status_of_an_integration_never_synced(tenant, integration, as_user):
    data = as_user(tenant.owner).get(f"/api/v1/integration/{integration.pk}/sync_status/").json()["data"]

    assert data == {"integration_id": integration.pk, "sync_status": "never", "last_synced_at": None, "job": None, "last_run": None}
