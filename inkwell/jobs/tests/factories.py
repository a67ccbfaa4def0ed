"""Jobs of one account for the cross-account matrix (tests/test_cross_account_matrix.py)."""

from inkwell.jobs.models import Job, JobStatus


def _job(tenant, marker: str) -> Job:
    return Job.objects.create(
        account=tenant.account, site=tenant.site, kind="test.echo", status=JobStatus.QUEUED, params={"value": marker}, progress_message=marker
    )


CROSS_ACCOUNT_FACTORIES = {Job: _job}
