"""/writer/content/: list with its filters, retrieve, create and PUT/PATCH through the real URLs."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.tests import assert_error
from inkwell.writer.models import Content, ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content, make_sector, make_task, make_taxonomy, site_sector

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"
LIST_FIELDS = {
    "id", "site_id", "sector_id", "task_id", "title", "slug", "excerpt", "meta_title", "meta_description", "focus_keyword", "keywords", "word_count",
    "status", "site_status", "scheduled_publish_at", "published_at", "external_id", "external_url", "created_at", "updated_at", "version",
}
DETAIL_FIELDS = LIST_FIELDS | {"html", "taxonomy_ids", "quality_passed", "quality_summary", "quality_override_by_id", "quality_override_at"}


def content_rows(account) -> list[dict]:
    return list(Content.objects.for_account(account).order_by("id").values())


# List


def queries_of(client, path: str) -> int:
    client.get(path)  # warms per-process state
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


@pytest.fixture
def library(tenant, second_site):
    """Content in every workflow and publishing state, over two sites, sectors and tasks."""
    sector, other_sector = site_sector(tenant), make_sector(tenant)
    task = make_task(tenant)
    return {
        "draft": make_content(tenant, title="Draft about trail shoes", sector=sector, task=task),
        "review": make_content(tenant, title="Review of road shoes", status=ContentStatus.REVIEW, sector=other_sector, focus_keyword="trail"),
        "approved": make_content(tenant, title="Approved piece", status=ContentStatus.APPROVED, site_status=SiteStatus.SCHEDULED),
        "published": make_content(tenant, title="Published piece", status=ContentStatus.PUBLISHED, site_status=SiteStatus.PUBLISHED, site=second_site),
        "sector": sector,
        "other_sector": other_sector,
        "task": task,
    }


def listed(client, **params) -> list[int]:
    response = client.get(CONTENT, params)
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def test_the_list_filters_by_workflow_status_with_status__in(tenant, library, as_user):
    client = as_user(tenant.owner)

    assert listed(client, status__in="draft,review") == [library["review"].pk, library["draft"].pk]
    assert listed(client, status__in="approved") == [library["approved"].pk]
    assert listed(client, status="published") == [library["published"].pk]


def test_an_unknown_status_in_status__in_is_a_400(tenant, library, as_user):
    response = as_user(tenant.owner).get(CONTENT, {"status__in": "draft,bogus"})

    assert_error(response, 400, "validation_error", errors={"status__in": ["Invalid status value"]})


def test_the_list_filters_by_publishing_status_site_sector_task_and_search(tenant, library, second_site, as_user):
    client = as_user(tenant.owner)

    assert listed(client, site_status="scheduled") == [library["approved"].pk]
    assert listed(client, site_id=second_site.pk) == [library["published"].pk]
    assert listed(client, sector_id=library["other_sector"].pk) == [library["review"].pk]
    assert listed(client, task_id=library["task"].pk) == [library["draft"].pk]
    assert listed(client, search="trail") == [library["review"].pk, library["draft"].pk]
    assert_error(client.get(CONTENT, {"site_status": "gone"}), 400, "validation_error", errors={"site_status": ["Invalid site status value"]})


def test_the_list_orders_by_the_field_asked_and_leaves_the_body_out(tenant, library, as_user):
    client = as_user(tenant.owner)

    assert listed(client, ordering="title") == [library[key].pk for key in ("approved", "draft", "published", "review")]
    rows = client.get(CONTENT).json()["results"]
    assert set(rows[0]) == LIST_FIELDS


def test_the_list_runs_the_same_queries_for_one_content_or_many(tenant, as_user, local_memory_cache):
    client = as_user(tenant.owner)
    make_content(tenant, task=make_task(tenant))
    one = queries_of(client, f"{CONTENT}?page_size=100")
    for n in range(25):
        make_content(tenant, title=f"Content {n}", task=make_task(tenant), sector=site_sector(tenant))

    assert queries_of(client, f"{CONTENT}?page_size=100") == one <= 4


def test_retrieve_shows_the_body(tenant, as_user):
    content = make_content(tenant, html="<p>Body text</p>")

    data = as_user(tenant.owner).get(f"{CONTENT}{content.pk}/").json()["data"]

    assert set(data) == DETAIL_FIELDS
    assert data["html"] == "<p>Body text</p>"


# Create


def test_title_and_site_id_are_required_with_the_spec_message(tenant, as_user):
    response = as_user(tenant.owner).post(CONTENT, {"html": "<p>x</p>"}, format="json")

    assert_error(response, 400, "validation_error", errors={"title": ["This field is required"], "site_id": ["This field is required"]})
    assert content_rows(tenant.account) == []


def test_created_content_is_a_sanitised_draft_with_its_words_counted(tenant, as_user):
    sector = site_sector(tenant)
    task = make_task(tenant)
    body = {
        "title": "Hydration on long runs", "site_id": tenant.site.pk, "sector_id": sector.pk, "task_id": task.pk,
        "html": '<h2>Water</h2><p onmouseover="x()">Drink a little, often.</p><script>alert(1)</script>',
        "meta_title": "Hydration on long runs", "meta_description": "How much to drink.", "focus_keyword": "hydration",
        "keywords": ["hydration", "long runs"],
    }

    response = as_user(tenant.owner).post(CONTENT, body, format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert set(data) == DETAIL_FIELDS | {"overlaps"}  # overlaps: in the creation answer only (#19)
    assert data == {
        **data, "overlaps": [], "title": "Hydration on long runs", "site_id": tenant.site.pk, "sector_id": sector.pk, "task_id": task.pk,
        "html": "<h2>Water</h2><p>Drink a little, often.</p>", "word_count": 5, "status": "draft", "site_status": "not_published",
        "keywords": ["hydration", "long runs"], "focus_keyword": "hydration", "scheduled_publish_at": None,
    }


def test_a_foreign_site_sector_or_task_is_refused(tenant, other_tenant, second_site, as_user):
    client = as_user(tenant.owner)
    base = {"title": "x", "site_id": tenant.site.pk}

    assert_error(client.post(CONTENT, {**base, "site_id": other_tenant.site.pk}, format="json"), 400, "validation_error",
                 errors={"site_id": ["Site must belong to your account"]})
    assert_error(client.post(CONTENT, {**base, "sector_id": site_sector(tenant, second_site).pk}, format="json"), 400, "validation_error",
                 errors={"sector_id": ["Sector must belong to the selected site"]})
    assert_error(client.post(CONTENT, {**base, "task_id": make_task(other_tenant).pk}, format="json"), 400, "validation_error",
                 errors={"task_id": ["Task must belong to your account"]})
    assert_error(client.post(CONTENT, {**base, "task_id": make_task(tenant, site=second_site).pk}, format="json"), 400, "validation_error",
                 errors={"task_id": ["Task must belong to the selected site"]})
    assert content_rows(tenant.account) == []


# PUT and PATCH


def test_put_requires_the_title_and_checks_the_meta_lengths(tenant, as_user):
    content = make_content(tenant)
    before = content_rows(tenant.account)

    response = as_user(tenant.owner).put(f"{CONTENT}{content.pk}/", {"html": "<p>New</p>", "meta_title": "x" * 61}, format="json")

    assert_error(response, 400, "validation_error", errors={
        "title": ["This field is required"], "meta_title": ["Meta title must be at most 60 characters"],
    })
    assert content_rows(tenant.account) == before


def test_put_and_patch_change_the_content(tenant, as_user):
    content = make_content(tenant, title="Old title")
    client = as_user(tenant.owner)

    put = client.put(f"{CONTENT}{content.pk}/", {"title": "New title", "html": "<p>One two three</p>"}, format="json")
    assert put.status_code == 200, put.content
    assert (put.json()["data"]["title"], put.json()["data"]["word_count"]) == ("New title", 3)

    patch = client.patch(f"{CONTENT}{content.pk}/", {"status": "review"}, format="json")
    assert patch.status_code == 200, patch.content
    assert (patch.json()["data"]["title"], patch.json()["data"]["status"]) == ("New title", "review")


def test_a_patch_may_not_blank_the_title(tenant, as_user):
    content = make_content(tenant)

    response = as_user(tenant.owner).patch(f"{CONTENT}{content.pk}/", {"title": ""}, format="json")

    assert_error(response, 400, "validation_error", errors={"title": ["This field is required"]})


def test_a_sector_of_another_site_is_refused_on_update(tenant, second_site, as_user):
    content = make_content(tenant)

    response = as_user(tenant.owner).patch(f"{CONTENT}{content.pk}/", {"sector_id": site_sector(tenant, second_site).pk}, format="json")

    assert_error(response, 400, "validation_error", errors={"sector_id": ["Sector must belong to the selected site"]})


def test_slug_excerpt_and_taxonomies_are_set_on_update_and_shown_in_the_detail(tenant, as_user):
    content = make_content(tenant)
    category = make_taxonomy(tenant, name="Vegetables")
    tag = make_taxonomy(tenant, taxonomy_type="tag", name="Balcony")

    response = as_user(tenant.owner).patch(
        f"{CONTENT}{content.pk}/", {"slug": "balcony-tomatoes", "excerpt": "In short.", "taxonomy_ids": [tag.pk, category.pk]}, format="json"
    )

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["slug"], data["excerpt"], data["taxonomy_ids"]) == ("balcony-tomatoes", "In short.", sorted([category.pk, tag.pk]))
    cleared = as_user(tenant.owner).patch(f"{CONTENT}{content.pk}/", {"taxonomy_ids": []}, format="json").json()["data"]
    assert cleared["taxonomy_ids"] == []


def test_taxonomies_of_another_site_or_account_are_refused(tenant, other_tenant, second_site, as_user):
    content = make_content(tenant)
    client = as_user(tenant.owner)

    elsewhere = client.patch(f"{CONTENT}{content.pk}/", {"taxonomy_ids": [make_taxonomy(tenant, site=second_site).pk]}, format="json")
    foreign = client.patch(f"{CONTENT}{content.pk}/", {"taxonomy_ids": [make_taxonomy(other_tenant).pk]}, format="json")

    assert_error(elsewhere, 400, "validation_error", errors={"taxonomy_ids": ["Taxonomy must belong to the content's site"]})
    assert_error(foreign, 400, "validation_error", errors={"taxonomy_ids": ["Taxonomy must belong to your account"]})
    assert not content.taxonomies.exists()


def test_a_taxonomy_id_beyond_any_row_id_is_a_field_error_not_a_server_error(tenant, as_user):
    content = make_content(tenant)

    response = as_user(tenant.owner).patch(f"{CONTENT}{content.pk}/", {"taxonomy_ids": [2**63]}, format="json")

    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == ["taxonomy_ids.0"]


# Tenancy and roles


def test_another_accounts_content_is_not_found_on_every_route(tenant, other_tenant, as_user):
    content = make_content(other_tenant)
    before = content_rows(other_tenant.account)
    client = as_user(tenant.owner)

    for method in ("get", "put", "patch"):
        assert_error(getattr(client, method)(f"{CONTENT}{content.pk}/", {"title": "x"}, format="json"), 404, "not_found")
    for action in ("update_content", "schedule", "unschedule", "publish_to_cms"):
        assert_error(client.post(f"{CONTENT}{content.pk}/{action}/", {"title": "x"}, format="json"), 404, "not_found")
    assert_error(client.get(f"{CONTENT}{content.pk}/revisions/"), 404, "not_found")
    assert listed(client) == []
    assert content_rows(other_tenant.account) == before


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", ""), ("put", "{pk}/"), ("patch", "{pk}/"), ("post", "{pk}/update_content/"), ("post", "{pk}/schedule/"), ("post", "{pk}/unschedule/"), ("post", "{pk}/publish_to_cms/")],
)
def test_viewers_may_read_but_not_write(granted, as_user, method, path):
    content = make_content(granted)
    before = content_rows(granted.account)
    client = as_user(granted.viewer)

    response = getattr(client, method)(CONTENT + path.format(pk=content.pk), {"title": "x", "site_id": granted.site.pk}, format="json")

    assert_error(response, 403, "permission_denied")
    assert content_rows(granted.account) == before
    assert client.get(f"{CONTENT}{content.pk}/").status_code == 200


def test_editors_see_and_change_content_of_their_sites_only(granted, second_site, as_user):
    own = make_content(granted)
    hidden = make_content(granted, site=second_site)
    client = as_user(granted.editor)

    assert listed(client) == [own.pk]
    assert client.patch(f"{CONTENT}{own.pk}/", {"title": "Edited"}, format="json").status_code == 200
    assert_error(client.get(f"{CONTENT}{hidden.pk}/"), 404, "not_found")
    assert_error(client.post(CONTENT, {"title": "x", "site_id": second_site.pk}, format="json"), 403, "permission_denied")
    assert client.post(CONTENT, {"title": "x", "site_id": granted.site.pk}, format="json").status_code == 201


def test_an_unknown_status_value_is_refused_with_the_spec_message(tenant, as_user):
    content = make_content(tenant)

    response = as_user(tenant.owner).patch(f"{CONTENT}{content.pk}/", {"status": "archived"}, format="json")

    assert_error(response, 400, "validation_error", errors={"status": ["Invalid status value"]})
    assert listed(as_user(tenant.owner), status__in="draft") == [content.pk]
