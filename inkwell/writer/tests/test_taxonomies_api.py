"""/writer/taxonomies/: a site's categories and tags; list, create, retrieve, delete."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.tests import assert_error
from inkwell.writer.models import Taxonomy
from inkwell.writer.tests.factories import make_taxonomy

pytestmark = pytest.mark.django_db

TAXONOMIES = "/api/v1/writer/taxonomies/"
FIELDS = {"id", "site_id", "taxonomy_type", "name", "slug", "parent_id", "external_id", "created_at"}


def rows(account) -> list[dict]:
    return list(Taxonomy.objects.for_account(account).order_by("id").values())


def listed(client, **params) -> list[int]:
    response = client.get(TAXONOMIES, params)
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def queries_of(client, path: str) -> int:
    client.get(path)  # warms per-process state
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def test_the_list_runs_the_same_queries_for_one_taxonomy_or_many(tenant, as_user, local_memory_cache):
    client = as_user(tenant.owner)
    parent = make_taxonomy(tenant, name="Parent")
    one = queries_of(client, f"{TAXONOMIES}?page_size=100")
    for n in range(25):
        make_taxonomy(tenant, name=f"Child {n}", parent=parent)

    assert queries_of(client, f"{TAXONOMIES}?page_size=100") == one <= 4


def test_the_list_filters_by_site_type_parent_and_search(tenant, second_site, as_user):
    running = make_taxonomy(tenant, name="Running")
    trail = make_taxonomy(tenant, name="Trail", parent=running)
    tag = make_taxonomy(tenant, taxonomy_type="tag", name="beginners")
    elsewhere = make_taxonomy(tenant, site=second_site, name="Cycling")
    client = as_user(tenant.owner)

    assert listed(client) == [elsewhere.pk, running.pk, trail.pk, tag.pk]
    assert listed(client, site_id=tenant.site.pk) == [running.pk, trail.pk, tag.pk]
    assert listed(client, site_id=tenant.site.pk, taxonomy_type="category") == [running.pk, trail.pk]
    assert listed(client, taxonomy_type="tag") == [tag.pk]
    assert listed(client, parent_id=running.pk) == [trail.pk]
    assert listed(client, search="begin") == [tag.pk]
    assert_error(client.get(TAXONOMIES, {"taxonomy_type": "label"}), 400, "validation_error", errors={"taxonomy_type": ["Invalid taxonomy type"]})


def test_create_makes_the_slug_from_the_name(tenant, as_user):
    response = as_user(tenant.owner).post(TAXONOMIES, {"site_id": tenant.site.pk, "taxonomy_type": "category", "name": "Trail Running & Hiking"}, format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert set(data) == FIELDS
    assert data == {**data, "site_id": tenant.site.pk, "taxonomy_type": "category", "name": "Trail Running & Hiking", "slug": "trail-running-hiking", "parent_id": None}


def test_a_given_slug_and_a_parent_category_are_kept(tenant, as_user):
    parent = make_taxonomy(tenant, name="Running")

    response = as_user(tenant.owner).post(
        TAXONOMIES, {"site_id": tenant.site.pk, "taxonomy_type": "category", "name": "Trail", "slug": "off-road", "parent_id": parent.pk}, format="json"
    )

    assert (response.json()["data"]["slug"], response.json()["data"]["parent_id"]) == ("off-road", parent.pk)


def test_a_duplicate_slug_on_the_site_is_a_conflict(tenant, second_site, as_user):
    make_taxonomy(tenant, name="Running")
    client = as_user(tenant.owner)

    response = client.post(TAXONOMIES, {"site_id": tenant.site.pk, "taxonomy_type": "category", "name": "running"}, format="json")

    assert_error(response, 409, "conflict", errors={"slug": ["A category with this slug already exists on this site"]})
    assert len(rows(tenant.account)) == 1
    # The same slug is free as a tag, and on another site.
    assert client.post(TAXONOMIES, {"site_id": tenant.site.pk, "taxonomy_type": "tag", "name": "Running"}, format="json").status_code == 201
    assert client.post(TAXONOMIES, {"site_id": second_site.pk, "taxonomy_type": "category", "name": "Running"}, format="json").status_code == 201


def test_required_fields_and_values_are_validated(tenant, other_tenant, second_site, as_user):
    client = as_user(tenant.owner)

    assert_error(client.post(TAXONOMIES, {}, format="json"), 400, "validation_error", errors={
        "site_id": ["This field is required"], "taxonomy_type": ["This field is required"], "name": ["This field is required"],
    })
    base = {"site_id": tenant.site.pk, "taxonomy_type": "category", "name": "Running"}
    assert_error(client.post(TAXONOMIES, {**base, "taxonomy_type": "label"}, format="json"), 400, "validation_error",
                 errors={"taxonomy_type": ["Invalid taxonomy type"]})
    assert_error(client.post(TAXONOMIES, {**base, "site_id": other_tenant.site.pk}, format="json"), 400, "validation_error",
                 errors={"site_id": ["Site must belong to your account"]})
    assert_error(client.post(TAXONOMIES, {**base, "name": "!!!"}, format="json"), 400, "validation_error",
                 errors={"name": ["Enter a name with letters or digits"]})
    assert rows(tenant.account) == []


def test_a_parent_must_be_a_category_of_the_same_site(tenant, other_tenant, second_site, as_user):
    tag = make_taxonomy(tenant, taxonomy_type="tag", name="beginners")
    elsewhere = make_taxonomy(tenant, site=second_site, name="Cycling")
    foreign = make_taxonomy(other_tenant, name="Foreign")
    category = make_taxonomy(tenant, name="Running")
    client = as_user(tenant.owner)
    base = {"site_id": tenant.site.pk, "taxonomy_type": "category", "name": "Trail"}

    for parent in (tag, elsewhere):
        assert_error(client.post(TAXONOMIES, {**base, "parent_id": parent.pk}, format="json"), 400, "validation_error",
                     errors={"parent_id": ["Parent must be a category of the selected site"]})
    assert_error(client.post(TAXONOMIES, {**base, "parent_id": foreign.pk}, format="json"), 400, "validation_error",
                 errors={"parent_id": ["Parent must belong to your account"]})
    assert_error(client.post(TAXONOMIES, {**base, "taxonomy_type": "tag", "parent_id": category.pk}, format="json"), 400, "validation_error",
                 errors={"parent_id": ["Only categories have a parent"]})


def test_retrieve_and_delete(tenant, as_user):
    parent = make_taxonomy(tenant, name="Running")
    child = make_taxonomy(tenant, name="Trail", parent=parent)
    client = as_user(tenant.owner)

    assert client.get(f"{TAXONOMIES}{parent.pk}/").json()["data"]["name"] == "Running"
    assert client.delete(f"{TAXONOMIES}{parent.pk}/").status_code == 204

    assert [row["id"] for row in rows(tenant.account)] == [child.pk]
    assert client.get(f"{TAXONOMIES}{child.pk}/").json()["data"]["parent_id"] is None


def test_another_accounts_taxonomy_is_not_found(tenant, other_tenant, as_user):
    taxonomy = make_taxonomy(other_tenant)
    client = as_user(tenant.owner)

    assert_error(client.get(f"{TAXONOMIES}{taxonomy.pk}/"), 404, "not_found")
    assert_error(client.delete(f"{TAXONOMIES}{taxonomy.pk}/"), 404, "not_found")
    assert listed(client) == []
    assert len(rows(other_tenant.account)) == 1


def test_viewers_read_and_editors_write_on_their_sites_only(granted, second_site, as_user):
    taxonomy = make_taxonomy(granted)
    hidden = make_taxonomy(granted, site=second_site, name="Hidden")
    viewer, editor = as_user(granted.viewer), as_user(granted.editor)
    body = {"site_id": granted.site.pk, "taxonomy_type": "tag", "name": "New"}

    assert listed(viewer) == [taxonomy.pk]
    assert_error(viewer.post(TAXONOMIES, body, format="json"), 403, "permission_denied")
    assert_error(viewer.delete(f"{TAXONOMIES}{taxonomy.pk}/"), 403, "permission_denied")
    assert editor.post(TAXONOMIES, body, format="json").status_code == 201
    assert_error(editor.post(TAXONOMIES, {**body, "site_id": second_site.pk}, format="json"), 403, "permission_denied")
    assert_error(editor.delete(f"{TAXONOMIES}{hidden.pk}/"), 404, "not_found")
    assert editor.delete(f"{TAXONOMIES}{taxonomy.pk}/").status_code == 204
