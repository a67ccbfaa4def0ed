"""The run engine through the real job runner (``eager_jobs``): a full run of a site with 100
keywords on the ``local`` provider, what it leaves in every table, and the stage rules (disabled
stages, per-run limits, budgets, failing items, the review gate with auto-approval and auto-publish)."""

from collections import Counter

import pytest

from inkwell.automation import selectors, services
from inkwell.automation.models import AutomationLog, AutomationStageRun
from inkwell.automation.tests.pipeline_data import (
    add_keywords,
    automation_settings,
    credits_charged_since,
    fund,
    last_usage_id,
    quick_settings,
    run_of,
    uncut_shares,
)
from inkwell.billing.models import CreditUsage
from inkwell.billing.services import cost_of
from inkwell.billing.tests.ledger import assert_ledger_consistent
from inkwell.integration.models import SiteIntegration
from inkwell.jobs.models import Job
from inkwell.notifications.models import Notification
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.writer.models import Content, Image, Task
from inkwell.writer.tests.factories import make_task

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def site_with_keywords(big_tenant):
    add_keywords(big_tenant, 100)
    quick_settings(big_tenant)
    fund(big_tenant.account, 5000)
    return big_tenant


def start(tenant, eager_jobs):
    """Starts a run and lets its job run to its end; the run as it ended."""
    with eager_jobs():
        run = services.start_run(site=tenant.site, user=tenant.owner)
    return run_of(tenant.account, run.pk)


def stage_counts(run) -> dict[int, tuple]:
    rows = AutomationStageRun.objects.for_account(run.account_id).filter(run=run)
    return {row.stage: (row.status, row.processed, row.failed, row.credits_used) for row in rows}


def test_a_full_run_takes_100_keywords_to_content_in_review(site_with_keywords, eager_jobs):
    tenant = site_with_keywords
    account = tenant.account
    automation_settings(tenant.site, stages=uncut_shares())
    quote = selectors.estimate(tenant.site)
    before = last_usage_id(account)

    run = start(tenant, eager_jobs)

    assert (run.status, run.current_stage, run.error_message, run.in_flight) == ("completed", 7, None, {})
    keywords, clusters = Keyword.objects.for_account(account), Cluster.objects.for_account(account)
    ideas, tasks = ContentIdea.objects.for_account(account), Task.objects.for_account(account)
    contents, images = Content.objects.for_account(account), Image.objects.for_account(account)
    # Every stage processed every item it had: nothing is left pending anywhere.
    assert not keywords.filter(cluster__isnull=True).exists()
    assert clusters.count() >= 5 and all(cluster.ideas.count() == 3 for cluster in clusters)
    assert ideas.count() == 3 * clusters.count() == tasks.count()
    assert set(ideas.values_list("status", flat=True)) == {"converted"}
    assert set(tasks.values_list("status", flat=True)) == {"completed"}
    assert contents.count() == tasks.count()
    assert set(contents.values_list("status", flat=True)) == {"review"}
    assert images.count() == contents.count() and set(images.values_list("status", flat=True)) == {"generated"}
    assert all(stage["pending"] == 0 for stage in selectors.pipeline_overview(tenant.site)["stages"])

    # Counts and credits add up: stage rows, the run, the ledger.
    counts = stage_counts(run)
    processed = {1: 100, 2: clusters.count(), 3: ideas.count(), 4: tasks.count(), 5: contents.count(), 6: images.count(), 7: contents.count()}
    assert {stage: row[:3] for stage, row in counts.items()} == {stage: ("completed", count, 0) for stage, count in processed.items()}
    assert run.items_processed == sum(processed.values())
    charged = credits_charged_since(account, before)
    per_cluster = cost_of(operation_type="idea_generation", units=1) + 3 * (cost_of(operation_type="content_generation", units=300) + cost_of(operation_type="image_prompt_extraction", units=1) + cost_of(operation_type="image_generation", units=1))
    assert run.credits_used == sum(row[3] for row in counts.values()) == charged == 2 * cost_of(operation_type="clustering", units=50) + clusters.count() * per_cluster
    # The run started with its estimate as budget; once clustered, with the exact rest of it.
    assert AutomationStageRun.objects.for_account(account).get(run=run, stage=1).budget == quote["estimated_credits"]
    assert run.budget == run.credits_used
    assert_ledger_consistent(account)
    # Every credit was charged by a job of the run's stages, one job per step.
    jobs = Job.objects.for_account(account).exclude(kind="automation.run")
    assert set(jobs.values_list("status", flat=True)) == {"succeeded"}
    assert CreditUsage.objects.for_account(account).filter(pk__gt=before, job__isnull=True).count() == 0
    assert Counter(jobs.values_list("kind", flat=True)) == {
        "planner.auto_cluster": 2,
        "planner.generate_ideas": clusters.count(),
        "writer.generate_content": tasks.count(),
        "writer.generate_images": 2 * contents.count(),
    }

    # A log line for every item and every stage transition.
    logs = AutomationLog.objects.for_account(account).filter(run=run)
    assert logs.filter(event="item_processed").count() == run.items_processed
    assert not logs.filter(level="error").exists()
    assert Counter(logs.filter(event__startswith="stage_").values_list("event", flat=True)) == {"stage_started": 7, "stage_completed": 7}
    assert logs.filter(event="run_started").count() == logs.filter(event="run_completed").count() == 1
    # The AI operations raised theirs, and the run one at its end.
    notified = Counter(Notification.objects.for_account(account).values_list("notification_type", flat=True))
    assert notified["ai_content_complete"] == tasks.count()
    assert notified["automation_run_completed"] == 1
    assert notified["content_ready_review"] == contents.count()
    assert (notified["ai_prompts_complete"], notified["ai_images_complete"]) == (contents.count(), contents.count())
    ended = Notification.objects.for_account(account).filter(metadata__run_id=run.pk).get()
    assert (ended.metadata["count"], ended.metadata["credits"]) == (run.items_processed, run.credits_used)



@pytest.fixture
def small_site(big_tenant):
    """20 keywords, credits to spare, budget shares that never cut a stage."""
    add_keywords(big_tenant, 20)
    quick_settings(big_tenant)
    fund(big_tenant.account, 5000)
    automation_settings(big_tenant.site, stages=uncut_shares())
    return big_tenant


def test_stage_budgets_are_cumulative_shares_of_the_run_budget(small_site, eager_jobs):
    """With the whole budget in stage 1's share, every later stage may spend what the stages
    before it left: the run is cut nowhere. After clustering the budget is what was spent plus
    the exact estimate of the rest."""
    quote = selectors.estimate(small_site.site)
    run = start(small_site, eager_jobs)
    assert run.status == "completed"
    rows = list(AutomationStageRun.objects.for_account(run.account_id).filter(run=run).order_by("stage"))
    assert [row.status for row in rows] == ["completed"] * 7
    assert rows[0].budget == quote["estimated_credits"]
    assert run.budget == run.credits_used == sum(row.credits_used for row in rows)
    spent = rows[0].credits_used
    for row in rows[1:]:
        assert row.budget == run.budget - spent
        spent += row.credits_used
    rebased = AutomationLog.objects.for_account(run.account_id).get(run=run, event="budget_rebased")
    assert rebased.message == f"Clustering is done: the run's budget is now {run.budget} credits (estimated {quote['estimated_credits']})"


def test_a_stage_stops_at_its_budget_and_the_next_stages_go_on(big_tenant, eager_jobs):
    """Five queued tasks of 300 words (3 credits each), one image per article: the run's budget,
    its estimate, is 5 x (3 + 1 + 2) = 30. Stage 4 may spend 20% of it, 6 credits: two articles.
    Stage 5's share brings the total to 100%: the later stages process what stage 4 made."""
    quick_settings(big_tenant)
    fund(big_tenant.account, 5000)
    for index in range(5):
        make_task(big_tenant, title=f"Article {index}", word_count=300)
    shares = {number: {"budget_pct": 0} for number in range(1, 8)}
    shares[4], shares[5] = {"budget_pct": 20}, {"budget_pct": 80}
    automation_settings(big_tenant.site, stages=shares)

    run = start(big_tenant, eager_jobs)

    assert (run.status, run.budget) == ("completed", 30)
    counts = stage_counts(run)
    assert counts[4] == ("budget_reached", 2, 0, 6)
    assert {number: counts[number][:3] for number in (5, 6, 7)} == {5: ("completed", 2, 0), 6: ("completed", 2, 0), 7: ("completed", 2, 0)}
    assert AutomationStageRun.objects.for_account(run.account_id).get(run=run, stage=5).budget == 30 - 6
    line = AutomationLog.objects.for_account(big_tenant.account).get(run=run, event="stage_budget_reached")
    assert (line.stage, line.level, line.message) == (4, "warning", "Stage 4 stopped at its budget: the next batch costs 3 credits, 0 left")
    assert Task.objects.for_account(big_tenant.account).filter(status="queued").count() == 3
    assert run.credits_used == 6 + 2 + 4


def test_a_disabled_stage_is_skipped_and_its_items_wait(small_site, eager_jobs):
    tenant = small_site
    automation_settings(tenant.site, stages={5: {"enabled": False}})

    run = start(tenant, eager_jobs)

    counts = stage_counts(run)
    assert counts[5] == ("skipped", 0, 0, 0)
    # Without prompts no image is made and no article passes the review gate: they wait as drafts.
    assert (counts[6][1], counts[7][1]) == (0, 0)
    contents = Content.objects.for_account(tenant.account)
    assert contents.exists() and set(contents.values_list("status", flat=True)) == {"draft"}
    assert selectors.pipeline_overview(tenant.site)["stages"][4]["pending"] == contents.count()
    assert AutomationLog.objects.for_account(tenant.account).filter(run=run, stage=5, event="stage_skipped").exists()


def test_a_stage_processes_at_most_its_per_run_limit_in_batches_of_its_size(small_site, eager_jobs):
    tenant = small_site
    automation_settings(tenant.site, stages={1: {"batch_size": 4, "max_per_run": 10}})

    run = start(tenant, eager_jobs)

    assert stage_counts(run)[1][:3] == ("completed", 10, 0)
    keywords = Keyword.objects.for_account(tenant.account)
    assert keywords.filter(cluster__isnull=False).count() == 10
    # The ten with the highest volume, in batches of 4, 4 and 2.
    assert set(keywords.filter(cluster__isnull=False).values_list("pk", flat=True)) == set(keywords.order_by("-volume", "id").values_list("pk", flat=True)[:10])
    sizes = [len(params["keyword_ids"]) for params in Job.objects.for_account(tenant.account).filter(kind="planner.auto_cluster").order_by("id").values_list("params", flat=True)]
    assert sizes == [4, 4, 2]


def test_without_images_articles_go_straight_to_the_review_gate(big_tenant, eager_jobs):
    add_keywords(big_tenant, 10)
    quick_settings(big_tenant, images_per_article=0)
    fund(big_tenant.account, 5000)
    automation_settings(big_tenant.site, stages=uncut_shares())

    run = start(big_tenant, eager_jobs)

    counts = stage_counts(run)
    assert (counts[5][1], counts[6][1]) == (0, 0)
    assert not Image.objects.for_account(big_tenant.account).exists()
    contents = Content.objects.for_account(big_tenant.account)
    assert counts[7][1] == contents.count() > 0 and set(contents.values_list("status", flat=True)) == {"review"}


def test_auto_approval_approves_and_auto_publish_schedules_at_most_the_items_per_run(small_site, eager_jobs):
    tenant = small_site
    automation_settings(tenant.site, publishing={"auto_approval_enabled": True, "auto_publish_enabled": True, "total_items_per_run": 2})
    # Scheduling needs an active CMS integration (the editorial gate).
    SiteIntegration.objects.create(account=tenant.account, site=tenant.site, base_url="https://cms.example.com", username="u", app_password="p", webhook_secret="s" * 32)

    run = start(tenant, eager_jobs)

    contents = Content.objects.for_account(tenant.account).order_by("id")
    assert contents.count() > 2
    assert list(contents.values_list("status", "site_status")) == [("approved", "scheduled")] * 2 + [("review", "not_published")] * (contents.count() - 2)
    assert all(content.scheduled_publish_at is not None for content in contents[:2])
    logs = AutomationLog.objects.for_account(tenant.account).filter(run=run, stage=7)
    assert logs.filter(event="item_approved").count() == 2
    assert logs.filter(event="item_processed").count() == contents.count() - 2


def test_auto_approval_without_auto_publish_approves_everything(small_site, eager_jobs):
    tenant = small_site
    automation_settings(tenant.site, publishing={"auto_approval_enabled": True, "total_items_per_run": 2})

    start(tenant, eager_jobs)

    assert set(Content.objects.for_account(tenant.account).values_list("status", "site_status")) == {("approved", "not_published")}


def test_a_failing_item_is_logged_and_the_run_goes_on(small_site, eager_jobs, monkeypatch):
    """The content job of one task fails (the provider refuses it): that task is logged as an
    error and left failed, charged nothing; every other item goes through."""
    from inkwell.ai.errors import AIError
    from inkwell.writer import jobs as writer_jobs

    real_client = writer_jobs.ai_client
    refused = []

    def client(account, **kwargs):
        ai = real_client(account, **kwargs)
        write = ai.write_article

        def write_article(brief):
            if not refused:
                refused.append(brief.title)
                raise AIError("The provider refused this article")
            return write(brief)

        ai.write_article = write_article
        return ai

    monkeypatch.setattr(writer_jobs, "ai_client", client)
    tenant = small_site
    before = last_usage_id(tenant.account)

    run = start(tenant, eager_jobs)

    assert run.status == "completed_with_errors"
    tasks = Task.objects.for_account(tenant.account)
    failed = tasks.get(status="failed")
    assert failed.title == refused[0] and tasks.filter(status="completed").count() == tasks.count() - 1
    counts = stage_counts(run)
    assert counts[4][:3] == ("completed", tasks.count() - 1, 1)
    line = AutomationLog.objects.for_account(tenant.account).get(run=run, event="item_failed")
    assert (line.stage, line.level, line.item_type, line.item_id) == (4, "error", "task", failed.pk)
    assert "The provider refused this article" in line.message and "The provider refused this article" in line.reason
    assert counts[7][1] == tasks.count() - 1
    assert run.credits_used == sum(row[3] for row in counts.values()) == credits_charged_since(tenant.account, before)
    assert Notification.objects.for_account(tenant.account).filter(notification_type="ai_content_failed", metadata__task_id=failed.pk).exists()


def test_items_a_step_left_unprocessed_are_not_tried_again_in_the_same_run(small_site, eager_jobs, monkeypatch):
    """Clustering that fails (the provider refuses it) leaves its keywords pending: the run logs
    them as failed once, with the reason, and moves on instead of trying them forever."""
    from inkwell.ai.errors import AIError
    from inkwell.planner import jobs as planner_jobs

    real_client = planner_jobs.ai_client

    def client(account, **kwargs):
        ai = real_client(account, **kwargs)

        def refuse(keywords, sector=""):
            raise AIError("The provider refused to cluster")

        ai.cluster_keywords = refuse
        return ai

    monkeypatch.setattr(planner_jobs, "ai_client", client)
    tenant = small_site

    run = start(tenant, eager_jobs)

    assert run.status == "completed_with_errors"
    assert stage_counts(run)[1][:4] == ("completed", 0, 20, 0)
    lines = AutomationLog.objects.for_account(tenant.account).filter(run=run, stage=1, event="item_failed")
    assert lines.count() == 20
    assert {line.reason for line in lines} == {"The provider refused to cluster"}
    assert Job.objects.for_account(tenant.account).filter(kind="planner.auto_cluster").count() == 1


def test_a_fresh_site_with_unrelated_keywords_clusters_every_one_and_is_charged_for_what_it_processed(tenant, eager_jobs):
    """Issue 30, case 2: five unrelated keywords were left out without a word, 1 credit charged for
    0 processed, and the run ended a green "completed" with five "not processed" lines."""
    from inkwell.planner.tests.factories import make_keyword

    texts = ["lavender", "mortgage rates today", "python decorators", "marathon training plan", "volcano eruption"]
    for text in texts:
        make_keyword(tenant, keyword=text, volume=100)
    fund(tenant.account, 500)
    automation_settings(tenant.site, stages={**uncut_shares(), **{number: {"enabled": False, "budget_pct": 0} for number in range(2, 8)}})
    before = last_usage_id(tenant.account)

    run = start(tenant, eager_jobs)

    assert run.status == "completed"
    assert stage_counts(run)[1] == ("completed", 5, 0, cost_of(operation_type="clustering", units=5))
    assert set(Cluster.objects.for_account(tenant.account).values_list("name", flat=True)) >= {"Lavender"}
    assert not Keyword.objects.for_account(tenant.account).filter(cluster__isnull=True).exists()
    assert not AutomationLog.objects.for_account(tenant.account).filter(run=run, event="item_failed").exists()
    assert run.credits_used == credits_charged_since(tenant.account, before) == cost_of(operation_type="clustering", units=5)
    notification = Notification.objects.for_account(tenant.account).get(notification_type="automation_run_completed")
    assert (notification.severity, notification.metadata["failed"]) == ("success", 0)


def test_a_run_with_a_failed_item_is_completed_with_errors_raising_automation_run_completed_with_the_failure_count(small_site, eager_jobs, monkeypatch):
    """Contract section 12: completed_with_errors, each failed item's log entry with its reason, and
    automation_run_completed either way with the failures in its metadata."""
    from inkwell.ai.errors import AIError
    from inkwell.planner import jobs as planner_jobs

    real_client = planner_jobs.ai_client

    def client(account, **kwargs):
        ai = real_client(account, **kwargs)
        ai.cluster_keywords = lambda keywords, sector="": (_ for _ in ()).throw(AIError("The provider is down"))
        return ai

    monkeypatch.setattr(planner_jobs, "ai_client", client)
    tenant = small_site

    run = start(tenant, eager_jobs)

    assert run.status == "completed_with_errors"
    notification = Notification.objects.for_account(tenant.account).get(notification_type="automation_run_completed")
    assert (notification.severity, notification.metadata["failed"], notification.metadata["status"]) == ("warning", 20, "completed_with_errors")
    assert "20 failed items" in notification.message
    response_lines = AutomationLog.objects.for_account(tenant.account).filter(run=run, event="item_failed")
    assert all(line.reason == "The provider is down" for line in response_lines)
    assert AutomationLog.objects.for_account(tenant.account).filter(run=run, event="run_completed_with_errors").exists()


def test_when_the_credits_run_out_mid_stage_the_stage_stops_and_the_refused_item_is_left_as_it_was(small_site, eager_jobs):
    """Another spender empties the account after the second article: the third content job is
    refused (402) and leaves nothing behind; stage 4 ends failed, the run goes on and completes."""
    from inkwell.automation.signals import step_finished
    from inkwell.billing import services as billing
    from inkwell.billing.models import CreditLedger

    tenant = small_site
    seen = []

    def drain(sender, run, stage, **kwargs):
        if stage == 4:
            seen.append(stage)
            if len(seen) == 2:
                ledger = CreditLedger.objects.for_account(tenant.account).get()
                billing.spend(account=tenant.account, operation_type="linking", amount=ledger.available, description="another spender")

    step_finished.connect(drain, dispatch_uid="test-drain")
    try:
        run = start(tenant, eager_jobs)
    finally:
        step_finished.disconnect(dispatch_uid="test-drain")

    assert run.status == "completed_with_errors"  # the refused item failed (contract section 12)
    counts = stage_counts(run)
    assert counts[4][:3] == ("failed", 2, 1)
    tasks = Task.objects.for_account(tenant.account)
    assert tasks.filter(status="completed").count() == 2 and tasks.filter(status="generating").count() == 0
    refused = AutomationLog.objects.for_account(tenant.account).get(run=run, stage=4, event="item_failed")
    assert refused.message.endswith("The account's credits cannot cover this item")
    assert Job.objects.for_account(tenant.account).filter(kind="writer.generate_content").count() == 2
    assert AutomationLog.objects.for_account(tenant.account).filter(run=run, event="stage_failed", stage=4).exists()
    assert_ledger_consistent(tenant.account)


@pytest.mark.parametrize("rule", ["four_eyes", "client_approval"])
def test_auto_approval_approves_nothing_where_the_sites_rules_ask_for_a_person(small_site, eager_jobs, rule):
    """#36: with four eyes or the client's approval first, a person approves; the automation
    takes every article to review and stops there."""
    from inkwell.sitesettings.services import unified_settings_update

    tenant = small_site
    automation_settings(tenant.site, publishing={"auto_approval_enabled": True})
    unified_settings_update(site=tenant.site, changes={"review_rules": {rule: True}})

    run = start(tenant, eager_jobs)

    contents = Content.objects.for_account(tenant.account)
    assert contents.count() > 0
    assert set(contents.values_list("status", flat=True)) == {"review"}
    assert not AutomationLog.objects.for_account(tenant.account).filter(run=run, stage=7, event="item_approved").exists()


def test_auto_approval_approves_only_drafts_whose_quality_report_passes(small_site, eager_jobs):
    """Issue 35: with auto-approval on, a draft whose report does not pass the site's thresholds
    waits in review with the findings, and the run's log says why."""
    from inkwell.writer.services import site_editorial_update

    tenant = small_site
    automation_settings(tenant.site, publishing={"auto_approval_enabled": True})
    # No text this offline drafter writes is that easy to read: every draft fails readability.
    site_editorial_update(site=tenant.site, thresholds={"min_reading_ease": 100})

    run = start(tenant, eager_jobs)

    contents = Content.objects.for_account(tenant.account)
    assert contents.count() > 0
    assert set(contents.values_list("status", "quality_passed")) == {("review", False)}
    assert all("readability" in content.quality_summary["failing"] and content.quality_summary["findings"] for content in contents)
    logs = AutomationLog.objects.for_account(tenant.account).filter(run=run, stage=7)
    assert logs.filter(event="item_approved").count() == 0
    logs = logs.filter(event="item_processed")
    assert logs.count() == contents.count()
    assert all("held in review: the quality report does not pass (" in line.message and "readability" in line.message for line in logs), [line.message for line in logs]


def test_auto_approval_where_no_person_is_required_is_recorded_as_the_automations_with_its_passing_report(small_site, eager_jobs):
    from inkwell.writer.models import ContentApproval

    tenant = small_site
    automation_settings(tenant.site, publishing={"auto_approval_enabled": True})

    start(tenant, eager_jobs)

    contents = Content.objects.for_account(tenant.account)
    assert set(contents.values_list("status", "quality_passed", "quality_override_at")) == {("approved", True, None)}
    approvals = ContentApproval.objects.for_account(tenant.account)
    assert approvals.count() == contents.count()
    assert set(approvals.values_list("step", "decision", "reviewer_name", "note")) == {("team", "approved", "Automation", "")}


def _one_article_run(tenant) -> None:
    """A run that writes one article and makes image prompts for one."""
    add_keywords(tenant, 10)
    quick_settings(tenant)
    fund(tenant.account, 5000)
    automation_settings(tenant.site, stages={**uncut_shares(), 4: {"budget_pct": 0, "max_per_run": 1}, 5: {"budget_pct": 0, "max_per_run": 1}})


def test_the_pipeline_takes_only_the_articles_it_wrote_and_gives_images_to_the_one_it_just_wrote(big_tenant, eager_jobs):
    """Issue 30, case 3: a run moved a hand-made draft into review and generated images for it
    instead of for the article it had just written."""
    from inkwell.writer.tests.factories import make_content

    by_hand = make_content(big_tenant, title="My own draft")
    _one_article_run(big_tenant)

    run = start(big_tenant, eager_jobs)

    by_hand.refresh_from_db()
    assert by_hand.status == "draft" and not Image.objects.for_account(big_tenant.account).filter(content=by_hand).exists()
    [written] = Content.objects.for_account(big_tenant.account).exclude(pk=by_hand.pk)
    assert written.status == "review" and Image.objects.for_account(big_tenant.account).filter(content=written, status="generated").exists()
    assert not AutomationLog.objects.for_account(big_tenant.account).filter(run=run, item_type="content", item_id=by_hand.pk).exists()


def test_a_site_that_opts_in_has_its_drafts_made_by_hand_taken_too(big_tenant, eager_jobs, as_user):
    from inkwell.writer.tests.factories import make_content

    by_hand = make_content(big_tenant, title="My own draft")
    _one_article_run(big_tenant)
    automation_settings(big_tenant.site, stages={5: {"max_per_run": 0}})
    client = as_user(big_tenant.owner)
    response = client.patch(f"/api/v1/automation/update_config/?site_id={big_tenant.site.pk}", {"include_manual_drafts": True}, format="json")
    assert response.status_code == 200 and response.json()["data"]["include_manual_drafts"] is True

    start(big_tenant, eager_jobs)

    by_hand.refresh_from_db()
    assert by_hand.status == "review" and Image.objects.for_account(big_tenant.account).filter(content=by_hand).exists()


def test_drafts_made_by_hand_are_left_out_unless_the_site_opts_in_by_default(big_tenant, as_user):
    data = as_user(big_tenant.owner).get("/api/v1/automation/config/", {"site_id": big_tenant.site.pk}).json()["data"]
    assert data["include_manual_drafts"] is False


def test_a_site_that_stops_at_briefs_gets_briefs_ready_and_no_drafts(small_site, eager_jobs):
    """Issue 35: automation makes each task's brief and waits there when the site asks for it."""
    from inkwell.writer.models import Brief
    from inkwell.writer.services import site_editorial_update

    tenant = small_site
    site_editorial_update(site=tenant.site, brief_required=True, stop_at_brief=True)

    run = start(tenant, eager_jobs)

    tasks = Task.objects.for_account(tenant.account)
    assert tasks.count() > 0 and set(tasks.values_list("status", flat=True)) == {"queued"}
    assert not Content.objects.for_account(tenant.account).exists()
    assert set(Brief.objects.for_account(tenant.account).values_list("status", flat=True)) == {"ready"}
    assert Brief.objects.for_account(tenant.account).count() == tasks.count()
    waiting = AutomationLog.objects.for_account(tenant.account).filter(run=run, stage=4, event="item_failed")
    assert waiting.count() == tasks.count() and all("Brief ready" in line.message for line in waiting)


def test_a_site_that_requires_briefs_without_stopping_writes_from_briefs_automation_approved(small_site, eager_jobs):
    from inkwell.writer.models import Brief
    from inkwell.writer.services import site_editorial_update

    tenant = small_site
    site_editorial_update(site=tenant.site, brief_required=True)

    start(tenant, eager_jobs)

    contents = Content.objects.for_account(tenant.account)
    assert contents.count() > 0
    briefs = Brief.objects.for_account(tenant.account)
    assert set(briefs.values_list("status", "approved_by")) == {("approved", None)}
    assert set(contents.values_list("task_id", flat=True)) <= set(briefs.values_list("task_id", flat=True))
