"""/writer/tasks/: list, create, retrieve, update, delete and bulk_create through the real URLs."""

from unittest.mock import ANY

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.tests import assert_error
from inkwell.planner.models import Cluster, ContentIdea, IdeaStatus
from inkwell.system.models import ModuleSetting
from inkwell.writer.models import Task, TaskStatus
from inkwell.writer.tests.factories import make_content, make_sector, make_task, site_sector

pytestmark = pytest.mark.django_db

TASKS = "/api/v1/writer/tasks/"
TASK_FIELDS = {
    "id", "site_id", "sector_id", "idea_id", "cluster_id", "title", "description", "keywords", "outline", "content_type",
    "content_structure", "word_count", "tone", "status", "content_id", "overlaps", "overlap_flagged", "created_at", "updated_at",
}


def payload(tenant, sector, **fields) -> dict:
    return {"title": "Trail running for beginners", "site_id": tenant.site.pk, "sector_id": sector.pk, **fields}


def task_rows(tenant) -> list[dict]:
    return list(Task.objects.for_account(tenant.account).order_by("id").values())


def queries_of(client, path: str) -> int:
    client.get(path)  # warms per-process state
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def make_idea(tenant, sector, title: str = "Trail running basics") -> ContentIdea:
    cluster = Cluster.objects.create(account=tenant.account, site=tenant.site, sector=sector, name="Trail running")
    return ContentIdea.objects.create(account=tenant.account, site=tenant.site, sector=sector, cluster=cluster, title=title)


# Create


def test_title_site_id_and_sector_id_are_required_with_the_spec_message(tenant, as_user):
    response = as_user(tenant.owner).post(TASKS, {}, format="json")

    assert_error(response, 400, "validation_error", errors={
        "title": ["This field is required"], "site_id": ["This field is required"], "sector_id": ["This field is required"],
    })
    assert task_rows(tenant) == []


def test_a_blank_title_is_required_too(tenant, sector, as_user):
    response = as_user(tenant.owner).post(TASKS, payload(tenant, sector, title=""), format="json")

    assert_error(response, 400, "validation_error", errors={"title": ["This field is required"]})


def test_a_site_of_another_account_is_refused_with_the_spec_message(tenant, other_tenant, sector, as_user):
    response = as_user(tenant.owner).post(TASKS, payload(tenant, sector, site_id=other_tenant.site.pk), format="json")

    assert_error(response, 400, "validation_error", errors={"site_id": ["Site must belong to your account"]})


def test_a_sector_of_another_site_is_refused_with_the_spec_message(tenant, sector, second_site, as_user):
    response = as_user(tenant.owner).post(TASKS, payload(tenant, site_sector(tenant, second_site)), format="json")

    assert_error(response, 400, "validation_error", errors={"sector_id": ["Sector must belong to the selected site"]})


def test_a_created_task_answers_201_with_every_field(tenant, sector, as_user):
    body = payload(
        tenant, sector, description="For people new to trails", keywords=["trail running", "trail shoes"], outline=["Gear", "Safety"],
        content_type="page", content_structure="how_to", word_count=900, tone="friendly",
    )
    response = as_user(tenant.owner).post(TASKS, body, format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert set(data) == TASK_FIELDS
    assert data == {
        **data, "site_id": tenant.site.pk, "sector_id": sector.pk, "title": "Trail running for beginners", "description": "For people new to trails",
        "keywords": ["trail running", "trail shoes"], "outline": ["Gear", "Safety"], "content_type": "page", "content_structure": "how_to",
        "word_count": 900, "tone": "friendly", "status": "queued", "content_id": None, "idea_id": None, "cluster_id": None,
        "overlaps": [], "overlap_flagged": False,
    }
    assert Task.objects.for_account(tenant.account).get(pk=data["id"]).word_count == 900


def test_length_tone_and_structure_left_out_come_from_the_content_settings(tenant, sector, as_user):
    saved = as_user(tenant.owner).post(
        "/api/v1/system/settings/content/content_generation/save/",
        {"default_article_length": 2400, "default_tone": "casual", "default_structure": "listicle"},
        format="json",
    )
    assert saved.status_code == 200, saved.content

    data = as_user(tenant.owner).post(TASKS, payload(tenant, sector), format="json").json()["data"]

    assert (data["word_count"], data["tone"], data["content_structure"]) == (2400, "casual", "listicle")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("word_count", 99, "Word count must be between 100 and 10000"),
        ("word_count", 10_001, "Word count must be between 100 and 10000"),
        ("tone", "sarcastic", "Invalid tone"),
        ("content_structure", "poem", "Invalid content structure"),
        ("content_type", "video", "Invalid content type"),
    ],
)
def test_length_tone_structure_and_type_are_validated(tenant, sector, as_user, field, value, message):
    response = as_user(tenant.owner).post(TASKS, payload(tenant, sector, **{field: value}), format="json")

    assert_error(response, 400, "validation_error", errors={field: [message]})


def test_a_task_from_an_idea_takes_its_cluster_and_converts_it(tenant, sector, as_user):
    idea = make_idea(tenant, sector)

    data = as_user(tenant.owner).post(TASKS, payload(tenant, sector, idea_id=idea.pk), format="json").json()["data"]

    assert (data["idea_id"], data["cluster_id"]) == (idea.pk, idea.cluster_id)
    idea.refresh_from_db()
    assert idea.status == IdeaStatus.CONVERTED


def test_an_idea_that_has_a_task_already_is_a_conflict(tenant, sector, as_user):
    idea = make_idea(tenant, sector)
    make_task(tenant, idea=idea)

    response = as_user(tenant.owner).post(TASKS, payload(tenant, sector, idea_id=idea.pk), format="json")

    assert_error(response, 409, "conflict", errors={"idea_id": ["This idea already has a task"]})
    assert len(task_rows(tenant)) == 1


def test_an_idea_of_another_site_or_account_is_refused(tenant, other_tenant, sector, second_site, as_user):
    foreign = make_idea(other_tenant, site_sector(other_tenant))
    elsewhere = ContentIdea.objects.create(account=tenant.account, site=second_site, title="Elsewhere")
    client = as_user(tenant.owner)

    assert_error(client.post(TASKS, payload(tenant, sector, idea_id=foreign.pk), format="json"), 400, "validation_error",
                 errors={"idea_id": ["Idea must belong to your account"]})
    assert_error(client.post(TASKS, payload(tenant, sector, idea_id=elsewhere.pk), format="json"), 400, "validation_error",
                 errors={"idea_id": ["Idea must belong to the selected site"]})


# List and retrieve


def test_the_list_filters_by_site_sector_status_and_search(tenant, sector, second_site, as_user):
    other_sector = make_sector(tenant)
    trail = make_task(tenant, title="Trail running gear")
    road = make_task(tenant, title="Road running shoes", sector=other_sector, status=TaskStatus.COMPLETED)
    far = make_task(tenant, title="Trail races abroad", site=second_site)
    client = as_user(tenant.owner)

    def ids(**params):
        response = client.get(TASKS, params)
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["results"]]

    assert ids() == [far.pk, road.pk, trail.pk]
    assert ids(site_id=tenant.site.pk) == [road.pk, trail.pk]
    assert ids(sector_id=other_sector.pk) == [road.pk]
    assert ids(status="completed") == [road.pk]
    assert ids(search="trail") == [far.pk, trail.pk]
    assert ids(ordering="title") == [road.pk, far.pk, trail.pk]
    assert ids(ordering="-title") == [trail.pk, far.pk, road.pk]
    assert_error(client.get(TASKS, {"status": "sleeping"}), 400, "validation_error", errors={"status": ["Invalid status value"]})
    assert_error(client.get(TASKS, {"ordering": "secret"}), 400, "validation_error", errors={"ordering": ANY})


def test_the_list_runs_the_same_queries_for_one_task_or_many(tenant, as_user, local_memory_cache):
    client = as_user(tenant.owner)
    make_content(tenant, task=make_task(tenant))
    one = queries_of(client, f"{TASKS}?page_size=100")
    for n in range(25):
        make_content(tenant, task=make_task(tenant, title=f"Task {n}"))

    assert queries_of(client, f"{TASKS}?page_size=100") == one <= 4


def test_retrieve_shows_the_newest_content_of_the_task(tenant, as_user):
    task = make_task(tenant)
    data = as_user(tenant.owner).get(f"{TASKS}{task.pk}/").json()["data"]
    assert set(data) == TASK_FIELDS
    assert data["content_id"] is None

    make_content(tenant, task=task)
    newest = make_content(tenant, task=task)
    assert as_user(tenant.owner).get(f"{TASKS}{task.pk}/").json()["data"]["content_id"] == newest.pk


# Update and delete


def test_put_replaces_and_patch_changes_the_fields_given(tenant, sector, as_user):
    task = make_task(tenant, tone="casual")
    client = as_user(tenant.owner)

    put = client.put(f"{TASKS}{task.pk}/", payload(tenant, sector, title="Renamed", word_count=1200), format="json")
    assert put.status_code == 200, put.content
    assert (put.json()["data"]["title"], put.json()["data"]["word_count"], put.json()["data"]["tone"]) == ("Renamed", 1200, "casual")

    patch = client.patch(f"{TASKS}{task.pk}/", {"tone": "friendly"}, format="json")
    assert patch.status_code == 200, patch.content
    assert (patch.json()["data"]["title"], patch.json()["data"]["tone"]) == ("Renamed", "friendly")


def test_put_requires_title_site_and_sector(tenant, as_user):
    task = make_task(tenant)

    response = as_user(tenant.owner).put(f"{TASKS}{task.pk}/", {"tone": "casual"}, format="json")

    assert_error(response, 400, "validation_error", errors={
        "title": ["This field is required"], "site_id": ["This field is required"], "sector_id": ["This field is required"],
    })


def test_a_patch_cannot_move_a_task_to_a_sector_of_another_site(tenant, second_site, as_user):
    task = make_task(tenant)
    before = task_rows(tenant)

    response = as_user(tenant.owner).patch(f"{TASKS}{task.pk}/", {"sector_id": site_sector(tenant, second_site).pk}, format="json")

    assert_error(response, 400, "validation_error", errors={"sector_id": ["Sector must belong to the selected site"]})
    assert task_rows(tenant) == before


def test_a_task_being_generated_cannot_be_changed(tenant, as_user):
    task = make_task(tenant, status=TaskStatus.GENERATING)
    before = task_rows(tenant)

    response = as_user(tenant.owner).patch(f"{TASKS}{task.pk}/", {"word_count": 5000}, format="json")

    assert_error(response, 409, "state_conflict", errors={"status": ["A task whose content is being generated cannot be changed"]})
    assert task_rows(tenant) == before


def test_delete_removes_the_task(tenant, as_user):
    task = make_task(tenant)

    assert as_user(tenant.owner).delete(f"{TASKS}{task.pk}/").status_code == 204

    assert task_rows(tenant) == []


def test_a_task_being_generated_cannot_be_deleted(tenant, as_user):
    task = make_task(tenant, status=TaskStatus.GENERATING)

    response = as_user(tenant.owner).delete(f"{TASKS}{task.pk}/")

    assert_error(response, 409, "state_conflict", errors={"status": ["A task whose content is being generated cannot be deleted"]})
    assert len(task_rows(tenant)) == 1


# Bulk create


def test_bulk_create_inserts_every_task_in_one_statement(tenant, sector, as_user):
    items = [payload(tenant, sector, title=f"Article {n}", keywords=[f"topic {n}"]) for n in range(40)]

    with CaptureQueriesContext(connection) as captured:
        response = as_user(tenant.owner).post(f"{TASKS}bulk_create/", {"tasks": items}, format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["created"] == 40
    rows = {row["id"]: row for row in task_rows(tenant)}
    assert [rows[pk]["title"] for pk in data["task_ids"]] == [f"Article {n}" for n in range(40)]
    inserts = [query["sql"] for query in captured.captured_queries if query["sql"].startswith('INSERT INTO "writer_task"')]
    assert len(inserts) == 1
    # Site and sector are looked up once for the whole payload, not once per item; the cannibalization
    # guard (#19) reads the site's ideas, tasks and contents once (3 queries), not once per item.
    assert len(captured.captured_queries) < 23


def test_bulk_create_is_all_or_nothing_and_names_each_bad_item(tenant, other_tenant, sector, as_user):
    items = [
        payload(tenant, sector),
        {"site_id": tenant.site.pk, "sector_id": sector.pk},
        payload(tenant, sector, site_id=other_tenant.site.pk),
        payload(tenant, sector, word_count=50),
    ]

    response = as_user(tenant.owner).post(f"{TASKS}bulk_create/", {"tasks": items}, format="json")

    assert_error(response, 400, "validation_error", errors={
        "tasks.1.title": ["This field is required"],
        "tasks.2.site_id": ["Site must belong to your account"],
        "tasks.3.word_count": ["Word count must be between 100 and 10000"],
    })
    assert task_rows(tenant) == []


def test_bulk_create_needs_a_list_of_one_to_500_tasks(tenant, sector, as_user):
    client = as_user(tenant.owner)

    def errors(body):
        return assert_error(client.post(f"{TASKS}bulk_create/", body, format="json"), 400, "validation_error", errors=ANY)["errors"]

    assert errors({}) == {"tasks": ["This field is required"]}
    assert errors({"tasks": []}) == {"tasks": ["Give at least one task"]}
    assert errors({"tasks": [payload(tenant, sector)] * 501}) == {"tasks": ["At most 500 tasks in one request"]}
    assert errors({"tasks": [{}] * 501}) == {"tasks": ["At most 500 tasks in one request"]}
    assert task_rows(tenant) == []


def test_bulk_create_refuses_an_idea_named_twice_or_taken(tenant, sector, as_user):
    taken, free = make_idea(tenant, sector, "Taken"), make_idea(tenant, sector, "Free")
    make_task(tenant, idea=taken)
    items = [payload(tenant, sector, idea_id=free.pk), payload(tenant, sector, idea_id=free.pk), payload(tenant, sector, idea_id=taken.pk)]

    response = as_user(tenant.owner).post(f"{TASKS}bulk_create/", {"tasks": items}, format="json")

    assert_error(response, 409, "conflict", errors={"tasks.1.idea_id": ["This idea already has a task"], "tasks.2.idea_id": ["This idea already has a task"]})
    assert len(task_rows(tenant)) == 1
    free.refresh_from_db()
    assert free.status == IdeaStatus.NEW


# Tenancy and roles


def test_another_accounts_task_is_not_found_and_stays_unchanged(tenant, other_tenant, as_user):
    task = make_task(other_tenant)
    before = task_rows(other_tenant)
    client = as_user(tenant.owner)

    for method in ("get", "put", "patch", "delete"):
        assert_error(getattr(client, method)(f"{TASKS}{task.pk}/", {"title": "x"}, format="json"), 404, "not_found")
    assert_error(client.post(f"{TASKS}{task.pk}/generate_content/"), 404, "not_found")
    assert client.get(TASKS).json()["count"] == 0
    assert task_rows(other_tenant) == before


WRITES = [
    ("post", TASKS, True),
    ("post", f"{TASKS}bulk_create/", True),
    ("put", f"{TASKS}{{pk}}/", True),
    ("patch", f"{TASKS}{{pk}}/", False),
    ("delete", f"{TASKS}{{pk}}/", False),
    ("post", f"{TASKS}{{pk}}/generate_content/", False),
]


@pytest.mark.parametrize(("method", "path", "with_body"), WRITES)
def test_viewers_may_read_but_not_write(granted, sector, as_user, method, path, with_body):
    task = make_task(granted)
    before = task_rows(granted)
    body = payload(granted, sector)
    if path.endswith("bulk_create/"):
        body = {"tasks": [body]}
    client = as_user(granted.viewer)

    response = getattr(client, method)(path.format(pk=task.pk), body if with_body else None, format="json")

    assert_error(response, 403, "permission_denied")
    assert task_rows(granted) == before
    assert client.get(f"{TASKS}{task.pk}/").status_code == 200


def test_editors_work_on_the_sites_granted_to_them_only(granted, sector, second_site, as_user):
    hidden = make_task(granted, site=second_site)
    client = as_user(granted.editor)

    assert client.post(TASKS, payload(granted, sector), format="json").status_code == 201
    refused = client.post(TASKS, payload(granted, site_sector(granted, second_site), site_id=second_site.pk), format="json")
    assert_error(refused, 403, "permission_denied")
    assert_error(client.get(f"{TASKS}{hidden.pk}/"), 404, "not_found")
    assert_error(client.patch(f"{TASKS}{hidden.pk}/", {"title": "x"}, format="json"), 404, "not_found")
    assert hidden.pk not in [row["id"] for row in client.get(TASKS).json()["results"]]


def test_a_switched_off_writer_module_refuses_the_tasks(tenant, as_user):
    ModuleSetting.objects.create(account=tenant.account, module="writer", enabled=False)

    assert_error(as_user(tenant.owner).get(TASKS), 403, "module_disabled")
