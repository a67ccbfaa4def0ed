"""Reads of the integration domain: a sync's progress and an integration's sync health."""

from datetime import timedelta
from pathlib import Path

from django.db.models import Avg, Count, Max, Q
from django.utils import timezone

from inkwell.integration.models import SiteIntegration, SyncRun, SyncStatus
from inkwell.writer.models import Content, SiteStatus, Taxonomy, TaxonomyType

# Timings are measured over the most recent finished runs, at most this many.
TIMED_RUNS = 50
LAST_ERRORS = 5
DEFAULT_WINDOW_DAYS = 30
# The WordPress plugin that signs and sends the webhook (README: The CMS webhook).
WORDPRESS_PLUGIN = Path(__file__).resolve().parent / "wordpress" / "inkwell-webhook.php"


def _runs(integration: SiteIntegration):
    return SyncRun.objects.for_account(integration.account_id).filter(integration=integration)


def run_facts(run: SyncRun | None) -> dict | None:
    if run is None:
        return None
    return {
        "id": run.pk,
        "job_id": run.job_id,
        "status": run.status,
        "counts": run.counts,
        "error_code": run.error_code,
        "error": run.error,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "duration_ms": run.duration_ms,
    }


def sync_status(integration: SiteIntegration) -> dict:
    """Where the integration's sync stands: its job's status and progress while one runs (the
    last one's after), and the last run's record. ``integration`` comes with ``sync_job``."""
    job = integration.sync_job
    return {
        "integration_id": integration.pk,
        "sync_status": integration.sync_status,
        "last_synced_at": integration.last_synced_at,
        "job": None
        if job is None
        else {
            "id": job.pk,
            "status": job.status,
            "progress": job.progress,
            "progress_message": job.progress_message,
            "error": job.error,
            "created_at": job.created_at,
            "finished_at": job.finished_at,
        },
        "last_run": run_facts(_runs(integration).first()),
    }


def _percentile(durations, count: int, share: float) -> int | None:
    """The nearest-rank percentile of ``count`` durations, read from the database by its rank."""
    if not count:
        return None
    rank = max(1, -(-int(share * 100) * count // 100))
    return durations.order_by("duration_ms", "pk").values_list("duration_ms", flat=True)[rank - 1]


def sync_health(integration: SiteIntegration, *, window_days: int = DEFAULT_WINDOW_DAYS) -> dict:
    """How well the integration syncs: what it brought in (taxonomies with an external id, our
    content linked to a post and how it stands), its runs over the last ``window_days`` days, its
    last errors, and the durations of its recent runs (last, average, 95th percentile, longest).
    Every number is counted by the database: a fixed handful of queries, whatever the history."""
    account_id, site_id = integration.account_id, integration.site_id
    since = timezone.now() - timedelta(days=window_days)
    taxonomies = (
        Taxonomy.objects.for_account(account_id)
        .filter(site_id=site_id)
        .exclude(external_id="")
        .aggregate(categories=Count("pk", filter=Q(taxonomy_type=TaxonomyType.CATEGORY)), tags=Count("pk", filter=Q(taxonomy_type=TaxonomyType.TAG)))
    )
    contents = (
        Content.objects.for_account(account_id)
        .filter(site_id=site_id)
        .exclude(external_id="")
        .aggregate(linked=Count("pk"), published=Count("pk", filter=Q(site_status=SiteStatus.PUBLISHED)))
    )
    runs = _runs(integration)
    window = runs.filter(started_at__gte=since).aggregate(
        total=Count("pk"),
        succeeded=Count("pk", filter=Q(status=SyncStatus.SUCCEEDED)),
        failed=Count("pk", filter=Q(status=SyncStatus.FAILED)),
    )
    last_errors = [
        {"run_id": run.pk, "at": run.finished_at or run.started_at, "code": run.error_code, "message": run.error}
        for run in runs.filter(status=SyncStatus.FAILED).only("pk", "finished_at", "started_at", "error_code", "error")[:LAST_ERRORS]
    ]
    timed = runs.filter(duration_ms__isnull=False)
    recent_ids = timed.values("pk")[:TIMED_RUNS]
    recent = runs.filter(pk__in=recent_ids)
    timing = recent.aggregate(count=Count("pk"), avg=Avg("duration_ms"), longest=Max("duration_ms"))
    last_run = timed.values_list("duration_ms", flat=True).first()
    return {
        "integration_id": integration.pk,
        "connection": {
            "status": integration.connection_status,
            "message": integration.connection_message,
            "last_tested_at": integration.last_tested_at,
        },
        "sync_status": integration.sync_status,
        "last_synced_at": integration.last_synced_at,
        "window_days": window_days,
        "counts": {
            "categories": taxonomies["categories"],
            "tags": taxonomies["tags"],
            "contents_linked": contents["linked"],
            "contents_published": contents["published"],
            "runs": window["total"],
            "runs_succeeded": window["succeeded"],
            "runs_failed": window["failed"],
        },
        "last_errors": last_errors,
        "timings": {
            "runs_measured": timing["count"],
            "last_ms": last_run,
            "avg_ms": round(timing["avg"]) if timing["avg"] is not None else None,
            "p95_ms": _percentile(recent, timing["count"], 0.95),
            "max_ms": timing["longest"],
        },
    }


def wordpress_plugin_source() -> str:
    """The webhook plugin's PHP, to copy into ``wp-content/mu-plugins/``."""
    return WORDPRESS_PLUGIN.read_text()
