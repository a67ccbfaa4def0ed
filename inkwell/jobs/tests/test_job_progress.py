"""``job_progress``: a job as its progress shows it, for the caller's own jobs only."""

import pytest

from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.selectors import PROGRESS_FIELDS, job_progress, progress_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def job(tenant):
    return Job.objects.create(
        account=tenant.account, site=tenant.site, kind="writer.generate_content", status=JobStatus.FAILED, progress=30,
        progress_message="Writing", params={"content_id": 4}, error={"code": "x", "message": "Nope"},
    )


def test_the_job_has_the_values_the_orm_gives_for_what_its_progress_shows(tenant, job):
    read = job_progress(account_id=tenant.account.pk, site_ids=None, job_id=job.pk)
    loaded = Job.objects.for_account(tenant.account).get(pk=job.pk)
    assert read.pk == job.pk and progress_state(read) == progress_state(loaded)
    assert read.error == {"code": "x", "message": "Nope"} and read.params == {"content_id": 4}
    # queued_at too: a queued job's place in the queue is read from it.
    assert read.get_deferred_fields() == {field.attname for field in Job._meta.concrete_fields} - {"id", "queued_at", *PROGRESS_FIELDS}


def test_another_accounts_job_is_none(tenant, other_tenant, job):
    assert job_progress(account_id=other_tenant.account.pk, site_ids=None, job_id=job.pk) is None


def test_a_job_of_a_site_not_granted_is_none(tenant, job):
    assert job_progress(account_id=tenant.account.pk, site_ids=frozenset(), job_id=job.pk) is None
    assert job_progress(account_id=tenant.account.pk, site_ids=frozenset({job.site_id + 1}), job_id=job.pk) is None
    assert job_progress(account_id=tenant.account.pk, site_ids=frozenset({job.site_id}), job_id=job.pk) is not None


def test_an_account_job_without_a_site_is_seen_only_by_those_who_see_every_site(tenant):
    account_job = Job.objects.create(account=tenant.account, kind="billing.export", status=JobStatus.RUNNING)
    assert job_progress(account_id=tenant.account.pk, site_ids=None, job_id=account_job.pk) is not None
    assert job_progress(account_id=tenant.account.pk, site_ids=frozenset({tenant.site.pk}), job_id=account_job.pk) is None
