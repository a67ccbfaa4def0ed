"""Cannibalization guard (#19, inkwell.writer.overlaps): ideas, tasks and contents that compete for
the same search intent are reported and flagged, never blocked."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.tests import assert_error
from inkwell.planner.models import ContentIdea
from inkwell.planner.tests.factories import make_idea
from inkwell.writer.models import Content, Task
from inkwell.writer.tests.factories import make_content, make_task, site_sector

pytestmark = pytest.mark.django_db

IDEAS = "/api/v1/planner/ideas/"
PAIRS = f"{IDEAS}overlaps/"
TASKS = "/api/v1/writer/tasks/"
CONTENT = "/api/v1/writer/content/"

FLAT_FEET = {"title": "How to Choose Running Shoes for Flat Feet", "focus_keyword": "running shoes for flat feet", "keywords": ["stability shoes"]}
NEAR_DUPLICATE = {"title": "Best Running Shoes for Flat Feet: A Buying Guide", "target_keywords": ["running shoes for flat feet"]}


@pytest.fixture
def published(tenant):
    """The site's article on running shoes for flat feet, synced from its CMS."""
    return make_content(tenant, external_id="wp-41", external_url="https://blog.example.com/flat-feet/", **FLAT_FEET)


def test_an_idea_that_duplicates_a_synced_article_answers_with_its_overlap_and_is_flagged(tenant, as_user, published):
    make_content(tenant, title="How to Make Cold Brew Coffee at Home", focus_keyword="cold brew")

    response = as_user(tenant.owner).post(IDEAS, {"site_id": tenant.site.pk, **NEAR_DUPLICATE}, format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["overlap_flagged"] is True
    [overlap] = data["overlaps"]
    assert overlap == {"id": published.pk, "kind": "content", "title": FLAT_FEET["title"], "similarity": overlap["similarity"]}
    assert 0.7 <= overlap["similarity"] <= 1.0
    idea = ContentIdea.objects.for_account(tenant.account).get(pk=data["id"])
    assert (idea.overlap_flagged, idea.overlaps) == (True, data["overlaps"])
    assert as_user(tenant.owner).get(f"{IDEAS}{idea.pk}/").json()["data"]["overlaps"] == data["overlaps"]


def test_an_idea_on_another_topic_is_not_flagged(tenant, as_user, published):
    response = as_user(tenant.owner).post(IDEAS, {"site_id": tenant.site.pk, "title": "How to Make Cold Brew Coffee", "target_keywords": ["cold brew"]}, format="json")

    data = response.json()["data"]
    assert (data["overlaps"], data["overlap_flagged"]) == ([], False)
    assert not ContentIdea.objects.for_account(tenant.account).get(pk=data["id"]).overlap_flagged


def test_another_sites_article_is_no_competitor(tenant, as_user, second_site):
    make_content(tenant, site=second_site, **FLAT_FEET)

    data = as_user(tenant.owner).post(IDEAS, {"site_id": tenant.site.pk, **NEAR_DUPLICATE}, format="json").json()["data"]

    assert (data["overlaps"], data["overlap_flagged"]) == ([], False)


def test_a_task_that_duplicates_an_idea_is_flagged_but_still_created(tenant, as_user):
    idea = make_idea(tenant, title=NEAR_DUPLICATE["title"], target_keywords=NEAR_DUPLICATE["target_keywords"])
    sector = site_sector(tenant)
    body = {"site_id": tenant.site.pk, "sector_id": sector.pk, "title": FLAT_FEET["title"], "keywords": [FLAT_FEET["focus_keyword"]]}

    response = as_user(tenant.owner).post(TASKS, body, format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert [(overlap["id"], overlap["kind"]) for overlap in data["overlaps"]] == [(idea.pk, "idea")]
    task = Task.objects.for_account(tenant.account).get(pk=data["id"])
    assert task.overlap_flagged and task.overlaps == data["overlaps"]


def test_a_task_made_from_an_idea_does_not_compete_with_its_own_idea(tenant, as_user):
    site_sector(tenant)
    idea = make_idea(tenant, title=NEAR_DUPLICATE["title"], target_keywords=NEAR_DUPLICATE["target_keywords"])

    data = as_user(tenant.owner).post(f"{IDEAS}create_tasks/", {"idea_ids": [idea.pk]}, format="json").json()["data"]

    task = Task.objects.for_account(tenant.account).get(pk=data["task_ids"][0])
    assert (task.overlaps, task.overlap_flagged) == ([], False)


def test_tasks_made_from_ideas_are_flagged_against_the_sites_articles(tenant, as_user, published):
    site_sector(tenant)
    idea = make_idea(tenant, title=NEAR_DUPLICATE["title"], target_keywords=NEAR_DUPLICATE["target_keywords"])

    data = as_user(tenant.owner).post(f"{IDEAS}create_tasks/", {"idea_ids": [idea.pk]}, format="json").json()["data"]

    task = Task.objects.for_account(tenant.account).get(pk=data["task_ids"][0])
    assert task.overlap_flagged
    assert [(overlap["id"], overlap["kind"]) for overlap in task.overlaps] == [(published.pk, "content")]


def test_bulk_created_tasks_are_each_compared_with_the_site(tenant, as_user, published):
    sector = site_sector(tenant)
    items = [
        {"site_id": tenant.site.pk, "sector_id": sector.pk, "title": NEAR_DUPLICATE["title"], "keywords": NEAR_DUPLICATE["target_keywords"]},
        {"site_id": tenant.site.pk, "sector_id": sector.pk, "title": "Mortgage Rates Explained", "keywords": ["mortgage rates"]},
    ]

    data = as_user(tenant.owner).post(f"{TASKS}bulk_create/", {"tasks": items}, format="json").json()["data"]

    flagged = dict(Task.objects.for_account(tenant.account).filter(pk__in=data["task_ids"]).values_list("title", "overlap_flagged"))
    assert flagged == {NEAR_DUPLICATE["title"]: True, "Mortgage Rates Explained": False}


def test_content_created_next_to_a_near_duplicate_answers_with_the_overlap(tenant, as_user, published):
    body = {"site_id": tenant.site.pk, "title": NEAR_DUPLICATE["title"], "focus_keyword": "running shoes for flat feet", "html": "<p>Arch support matters.</p>"}

    response = as_user(tenant.owner).post(CONTENT, body, format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert [(overlap["id"], overlap["kind"]) for overlap in data["overlaps"]] == [(published.pk, "content")]
    assert Content.objects.for_account(tenant.account).filter(pk=data["id"], status="draft").exists()


def test_content_written_for_a_task_does_not_compete_with_its_task_or_idea(tenant, as_user):
    idea = make_idea(tenant, title=FLAT_FEET["title"], target_keywords=[FLAT_FEET["focus_keyword"]])
    task = make_task(tenant, idea=idea, title=FLAT_FEET["title"], keywords=[FLAT_FEET["focus_keyword"]])
    body = {"site_id": tenant.site.pk, "task_id": task.pk, "title": FLAT_FEET["title"], "focus_keyword": FLAT_FEET["focus_keyword"]}

    data = as_user(tenant.owner).post(CONTENT, body, format="json").json()["data"]

    assert data["overlaps"] == []


# The site-level list of competing pairs


def test_the_site_lists_its_competing_pairs_closest_first(tenant, as_user, published):
    idea = make_idea(tenant, title=NEAR_DUPLICATE["title"], target_keywords=NEAR_DUPLICATE["target_keywords"])
    task = make_task(tenant, title="Choosing a Running Shoe When You Have Flat Feet", keywords=["flat feet running shoes"])
    own_task_content = make_content(tenant, task=task, title=task.title, focus_keyword="flat feet running shoes")
    make_idea(tenant, title="How to Make Cold Brew Coffee at Home", target_keywords=["cold brew"])
    make_idea(tenant, title=FLAT_FEET["title"], target_keywords=[FLAT_FEET["focus_keyword"]], status="archived")

    response = as_user(tenant.owner).get(PAIRS, {"site_id": tenant.site.pk})

    assert response.status_code == 200, response.content
    body = response.json()
    pairs = {frozenset({(pair["first"]["kind"], pair["first"]["id"]), (pair["second"]["kind"], pair["second"]["id"])}) for pair in body["results"]}
    pieces = {("content", published.pk), ("idea", idea.pk), ("task", task.pk), ("content", own_task_content.pk)}
    # Every two of the four flat-feet pieces compete, except a task and its own content.
    assert pairs == {frozenset({first, second}) for first in pieces for second in pieces if first < second} - {
        frozenset({("task", task.pk), ("content", own_task_content.pk)})
    }
    similarities = [pair["similarity"] for pair in body["results"]]
    assert similarities == sorted(similarities, reverse=True) and min(similarities) >= 0.7
    assert all(pair["site_id"] == tenant.site.pk for pair in body["results"])
    assert body["count"] == 5


def test_pairs_are_paginated(tenant, as_user, published):
    for title in ("Best Running Shoes for Flat Feet", "Top Running Shoes for Flat Feet", "Flat Feet Running Shoes Guide"):
        make_idea(tenant, title=title, target_keywords=["running shoes for flat feet"])

    first = as_user(tenant.owner).get(PAIRS, {"site_id": tenant.site.pk, "page_size": 2}).json()

    assert first["count"] == 6 and len(first["results"]) == 2 and first["next"]


def test_the_pairs_list_needs_a_site_and_shows_nothing_of_another_account(tenant, other_tenant, as_user):
    make_content(other_tenant, **FLAT_FEET)
    make_idea(other_tenant, title=NEAR_DUPLICATE["title"], target_keywords=NEAR_DUPLICATE["target_keywords"])

    assert_error(as_user(tenant.owner).get(PAIRS), 400, "validation_error", errors={"site_id": ["This field is required"]})
    theirs = as_user(tenant.owner).get(PAIRS, {"site_id": other_tenant.site.pk})
    assert theirs.status_code == 200 and theirs.json()["results"] == []
    assert as_user(other_tenant.owner).get(PAIRS, {"site_id": other_tenant.site.pk}).json()["count"] == 1


def test_the_pairs_list_runs_a_fixed_number_of_queries(tenant, as_user, local_memory_cache):
    client = as_user(tenant.owner)
    make_idea(tenant, title=NEAR_DUPLICATE["title"], target_keywords=NEAR_DUPLICATE["target_keywords"])
    make_content(tenant, **FLAT_FEET)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(PAIRS, {"site_id": tenant.site.pk, "page_size": 100}).status_code == 200
        return len(captured)

    queries()  # warms the per-user caches (the principal, on the production profile), as the query budgets do
    few = queries()
    for n in range(30):
        make_idea(tenant, title=f"Running shoes for flat feet, part {n}", target_keywords=["running shoes for flat feet"])
        make_task(tenant, title=f"Flat feet shoe guide {n}")
        make_content(tenant, title=f"Stability shoes review {n}")
    assert queries() == few <= 6
