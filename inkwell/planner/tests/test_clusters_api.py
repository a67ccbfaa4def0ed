"""/planner/clusters/: CRUD with keyword counts and total volume from the query, and AI clustering
as a job (credits held, then charged by the cost table; notifications; failures cost nothing)."""

from unittest.mock import ANY

import pytest

from inkwell.ai.errors import ProviderAuthFailed
from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditReservation, CreditUsage
from inkwell.billing.services import cost_of
from inkwell.jobs.models import Job
from inkwell.notifications.models import Notification
from inkwell.planner.models import Cluster, Keyword
from inkwell.planner.tests.conftest import PLANNER, balance_of, set_balance
from inkwell.planner.tests.factories import make_cluster, make_idea, make_keyword, make_sector, site_sector
from inkwell.tenancy.models import Site
from inkwell.writer.models import Task

pytestmark = pytest.mark.django_db

CLUSTERS = f"{PLANNER}/clusters/"
AUTO_CLUSTER = f"{CLUSTERS}auto_cluster/"


def detail(cluster) -> str:
    return f"{CLUSTERS}{cluster.pk}/"


def notifications(account, notification_type: str) -> list[Notification]:
    return list(Notification.objects.for_account(account).filter(notification_type=notification_type))


@pytest.fixture
def keywords(planner) -> list[Keyword]:
    """Every library keyword of the planner's sector, in its workflow."""
    return [make_keyword(planner.tenant, sector=planner.sector, seed=seed) for seed in planner.seeds]


# CRUD ---------------------------------------------------------------------------------------


def test_clusters_show_their_keyword_count_and_total_volume(planner, owner, keywords):
    shoes = make_cluster(planner.tenant, sector=planner.sector, name="Shoes")
    empty = make_cluster(planner.tenant, name="Empty")
    Keyword.objects.for_account(planner.account).filter(pk__in=[keyword.pk for keyword in keywords[:3]]).update(cluster=shoes)

    rows = {row["id"]: row for row in owner.get(CLUSTERS).json()["results"]}

    assert rows[shoes.pk] == {
        "id": shoes.pk,
        "site_id": planner.site.pk,
        "sector_id": planner.sector.pk,
        "name": "Shoes",
        "description": "",
        "status": "active",
        "keyword_count": 3,
        "total_volume": sum(keyword.volume for keyword in keywords[:3]),
        "created_at": ANY,
        "updated_at": ANY,
    }
    assert (rows[empty.pk]["keyword_count"], rows[empty.pk]["total_volume"]) == (0, 0)
    assert owner.get(detail(shoes)).json()["data"]["keyword_count"] == 3


def test_create_update_and_delete_a_cluster(planner, owner, keywords):
    response = owner.post(CLUSTERS, {"name": "Marathons", "site_id": planner.site.pk, "sector_id": planner.sector.pk, "description": "Long runs"}, format="json")
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["name"], data["sector_id"], data["description"], data["status"], data["keyword_count"]) == ("Marathons", planner.sector.pk, "Long runs", "active", 0)
    cluster = Cluster.objects.for_account(planner.account).get(pk=data["id"])
    Keyword.objects.for_account(planner.account).filter(pk=keywords[0].pk).update(cluster=cluster)

    put = owner.put(detail(cluster), {"name": "Marathon training", "status": "archived"}, format="json")
    assert put.status_code == 200, put.content
    assert (put.json()["data"]["name"], put.json()["data"]["status"], put.json()["data"]["keyword_count"]) == ("Marathon training", "archived", 1)
    assert owner.patch(detail(cluster), {"sector_id": None}, format="json").json()["data"]["sector_id"] is None

    assert owner.delete(detail(cluster)).status_code == 204
    assert not Cluster.objects.for_account(planner.account).exists()
    # Its keywords stay, unclustered.
    assert Keyword.objects.for_account(planner.account).get(pk=keywords[0].pk).cluster_id is None


def test_deleting_a_cluster_keeps_its_ideas_and_tasks(planner, owner):
    cluster = make_cluster(planner.tenant)
    idea = make_idea(planner.tenant, cluster=cluster)
    task = Task.objects.create(account=planner.account, site=planner.site, sector=site_sector(planner.tenant), cluster=cluster, title="Shoes")
    assert owner.delete(detail(cluster)).status_code == 204
    idea.refresh_from_db()
    task.refresh_from_db()
    assert (idea.cluster_id, task.cluster_id) == (None, None)


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"name": ["This field is required"], "site_id": ["This field is required"]}),
        ({"name": "", "site_id": "{site}"}, {"name": ["This field is required"]}),
        ({"name": "X", "site_id": "{other_site}"}, {"site_id": ["Site must belong to your account"]}),
        ({"name": "X", "site_id": "{site}", "sector_id": "{other_sector}"}, {"sector_id": ["Sector must belong to the selected site"]}),
        ({"name": "X", "site_id": "{site}", "status": "done"}, {"status": ["Invalid status value"]}),
    ],
)
def test_create_refuses_bad_input(planner, owner, other_tenant, body, errors):
    ids = {"site": planner.site.pk, "other_site": other_tenant.site.pk, "other_sector": make_sector(other_tenant).pk}
    payload = {key: ids[value[1:-1]] if isinstance(value, str) and value.startswith("{") else value for key, value in body.items()}
    assert_error(owner.post(CLUSTERS, payload, format="json"), 400, "validation_error", errors=errors)
    assert not Cluster.objects.for_account(planner.account).exists()


def test_update_refuses_a_sector_of_another_site_and_a_bad_status(planner, owner):
    cluster = make_cluster(planner.tenant)
    second_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    assert_error(owner.put(detail(cluster), {"sector_id": make_sector(planner.tenant, second_site).pk}, format="json"), 400, "validation_error", errors={"sector_id": ["Sector must belong to the selected site"]})
    assert_error(owner.put(detail(cluster), {"status": "gone"}, format="json"), 400, "validation_error", errors={"status": ["Invalid status value"]})


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (lambda p, s: {"status": "archived"}, ["Archived socks"]),
        (lambda p, s: {"sector_id": p.sector.pk}, ["Archived socks", "Trail shoes"]),
        (lambda p, s: {"site_id": s.pk}, ["Elsewhere"]),
        (lambda p, s: {"search": "SHOES"}, ["Trail shoes"]),
        (lambda p, s: {"ordering": "name"}, ["Archived socks", "Elsewhere", "Trail shoes"]),
        (lambda p, s: {"ordering": "-keyword_count"}, ["Trail shoes", "Archived socks", "Elsewhere"]),
        (lambda p, s: {"ordering": "total_volume"}, ["Elsewhere", "Archived socks", "Trail shoes"]),
    ],
)
def test_list_filters_and_ordering(planner, owner, keywords, params, expected):
    second_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    trail = make_cluster(planner.tenant, sector=planner.sector, name="Trail shoes")
    socks = make_cluster(planner.tenant, sector=planner.sector, name="Archived socks", status="archived")
    make_cluster(planner.tenant, site=second_site, name="Elsewhere")
    Keyword.objects.for_account(planner.account).filter(pk__in=[k.pk for k in keywords[:2]]).update(cluster=trail)
    Keyword.objects.for_account(planner.account).filter(pk=keywords[2].pk).update(cluster=socks, volume=1)
    Keyword.objects.for_account(planner.account).filter(pk__in=[k.pk for k in keywords[:2]]).update(volume=10)
    names = [row["name"] for row in owner.get(CLUSTERS, params(planner, second_site)).json()["results"]]
    assert names == expected


def test_another_accounts_cluster_is_not_found(owner, other_tenant):
    theirs = make_cluster(other_tenant)
    for method in ("get", "put", "patch", "delete"):
        assert_error(getattr(owner, method)(detail(theirs), {"name": "Mine now"}, format="json"), 404, "not_found")
    assert Cluster.objects.for_account(other_tenant.account).get(pk=theirs.pk).name == "Running shoes"


# auto_cluster -------------------------------------------------------------------------------


def test_auto_cluster_groups_the_sites_unclustered_keywords_and_charges_the_cost_table(planner, owner, keywords, eager_jobs):
    before = balance_of(planner.account)
    paused = keywords[-1]
    Keyword.objects.for_account(planner.account).filter(pk=paused.pk).update(status="paused")
    done = make_cluster(planner.tenant, name="Done already")
    Keyword.objects.for_account(planner.account).filter(pk=keywords[-2].pk).update(cluster=done)
    candidates = {keyword.pk for keyword in keywords[:-2]}

    with eager_jobs():
        response = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk}, format="json")

    assert response.status_code == 202, response.content
    assert response.json()["data"] == {"job_id": ANY, "status": "queued"}
    job = Job.objects.for_account(planner.account).get(pk=response.json()["data"]["job_id"])
    assert (job.kind, job.status, job.site_id) == ("planner.auto_cluster", "succeeded", planner.site.pk)

    clusters = Cluster.objects.for_account(planner.account).exclude(pk=done.pk)
    assert clusters.count() >= 2
    assert all(cluster.name and cluster.site_id == planner.site.pk and cluster.sector_id == planner.sector.pk for cluster in clusters)
    clustered = dict(Keyword.objects.for_account(planner.account).values_list("pk", "cluster_id"))
    # Every candidate ends in a cluster, one unlike the others in a cluster of its own (contract section 12).
    placed = {pk for pk, cluster_id in clustered.items() if cluster_id in {c.pk for c in clusters}}
    assert placed == candidates
    assert clustered[paused.pk] is None and clustered[keywords[-2].pk] == done.pk

    cost = cost_of(operation_type="clustering", units=len(candidates))
    assert balance_of(planner.account) == before - cost
    usage = CreditUsage.objects.for_account(planner.account).get(operation_type="clustering")
    assert (usage.credits_used, usage.job_id, usage.model) == (cost, job.pk, "local")
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert job.result == {
        "clusters_created": clusters.count(),
        "keywords_clustered": len(placed),
        "keywords_unclustered": len(candidates - placed),
        "cluster_ids": ANY,
        "credits_used": cost,
    }
    assert sorted(job.result["cluster_ids"]) == sorted(clusters.values_list("pk", flat=True))
    [notification] = notifications(planner.account, "ai_cluster_complete")
    assert notification.metadata == {"count": clusters.count(), "credits": cost, "job_id": job.pk}


def test_every_keyword_given_to_auto_cluster_ends_in_a_cluster_one_unlike_the_others_in_its_own(planner, owner, eager_jobs):
    """Issue 30, case 2: three unrelated keywords given to auto_cluster made no cluster at all."""
    texts = ["lavender", "mortgage rates today", "python decorators"]
    given = [make_keyword(planner.tenant, sector=planner.sector, keyword=text, volume=100) for text in texts]
    before = balance_of(planner.account)

    with eager_jobs():
        response = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk, "keyword_ids": [keyword.pk for keyword in given]}, format="json")

    assert response.status_code == 202, response.content
    job = Job.objects.for_account(planner.account).get(pk=response.json()["data"]["job_id"])
    clusters = {cluster.name: list(cluster.keywords.values_list("keyword", flat=True)) for cluster in Cluster.objects.for_account(planner.account)}
    assert clusters == {"Lavender": ["lavender"], "Mortgage Rates Today": ["mortgage rates today"], "Python Decorators": ["python decorators"]}
    assert (job.result["keywords_clustered"], job.result["keywords_unclustered"], job.result["clusters_created"]) == (3, 0, 3)
    assert balance_of(planner.account) == before - cost_of(operation_type="clustering", units=3)


def test_auto_cluster_of_given_keywords_reclusters_exactly_those(planner, owner, keywords, eager_jobs):
    old = make_cluster(planner.tenant, name="Old")
    chosen = keywords[:6]
    Keyword.objects.for_account(planner.account).filter(pk=chosen[0].pk).update(cluster=old, status="archived")

    with eager_jobs():
        response = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk, "sector_id": planner.sector.pk, "keyword_ids": [k.pk for k in chosen]}, format="json")

    assert response.status_code == 202, response.content
    clustered = dict(Keyword.objects.for_account(planner.account).values_list("pk", "cluster_id"))
    # Each chosen keyword is in a new cluster or, fitting none, in none (#19); never left in the old one.
    assert all(clustered[k.pk] != old.pk for k in chosen)
    assert any(clustered[k.pk] is not None for k in chosen)
    assert all(clustered[k.pk] is None for k in keywords[6:])


def test_auto_cluster_with_nothing_to_cluster_is_a_400_and_starts_nothing(planner, owner):
    assert_error(owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk}, format="json"), 400, "validation_error", errors={"site_id": ["There are no unclustered active keywords to cluster"]})
    assert_error(
        owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk, "sector_id": planner.sector.pk}, format="json"),
        400,
        "validation_error",
        errors={"sector_id": ["There are no unclustered active keywords to cluster"]},
    )
    assert not Job.objects.for_account(planner.account).exists()


def test_auto_cluster_refuses_keyword_ids_that_are_not_the_sites(planner, owner, keywords, other_tenant):
    theirs = make_keyword(other_tenant)
    response = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk, "keyword_ids": [keywords[0].pk, theirs.pk, 999999999]}, format="json")
    assert_error(response, 400, "validation_error", errors={"keyword_ids": [f"Keywords not found in this site: {theirs.pk}, 999999999"]})
    assert_error(owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk, "keyword_ids": []}, format="json"), 400, "validation_error", errors={"keyword_ids": ["Send at least one id"]})
    assert_error(owner.post(AUTO_CLUSTER, {"site_id": other_tenant.site.pk}, format="json"), 400, "validation_error", errors={"site_id": ["Site must belong to your account"]})
    assert not Job.objects.for_account(planner.account).exists()
    theirs.refresh_from_db()
    assert theirs.cluster_id is None


def test_auto_cluster_without_the_credits_is_a_402_and_changes_nothing(planner, owner, keywords, eager_jobs):
    set_balance(planner.account, cost_of(operation_type="clustering", units=len(keywords)) - 1)
    before = set(Notification.objects.for_account(planner.account).values_list("pk", flat=True))

    with eager_jobs():
        response = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk}, format="json")

    assert_error(response, 402, "insufficient_credits", errors={"credits": ["Insufficient credits"]}, error="Insufficient credits")
    assert not Job.objects.for_account(planner.account).exists()
    assert not Cluster.objects.for_account(planner.account).exists()
    assert not CreditReservation.objects.for_account(planner.account).exists()
    assert set(Notification.objects.for_account(planner.account).values_list("pk", flat=True)) == before


def test_a_failed_clustering_costs_nothing_changes_nothing_and_notifies(planner, owner, keywords, eager_jobs, monkeypatch):
    def refuse(self, keywords, *, prompt):
        raise ProviderAuthFailed()

    monkeypatch.setattr("inkwell.ai.providers.local.LocalTextProvider.cluster_keywords", refuse)
    before = balance_of(planner.account)

    with eager_jobs():
        response = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk}, format="json")

    job = Job.objects.for_account(planner.account).get(pk=response.json()["data"]["job_id"])
    assert (job.status, job.error) == ("failed", {"code": "provider_auth_failed", "message": "The AI provider rejected the API key"})
    assert balance_of(planner.account) == before
    assert CreditReservation.objects.for_account(planner.account).get().status == "released"
    assert not Cluster.objects.for_account(planner.account).exists()
    assert not notifications(planner.account, "ai_cluster_complete")
    [failed] = notifications(planner.account, "ai_cluster_failed")
    assert failed.metadata == {"count": len(keywords), "credits": 0, "job_id": job.pk}
    assert "The AI provider rejected the API key" in failed.message


def test_a_job_run_again_after_its_results_were_saved_writes_nothing_twice(planner, owner, keywords, eager_jobs):
    from inkwell.jobs.services import execute

    with eager_jobs():
        job_id = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk}, format="json").json()["data"]["job_id"]
    job = Job.objects.for_account(planner.account).get(pk=job_id)
    clusters, balance = Cluster.objects.for_account(planner.account).count(), balance_of(planner.account)
    # As if the worker died after the handler's transaction committed and the sweep queued it again.
    Job.objects.for_account(planner.account).filter(pk=job_id).update(status="queued")

    execute(job_id=job_id, heartbeat=False)

    job.refresh_from_db()
    assert job.status == "succeeded"
    assert (Cluster.objects.for_account(planner.account).count(), balance_of(planner.account)) == (clusters, balance)
    assert len(notifications(planner.account, "ai_cluster_complete")) == 1


def test_auto_cluster_against_an_openai_compatible_server(planner, owner, keywords, eager_jobs, openai_server, settings):
    from inkwell.ai.tests.openai_server import TEST_API_KEY

    settings.INKWELL_AI = {**settings.INKWELL_AI, "PROVIDER": "openai", "BASE_URL": openai_server.base_url, "API_KEY": TEST_API_KEY}

    with eager_jobs():
        response = owner.post(AUTO_CLUSTER, {"site_id": planner.site.pk}, format="json")

    job = Job.objects.for_account(planner.account).get(pk=response.json()["data"]["job_id"])
    assert job.status == "succeeded", job.error
    assert Cluster.objects.for_account(planner.account).count() == job.result["clusters_created"] > 0
    assert not Keyword.objects.for_account(planner.account).filter(cluster__isnull=True).exists()
    usage = CreditUsage.objects.for_account(planner.account).get(operation_type="clustering")
    assert usage.prompt_tokens > 0 and usage.model == settings.INKWELL_AI["LIVE_MODEL"]
    assert len(openai_server.requests_to("chat")) == 1
