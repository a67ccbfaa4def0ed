"""The automation endpoints through the real URLs (issue 7, Build 3): runs and their control, the
current run, history, logs, the pipeline's counts and the estimate; roles, tenancy, and the
queries each list costs. The run engine itself is tested by its own suites."""

import uuid
from datetime import timedelta
from unittest.mock import ANY

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from inkwell.api.tests import assert_error
from inkwell.automation import selectors
from inkwell.automation.models import AutomationLog, AutomationRun, LogLevel, RunStatus, RunTrigger, StageStatus
from inkwell.automation.serializers import DETAIL_LOG_LINES, DIFFERS_FROM_QUERY, INVALID_LEVEL
from inkwell.automation.tests.factories import make_log, make_run, make_stage
from inkwell.billing import services as billing
from inkwell.billing.models import CreditLedger
from inkwell.planner.tests.factories import make_keyword
from inkwell.writer.tests.factories import make_task

pytestmark = pytest.mark.django_db

API = "/api/v1/automation/"
RUN_FIELDS = {"id", "site", "status", "started_at", "completed_at", "current_stage", "total_stages", "items_processed", "credits_used", "error_message"}
STAGE_FIELDS = {"stage", "name", "status", "pending_at_start", "processed", "failed", "credits_used", "budget", "started_at", "finished_at"}
SITE_NOT_YOURS = "Site must belong to your account"


def fund(account, credits: int) -> None:
    """The account holds exactly ``credits``."""
    balance = CreditLedger.objects.for_account(account).get().balance
    if credits > balance:
        billing.grant(account=account, amount=credits - balance, description="test funds")
    elif credits < balance:
        billing.spend(account=account, operation_type="linking", amount=balance - credits, description="test drain")


def at(minutes: int):
    """A start time ``minutes`` after a fixed morning, so that runs sort as the test means."""
    return timezone.now().replace(hour=8, minute=0, second=0, microsecond=0) - timedelta(days=1) + timedelta(minutes=minutes)


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)



def get(client, path: str, site, **query):
    return client.get(f"{API}{path}", {"site_id": site.pk, **query})


def post(client, path: str, site=None, body=None, **query):
    query = {"site_id": site.pk, **query} if site is not None else query
    suffix = "?" + "&".join(f"{name}={value}" for name, value in query.items()) if query else ""
    return client.post(f"{API}{path}{suffix}", body or {}, format="json")


# run_now


def test_run_now_starts_a_queued_run_and_answers_202_with_it(tenant, owner):
    make_keyword(tenant)

    response = post(owner, "run_now/", tenant.site)

    assert response.status_code == 202, response.content
    run = AutomationRun.objects.for_account(tenant.account).get()
    assert response.json() == {"success": True, "data": {"run_id": run.pk, "status": "queued"}}
    assert (run.site_id, run.trigger, run.created_by_id) == (tenant.site.pk, RunTrigger.MANUAL, tenant.owner.pk)


def test_run_now_while_a_run_is_active_is_a_409(tenant, owner):
    make_run(tenant, status=RunStatus.PAUSED)

    assert_error(post(owner, "run_now/", tenant.site), 409, "state_conflict", errors=ANY)
    assert AutomationRun.objects.for_account(tenant.account).count() == 1


def test_run_now_twice_is_a_409_the_second_time(tenant, owner):
    assert post(owner, "run_now/", tenant.site).status_code == 202
    assert_error(post(owner, "run_now/", tenant.site), 409, "state_conflict", errors=ANY)


def test_run_now_beyond_the_balance_is_a_402_and_starts_nothing(tenant, owner):
    make_task(tenant, word_count=5000)
    fund(tenant.account, 10)

    needed = selectors.estimate(tenant.site)["estimated_credits"]

    response = post(owner, "run_now/", tenant.site)

    limits = "max_keywords_per_run, max_clusters_per_run, max_ideas_per_run, max_content_per_run, max_image_prompts_per_run, max_images_per_run, max_review_items_per_run"
    assert_error(
        response,
        402,
        "insufficient_credits",
        error="Insufficient credits",
        errors={
            "credits": [
                f"This run needs {needed} credits and 10 are available. Lower the per-run limits ({limits}) "
                "with PUT /api/v1/automation/update_config/ to shrink the run, or add credits"
            ],
            "needed": [str(needed)],
            "available": ["10"],
        },
    )
    assert needed > 10
    assert not AutomationRun.objects.for_account(tenant.account).exists()


# pause, resume, cancel


def test_pause_resume_and_cancel_move_the_sites_run_through_its_states(tenant, owner):
    run_id = post(owner, "run_now/", tenant.site).json()["data"]["run_id"]

    paused = post(owner, "pause/", tenant.site)
    assert paused.status_code == 200, paused.content
    assert (paused.json()["data"]["id"], paused.json()["data"]["status"]) == (run_id, "paused")
    assert [stage["stage"] for stage in paused.json()["data"]["stages"]] == [1, 2, 3, 4, 5, 6, 7]

    assert post(owner, "resume/", tenant.site).json()["data"]["status"] == "queued"
    cancelled = post(owner, "cancel/", tenant.site).json()["data"]
    assert (cancelled["status"], cancelled["completed_at"] is not None) == ("cancelled", True)


def test_the_run_may_be_named_in_the_body_instead_of_the_query(tenant, owner):
    run = make_run(tenant, status=RunStatus.RUNNING)

    response = post(owner, "pause/", body={"site_id": tenant.site.pk, "run_id": run.pk})

    assert response.status_code == 200, response.content
    assert response.json()["data"]["status"] == "paused"


def test_query_and_body_may_share_the_work(tenant, owner):
    run = make_run(tenant, status=RunStatus.PAUSED)

    response = post(owner, "cancel/", tenant.site, body={"run_id": run.pk})

    assert response.json()["data"]["status"] == "cancelled"


@pytest.mark.parametrize("action", ["pause/", "resume/", "cancel/"])
def test_each_control_in_a_wrong_state_is_a_409(tenant, owner, action):
    make_run(tenant, status=RunStatus.COMPLETED)

    assert_error(post(owner, action, tenant.site), 409, "state_conflict", errors=ANY)


def test_pausing_a_paused_run_and_resuming_a_running_one_are_409s(tenant, owner):
    run = make_run(tenant, status=RunStatus.PAUSED)
    assert_error(post(owner, "pause/", tenant.site, run_id=run.pk), 409, "state_conflict", errors=ANY)

    AutomationRun.objects.for_account(tenant.account).filter(pk=run.pk).update(status=RunStatus.RUNNING)
    assert_error(post(owner, "resume/", tenant.site, run_id=run.pk), 409, "state_conflict", errors=ANY)


def test_a_run_id_of_another_site_is_not_found(tenant, owner, second_site):
    theirs = make_run(tenant, site=second_site, status=RunStatus.RUNNING)

    assert_error(post(owner, "pause/", tenant.site, run_id=theirs.pk), 404, "not_found")
    theirs.refresh_from_db()
    assert theirs.status == RunStatus.RUNNING


def test_the_site_is_required_in_the_query_or_the_body(owner):
    assert_error(post(owner, "pause/"), 400, "validation_error", errors={"site_id": ["This field is required"]})


def test_query_and_body_naming_different_sites_or_runs_are_a_400(tenant, owner, second_site):
    run = make_run(tenant, status=RunStatus.RUNNING)

    response = post(owner, "pause/", tenant.site, body={"site_id": second_site.pk})
    assert_error(response, 400, "validation_error", errors={"site_id": [DIFFERS_FROM_QUERY.format(field="site_id")]})
    response = post(owner, "pause/", tenant.site, body={"run_id": run.pk + 1}, run_id=run.pk)
    assert_error(response, 400, "validation_error", errors={"run_id": [DIFFERS_FROM_QUERY.format(field="run_id")]})
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING


def test_another_accounts_site_in_the_body_is_a_400(tenant, other_tenant, owner):
    theirs = make_run(other_tenant, status=RunStatus.RUNNING)

    assert_error(post(owner, "pause/", body={"site_id": other_tenant.site.pk}), 400, "validation_error", errors={"site_id": [SITE_NOT_YOURS]})
    theirs.refresh_from_db()
    assert theirs.status == RunStatus.RUNNING


# current_run


def test_current_run_is_null_before_the_first_run(tenant, owner):
    response = get(owner, "current_run/", tenant.site)

    assert response.status_code == 200
    assert response.json() == {"success": True, "data": None}


def test_current_run_is_the_active_run_with_its_stages(tenant, owner, second_site):
    active = make_run(tenant, status=RunStatus.RUNNING, started_at=at(0), current_stage=2, budget=40)
    make_stage(active, 1, processed=5, credits_used=2)
    make_stage(active, 2, status=StageStatus.RUNNING)
    make_run(tenant, status=RunStatus.FAILED, started_at=at(5))
    make_run(tenant, site=second_site, status=RunStatus.COMPLETED, started_at=at(10))

    data = get(owner, "current_run/", tenant.site).json()["data"]

    assert set(data) == RUN_FIELDS | {"trigger", "budget", "stages"}
    assert (data["id"], data["status"], data["current_stage"], data["budget"], data["trigger"]) == (active.pk, "running", 2, 40, "manual")
    assert [set(stage) for stage in data["stages"]] == [STAGE_FIELDS, STAGE_FIELDS]
    assert [(stage["stage"], stage["name"], stage["status"], stage["processed"]) for stage in data["stages"]] == [
        (1, "Keywords → clusters", "completed", 5),
        (2, "Clusters → ideas", "running", 0),
    ]


def test_without_an_active_run_current_run_is_the_latest(tenant, owner):
    make_run(tenant, status=RunStatus.COMPLETED, started_at=at(0))
    latest = make_run(tenant, status=RunStatus.CANCELLED, started_at=at(5))

    assert get(owner, "current_run/", tenant.site).json()["data"]["id"] == latest.pk


# runs


def test_runs_lists_the_spec_fields_newest_first(tenant, owner, second_site):
    older = make_run(tenant, started_at=at(0), items_processed=12, credits_used=7)
    newer = make_run(tenant, status=RunStatus.FAILED, started_at=at(5), error_message="Provider down")
    make_run(tenant, site=second_site)

    response = owner.get(f"{API}runs/", {"site_id": tenant.site.pk})

    assert response.status_code == 200
    body = response.json()
    assert (body["count"], [item["id"] for item in body["results"]]) == (2, [newer.pk, older.pk])
    assert all(set(item) == RUN_FIELDS for item in body["results"])
    assert body["results"][1] == {
        "id": older.pk,
        "site": tenant.site.pk,
        "status": "completed",
        "started_at": ANY,
        "completed_at": ANY,
        "current_stage": 1,
        "total_stages": 7,
        "items_processed": 12,
        "credits_used": 7,
        "error_message": None,
    }
    assert body["results"][0]["error_message"] == "Provider down"


def test_runs_narrow_to_a_site_and_a_status(tenant, owner, second_site):
    mine = make_run(tenant, status=RunStatus.FAILED)
    make_run(tenant, status=RunStatus.COMPLETED)
    make_run(tenant, site=second_site, status=RunStatus.FAILED)

    body = owner.get(f"{API}runs/", {"site_id": tenant.site.pk, "status": "failed"}).json()

    assert [item["id"] for item in body["results"]] == [mine.pk]


def test_runs_of_sites_an_editor_was_not_granted_are_not_listed(granted, as_user, second_site):
    make_run(granted, site=second_site)
    visible = make_run(granted)

    client = as_user(granted.editor)
    body = client.get(f"{API}runs/", {"site_id": granted.site.pk}).json()

    assert [item["id"] for item in body["results"]] == [visible.pk]
    assert client.get(f"{API}runs/", {"site_id": second_site.pk}).status_code == 403


def test_runs_with_an_invalid_status_are_a_400(tenant, owner):
    assert_error(owner.get(f"{API}runs/", {"site_id": tenant.site.pk, "status": "asleep"}), 400, "validation_error", errors={"status": ["Invalid status value"]})


def test_a_runs_detail_has_its_stages_and_newest_logs(tenant, owner):
    run = make_run(tenant, status=RunStatus.COMPLETED, trigger=RunTrigger.SCHEDULED, budget=90)
    for number in (2, 1):
        make_stage(run, number)
    AutomationLog.objects.bulk_create(
        AutomationLog(account=tenant.account, run=run, site=tenant.site, stage=1, event="item_processed", message=f"Item {n}")
        for n in range(DETAIL_LOG_LINES + 5)
    )

    response = owner.get(f"{API}runs/{run.pk}/", {"site_id": tenant.site.pk})

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert set(data) == RUN_FIELDS | {"trigger", "budget", "stages", "log_count", "logs"}
    assert (data["trigger"], data["budget"], data["log_count"]) == ("scheduled", 90, DETAIL_LOG_LINES + 5)
    assert [stage["stage"] for stage in data["stages"]] == [1, 2]
    assert len(data["logs"]) == DETAIL_LOG_LINES
    assert data["logs"][0]["message"] == f"Item {DETAIL_LOG_LINES + 4}"
    assert set(data["logs"][0]) == {"id", "run_id", "stage", "level", "event", "message", "item_type", "item_id", "reason", "data", "created_at"}


@pytest.mark.parametrize(
    "path", ["config/", "current_run/", "pipeline_overview/", "current_processing/", "history/", "logs/", "estimate/", "runs/", "runs/{run}/"]
)
def test_every_automation_get_without_site_id_is_a_400_on_site_id(tenant, owner, path):
    run = make_run(tenant)

    response = owner.get(f"{API}{path.format(run=run.pk)}")

    assert_error(response, 400, "validation_error", errors={"site_id": ["This field is required"]})


def test_a_runs_detail_checks_the_site_it_is_asked_for(tenant, owner, second_site):
    run = make_run(tenant)

    assert owner.get(f"{API}runs/{run.pk}/", {"site_id": tenant.site.pk}).status_code == 200
    assert_error(owner.get(f"{API}runs/{run.pk}/", {"site_id": second_site.pk}), 404, "not_found")


# history


def test_history_lists_the_sites_finished_runs_newest_first_in_brief(tenant, owner, second_site):
    completed = make_run(tenant, status=RunStatus.COMPLETED, started_at=at(0), items_processed=30)
    cancelled = make_run(tenant, status=RunStatus.CANCELLED, started_at=at(20))
    make_run(tenant, status=RunStatus.RUNNING, started_at=at(40))
    make_run(tenant, site=second_site, status=RunStatus.COMPLETED, started_at=at(60))

    body = get(owner, "history/", tenant.site).json()

    assert (body["count"], [item["id"] for item in body["results"]]) == (2, [cancelled.pk, completed.pk])
    assert set(body["results"][0]) == RUN_FIELDS | {"trigger", "duration_seconds"}
    assert (body["results"][1]["items_processed"], body["results"][1]["duration_seconds"]) == (30, 600)


def test_history_is_paginated(tenant, owner):
    for minute in range(3):
        make_run(tenant, started_at=at(minute))

    body = get(owner, "history/", tenant.site, page_size=2, page=2).json()

    assert (body["count"], len(body["results"]), body["next"]) == (3, 1, None)


# logs


@pytest.fixture
def logged(tenant, second_site):
    """Two runs of the tenant's site with lines of every level, and a line of another site."""
    first, second = make_run(tenant, started_at=at(0)), make_run(tenant, started_at=at(5))
    lines = [
        make_log(first, stage=1, message="first run, stage 1"),
        make_log(first, stage=2, level=LogLevel.WARNING, message="first run, a warning"),
        make_log(second, stage=1, level=LogLevel.ERROR, message="second run, an error"),
        make_log(second, stage=4, message="second run, stage 4"),
    ]
    make_log(make_run(tenant, site=second_site), message="another site")
    return first, second, lines


def test_logs_are_the_sites_lines_newest_first(tenant, owner, logged):
    body = get(owner, "logs/", tenant.site).json()

    assert [item["message"] for item in body["results"]] == ["second run, stage 4", "second run, an error", "first run, a warning", "first run, stage 1"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"level": "warning"}, ["first run, a warning"]),
        ({"stage": 1}, ["second run, an error", "first run, stage 1"]),
        ({"run": 0}, ["first run, a warning", "first run, stage 1"]),
        ({"run": 1, "level": "error"}, ["second run, an error"]),
    ],
)
def test_logs_narrow_to_a_run_a_level_and_a_stage(tenant, owner, logged, query, expected):
    if "run" in query:
        query["run_id"] = logged[query.pop("run")].pk

    assert [item["message"] for item in get(owner, "logs/", tenant.site, **query).json()["results"]] == expected


def test_logs_of_a_run_of_another_site_are_not_found(tenant, owner, second_site, logged):
    theirs = make_run(tenant, site=second_site)

    assert_error(get(owner, "logs/", tenant.site, run_id=theirs.pk), 404, "not_found")


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ({"level": "debug"}, {"level": [INVALID_LEVEL]}),
        ({"stage": 8}, {"stage": ["Ensure this value is less than or equal to 7."]}),
        ({"run_id": "x"}, {"run_id": ["A valid integer is required."]}),
    ],
)
def test_invalid_log_filters_are_a_400(tenant, owner, query, errors):
    assert_error(get(owner, "logs/", tenant.site, **query), 400, "validation_error", errors=errors)


# The pipeline's counts and the estimate.


def test_pipeline_overview_counts_the_pending_items_of_each_stage(tenant, owner):
    for _ in range(3):
        make_keyword(tenant)
    make_task(tenant)

    data = get(owner, "pipeline_overview/", tenant.site).json()["data"]

    assert data == selectors.pipeline_overview(tenant.site)
    assert [stage["pending"] for stage in data["stages"]] == [3, 0, 0, 1, 0, 0, 0]
    assert data["total_pending"] == 4


def test_the_estimate_says_whether_the_balance_covers_a_run(tenant, owner):
    make_task(tenant, word_count=1000)
    fund(tenant.account, 5)

    data = get(owner, "estimate/", tenant.site).json()["data"]

    assert data == selectors.estimate(tenant.site)
    assert (data["current_balance"], data["sufficient"]) == (5, False)
    assert data["estimated_credits"] == sum(stage["credits"] for stage in data["stages"]) >= 10
    assert [stage["number"] for stage in data["stages"]] == [1, 2, 3, 4, 5, 6, 7]


def test_current_processing_shows_the_item_in_hand(tenant, owner):
    item = {"item_type": "task", "item_id": 9, "label": "Trail shoes", "job_id": None, "done": 2, "total": 5}
    run = make_run(tenant, status=RunStatus.RUNNING, current_stage=4, current_item=item, items_processed=11)

    data = get(owner, "current_processing/", tenant.site).json()["data"]

    assert data == {
        "run_id": run.pk,
        "status": "running",
        "current_stage": 4,
        "stage_name": "Tasks → content",
        "item": {"item_type": "task", "item_id": 9, "label": "Trail shoes", "job_id": None},
        "done": 2,
        "total": 5,
        "items_processed": 11,
        "credits_used": 0,
    }


def test_current_processing_without_an_active_run_is_empty(tenant, owner):
    make_run(tenant, status=RunStatus.COMPLETED)

    data = get(owner, "current_processing/", tenant.site).json()["data"]

    assert (data["run_id"], data["item"], data["done"], data["total"]) == (None, None, 0, 0)


# Roles and tenancy, on every endpoint.

READS = ["config/", "current_run/", "pipeline_overview/", "current_processing/", "history/", "logs/", "estimate/"]
CONTROLS = ["run_now/", "pause/", "resume/", "cancel/"]


@pytest.mark.parametrize("path", READS)
@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_member_who_sees_the_site_reads(granted, as_user, role, path):
    make_run(granted, status=RunStatus.RUNNING)

    assert get(as_user(granted.user(role)), path, granted.site).status_code == 200


@pytest.mark.parametrize("path", CONTROLS)
def test_viewers_do_not_control_runs(granted, as_user, path):
    run = make_run(granted, status=RunStatus.RUNNING)

    assert_error(post(as_user(granted.viewer), path, granted.site), 403, "permission_denied")
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING


def test_granted_editors_control_runs(granted, as_user):
    client = as_user(granted.editor)

    assert post(client, "run_now/", granted.site).status_code == 202
    assert post(client, "cancel/", granted.site).json()["data"]["status"] == "cancelled"


@pytest.mark.parametrize("path", READS)
def test_a_site_not_granted_to_an_editor_is_forbidden(tenant, as_user, path):
    assert_error(get(as_user(tenant.editor), path, tenant.site), 403, "permission_denied")


@pytest.mark.parametrize("path", READS)
def test_another_accounts_site_is_not_found_on_every_read(tenant, other_tenant, owner, path):
    make_log(make_run(other_tenant, status=RunStatus.RUNNING, error_message="theirs"), message="theirs")

    response = get(owner, path, other_tenant.site)

    assert_error(response, 404, "not_found")
    assert b"theirs" not in response.content


@pytest.mark.parametrize("path", [*CONTROLS, "update_config/"])
def test_another_accounts_site_is_not_found_on_every_write(tenant, other_tenant, owner, path):
    theirs = make_run(other_tenant, status=RunStatus.PAUSED)
    url = f"{API}{path}?site_id={other_tenant.site.pk}"

    response = owner.put(url, {}, format="json") if path == "update_config/" else owner.post(url, {}, format="json")

    assert_error(response, 404, "not_found")
    theirs.refresh_from_db()
    assert theirs.status == RunStatus.PAUSED
    assert AutomationRun.objects.for_account(other_tenant.account).count() == 1


def test_another_accounts_run_is_not_found(tenant, other_tenant, owner):
    theirs = make_run(other_tenant)

    assert_error(owner.get(f"{API}runs/{theirs.pk}/", {"site_id": tenant.site.pk}), 404, "not_found")
    assert_error(owner.get(f"{API}runs/", {"site_id": other_tenant.site.pk}), 404, "not_found")


def test_an_account_that_switched_automation_off_is_refused(tenant, owner):
    assert owner.put("/api/v1/system/modules/", {"modules": {"automation": False}}, format="json").status_code == 200

    assert_error(get(owner, "config/", tenant.site), 403, "module_disabled")
    assert_error(post(owner, "run_now/", tenant.site), 403, "module_disabled")
    assert_error(owner.get(f"{API}runs/", {"site_id": tenant.site.pk}), 403, "module_disabled")


# Queries: the lists cost the same whatever their length.


@pytest.fixture
def local_memory_cache(settings):
    """Rate-limit counters in local memory, so that a query count is the endpoint's own (the
    embedded profile keeps them in a database table)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"automation-{uuid.uuid4().hex}"}}


def _queries(client, url: str, query: dict) -> int:
    client.get(url, query)  # warms per-process state
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, query)
    assert response.status_code == 200, response.content
    return len(captured)


@pytest.mark.parametrize(("path", "budget"), [("history/", 5), ("logs/", 5), ("current_run/", 5), ("runs/", 5)])
def test_lists_stay_within_their_query_budget_whatever_their_length(tenant, owner, local_memory_cache, path, budget):
    query = {"site_id": tenant.site.pk, "page_size": 100}

    def add_runs(count: int):
        for _ in range(count):
            run = make_run(tenant)
            make_stage(run, 1)
            make_log(run)

    add_runs(1)
    one = _queries(owner, f"{API}{path}", query)
    add_runs(20)
    many = _queries(owner, f"{API}{path}", query)

    assert many == one <= budget


def test_a_runs_detail_stays_within_its_query_budget(tenant, owner, local_memory_cache):
    run = make_run(tenant)
    for number in range(1, 8):
        make_stage(run, number)
        make_log(run, stage=number)

    # One more than before issue 14: the required site_id is resolved (the caller's site, one it may touch).
    assert _queries(owner, f"{API}runs/{run.pk}/", {"site_id": tenant.site.pk}) <= 6
