"""Clustering by meaning through the planner (#19): one entry per keyword across countries, a keyword
that fits nowhere is a cluster of its own (contract section 12, issue 30), and generated ideas are
checked against the site's content."""

import pytest

from inkwell.billing.models import CreditUsage
from inkwell.billing.services import cost_of
from inkwell.keywords.models import SeedKeyword
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.planner.tests.conftest import PLANNER
from inkwell.planner.tests.factories import make_keyword
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

LATTE = [("latte nutrition", "US", 900), ("latte nutrition", "GB", 200), ("latte nutrition", "CA", 100), ("how many calories in a latte", "US", 800)]


@pytest.fixture
def latte_keywords(planner):
    seeds = [
        SeedKeyword.objects.create(keyword=text, country=country, volume=volume, difficulty=30, industry_sector=planner.sector.industry_sector)
        for text, country, volume in [*LATTE, ("quantum chromodynamics lecture", "US", 10)]
    ]
    return [make_keyword(planner.tenant, sector=planner.sector, seed=seed, country=seed.country) for seed in seeds]


def test_one_keyword_from_three_countries_is_one_entry_of_one_cluster_and_a_misfit_is_a_cluster_of_its_own(planner, owner, eager_jobs, latte_keywords):
    with eager_jobs():
        response = owner.post(f"{PLANNER}/clusters/auto_cluster/", {"site_id": planner.site.pk}, format="json")
    assert response.status_code == 202, response.content

    cluster, misfit = Cluster.objects.for_account(planner.account).order_by("pk")
    assert (cluster.name, misfit.name) == ("Latte Nutrition", "Quantum Chromodynamics Lecture")
    assert "Searched in several countries: CA, GB, US." in cluster.description
    assert cluster.description.startswith("2 keywords about latte nutrition with 2,000 monthly searches")
    clustered = dict(Keyword.objects.for_account(planner.account).values_list("keyword", "cluster_id").order_by("keyword", "country"))
    assert set(Keyword.objects.for_account(planner.account).filter(cluster=cluster).values_list("country", flat=True)) == {"US", "GB", "CA"}
    assert clustered["quantum chromodynamics lecture"] == misfit.pk
    job_result = owner.get(f"/api/v1/jobs/{response.json()['data']['job_id']}/").json()["data"]["result"]
    assert (job_result["keywords_clustered"], job_result["keywords_unclustered"]) == (5, 0)

    with eager_jobs():
        owner.post(f"{PLANNER}/clusters/generate_ideas/", {"cluster_ids": [cluster.pk], "ideas_per_cluster": 1}, format="json")
    usage = CreditUsage.objects.for_account(planner.account).get(operation_type="idea_generation")
    assert usage.credits_used == cost_of(operation_type="idea_generation", units=1)


def test_generated_ideas_are_flagged_against_the_sites_articles(planner, owner, eager_jobs, latte_keywords):
    article = make_content(planner.tenant, title="Latte Nutrition Facts: Calories in a Latte", focus_keyword="latte nutrition")
    with eager_jobs():
        owner.post(f"{PLANNER}/clusters/auto_cluster/", {"site_id": planner.site.pk}, format="json")
    cluster = Cluster.objects.for_account(planner.account).get(name="Latte Nutrition")

    with eager_jobs():
        owner.post(f"{PLANNER}/clusters/generate_ideas/", {"cluster_ids": [cluster.pk], "ideas_per_cluster": 2}, format="json")

    ideas = list(ContentIdea.objects.for_account(planner.account))
    assert len(ideas) == 2
    assert any(idea.overlap_flagged for idea in ideas)
    for idea in ideas:
        assert idea.overlap_flagged == bool(idea.overlaps)
        assert all(overlap["kind"] == "content" and overlap["id"] == article.pk for overlap in idea.overlaps)
