"""A running job's heartbeat outlives a database restart: when its connection is cut, it beats
again on a new one, so the sweep never takes a job whose handler is still at work for lost."""

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from inkwell.jobs import services
from inkwell.jobs.models import Job, JobStatus
from tests.job_handlers import ECHO_KIND

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]


def heartbeat_after(job: Job, moment, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Job.objects.for_account(job.account_id).filter(pk=job.pk, heartbeat_at__gt=moment).exists():
            return True
        time.sleep(0.05)
    return False


def test_a_heartbeat_beats_again_after_its_database_connection_was_cut(tenant):
    long_ago = timezone.now() - timedelta(hours=1)
    job = Job.objects.create(account=tenant.account, kind=ECHO_KIND)
    Job.objects.for_account(tenant.account).filter(pk=job.pk).update(status=JobStatus.RUNNING, heartbeat_at=long_ago)
    beat = services._Heartbeat(job.pk, 0.1)
    beat.start()
    try:
        assert heartbeat_after(job, long_ago)
        # What a PostgreSQL restart does to the heartbeat's connection (this test's own is spared).
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            assert cursor.fetchone()[0] >= 1
        cut = timezone.now()
        assert heartbeat_after(job, cut), "the heartbeat stopped with its connection"
    finally:
        beat.stop()
