"""Automation rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py).

The ``make_*`` helpers build rows of a tenant directly (no engine), with sensible values; the
matrix factories put the marker into a text field: a run's ``error_message``, a log line's
``message``. A stage has no free text, so its factory marks the run it belongs to.
"""

from datetime import timedelta

from django.utils import timezone

from inkwell.automation.models import AutomationLog, AutomationRun, AutomationStageRun, LogLevel, RunStatus, StageStatus
from inkwell.tenancy.models import Site


def make_run(tenant, *, site: Site | None = None, status: str = RunStatus.COMPLETED, started_at=None, **fields) -> AutomationRun:
    """A run of the tenant's site; a finished one ends ten minutes after it started."""
    run = AutomationRun.objects.create(account=tenant.account, site=site or tenant.site, status=status, **fields)
    if started_at is not None:
        # started_at is set on creation (auto_now_add): an explicit one is written afterwards.
        AutomationRun.objects.for_account(tenant.account).filter(pk=run.pk).update(started_at=started_at)
        run.started_at = started_at
    if status in (RunStatus.COMPLETED, RunStatus.CANCELLED, RunStatus.FAILED) and run.completed_at is None:
        run.completed_at = run.started_at + timedelta(minutes=10)
        run.save(update_fields=["completed_at"])
    return run


def make_stage(run: AutomationRun, stage: int, **fields) -> AutomationStageRun:
    fields.setdefault("status", StageStatus.COMPLETED)
    fields.setdefault("started_at", timezone.now())
    return AutomationStageRun.objects.create(account_id=run.account_id, run=run, stage=stage, **fields)


def make_log(run: AutomationRun, *, stage: int | None = 1, level: str = LogLevel.INFO, message: str = "Processed an item", **fields) -> AutomationLog:
    fields.setdefault("event", "item_processed")
    return AutomationLog.objects.create(account_id=run.account_id, run=run, site_id=run.site_id, stage=stage, level=level, message=message, **fields)


def _run(tenant, marker: str) -> AutomationRun:
    return make_run(tenant, status=RunStatus.FAILED, error_message=marker, current_item={"label": marker})


def _stage(tenant, marker: str) -> AutomationStageRun:
    return make_stage(_run(tenant, marker), 1, pending_at_start=3, processed=3)


def _log(tenant, marker: str) -> AutomationLog:
    return make_log(_run(tenant, marker), message=marker, data={"label": marker})


CROSS_ACCOUNT_FACTORIES = {AutomationRun: _run, AutomationStageRun: _stage, AutomationLog: _log}
