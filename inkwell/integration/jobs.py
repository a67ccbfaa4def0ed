"""The integration's background work: a sync of a site with its CMS (``integration.sync``)."""

from django.db import transaction
from django.utils import timezone

from inkwell.integration.models import SiteIntegration, SyncRun, SyncStatus
from inkwell.integration.services import SYNC, adapter_for, sync_integration
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.services import JobContext, JobFailed, job_kind
from inkwell.notifications import events

INTEGRATION_GONE = "The integration was deleted before it synced"


def _integrations(job: Job):
    return SiteIntegration.objects.for_account(job.account_id).filter(pk=job.params.get("integration_id"))


def _run(job: Job) -> SyncRun | None:
    return SyncRun.objects.for_account(job.account_id).filter(job=job).first()


def _duration_ms(run: SyncRun, finished_at) -> int:
    return max(0, round((finished_at - run.started_at).total_seconds() * 1000))


def _summary(counts: dict) -> str:
    categories, tags, contents = counts["categories"], counts["tags"], counts["contents"]
    imported = sum(categories[key] for key in ("created", "updated", "unchanged")), sum(tags[key] for key in ("created", "updated", "unchanged"))
    return f"{imported[0]} categories, {imported[1]} tags, {contents['checked']} published items checked ({contents['changed']} changed)"


def sync_ended(job: Job) -> None:
    """A failed or cancelled sync closes its run with the job's error and leaves the integration
    saying so; a failed one raises ``cms_sync_failed``. Also runs when the job's worker died."""
    status = SyncStatus.CANCELLED if job.status == JobStatus.CANCELLED else SyncStatus.FAILED
    error = job.error or {}
    now = timezone.now()
    run = _run(job)
    if run is not None:
        SyncRun.objects.for_account(job.account_id).filter(pk=run.pk).update(
            status=status,
            error_code=str(error.get("code", ""))[:40],
            error=str(error.get("message", ""))[:300],
            finished_at=now,
            duration_ms=_duration_ms(run, now),
        )
    _integrations(job).filter(sync_job=job).update(sync_status=status, updated_at=now)
    if status == SyncStatus.CANCELLED:
        return
    integration = _integrations(job).select_related("site").first()
    site_name = integration.site.name if integration else "the site"
    reason = error.get("message") or "The sync did not finish"
    events.cms_sync_failed(
        account=job.account,
        site=job.site,
        site_name=site_name,
        integration_id=integration.pk if integration else None,
        reason=reason,
        sync_run_id=run.pk if run else None,
        job_id=job.pk,
        requested_integration_id=job.params.get("integration_id"),
    )


@job_kind(name=SYNC, on_failure=sync_ended)
def sync(ctx: JobContext) -> dict:
    """Syncs the integration (``services.sync_integration``) and records the run, the
    integration's sync state and ``cms_sync_success`` in one transaction at the end.

    CMS errors propagate: the runner retries the transient ones (``retryable``) with backoff and
    records the others with their safe code and message.
    """
    job = ctx.job
    integration = _integrations(job).select_related("site").first()
    if integration is None:
        raise JobFailed(INTEGRATION_GONE, code="integration_missing")
    now = timezone.now()
    # The run was made queued with the job; its clock starts when a worker first takes it.
    SyncRun.objects.for_account(job.account_id).filter(job=job, status=SyncStatus.QUEUED).update(status=SyncStatus.RUNNING, started_at=now)
    _integrations(job).filter(sync_job=job).update(sync_status=SyncStatus.RUNNING, updated_at=now)

    counts = sync_integration(integration=integration, adapter=adapter_for(integration=integration), progress=ctx.progress)

    with transaction.atomic():
        finished_at = timezone.now()
        run = _run(job)
        if run is None:
            # The run is made with the job and goes only with its integration.
            raise JobFailed(INTEGRATION_GONE, code="integration_missing")
        SyncRun.objects.for_account(job.account_id).filter(pk=run.pk).update(
            status=SyncStatus.SUCCEEDED, counts=counts, error_code="", error="", finished_at=finished_at, duration_ms=_duration_ms(run, finished_at)
        )
        _integrations(job).filter(sync_job=job).update(sync_status=SyncStatus.SUCCEEDED, last_synced_at=finished_at, updated_at=finished_at)
        events.cms_synced(
            account=job.account,
            site=integration.site,
            integration_id=integration.pk,
            summary=_summary(counts),
            checked=counts["contents"]["checked"],
            sync_run_id=run.pk,
            job_id=job.pk,
        )
    return {"sync_run_id": run.pk, **counts}
