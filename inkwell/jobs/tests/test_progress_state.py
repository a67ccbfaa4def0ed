"""``job_progress_state``: what a job's progress shows, for the caller's own jobs only."""

import pytest

from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.selectors import PROGRESS_COLUMNS, job_progress_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def job(tenant):
    return Job.objects.create(account=tenant.account, site=tenant.site, kind="writer.generate_content", status=JobStatus.RUNNING, progress=30, progress_message="Writing")


def test_the_state_is_the_values_the_progress_shows(tenant, job):
    state = job_progress_state(account_id=tenant.account.pk, site_ids=None, job_id=job.pk)
    expected = {"kind": "writer.generate_content", "status": "running", "progress": 30, "progress_message": "Writing", "result": None, "error": None}
    assert dict(zip(PROGRESS_COLUMNS, state, strict=True)) == expected


def test_another_accounts_job_has_no_state(tenant, other_tenant, job):
    assert job_progress_state(account_id=other_tenant.account.pk, site_ids=None, job_id=job.pk) is None


def test_a_job_of_a_site_not_granted_has_no_state(tenant, job):
    assert job_progress_state(account_id=tenant.account.pk, site_ids=frozenset(), job_id=job.pk) is None
    assert job_progress_state(account_id=tenant.account.pk, site_ids=frozenset({job.site_id + 1}), job_id=job.pk) is None
    assert job_progress_state(account_id=tenant.account.pk, site_ids=frozenset({job.site_id}), job_id=job.pk) is not None


def test_an_account_job_without_a_site_is_seen_only_by_those_who_see_every_site(tenant):
    account_job = Job.objects.create(account=tenant.account, kind="billing.export", status=JobStatus.RUNNING)
    assert job_progress_state(account_id=tenant.account.pk, site_ids=None, job_id=account_job.pk) is not None
    assert job_progress_state(account_id=tenant.account.pk, site_ids=frozenset({tenant.site.pk}), job_id=account_job.pk) is None
