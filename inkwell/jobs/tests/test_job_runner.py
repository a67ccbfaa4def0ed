"""jobs.services: the runner, cancellation and the stale-job sweep, run in the test's process."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from inkwell.ai.errors import ProviderRateLimited
from inkwell.api.exceptions import InsufficientCredits
from inkwell.billing import services as billing
from inkwell.billing.models import CreditReservation, ReservationStatus
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.jobs import services
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.services import JobContext, job_kind
from tests.job_handlers import ECHO_KIND, FAIL_KIND, SLEEP_KIND

pytestmark = pytest.mark.django_db

CRASH_KIND = "test.crash"
FLAKY_KIND = "test.flaky"
PAID_KIND = "test.paid"


@job_kind(name=CRASH_KIND)
def _crash(ctx: JobContext) -> dict:
    raise RuntimeError("secret-internal-detail")


@job_kind(name=FLAKY_KIND, max_attempts=3)
def _flaky(ctx: JobContext) -> dict:
    if ctx.job.attempts < ctx.params["succeed_on"]:
        raise ProviderRateLimited()
    return {"attempt": ctx.job.attempts}


@job_kind(name=PAID_KIND)
def _paid(ctx: JobContext) -> dict:
    if ctx.params.get("fail"):
        raise services.JobFailed("The provider refused")
    return {"done": True}


def _get(job) -> Job:
    return Job.objects.for_account(job.account).get(pk=job.pk)


def test_a_job_runs_after_its_transaction_commits_and_records_its_result(tenant, eager_jobs):
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=ECHO_KIND, params={"value": 42}, user=tenant.owner, site=tenant.site)
        assert _get(job).status == JobStatus.QUEUED
    job = _get(job)
    assert (job.status, job.progress, job.result, job.error, job.attempts) == (JobStatus.SUCCEEDED, 100, {"echo": 42, "attempt": 1}, None, 1)
    assert job.started_at and job.finished_at and job.created_by == tenant.owner


def test_an_unknown_kind_is_refused_before_anything_is_created(tenant):
    with pytest.raises(LookupError):
        services.start_job(account=tenant.account, kind="no.such.kind")
    assert not Job.objects.for_account(tenant.account).exists()


def test_an_expected_failure_records_its_message(tenant, eager_jobs):
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=FAIL_KIND, params={"message": "No keywords to cluster"})
    job = _get(job)
    assert (job.status, job.error) == (JobStatus.FAILED, {"code": "test_failure", "message": "No keywords to cluster"})


def test_an_unexpected_error_fails_the_job_without_leaking_its_details(tenant, eager_jobs, caplog):
    with caplog.at_level(logging.ERROR, logger="inkwell.jobs"), eager_jobs():
        job = services.start_job(account=tenant.account, kind=CRASH_KIND)
    job = _get(job)
    assert (job.status, job.error) == (JobStatus.FAILED, services.INTERNAL_ERROR)
    assert "secret-internal-detail" not in str(job.error)
    assert any(record.exc_info for record in caplog.records), "the traceback is in the server log"


def test_a_transient_provider_error_is_retried_until_it_succeeds(tenant, eager_jobs, settings):
    settings.INKWELL_JOBS = {**settings.INKWELL_JOBS, "RETRY_BACKOFF_SECONDS": 0}
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=FLAKY_KIND, params={"succeed_on": 3})
    job = _get(job)
    assert (job.status, job.attempts, job.result) == (JobStatus.SUCCEEDED, 3, {"attempt": 3})


def test_a_transient_error_fails_the_job_once_attempts_run_out(tenant, eager_jobs, settings):
    settings.INKWELL_JOBS = {**settings.INKWELL_JOBS, "RETRY_BACKOFF_SECONDS": 0}
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=FLAKY_KIND, params={"succeed_on": 99})
    job = _get(job)
    assert (job.status, job.attempts, job.error["code"]) == (JobStatus.FAILED, 3, "provider_rate_limited")


def test_a_duplicate_delivery_does_not_run_a_job_twice(tenant, eager_jobs):
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=ECHO_KIND)
    services.execute(job_id=job.pk, heartbeat=False)
    assert _get(job).attempts == 1


def test_credits_reserved_by_a_job_are_charged_when_it_succeeds(tenant, eager_jobs):
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=PAID_KIND, prepare=billing.reserve_for_job(operation_type="content_generation", amount=15))
        assert balance_of(tenant.account) == 100
        assert CreditReservation.objects.for_account(tenant.account).get().status == ReservationStatus.HELD
    assert balance_of(tenant.account) == 85
    assert CreditReservation.objects.for_account(tenant.account).get(job=job).status == ReservationStatus.SETTLED
    assert_ledger_consistent(tenant.account)


def test_credits_reserved_by_a_job_are_released_when_it_fails(tenant, eager_jobs):
    with eager_jobs():
        job = services.start_job(account=tenant.account, kind=PAID_KIND, params={"fail": True}, prepare=billing.reserve_for_job(operation_type="content_generation", amount=15))
    assert _get(job).status == JobStatus.FAILED
    assert balance_of(tenant.account) == 100
    assert CreditReservation.objects.for_account(tenant.account).get(job=job).status == ReservationStatus.RELEASED
    assert_ledger_consistent(tenant.account)


def test_a_job_the_account_cannot_pay_for_is_never_created(tenant):
    with pytest.raises(InsufficientCredits):
        services.start_job(account=tenant.account, kind=PAID_KIND, prepare=billing.reserve_for_job(operation_type="content_generation", amount=101))
    assert not Job.objects.for_account(tenant.account).exists()
    assert balance_of(tenant.account) == 100


def test_cancelling_a_queued_job_stops_it_and_frees_its_credits(tenant, eager_jobs):
    job = services.start_job(account=tenant.account, kind=PAID_KIND, prepare=billing.reserve_for_job(operation_type="clustering", amount=5))
    services.cancel_job(job=job)
    services.execute(job_id=job.pk, heartbeat=False)
    job = _get(job)
    assert job.status == JobStatus.CANCELLED
    assert balance_of(tenant.account) == 100
    assert_ledger_consistent(tenant.account)


def test_a_running_job_stops_at_its_next_progress_report_once_cancelled(tenant):
    job = services.start_job(account=tenant.account, kind=SLEEP_KIND, params={"seconds": 0.2})
    Job.objects.for_account(tenant.account).filter(pk=job.pk).update(status=JobStatus.RUNNING, attempts=1)
    services.cancel_job(job=_get(job))
    with pytest.raises(services.JobCancelled):
        JobContext(_get(job)).progress(10)


def _make_stale(job, *, attempts: int):
    long_ago = timezone.now() - timedelta(minutes=10)
    Job.objects.for_account(job.account).filter(pk=job.pk).update(status=JobStatus.RUNNING, attempts=attempts, started_at=long_ago, heartbeat_at=long_ago)


def test_the_sweep_queues_a_job_whose_worker_died_again_while_attempts_remain(tenant, eager_jobs):
    job = services.start_job(account=tenant.account, kind=ECHO_KIND)
    _make_stale(job, attempts=1)
    with eager_jobs():
        assert services.sweep_stale_jobs()["requeued"] == 1
    job = _get(job)
    assert (job.status, job.attempts) == (JobStatus.SUCCEEDED, 2)


def test_the_sweep_fails_a_job_whose_worker_died_on_its_last_attempt_and_frees_its_credits(tenant):
    job = services.start_job(account=tenant.account, kind=PAID_KIND, prepare=billing.reserve_for_job(operation_type="clustering", amount=5))
    _make_stale(job, attempts=3)
    assert services.sweep_stale_jobs()["failed"] == 1
    job = _get(job)
    assert (job.status, job.error) == (JobStatus.FAILED, services.WORKER_LOST)
    assert balance_of(tenant.account) == 100
    assert_ledger_consistent(tenant.account)


def test_the_sweep_leaves_jobs_with_a_fresh_heartbeat_alone(tenant):
    job = services.start_job(account=tenant.account, kind=ECHO_KIND)
    Job.objects.for_account(tenant.account).filter(pk=job.pk).update(status=JobStatus.RUNNING, attempts=1, heartbeat_at=timezone.now())
    assert services.sweep_stale_jobs() == {"requeued": 0, "failed": 0, "reenqueued": 0}
    assert _get(job).status == JobStatus.RUNNING


def test_the_sweep_enqueues_again_a_job_the_broker_lost(tenant, eager_jobs):
    job = services.start_job(account=tenant.account, kind=ECHO_KIND)
    Job.objects.for_account(tenant.account).filter(pk=job.pk).update(queued_at=timezone.now() - timedelta(hours=1))
    with eager_jobs():
        assert services.sweep_stale_jobs()["reenqueued"] == 1
    assert _get(job).status == JobStatus.SUCCEEDED


WAITING_KIND = "test.waiting"


@job_kind(name=WAITING_KIND, max_attempts=3)
def _rate_limited_mid_work(ctx: JobContext) -> dict:
    ctx.progress(40, "Generating image 1 of 4")
    raise ProviderRateLimited()


def test_a_job_waiting_to_retry_says_it_waits_for_the_ai_provider_and_until_when(tenant, settings):
    """Issue 30, case 12: under the provider's 429s a job flipped back to queued still saying
    "Generating image 1 of 4"."""
    settings.INKWELL_JOBS = {**settings.INKWELL_JOBS, "RETRY_BACKOFF_SECONDS": 30}
    job = services.start_job(account=tenant.account, kind=WAITING_KIND)
    before = timezone.now()

    services.execute(job_id=job.pk, heartbeat=False)

    job = _get(job)
    assert job.status == JobStatus.QUEUED
    retry_at = before + timedelta(seconds=30)
    expected = {services.waiting_message(waits_for="the AI provider", retry_at=retry_at + timedelta(seconds=offset)) for offset in range(0, 3)}
    assert job.progress_message in expected, job.progress_message
    assert job.progress_message.startswith("Waiting for the AI provider, retrying at ")


def test_a_queued_job_knows_its_place_in_the_queue(tenant, make_tenant, as_user):
    from inkwell.jobs.selectors import queue_position

    other = make_tenant("other")
    first = services.start_job(account=other.account, kind=ECHO_KIND)
    second = services.start_job(account=tenant.account, kind=ECHO_KIND)
    third = services.start_job(account=tenant.account, kind=ECHO_KIND)

    assert [queue_position(_get(job)) for job in (first, second, third)] == [1, 2, 3]
    data = as_user(tenant.owner).get(f"/api/v1/jobs/{third.pk}/").json()["data"]
    assert (data["status"], data["queue_position"]) == ("queued", 3)
    services.execute(job_id=first.pk, heartbeat=False)
    assert queue_position(_get(third)) == 2
    assert as_user(tenant.owner).get(f"/api/v1/jobs/{third.pk}/").json()["data"]["queue_position"] == 2
