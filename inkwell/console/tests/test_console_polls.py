"""The fragments htmx polls (the bell, a job's progress, a run's live part) answer a poll that finds
nothing changed with ``304 Not Modified`` and no body, and any change with the new fragment and a
new ETag; the browser keeps the fragment (``private, no-cache``) and names its ETag on the next poll."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.automation.models import AutomationRun, AutomationStageRun, RunStatus, StageStatus
from inkwell.automation.tests.factories import make_log, make_run, make_stage
from inkwell.jobs.models import Job, JobStatus
from inkwell.notifications.services import notify

pytestmark = pytest.mark.django_db

POLL = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def running_job(tenant):
    return Job.objects.create(account=tenant.account, site=tenant.site, kind="planner.auto_cluster", status=JobStatus.RUNNING, progress=10, progress_message="Clustering")


@pytest.fixture
def running_run(tenant):
    run = make_run(tenant, status=RunStatus.RUNNING, budget=40)
    make_stage(run, 1, status=StageStatus.RUNNING, pending_at_start=5, processed=1)
    make_log(run)
    return run


def _reads(queries, model) -> int:
    """The statements that name ``model``'s table."""
    return sum(connection.ops.quote_name(model._meta.db_table) in query["sql"] for query in queries.captured_queries)


def _polled(client, url: str, previous=None):
    """The answer to a poll of ``url``, naming the ETag of ``previous`` as a browser does."""
    headers = {**POLL, "HTTP_IF_NONE_MATCH": previous["ETag"]} if previous is not None else POLL
    return client.get(url, **headers)


def test_a_job_poll_that_finds_nothing_changed_is_a_304_without_a_body(console_client, tenant, running_job):
    client = console_client(tenant.owner)
    url = f"/app/jobs/{running_job.pk}/"
    first = _polled(client, url)
    assert first.status_code == 200 and first["ETag"].startswith('"')
    assert "private" in first["Cache-Control"] and "no-cache" in first["Cache-Control"] and "HX-Request" in first["Vary"]
    with CaptureQueriesContext(connection) as rendered:
        _polled(client, url)
    with CaptureQueriesContext(connection) as unchanged:
        second = _polled(client, url, first)
    assert second.status_code == 304 and second.content == b"" and second["ETag"] == first["ETag"]
    # Rendered or not, a poll reads the job once: the fragment is drawn from what the ETag was made of.
    assert _reads(rendered, Job) == _reads(unchanged, Job) == 1


@pytest.mark.parametrize(
    "change",
    [{"progress": 50}, {"progress_message": "Naming clusters"}, {"status": JobStatus.SUCCEEDED, "progress": 100, "result": {"clusters": 2}}, {"status": JobStatus.FAILED, "error": {"code": "x", "message": "Nope"}}],
    ids=["progress", "message", "succeeded", "failed"],
)
def test_a_job_poll_after_the_job_moved_gets_the_new_fragment_and_a_new_etag(console_client, tenant, running_job, change):
    client = console_client(tenant.owner)
    url = f"/app/jobs/{running_job.pk}/"
    first = _polled(client, url)
    Job.objects.for_account(tenant.account).filter(pk=running_job.pk).update(**change)  # as the worker writes it: no save()
    moved = _polled(client, url, first)
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
    assert moved.content != first.content


def test_a_run_poll_that_finds_nothing_changed_is_a_304(console_client, tenant, running_run):
    client = console_client(tenant.owner)
    url = f"/app/automation/runs/{running_run.pk}/?shown=running"
    first = _polled(client, url)
    assert first.status_code == 200 and 'id="run-live"' in first.content.decode()
    assert _polled(client, url, first).status_code == 304


@pytest.mark.parametrize(
    "move",
    [
        lambda run: make_log(run, message="Another item"),
        lambda run: AutomationStageRun.objects.for_account(run.account).filter(run=run, stage=1).update(processed=2),
        lambda run: make_stage(run, 2, status=StageStatus.RUNNING),
        lambda run: AutomationRun.objects.for_account(run.account).filter(pk=run.pk).update(items_processed=3, credits_used=4),
        lambda run: AutomationRun.objects.for_account(run.account).filter(pk=run.pk).update(current_item={"item_id": 7, "item_type": "keyword", "label": "garden", "done": 1, "total": 5}),
    ],
    ids=["log line", "stage progress", "next stage", "run totals", "item in hand"],
)
def test_a_run_poll_after_the_run_moved_gets_the_new_live_part(console_client, tenant, running_run, move):
    client = console_client(tenant.owner)
    url = f"/app/automation/runs/{running_run.pk}/?shown=running"
    first = _polled(client, url)
    move(running_run)
    moved = _polled(client, url, first)
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"] and moved.content != first.content


def test_a_run_poll_that_finds_a_change_draws_what_its_etag_was_made_of(console_client, tenant, running_run):
    client = console_client(tenant.owner)
    url = f"/app/automation/runs/{running_run.pk}/?shown=running"
    first = _polled(client, url)
    make_log(running_run, message="Another item")
    with CaptureQueriesContext(connection) as queries:
        moved = _polled(client, url, first)
    assert moved.status_code == 200 and "Another item" in moved.content.decode()
    # The state's statement reads the stages; the log's filter checks the run is the site's. A field
    # the live part shows but the state did not load would be one more read of either table.
    assert _reads(queries, AutomationStageRun) == 1 and _reads(queries, AutomationRun) == 2


def test_a_run_poll_after_the_status_changed_still_reloads_the_page(console_client, tenant, running_run):
    client = console_client(tenant.owner)
    url = f"/app/automation/runs/{running_run.pk}/?shown=running"
    first = _polled(client, url)
    AutomationRun.objects.for_account(tenant.account).filter(pk=running_run.pk).update(status=RunStatus.PAUSED)
    moved = _polled(client, url, first)
    assert moved.status_code == 200 and moved["HX-Refresh"] == "true"


def test_the_etag_names_the_page_of_the_log_asked_for(console_client, tenant, running_run):
    client = console_client(tenant.owner)
    first = _polled(client, f"/app/automation/runs/{running_run.pk}/?shown=running")
    other_page = _polled(client, f"/app/automation/runs/{running_run.pk}/?shown=running&level=error", first)
    assert other_page.status_code == 200 and other_page["ETag"] != first["ETag"]


def test_a_failed_jobs_progress_shows_its_error_message(console_client, tenant, running_job):
    Job.objects.for_account(tenant.account).filter(pk=running_job.pk).update(status=JobStatus.FAILED, error={"code": "worker_lost", "message": "The worker stopped"})
    response = _polled(console_client(tenant.owner), f"/app/jobs/{running_job.pk}/")
    assert response.status_code == 200 and "The worker stopped" in response.content.decode()


def test_a_bell_poll_is_a_304_until_a_notification_arrives(console_client, tenant):
    client = console_client(tenant.owner)
    first = _polled(client, "/app/notifications/bell/")
    assert 'aria-label="Notifications, 0 unread"' in first.content.decode()
    assert _polled(client, "/app/notifications/bell/", first).status_code == 304
    notify(account=tenant.account, notification_type="system_info", title="Hello", message="Welcome")
    arrived = _polled(client, "/app/notifications/bell/", first)
    assert arrived.status_code == 200 and 'aria-label="Notifications, 1 unread"' in arrived.content.decode()


def test_another_person_of_the_account_never_gets_a_304_for_what_their_colleague_saw(console_client, tenant, running_job):
    owner_poll = _polled(console_client(tenant.owner), f"/app/jobs/{running_job.pk}/")
    admin_poll = _polled(console_client(tenant.admin), f"/app/jobs/{running_job.pk}/", owner_poll)
    assert admin_poll.status_code == 200 and admin_poll["ETag"] != owner_poll["ETag"]


def test_a_full_page_load_ignores_the_etag_of_a_poll(console_client, tenant, running_job):
    client = console_client(tenant.owner)
    first = _polled(client, f"/app/jobs/{running_job.pk}/")
    page = client.get(f"/app/jobs/{running_job.pk}/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert page.status_code == 200 and "<html" in page.content.decode() and "ETag" not in page


def test_another_accounts_job_and_run_are_404_to_a_poll_whatever_its_etag(console_client, tenant, other_tenant, running_job, running_run):
    own = _polled(console_client(tenant.owner), f"/app/jobs/{running_job.pk}/")
    stranger = console_client(other_tenant.owner)
    assert _polled(stranger, f"/app/jobs/{running_job.pk}/", own).status_code == 404
    assert _polled(stranger, f"/app/automation/runs/{running_run.pk}/?shown=running", own).status_code == 404


def test_an_editor_not_granted_the_site_gets_a_404_for_its_job(console_client, tenant, running_job):
    assert _polled(console_client(tenant.editor), f"/app/jobs/{running_job.pk}/").status_code == 404


def test_a_poll_of_an_id_past_sqls_integers_is_a_404(console_client, tenant):
    client = console_client(tenant.owner)
    assert _polled(client, f"/app/jobs/{2**64}/").status_code == 404
    assert _polled(client, f"/app/automation/runs/{2**64}/").status_code == 404


def test_a_queued_job_shows_why_it_waits_and_its_place_in_the_queue_and_a_poll_sees_the_place_move(console_client, tenant):
    """Issue 30, case 12: a queued job showed 0% and no position in the queue."""
    client = console_client(tenant.owner)
    ahead = Job.objects.create(account=tenant.account, site=tenant.site, kind="planner.auto_cluster", status=JobStatus.QUEUED)
    waiting = Job.objects.create(
        account=tenant.account, site=tenant.site, kind="writer.generate_images", status=JobStatus.QUEUED,
        progress_message="Waiting for the AI provider, retrying at 14:05:09 UTC",
    )
    url = f"/app/jobs/{waiting.pk}/"

    page = client.get(url).content.decode()

    assert "Waiting for the AI provider, retrying at 14:05:09 UTC. Queued: number 2 in line." in page
    etag = client.get(url, HTTP_HX_REQUEST="true")["ETag"]
    Job.objects.for_account(tenant.account).filter(pk=ahead.pk).update(status=JobStatus.SUCCEEDED)
    moved = client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and "Queued: number 1 in line." in moved.content.decode()
