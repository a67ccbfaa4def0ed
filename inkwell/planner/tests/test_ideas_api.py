"""/planner/ideas/ CRUD and create_tasks, and /planner/clusters/generate_ideas/ as a job."""

from unittest.mock import ANY

import pytest

from inkwell.ai.errors import InvalidProviderOutput
from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditReservation, CreditUsage
from inkwell.billing.services import cost_of
from inkwell.jobs.models import Job
from inkwell.notifications.models import Notification
from inkwell.planner.models import ContentIdea, Keyword
from inkwell.planner.tests.conftest import PLANNER, balance_of, set_balance
from inkwell.planner.tests.factories import make_cluster, make_idea, make_keyword, make_sector
from inkwell.system import services as system_services
from inkwell.tenancy.models import Sector, Site
from inkwell.writer.models import Task

pytestmark = pytest.mark.django_db

IDEAS = f"{PLANNER}/ideas/"
CREATE_TASKS = f"{IDEAS}create_tasks/"
GENERATE = f"{PLANNER}/clusters/generate_ideas/"


def detail(idea) -> str:
    return f"{IDEAS}{idea.pk}/"


def notifications(account, notification_type: str) -> list[Notification]:
    return list(Notification.objects.for_account(account).filter(notification_type=notification_type))


@pytest.fixture
def clusters(planner):
    """Two clusters of the planner's site, each with some of its keywords."""
    shoes = make_cluster(planner.tenant, sector=planner.sector, name="Running shoes")
    marathon = make_cluster(planner.tenant, sector=planner.sector, name="Marathon training")
    for seed in planner.seeds[:5]:
        make_keyword(planner.tenant, sector=planner.sector, seed=seed, cluster=shoes)
    for seed in planner.seeds[5:10]:
        make_keyword(planner.tenant, sector=planner.sector, seed=seed, cluster=marathon)
    return [shoes, marathon]


# CRUD ---------------------------------------------------------------------------------------


def test_create_read_update_and_delete_an_idea(planner, owner, clusters):
    body = {
        "title": "How to pick running shoes",
        "site_id": planner.site.pk,
        "sector_id": planner.sector.pk,
        "cluster_id": clusters[0].pk,
        "description": "A buyer's guide",
        "content_type": "post",
        "content_structure": "how_to",
        "target_keywords": ["running shoes", "best running shoes"],
        "outline": ["Fit", "Cushioning"],
    }
    response = owner.post(IDEAS, body, format="json")
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data == {
        "id": ANY,
        "site_id": planner.site.pk,
        "sector_id": planner.sector.pk,
        "cluster_id": clusters[0].pk,
        "title": "How to pick running shoes",
        "description": "A buyer's guide",
        "content_type": "post",
        "content_structure": "how_to",
        "target_keywords": ["running shoes", "best running shoes"],
        "outline": ["Fit", "Cushioning"],
        "status": "new",
        "overlaps": [],
        "overlap_flagged": False,
        "created_at": ANY,
        "updated_at": ANY,
    }
    idea = ContentIdea.objects.for_account(planner.account).get(pk=data["id"])
    assert owner.get(detail(idea)).json()["data"]["title"] == "How to pick running shoes"

    put = owner.put(detail(idea), {"title": "Choosing running shoes", "status": "archived", "cluster_id": None, "outline": ["Fit"]}, format="json")
    assert put.status_code == 200, put.content
    assert {key: put.json()["data"][key] for key in ("title", "status", "cluster_id", "outline", "description")} == {
        "title": "Choosing running shoes", "status": "archived", "cluster_id": None, "outline": ["Fit"], "description": "A buyer's guide"
    }
    assert owner.patch(detail(idea), {"content_structure": "listicle"}, format="json").json()["data"]["content_structure"] == "listicle"

    assert owner.delete(detail(idea)).status_code == 204
    assert not ContentIdea.objects.for_account(planner.account).exists()


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"title": ["This field is required"], "site_id": ["This field is required"]}),
        ({"title": "X", "site_id": "{other_site}"}, {"site_id": ["Site must belong to your account"]}),
        ({"title": "X", "site_id": "{site}", "sector_id": "{other_sector}"}, {"sector_id": ["Sector must belong to the selected site"]}),
        ({"title": "X", "site_id": "{site}", "cluster_id": "{other_cluster}"}, {"cluster_id": ["Cluster must belong to your account"]}),
        ({"title": "X", "site_id": "{site}", "cluster_id": "{second_site_cluster}"}, {"cluster_id": ["Cluster must belong to the same site"]}),
        ({"title": "X", "site_id": "{site}", "status": "done"}, {"status": ["Invalid status value"]}),
        ({"title": "X", "site_id": "{site}", "content_structure": "poem"}, {"content_structure": ["Invalid content structure"]}),
    ],
)
def test_create_refuses_bad_input(planner, owner, other_tenant, body, errors):
    second_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    ids = {
        "site": planner.site.pk,
        "other_site": other_tenant.site.pk,
        "other_sector": make_sector(other_tenant).pk,
        "other_cluster": make_cluster(other_tenant).pk,
        "second_site_cluster": make_cluster(planner.tenant, site=second_site).pk,
    }
    payload = {key: ids[value[1:-1]] if isinstance(value, str) and value.startswith("{") else value for key, value in body.items()}
    assert_error(owner.post(IDEAS, payload, format="json"), 400, "validation_error", errors=errors)
    assert not ContentIdea.objects.for_account(planner.account).exists()


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (lambda c: {"status": "archived"}, ["Archived"]),
        (lambda c: {"cluster_id": c.pk}, ["Shoe guide"]),
        (lambda c: {"search": "GUIDE"}, ["Shoe guide"]),
        (lambda c: {"ordering": "-title"}, ["Shoe guide", "Marathon plan", "Archived"]),
        (lambda c: {"ordering": "created_at"}, ["Shoe guide", "Marathon plan", "Archived"]),
        (lambda c: {}, ["Archived", "Marathon plan", "Shoe guide"]),
    ],
)
def test_list_filters_and_ordering(planner, owner, clusters, params, expected):
    make_idea(planner.tenant, title="Shoe guide", cluster=clusters[0], sector=planner.sector)
    make_idea(planner.tenant, title="Marathon plan", cluster=clusters[1])
    make_idea(planner.tenant, title="Archived", status="archived")
    assert [row["title"] for row in owner.get(IDEAS, params(clusters[0])).json()["results"]] == expected


def test_the_idea_list_filters_by_site_and_sector(planner, owner):
    second_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    here = make_idea(planner.tenant, sector=planner.sector)
    there = make_idea(planner.tenant, site=second_site)
    assert [row["id"] for row in owner.get(IDEAS, {"site_id": second_site.pk}).json()["results"]] == [there.pk]
    assert [row["id"] for row in owner.get(IDEAS, {"sector_id": planner.sector.pk}).json()["results"]] == [here.pk]
    assert_error(owner.get(IDEAS, {"status": "gone"}), 400, "validation_error", errors={"status": ["Invalid status value"]})


def test_another_accounts_idea_is_not_found(owner, other_tenant):
    theirs = make_idea(other_tenant)
    for method in ("get", "put", "patch", "delete"):
        assert_error(getattr(owner, method)(detail(theirs), {"title": "Mine"}, format="json"), 404, "not_found")


# generate_ideas -----------------------------------------------------------------------------


def test_generate_ideas_writes_ideas_per_cluster_and_charges_the_cost_table(planner, owner, clusters, eager_jobs):
    before = balance_of(planner.account)

    with eager_jobs():
        response = owner.post(GENERATE, {"cluster_ids": [c.pk for c in clusters], "ideas_per_cluster": 2}, format="json")

    assert response.status_code == 202, response.content
    job = Job.objects.for_account(planner.account).get(pk=response.json()["data"]["job_id"])
    assert (job.kind, job.status, job.site_id) == ("planner.generate_ideas", "succeeded", planner.site.pk)
    ideas = list(ContentIdea.objects.for_account(planner.account).order_by("id"))
    assert len(ideas) == 4
    for cluster in clusters:
        mine = [idea for idea in ideas if idea.cluster_id == cluster.pk]
        assert len(mine) == 2
        assert all(idea.title and idea.site_id == planner.site.pk and idea.sector_id == planner.sector.pk and idea.status == "new" for idea in mine)
        assert all(idea.target_keywords and idea.outline for idea in mine)
    cost = cost_of(operation_type="idea_generation", units=2)
    assert balance_of(planner.account) == before - cost
    usage = CreditUsage.objects.for_account(planner.account).get(operation_type="idea_generation")
    assert (usage.credits_used, usage.job_id, usage.model) == (cost, job.pk, "local") and usage.completion_tokens > 0
    assert job.result == {"ideas_created": 4, "idea_ids": [idea.pk for idea in ideas], "cluster_ids": [c.pk for c in clusters], "credits_used": cost}
    [notification] = notifications(planner.account, "ai_ideas_complete")
    assert notification.metadata == {"count": 4, "credits": cost, "job_id": job.pk}


def test_generate_ideas_defaults_to_three_per_cluster(planner, owner, clusters, eager_jobs):
    with eager_jobs():
        owner.post(GENERATE, {"cluster_ids": [clusters[0].pk]}, format="json")
    assert ContentIdea.objects.for_account(planner.account).filter(cluster=clusters[0]).count() == 3


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"cluster_ids": ["This field is required"]}),
        ({"cluster_ids": []}, {"cluster_ids": ["Send at least one id"]}),
        ({"cluster_ids": ["{shoes}"], "ideas_per_cluster": 0}, {"ideas_per_cluster": [ANY]}),
        ({"cluster_ids": ["{shoes}"], "ideas_per_cluster": 11}, {"ideas_per_cluster": [ANY]}),
        ({"cluster_ids": ["{shoes}", "{theirs}"]}, {"cluster_ids": ["Clusters not found: {theirs}"]}),
        ({"cluster_ids": ["{shoes}", "{elsewhere}"]}, {"cluster_ids": ["All clusters must belong to the same site"]}),
    ],
)
def test_generate_ideas_refuses_bad_input_and_starts_nothing(planner, owner, clusters, other_tenant, body, errors):
    second_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    ids = {"shoes": clusters[0].pk, "theirs": make_cluster(other_tenant).pk, "elsewhere": make_cluster(planner.tenant, site=second_site).pk}

    def fill(value):
        if isinstance(value, list):
            return [fill(item) for item in value]
        if isinstance(value, dict):
            return {key: fill(item) for key, item in value.items()}
        if isinstance(value, str) and "{" in value:
            return int(value.format(**ids)) if value.startswith("{") else value.format(**ids)
        return value

    assert_error(owner.post(GENERATE, fill(body), format="json"), 400, "validation_error", errors=fill(errors))
    assert not Job.objects.for_account(planner.account).exists()


def test_generate_ideas_without_the_credits_is_a_402_and_changes_nothing(planner, owner, clusters, eager_jobs):
    set_balance(planner.account, cost_of(operation_type="idea_generation", units=2) - 1)

    with eager_jobs():
        response = owner.post(GENERATE, {"cluster_ids": [c.pk for c in clusters]}, format="json")

    assert_error(response, 402, "insufficient_credits", errors={"credits": ["Insufficient credits"]}, error="Insufficient credits")
    assert balance_of(planner.account) == cost_of(operation_type="idea_generation", units=2) - 1
    assert not Job.objects.for_account(planner.account).exists()
    assert not ContentIdea.objects.for_account(planner.account).exists()
    assert not notifications(planner.account, "ai_ideas_complete") and not notifications(planner.account, "ai_ideas_failed")


def test_a_failed_idea_generation_costs_nothing_and_notifies(planner, owner, clusters, eager_jobs, monkeypatch):
    def broken(self, cluster_name, keywords, *, count, prompt):
        raise InvalidProviderOutput()

    monkeypatch.setattr("inkwell.ai.providers.local.LocalTextProvider.generate_ideas", broken)
    before = balance_of(planner.account)

    with eager_jobs():
        job_id = owner.post(GENERATE, {"cluster_ids": [c.pk for c in clusters]}, format="json").json()["data"]["job_id"]

    assert Job.objects.for_account(planner.account).get(pk=job_id).status == "failed"
    assert balance_of(planner.account) == before
    assert CreditReservation.objects.for_account(planner.account).get().status == "released"
    assert not ContentIdea.objects.for_account(planner.account).exists()
    [failed] = notifications(planner.account, "ai_ideas_failed")
    assert failed.metadata == {"count": 2, "credits": 0, "job_id": job_id}


def test_generate_ideas_against_an_openai_compatible_server(planner, owner, clusters, eager_jobs, openai_server, settings):
    from inkwell.ai.tests.openai_server import TEST_API_KEY

    settings.INKWELL_AI = {**settings.INKWELL_AI, "PROVIDER": "openai", "BASE_URL": openai_server.base_url, "API_KEY": TEST_API_KEY}

    with eager_jobs():
        job_id = owner.post(GENERATE, {"cluster_ids": [c.pk for c in clusters], "ideas_per_cluster": 2}, format="json").json()["data"]["job_id"]

    job = Job.objects.for_account(planner.account).get(pk=job_id)
    assert job.status == "succeeded", job.error
    assert ContentIdea.objects.for_account(planner.account).count() == job.result["ideas_created"] == 4
    assert len(openai_server.requests_to("chat")) == 2
    assert CreditUsage.objects.for_account(planner.account).get(operation_type="idea_generation").prompt_tokens > 0


# create_tasks -------------------------------------------------------------------------------


def test_create_tasks_makes_one_writer_task_per_idea_with_the_accounts_content_settings(planner, owner, clusters):
    system_services.content_settings_save(account=planner.account, key="content_generation", values={"default_article_length": 2200, "default_tone": "friendly"}, user=planner.tenant.owner)
    idea = make_idea(planner.tenant, sector=planner.sector, cluster=clusters[0], description="Guide", content_structure="listicle")

    response = owner.post(CREATE_TASKS, {"idea_ids": [idea.pk]}, format="json")

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data == {"created": 1, "task_ids": [ANY], "skipped": []}
    task = Task.objects.for_account(planner.account).get(pk=data["task_ids"][0])
    assert {
        "site": task.site_id, "sector": task.sector_id, "idea": task.idea_id, "cluster": task.cluster_id, "title": task.title,
        "description": task.description, "keywords": task.keywords, "outline": task.outline, "content_type": task.content_type,
        "content_structure": task.content_structure, "word_count": task.word_count, "tone": task.tone,
    } == {
        "site": planner.site.pk, "sector": planner.sector.pk, "idea": idea.pk, "cluster": clusters[0].pk, "title": idea.title,
        "description": "Guide", "keywords": idea.target_keywords, "outline": idea.outline, "content_type": "post",
        "content_structure": "listicle", "word_count": 2200, "tone": "friendly",
    }
    idea.refresh_from_db()
    assert idea.status == "converted"


def test_an_idea_converted_already_is_reported_with_its_task_not_duplicated(planner, owner, other_tenant):
    first, second = make_idea(planner.tenant, sector=planner.sector), make_idea(planner.tenant, sector=planner.sector)
    theirs = make_idea(other_tenant)
    task_id = owner.post(CREATE_TASKS, {"idea_ids": [first.pk]}, format="json").json()["data"]["task_ids"][0]

    response = owner.post(CREATE_TASKS, {"idea_ids": [first.pk, second.pk, theirs.pk, second.pk]}, format="json")

    data = response.json()["data"]
    assert data == {
        "created": 1,
        "task_ids": [ANY],
        "skipped": [
            {"idea_id": first.pk, "reason": "already_converted", "task_id": task_id},
            {"idea_id": theirs.pk, "reason": "not_found", "task_id": None},
        ],
    }
    assert Task.objects.for_account(planner.account).filter(idea=first).count() == 1
    assert Task.objects.for_account(planner.account).filter(idea=second).get().pk == data["task_ids"][0]
    assert not Task.objects.for_account(other_tenant.account).exists()
    theirs.refresh_from_db()
    assert theirs.status == "new"


def test_an_idea_without_a_sector_takes_its_sites_first_sector_or_is_skipped(planner, owner):
    later = make_sector(planner.tenant)
    idea = make_idea(planner.tenant)
    sectorless_site = Site.objects.create(account=planner.account, name="Bare", domain="bare.example.com", slug=f"bare-{planner.site.slug}")
    stranded = make_idea(planner.tenant, site=sectorless_site)

    data = owner.post(CREATE_TASKS, {"idea_ids": [idea.pk, stranded.pk]}, format="json").json()["data"]

    assert data["skipped"] == [{"idea_id": stranded.pk, "reason": "no_sector", "task_id": None}]
    task = Task.objects.for_account(planner.account).get(pk=data["task_ids"][0])
    assert task.sector_id == Sector.objects.for_account(planner.account).filter(site=planner.site).order_by("id").first().pk != later.pk
    stranded.refresh_from_db()
    assert stranded.status == "new"


def test_create_tasks_refuses_bad_input(planner, owner):
    assert_error(owner.post(CREATE_TASKS, {}, format="json"), 400, "validation_error", errors={"idea_ids": ["This field is required"]})
    assert_error(owner.post(CREATE_TASKS, {"idea_ids": []}, format="json"), 400, "validation_error", errors={"idea_ids": ["Send at least one id"]})


def test_the_whole_planner_flow_with_the_local_provider(planner, owner, eager_jobs):
    """Library keywords → workflow → clusters → ideas → writer tasks, through the HTTP API."""
    add = owner.post(f"{PLANNER}/keywords/add_to_workflow/", planner.payload(seed_keyword_ids=[seed.pk for seed in planner.seeds]), format="json")
    assert add.json()["data"]["added"] == len(planner.seeds)
    with eager_jobs():
        assert owner.post(f"{PLANNER}/clusters/auto_cluster/", {"site_id": planner.site.pk}, format="json").status_code == 202
    cluster_ids = [row["id"] for row in owner.get(f"{PLANNER}/clusters/", {"site_id": planner.site.pk}).json()["results"]]
    # Every keyword ends in a cluster, one that fits none in its own (contract section 12).
    unclustered = Keyword.objects.for_account(planner.account).filter(cluster__isnull=True).count()
    assert cluster_ids and unclustered == 0
    with eager_jobs():
        assert owner.post(GENERATE, {"cluster_ids": cluster_ids, "ideas_per_cluster": 1}, format="json").status_code == 202
    idea_ids = [row["id"] for row in owner.get(IDEAS, {"page_size": 100}).json()["results"]]
    assert len(idea_ids) == len(cluster_ids)

    tasks = owner.post(CREATE_TASKS, {"idea_ids": idea_ids}, format="json").json()["data"]

    assert tasks["created"] == len(idea_ids) and not tasks["skipped"]
    assert set(Task.objects.for_account(planner.account).values_list("idea_id", flat=True)) == set(idea_ids)
    assert set(ContentIdea.objects.for_account(planner.account).values_list("status", flat=True)) == {"converted"}
