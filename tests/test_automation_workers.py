"""An automation run on real Celery workers survives the death of its worker: the worker is
killed (SIGKILL, its whole process group) while the run is inside a step's image job, a new
worker starts, and the run finishes with every item processed exactly once.

Both profiles: Redis with PostgreSQL (production) and the filesystem transport with SQLite (the
embedded default). The run is set up and read back with ``manage.py shell`` in the deployment's
own environment; the moment to kill is watched for in its database directly.
"""

import json
import os
import signal
import sqlite3
import time
from contextlib import closing

import psycopg
import pytest

from tests.live_server import celery_worker, manage, server_environment

pytestmark = pytest.mark.live_server_process

PROFILES = [pytest.param(False, id="redis-postgresql"), pytest.param(True, id="embedded-filesystem-sqlite")]
KEYWORDS = 25
IMAGES_PER_ARTICLE = 2

SETUP = f"""
from types import SimpleNamespace
from inkwell.automation import selectors, services
from inkwell.automation.tests.pipeline_data import add_keywords, automation_settings, fund, quick_settings, uncut_shares
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Plan, Site, Subscription

owner = tenancy.account_register(email="automation-kill@example.com", password="correct-horse-1", account_name="Kill test")
Subscription.objects.for_account(owner.account).update(plan=Plan.objects.get(slug="scale"))
site = Site.objects.create(account=owner.account, name="Kill test", domain="kill.example.com", slug="kill-test")
tenant = SimpleNamespace(account=owner.account, owner=owner, site=site)
add_keywords(tenant, {KEYWORDS})
# Images of the default size take the local provider a fifth of a second each: a step to be killed in.
quick_settings(tenant, images_per_article={IMAGES_PER_ARTICLE}, image_size="1024x1024")
fund(owner.account, 10000)
automation_settings(site, stages=uncut_shares())
run = services.start_run(site=site, user=owner)
print("RUN", run.pk)
"""

SUMMARY = """
import json
from collections import Counter
from django.db.models import Sum
from inkwell.automation.models import AutomationLog, AutomationRun, AutomationStageRun
from inkwell.billing.models import CreditUsage
from inkwell.jobs.models import Job
from inkwell.planner.models import Keyword
from inkwell.writer.models import Content, Image, Task

run = AutomationRun.dangerously_unscoped.get(pk={run_id})
account = run.account
jobs = Job.objects.for_account(account)
clustered = Counter(pk for params in jobs.filter(kind="planner.auto_cluster", status="succeeded").values_list("params", flat=True) for pk in params["keyword_ids"])
print("SUMMARY", json.dumps({{
    "status": run.status,
    "run_job_attempts": run.job.attempts,
    "items_processed": run.items_processed,
    "stage_processed": sum(AutomationStageRun.objects.for_account(account).filter(run=run).values_list("processed", flat=True)),
    "stage_failed": sum(AutomationStageRun.objects.for_account(account).filter(run=run).values_list("failed", flat=True)),
    "credits_used": run.credits_used,
    "charged_by_jobs": CreditUsage.objects.for_account(account).filter(job__isnull=False).aggregate(total=Sum("credits_used"))["total"],
    "keywords": Keyword.objects.for_account(account).count(),
    "keywords_clustered": Keyword.objects.for_account(account).filter(cluster__isnull=False).count(),
    "clustering_per_keyword": sorted(set(clustered.values())),
    "tasks": Task.objects.for_account(account).count(),
    "contents_per_task": sorted({{task.contents.count() for task in Task.objects.for_account(account)}}),
    "content_jobs_per_task": sorted(set(Counter(params["task_id"] for params in jobs.filter(kind="writer.generate_content").values_list("params", flat=True)).values())),
    "images_per_content": sorted({{content.images.count() for content in Content.objects.for_account(account)}}),
    "image_statuses": sorted(set(Image.objects.for_account(account).values_list("status", flat=True))),
    "content_statuses": sorted(set(Content.objects.for_account(account).values_list("status", flat=True))),
    "failed_jobs": jobs.exclude(status="succeeded").count(),
    "retried_jobs": sorted(jobs.filter(attempts__gt=1).values_list("kind", flat=True)),
    "recovered": AutomationLog.objects.for_account(account).filter(run=run, event="run_recovered").count(),
}}))
"""


def _sql(env: dict, query: str) -> list[tuple]:
    url = env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"), timeout=20)) as conn:
            return conn.execute(query).fetchall()
    with psycopg.connect(url) as conn:
        return conn.execute(query).fetchall()


def _wait(condition, *, timeout: float, what: str, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(step)
    return found


@pytest.fixture
def deployment(request):
    embedded = request.param
    if not embedded and not os.environ.get("REDIS_URL"):
        pytest.skip("the Redis profile runs in the production pass of `make test`")
    with server_environment(embedded=embedded, JOB_HEARTBEAT_SECONDS="1", JOB_SWEEP_SECONDS="1") as env:
        yield env


@pytest.mark.parametrize("deployment", PROFILES, indirect=True)
def test_a_run_whose_worker_is_killed_mid_step_finishes_on_the_next_worker_with_every_item_done_once(deployment):
    env = deployment
    run_id = int(manage(env, "shell", "-c", SETUP).split("RUN ")[1].split()[0])

    with celery_worker(env) as doomed:
        # Killed while the run's image job of stage 6 is generating images.
        running_image_job = (
            "SELECT id FROM jobs_job WHERE kind = 'writer.generate_images' AND status = 'running' AND params LIKE '%\"phase\": \"images\"%'"
        )
        if not env["DATABASE_URL"].startswith("sqlite"):
            running_image_job = running_image_job.replace("params LIKE", "params::text LIKE")
        interrupted = _wait(lambda: _sql(env, running_image_job), timeout=120, what="an image job of stage 6")[0][0]
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()
    assert _sql(env, f"SELECT status FROM automation_automationrun WHERE id = {run_id}") == [("running",)]
    assert _sql(env, f"SELECT status FROM jobs_job WHERE id = {interrupted}") == [("running",)]
    time.sleep(2.5)  # longer than the stale limit below: the dead worker's heartbeats are old now

    with celery_worker({**env, "JOB_STALE_AFTER_SECONDS": "2"}):
        _wait(
            lambda: _sql(env, f"SELECT status FROM automation_automationrun WHERE id = {run_id} AND status <> 'running'"),
            timeout=180,
            what="the end of the run",
            step=0.5,
        )

    summary = json.loads(manage(env, "shell", "-c", SUMMARY.format(run_id=run_id)).split("SUMMARY ")[1])
    assert summary["status"] == "completed", summary
    # The run's job and the interrupted image job ran again, each once more, and nothing failed.
    assert summary["run_job_attempts"] == 2 and summary["recovered"] == 1
    assert "writer.generate_images" in summary["retried_jobs"] and summary["failed_jobs"] == 0
    # Every item processed exactly once.
    assert summary["keywords_clustered"] == summary["keywords"] == KEYWORDS
    assert summary["clustering_per_keyword"] == [1]
    assert summary["contents_per_task"] == [1] and summary["content_jobs_per_task"] == [1]
    assert summary["images_per_content"] == [IMAGES_PER_ARTICLE] and summary["image_statuses"] == ["generated"]
    assert summary["content_statuses"] == ["review"]
    assert summary["stage_failed"] == 0 and summary["stage_processed"] == summary["items_processed"]
    # Every credit the jobs charged is the run's, counted once.
    assert summary["credits_used"] == summary["charged_by_jobs"] > 0
