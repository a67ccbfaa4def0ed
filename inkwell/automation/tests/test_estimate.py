"""The credit estimate and the pipeline overview: the stage definitions the engine runs, over live
data. The estimate equals what a run then spends on the same data wherever the settings decide
the counts, that is everywhere but the number of clusters clustering makes."""

import pytest

from inkwell.automation import selectors, services
from inkwell.automation.models import AutomationStageRun
from inkwell.automation.tests.pipeline_data import add_keywords, automation_settings, credits_charged_since, fund, last_usage_id, quick_settings, run_of, uncut_shares
from inkwell.billing import services as billing
from inkwell.billing.tests.ledger import balance_of
from inkwell.billing.services import cost_of
from inkwell.jobs.models import Job
from inkwell.planner.models import Keyword
from inkwell.planner.tests.factories import make_cluster, make_idea, make_keyword
from inkwell.sitesettings.selectors import STAGE_LIMIT_FIELDS
from inkwell.sitesettings.services import unified_settings_update
from inkwell.writer.models import Content, ImageStatus
from inkwell.writer.tests.factories import make_task, site_sector
from inkwell.writer.tests.image_factories import make_content, make_image

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def owner_client(tenant, as_user):
    return as_user(tenant.owner)


@pytest.fixture
def tenant_with_settings(big_tenant):
    quick_settings(big_tenant, images_per_article=2)
    fund(big_tenant.account, 10_000)
    return big_tenant


def backlog(tenant) -> None:
    """Pending items at every stage but the first, made by hand: clusters of keywords without
    ideas, new ideas, queued tasks of several lengths, drafts without images, prompted pending
    images, and drafts whose images are done. The drafts are made by hand, so the site opts into them
    (``include_manual_drafts``; else stages 5 to 7 take only the articles the pipeline wrote)."""
    from inkwell.sitesettings.services import automation_config_update

    automation_config_update(site=tenant.site, config={"include_manual_drafts": True})
    sector = site_sector(tenant)
    for name in ("Trail running shoes", "Marathon training", "Knee pain after running"):
        cluster = make_cluster(tenant, name=name, sector=sector)
        for word in ("best", "cheap", "guide"):
            make_keyword(tenant, sector=sector, cluster=cluster, keyword=f"{word} {name.lower()}")
    for title in ("How to pick trail shoes", "Marathon training for beginners"):
        make_idea(tenant, title=title, sector=sector)
    for words in (300, 1250, 2000):
        make_task(tenant, sector=sector, title=f"An article of {words} words", word_count=words)
    for title in ("Balcony tomatoes", "Raised beds"):
        make_content(tenant, title=title)
    for title in ("Compost basics", "Watering schedule"):
        prompted = make_content(tenant, title=title)
        make_image(tenant, content=prompted, status=ImageStatus.PENDING, position=0)
        make_image(tenant, content=prompted, status=ImageStatus.PENDING, position=1)
    done = make_content(tenant, title="Pruning tomatoes")
    make_image(tenant, content=done, status=ImageStatus.GENERATED)


def run_to_end(tenant, eager_jobs):
    with eager_jobs():
        run = services.start_run(site=tenant.site, user=tenant.owner)
    return run_of(tenant.account, run.pk)


def stage_credits(run) -> dict[int, int]:
    return dict(AutomationStageRun.objects.for_account(run.account_id).filter(run=run).values_list("stage", "credits_used"))


def stage_rows(run) -> dict[int, tuple]:
    rows = AutomationStageRun.objects.for_account(run.account_id).filter(run=run)
    return {row.stage: (row.processed, row.credits_used, row.status == "budget_reached") for row in rows}


# Stage settings (stage_configs names) the estimate is checked against, on the same backlog.
CONFIGURATIONS = {
    # The defaults: stage 4 writes three articles a run; the shares of 15, 10 and 75 percent.
    "defaults": {4: {"max_per_run": 3}},
    # No split, no limit: every pending item of every stage.
    "uncut": uncut_shares(),
    # A tight budget: clustering and ideas get nothing, stage 4 a fifth of the run's budget; the
    # split stops stages 2 and 4 part way and the later stages process what stage 4 made.
    "tight budget": {1: {"budget_pct": 0}, 2: {"budget_pct": 0}, 3: {"budget_pct": 0}, 4: {"budget_pct": 20}, 5: {"budget_pct": 5}, 6: {"budget_pct": 10}, 7: {"budget_pct": 0}},
    # Per-run limits on three stages, with no split.
    "per-run limits": {**uncut_shares(), 2: {"max_per_run": 1, "budget_pct": 0}, 4: {"max_per_run": 2, "budget_pct": 0}, 6: {"max_per_run": 3, "budget_pct": 0}},
}


@pytest.mark.parametrize("configuration", list(CONFIGURATIONS))
def test_the_estimate_equals_what_a_run_does_per_stage_in_items_and_credits(tenant_with_settings, eager_jobs, configuration):
    tenant = tenant_with_settings
    backlog(tenant)
    automation_settings(tenant.site, stages=CONFIGURATIONS[configuration])
    quote = selectors.estimate(tenant.site)
    assert all(row["exact"] for row in quote["stages"])
    before = last_usage_id(tenant.account)

    run = run_to_end(tenant, eager_jobs)

    assert run.status == "completed"
    assert credits_charged_since(tenant.account, before) == run.credits_used == quote["estimated_credits"]
    assert run.budget == quote["budget"]
    assert stage_rows(run) == {row["number"]: (row["projected_items"], row["credits"], row["budget_reached"]) for row in quote["stages"]}
    if configuration == "tight budget":
        assert [row["number"] for row in quote["stages"] if row["budget_reached"]] == [2, 4]
        assert quote["estimated_credits"] < quote["budget"]


def test_a_new_free_account_completes_a_run_with_the_default_configuration_on_its_signup_credits(tenant, owner_client, eager_jobs):
    """The default settings as they are (three articles a run, four images each, 1,500 words), the
    free plan's sign-up credits, 20 keywords: the run completes, and costs what it estimated."""
    plan = tenant.account.subscription.plan
    assert plan.slug == "free" and balance_of(tenant.account) == plan.signup_credits
    add_keywords(tenant, 20)
    unified_settings_update(site=tenant.site, changes={"automation_config": {"within_stage_delay": 0, "between_stage_delay": 0}})
    quote = owner_client.get("/api/v1/automation/estimate/", {"site_id": tenant.site.pk}).json()["data"]
    assert quote["sufficient"] and quote["estimated_credits"] <= plan.signup_credits

    with eager_jobs():
        started = owner_client.post(f"/api/v1/automation/run_now/?site_id={tenant.site.pk}")
    assert started.status_code == 202, started.content

    run = run_of(tenant.account, started.json()["data"]["run_id"])
    assert run.status == "completed" and run.items_processed > 0
    contents = Content.objects.for_account(tenant.account)
    assert contents.count() == 3 and set(contents.values_list("status", flat=True)) == {"review"}
    assert 0 <= balance_of(tenant.account) == plan.signup_credits - run.credits_used


def test_after_clustering_the_estimate_of_the_rest_equals_what_the_rest_spends(tenant_with_settings, eager_jobs):
    """Clustering's output is the provider's; once it is known, the whole rest is exact."""
    tenant = tenant_with_settings
    add_keywords(tenant, 30)
    automation_settings(tenant.site, stages={1: {"budget_pct": 100}, **{number: {"enabled": False, "budget_pct": 0} for number in range(2, 8)}})
    first = run_to_end(tenant, eager_jobs)
    assert first.status == "completed" and first.credits_used == cost_of(operation_type="clustering", units=30)

    automation_settings(tenant.site, stages={number: {"enabled": True} for number in range(2, 8)})
    quote = selectors.estimate(tenant.site)
    assert quote["stages"][0]["pending"] == 0 and all(row["exact"] for row in quote["stages"])
    automation_settings(tenant.site, stages=uncut_shares())
    before = last_usage_id(tenant.account)

    second = run_to_end(tenant, eager_jobs)

    assert second.status == "completed"
    assert credits_charged_since(tenant.account, before) == second.credits_used == quote["estimated_credits"] > 0
    assert stage_credits(second) == {row["number"]: row["credits"] for row in quote["stages"]}


def test_the_estimate_per_stage_follows_batches_limits_and_generation_settings(tenant_with_settings):
    tenant = tenant_with_settings
    add_keywords(tenant, 100)
    automation_settings(tenant.site, stages={1: {"batch_size": 30}, 5: {"max_per_run": 4}})

    quote = selectors.estimate(tenant.site)

    assert list(quote) == ["estimated_credits", "current_balance", "sufficient", "budget", "stages"]
    stages = {row["number"]: row for row in quote["stages"]}
    assert [row["name"] for row in quote["stages"]] == [
        "Keywords → clusters",
        "Clusters → ideas",
        "Ideas → tasks",
        "Tasks → content",
        "Content → image prompts",
        "Image prompts → images",
        "Review gate",
    ]
    # 100 keywords in batches of 30, 30, 30 and 10; each batch is assumed to make a cluster per 5.
    assert (stages[1]["pending"], stages[1]["projected_items"], stages[1]["credits"], stages[1]["exact"]) == (100, 100, 2 + 2 + 2 + 1, True)
    clusters = 6 + 6 + 6 + 2
    assert (stages[2]["projected_items"], stages[2]["credits"], stages[2]["exact"]) == (clusters, 2 * clusters, False)
    ideas = 3 * clusters
    assert (stages[3]["projected_items"], stages[3]["credits"]) == (ideas, 0)
    assert (stages[4]["projected_items"], stages[4]["credits"]) == (ideas, ideas * cost_of(operation_type="content_generation", units=300))
    # Stage 5 prompts 4 articles of them; those 4 get 2 images each, and only they reach review.
    assert (stages[5]["projected_items"], stages[5]["credits"]) == (4, 4)
    assert (stages[6]["projected_items"], stages[6]["credits"]) == (8, 8 * cost_of(operation_type="image_generation", units=1))
    assert (stages[7]["projected_items"], stages[7]["credits"]) == (4, 0)
    assert quote["estimated_credits"] == sum(row["credits"] for row in quote["stages"])


def test_a_disabled_stage_processes_nothing_and_passes_nothing_on(tenant_with_settings):
    tenant = tenant_with_settings
    backlog(tenant)
    automation_settings(tenant.site, stages={4: {"enabled": False}})

    stages = {row["number"]: row for row in selectors.estimate(tenant.site)["stages"]}

    assert (stages[4]["enabled"], stages[4]["pending"], stages[4]["projected_items"], stages[4]["credits"]) == (False, 3, 0, 0)
    # Stage 5 has only the drafts that exist already, none that stage 4 would have written.
    assert stages[5]["projected_items"] == stages[5]["pending"] == 2


def test_the_estimate_tells_whether_the_available_credits_cover_it(tenant_with_settings):
    tenant = tenant_with_settings
    add_keywords(tenant, 20)
    estimated = selectors.estimate(tenant.site)["estimated_credits"]
    fund(tenant.account, estimated + 5)
    # Credits held by a running job are not available.
    billing.reserve(account=tenant.account, operation_type="linking", amount=5, job=Job.objects.create(account=tenant.account, kind="test.hold"))

    quote = selectors.estimate(tenant.site)
    assert (quote["estimated_credits"], quote["current_balance"], quote["sufficient"]) == (estimated, estimated, True)
    billing.reserve(account=tenant.account, operation_type="linking", amount=1)
    assert selectors.estimate(tenant.site)["sufficient"] is False


def test_items_an_active_job_holds_are_not_pending(tenant_with_settings):
    """A user's clustering job (or one a dead worker left) has its keywords: no stage counts them."""
    tenant = tenant_with_settings
    add_keywords(tenant, 10)
    held = list(Keyword.objects.for_account(tenant.account).order_by("id").values_list("pk", flat=True)[:4])
    Job.objects.create(account=tenant.account, site=tenant.site, kind="planner.auto_cluster", params={"keyword_ids": held}, status="running")

    overview = selectors.pipeline_overview(tenant.site)

    assert overview["stages"][0] == {"number": 1, "name": "Keywords → clusters", "item_type": "keyword", "pending": 6}
    assert overview["total_pending"] == 6
    assert selectors.estimate(tenant.site)["stages"][0]["pending"] == 6


def test_the_overview_counts_each_stages_pending_items(tenant_with_settings):
    tenant = tenant_with_settings
    backlog(tenant)
    pending = {row["number"]: row["pending"] for row in selectors.pipeline_overview(tenant.site)["stages"]}
    assert pending == {1: 0, 2: 3, 3: 2, 4: 3, 5: 2, 6: 4, 7: 1}


@pytest.mark.parametrize(("number", "field"), list(STAGE_LIMIT_FIELDS.items()))
def test_each_max_per_run_field_limits_the_stage_its_name_says(tenant_with_settings, as_user, number, field):
    tenant = tenant_with_settings
    backlog(tenant)
    add_keywords(tenant, 20)
    automation_settings(tenant.site, stages=uncut_shares())
    client = as_user(tenant.owner)
    unlimited = {row["number"]: row["projected_items"] for row in selectors.estimate(tenant.site)["stages"]}
    assert all(items >= 2 for items in unlimited.values())

    patched = client.patch(f"/api/v1/automation/update_config/?site_id={tenant.site.pk}", {field: 1}, format="json")
    assert patched.status_code == 200, patched.content

    limited = {row["number"]: row["projected_items"] for row in client.get("/api/v1/automation/estimate/", {"site_id": tenant.site.pk}).json()["data"]["stages"]}
    assert limited[number] == 1
    assert all(limited[earlier] == unlimited[earlier] for earlier in range(1, number))
