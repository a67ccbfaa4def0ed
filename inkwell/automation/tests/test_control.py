"""Starting, pausing, resuming and cancelling runs, at the service level:
the state machine, its 409s, the one active run per site, the credit check, control between items
driven deterministically from the engine's ``step_finished`` signal, and an engine that takes over
after its worker died mid-step."""

import threading
from contextlib import contextmanager

import pytest
from django.db import connection

from inkwell.api.exceptions import InsufficientCredits, StateConflict
from inkwell.automation import engine, selectors, services
from inkwell.automation.models import AutomationLog, AutomationRun, AutomationStageRun
from inkwell.automation.signals import step_finished
from inkwell.automation.tests.pipeline_data import add_keywords, automation_settings, charged_by_jobs, fund, quick_settings, run_of, uncut_shares
from inkwell.billing.tests.ledger import assert_ledger_consistent
from inkwell.jobs.models import Job
from inkwell.jobs.services import execute
from inkwell.notifications.models import Notification
from inkwell.planner.models import Cluster, Keyword
from inkwell.writer.models import Content, Image, Task

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def site(big_tenant):
    add_keywords(big_tenant, 20)
    quick_settings(big_tenant)
    fund(big_tenant.account, 5000)
    automation_settings(big_tenant.site, stages=uncut_shares())
    return big_tenant


@contextmanager
def after_steps(count: int, action, *, stage: int | None = None):
    """Calls ``action(run)`` once, after the ``count``-th step (of ``stage``, when given) is counted."""
    seen = []

    def receiver(sender, run, stage: int, **kwargs):
        if wanted is None or stage == wanted:
            seen.append(stage)
            if len(seen) == count:
                action(run)

    wanted = stage
    step_finished.connect(receiver, dispatch_uid="test-after-steps")
    try:
        yield seen
    finally:
        step_finished.disconnect(dispatch_uid="test-after-steps")


def counts(tenant) -> dict:
    account = tenant.account
    return {
        "clustered": Keyword.objects.for_account(account).filter(cluster__isnull=False).count(),
        "clusters": Cluster.objects.for_account(account).count(),
        "tasks": Task.objects.for_account(account).count(),
        "contents": Content.objects.for_account(account).count(),
        "images": Image.objects.for_account(account).count(),
        "jobs": Job.objects.for_account(account).count(),
        "review": Content.objects.for_account(account).filter(status="review").count(),
    }


def assert_each_item_once(tenant) -> None:
    """One article per task, one image per article, every charge counted by a run."""
    account = tenant.account
    tasks = Task.objects.for_account(account)
    assert all(task.contents.count() == 1 for task in tasks)
    assert all(content.images.count() == 1 for content in Content.objects.for_account(account))
    assert set(Content.objects.for_account(account).values_list("status", flat=True)) == {"review"}
    runs = AutomationRun.objects.for_account(account)
    assert sum(run.credits_used for run in runs) == charged_by_jobs(account)
    assert_ledger_consistent(account)


# Starting


def test_a_run_starts_queued_with_its_estimate_as_budget_and_seven_stages(site):
    quote = selectors.estimate(site.site)
    run = services.start_run(site=site.site, user=site.owner)
    assert (run.status, run.trigger, run.budget, run.created_by) == ("queued", "manual", quote["estimated_credits"], site.owner)
    assert run.job.kind == "automation.run" and run.job.params == {"run_id": run.pk}
    stages = AutomationStageRun.objects.for_account(site.account).filter(run=run).order_by("stage")
    assert [(row.stage, row.status) for row in stages] == [(number, "pending") for number in range(1, 8)]
    assert stages[0].pending_at_start == 20
    assert AutomationLog.objects.for_account(site.account).filter(run=run, event="run_started").exists()


def test_a_second_start_while_a_run_is_active_is_a_conflict(site):
    run = services.start_run(site=site.site, user=site.owner)
    for status in ("queued", "running", "paused"):
        AutomationRun.objects.for_account(site.account).filter(pk=run.pk).update(status=status)
        with pytest.raises(StateConflict) as refused:
            services.start_run(site=site.site, user=site.owner, trigger="scheduled")
        assert refused.value.errors == {"site_id": ["An automation run is already active for this site"]}
    AutomationRun.objects.for_account(site.account).filter(pk=run.pk).update(status="completed")
    assert services.start_run(site=site.site, user=None, trigger="scheduled").trigger == "scheduled"


def test_a_start_that_passed_the_check_while_another_run_started_is_a_conflict(site, monkeypatch):
    """The partial unique constraint is the real guard: a run that appears between the check and
    the insert makes the insert fail, which answers 409 and leaves nothing behind."""
    real_estimate = selectors.estimate

    def estimate_while_another_starts(target):
        quote = real_estimate(target)
        AutomationRun.objects.create(account=site.account, site=site.site, status="running")
        return quote

    monkeypatch.setattr(selectors, "estimate", estimate_while_another_starts)
    with pytest.raises(StateConflict) as refused:
        services.start_run(site=site.site, user=site.owner)
    assert refused.value.errors == {"site_id": ["An automation run is already active for this site"]}
    assert AutomationRun.objects.for_account(site.account).count() == 1
    assert not Job.objects.for_account(site.account).exists() and not AutomationStageRun.objects.for_account(site.account).exists()


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_the_start_that_loses_a_race_is_a_conflict(site, monkeypatch):
    """Two starts at once both pass the first check; the partial unique constraint lets one run exist."""
    real_estimate = selectors.estimate
    barrier = threading.Barrier(2, timeout=10)

    def slow_estimate(target):
        quote = real_estimate(target)
        barrier.wait()
        return quote

    monkeypatch.setattr(selectors, "estimate", slow_estimate)
    outcomes = []

    def attempt():
        try:
            outcomes.append(services.start_run(site=site.site, user=site.owner).status)
        except StateConflict as refused:
            outcomes.append(refused.errors)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes, key=str) == sorted(["queued", {"site_id": ["An automation run is already active for this site"]}], key=str)
    assert AutomationRun.objects.for_account(site.account).count() == 1



def test_a_run_whose_estimate_exceeds_the_balance_is_refused_with_402(site):
    quote = selectors.estimate(site.site)
    fund(site.account, quote["estimated_credits"] - 1)
    with pytest.raises(InsufficientCredits):
        services.start_run(site=site.site, user=site.owner)
    assert not AutomationRun.objects.for_account(site.account).exists()
    fund(site.account, quote["estimated_credits"])
    assert services.start_run(site=site.site, user=site.owner).budget == quote["estimated_credits"]


# Pause, resume


def test_a_run_paused_mid_stage_stops_after_the_item_in_hand_and_resumes_where_it_stopped(site, eager_jobs):
    tenant = site
    with after_steps(3, lambda run: services.pause_run(site=tenant.site), stage=4):
        with eager_jobs():
            run = services.start_run(site=tenant.site, user=tenant.owner)
    run = run_of(tenant.account, run.pk)
    assert (run.status, run.current_stage) == ("paused", 4)
    assert Task.objects.for_account(tenant.account).filter(status="completed").count() == 3
    assert Job.objects.for_account(tenant.account).get(pk=run.job_id).status == "succeeded"
    paused = counts(tenant)
    state = (run.items_processed, run.credits_used)

    # Nothing advances while it is paused, even should the job that drove it run again.
    Job.objects.for_account(tenant.account).filter(pk=run.job_id).update(status="queued")
    execute(job_id=run.job_id, heartbeat=False)
    run.refresh_from_db()
    assert (run.status, run.items_processed, run.credits_used) == ("paused", *state)
    assert counts(tenant) == {**paused, "jobs": paused["jobs"]}
    assert selectors.current_processing(tenant.site)["status"] == "paused"

    with eager_jobs():
        resumed = services.resume_run(site=tenant.site)
    assert resumed.status == "queued" and resumed.job_id != run.job_id
    run.refresh_from_db()
    assert run.status == "completed"
    stage_4 = AutomationStageRun.objects.for_account(tenant.account).get(run=run, stage=4)
    assert (stage_4.processed, stage_4.failed) == (Task.objects.for_account(tenant.account).count(), 0)
    assert AutomationLog.objects.for_account(tenant.account).filter(run=run, event="stage_started", stage=4).count() == 1
    events = list(AutomationLog.objects.for_account(tenant.account).filter(run=run, event__startswith="run_").order_by("id").values_list("event", flat=True))
    assert events == ["run_started", "run_paused", "run_resumed", "run_completed"]
    assert_each_item_once(tenant)


def test_a_run_paused_before_its_job_started_does_nothing_until_resumed(site, eager_jobs):
    run = services.start_run(site=site.site, user=site.owner)
    services.pause_run(site=site.site, run_id=run.pk)
    execute(job_id=run.job_id, heartbeat=False)  # the original message is delivered after all
    assert counts(site)["clustered"] == 0
    with eager_jobs():
        services.resume_run(site=site.site, run_id=run.pk)
    assert run_of(site.account, run.pk).status == "completed"
    assert Job.objects.for_account(site.account).filter(kind="automation.run").count() == 2
    assert_each_item_once(site)


# Cancel


def test_a_run_cancelled_mid_run_ends_after_the_item_in_hand(site, eager_jobs):
    tenant = site
    with after_steps(2, lambda run: services.cancel_run(site=tenant.site, run_id=run.pk), stage=6):
        with eager_jobs():
            run = services.start_run(site=tenant.site, user=tenant.owner)
    run = run_of(tenant.account, run.pk)
    assert (run.status, run.current_stage, run.current_item) == ("cancelled", 6, {})
    assert run.completed_at is not None
    assert Image.objects.for_account(tenant.account).filter(status="generated").count() == 2
    assert Image.objects.for_account(tenant.account).filter(status="pending").count() == Content.objects.for_account(tenant.account).count() - 2
    assert not Content.objects.for_account(tenant.account).filter(status="review").exists()
    assert AutomationStageRun.objects.for_account(tenant.account).get(run=run, stage=7).status == "pending"
    # Its items and credits are counted; the account is told once.
    assert run.credits_used == charged_by_jobs(tenant.account)
    ended = Notification.objects.for_account(tenant.account).filter(metadata__run_id=run.pk)
    assert [(row.notification_type, row.severity, row.metadata["status"]) for row in ended] == [("automation_run_cancelled", "warning", "cancelled")]
    # The job that drove it reads cancelled, not succeeded.
    assert Job.objects.for_account(tenant.account).get(pk=run.job_id).status == "cancelled"
    # The site is free for a new run, which takes up what was left.
    with eager_jobs():
        services.start_run(site=tenant.site, user=tenant.owner)
    assert_each_item_once(tenant)


def test_cancelling_a_paused_run_ends_it_at_once(site):
    run = services.start_run(site=site.site, user=site.owner)
    services.pause_run(site=site.site)
    cancelled = services.cancel_run(site=site.site)
    assert (cancelled.pk, cancelled.status) == (run.pk, "cancelled")
    assert cancelled.completed_at is not None
    # Its job never started: it is cancelled too, and nothing was processed.
    assert Job.objects.for_account(site.account).get(pk=run.job_id).status == "cancelled"
    assert counts(site)["clustered"] == 0
    assert Notification.objects.for_account(site.account).filter(metadata__run_id=run.pk).count() == 1


# Wrong transitions


@pytest.mark.parametrize(
    ("status", "action"),
    [
        ("queued", "resume"),
        ("running", "resume"),
        ("paused", "pause"),
        ("completed", "pause"),
        ("completed", "resume"),
        ("completed", "cancel"),
        ("cancelled", "pause"),
        ("cancelled", "resume"),
        ("cancelled", "cancel"),
        ("failed", "pause"),
        ("failed", "resume"),
        ("failed", "cancel"),
    ],
)
def test_an_action_on_a_run_in_the_wrong_state_is_a_conflict(site, status, action):
    run = services.start_run(site=site.site, user=site.owner)
    AutomationRun.objects.for_account(site.account).filter(pk=run.pk).update(status=status)
    for run_id in (run.pk, None):
        with pytest.raises(StateConflict) as refused:
            getattr(services, f"{action}_run")(site=site.site, run_id=run_id)
        assert list(refused.value.errors) == ["status"]
    assert run_of(site.account, run.pk).status == status


@pytest.mark.parametrize("action", ["pause", "resume", "cancel"])
def test_an_action_without_any_run_is_a_conflict_and_another_sites_run_id_is_not_found(site, other_tenant, action):
    from rest_framework.exceptions import NotFound

    with pytest.raises(StateConflict):
        getattr(services, f"{action}_run")(site=site.site)
    add_keywords(other_tenant, 1)
    fund(other_tenant.account, 100)
    foreign = services.start_run(site=other_tenant.site, user=other_tenant.owner)
    with pytest.raises(NotFound):
        getattr(services, f"{action}_run")(site=site.site, run_id=foreign.pk)
    assert run_of(other_tenant.account, foreign.pk).status == "queued"


# Crash recovery in one process


class WorkerDied(BaseException):
    """Stands for the process being killed: nothing in the engine catches it."""


def test_an_engine_taking_over_after_a_crash_mid_step_finishes_that_step_once(site, monkeypatch):
    """The worker dies after the 2nd content job of stage 4 was created and recorded, before it
    ran. The sweep queues the run's job again; the next engine runs the recorded job first (once),
    counts it once, and finishes the run."""
    tenant = site
    run = services.start_run(site=tenant.site, user=tenant.owner)
    real_run_to_end = engine.Engine._run_to_end
    started = []

    def dying_run_to_end(self, job_id):
        job = Job.objects.for_account(tenant.account).get(pk=job_id)
        if job.kind == "writer.generate_content":
            started.append(job_id)
            if len(started) == 2:
                raise WorkerDied
        return real_run_to_end(self, job_id)

    monkeypatch.setattr(engine.Engine, "_run_to_end", dying_run_to_end)
    with pytest.raises(WorkerDied):
        execute(job_id=run.job_id, heartbeat=False)
    run.refresh_from_db()
    assert run.status == "running" and run.in_flight["job_id"] == started[1]
    assert Task.objects.for_account(tenant.account).filter(status="generating").count() == 1
    # What the sweep does for a job whose worker died: queued again.
    Job.objects.for_account(tenant.account).filter(pk=run.job_id).update(status="queued")
    monkeypatch.setattr(engine.Engine, "_run_to_end", real_run_to_end)

    execute(job_id=run.job_id, heartbeat=False)

    run.refresh_from_db()
    assert (run.status, run.in_flight) == ("completed", {})
    recovered = Job.objects.for_account(tenant.account).get(pk=started[1])
    assert (recovered.status, recovered.attempts) == ("succeeded", 1)
    assert AutomationLog.objects.for_account(tenant.account).filter(run=run, event__in=["run_recovered", "step_recovered"]).count() == 2
    stage_4 = AutomationStageRun.objects.for_account(tenant.account).get(run=run, stage=4)
    assert (stage_4.processed, stage_4.failed) == (Task.objects.for_account(tenant.account).count(), 0)
    assert AutomationLog.objects.for_account(tenant.account).filter(run=run, stage=4, item_id=recovered.params["task_id"]).count() == 1
    assert_each_item_once(tenant)


def test_current_processing_tells_the_stage_and_the_item_being_processed(site, eager_jobs):
    seen = []
    with after_steps(2, lambda run: seen.append(selectors.current_processing(site.site)), stage=4):
        with eager_jobs():
            run = services.start_run(site=site.site, user=site.owner)
    tasks = list(Task.objects.for_account(site.account).order_by("id"))
    assert seen == [
        {
            "run_id": run.pk,
            "status": "running",
            "current_stage": 4,
            "stage_name": "Tasks → content",
            "item": {"item_type": "task", "item_id": tasks[1].pk, "label": tasks[1].title, "job_id": seen[0]["item"]["job_id"]},
            "done": 2,
            "total": len(tasks),
            "items_processed": seen[0]["items_processed"],
            "credits_used": seen[0]["credits_used"],
        }
    ]
    assert selectors.current_processing(site.site)["run_id"] is None


def test_cancelling_the_runs_job_through_the_jobs_api_cancels_the_run(site, eager_jobs):
    from inkwell.jobs.services import cancel_job

    tenant = site
    with after_steps(1, lambda run: cancel_job(job=Job.objects.for_account(tenant.account).get(pk=run.job_id)), stage=4):
        with eager_jobs():
            run = services.start_run(site=tenant.site, user=tenant.owner)
    run = run_of(tenant.account, run.pk)
    assert (run.status, run.error_message, run.current_stage) == ("cancelled", None, 4)
    assert Job.objects.for_account(tenant.account).get(pk=run.job_id).status == "cancelled"
    assert Task.objects.for_account(tenant.account).filter(status="completed").count() == 1
    assert AutomationLog.objects.for_account(tenant.account).filter(run=run, event="run_cancelled").exists()
    assert Notification.objects.for_account(tenant.account).filter(metadata__run_id=run.pk).count() == 1


def test_a_run_whose_engine_fails_unexpectedly_ends_failed_and_says_so_safely(site, eager_jobs, monkeypatch):
    from inkwell.automation import stages

    def broken(site):
        raise RuntimeError("database exploded at /srv/secret/path")

    with after_steps(1, lambda run: monkeypatch.setattr(stages.Pipeline, "of", classmethod(lambda cls, site: broken(site))), stage=2):
        with eager_jobs():
            run = services.start_run(site=site.site, user=site.owner)
    run = run_of(site.account, run.pk)
    assert (run.status, run.error_message) == ("failed", "Internal server error")
    assert run.completed_at is not None
    line = AutomationLog.objects.for_account(site.account).get(run=run, event="run_failed")
    assert (line.level, line.message) == ("error", "Run failed: Internal server error")
    ended = Notification.objects.for_account(site.account).get(metadata__run_id=run.pk)
    assert (ended.notification_type, ended.severity) == ("automation_run_failed", "error")
    assert "secret" not in ended.message
    # The site is free again.
    monkeypatch.undo()
    assert services.start_run(site=site.site, user=site.owner).status == "queued"


def test_a_stage_set_to_use_testing_makes_its_image_prompts_with_the_testing_model(site, eager_jobs, monkeypatch):
    from inkwell.writer import jobs as writer_jobs

    real_client, asked = writer_jobs.ai_client, []

    def client(account, **kwargs):
        asked.append(kwargs.get("live"))
        return real_client(account, **kwargs)

    monkeypatch.setattr(writer_jobs, "ai_client", client)
    automation_settings(site.site, stages={5: {"use_testing": True}})
    with eager_jobs():
        services.start_run(site=site.site, user=site.owner)
    prompt_jobs = Job.objects.for_account(site.account).filter(kind="writer.generate_images", params__phase="prompts")
    image_jobs = Job.objects.for_account(site.account).filter(kind="writer.generate_images", params__phase="images")
    assert prompt_jobs.exists() and all(job.params["use_testing"] for job in prompt_jobs)
    assert image_jobs.exists() and not any(job.params["use_testing"] for job in image_jobs)
    # The articles' jobs (stage 4, not set to use testing) ask through the same module as the images'.
    article_jobs = Job.objects.for_account(site.account).filter(kind="writer.generate_content")
    assert asked.count(False) == prompt_jobs.count() and asked.count(None) == image_jobs.count() + article_jobs.count()
