"""What a newcomer meets first (issue 14): ``/`` leads to the console (issue 17) while the API docs
stay at ``/api/docs/``, ``/api/v1/`` lists the API's sections, and a write to a path without its
trailing slash still does what it says."""

import pytest
from django.urls import resolve

from inkwell.api import urls as api_urls
from inkwell.api.index import SECTIONS
from inkwell.tenancy.models import Site

pytestmark = pytest.mark.django_db


def test_the_root_leads_to_the_console_and_the_api_docs_stay_where_they_were(api_client):
    response = api_client.get("/")

    assert response.status_code == 302 and response["Location"] == "/app/"
    assert api_client.get("/api/docs/").status_code == 200


def test_the_api_root_lists_every_section_without_credentials(api_client):
    response = api_client.get("/api/v1/")

    assert response.status_code == 200
    data = response.json()["data"]
    assert [section["name"] for section in data["sections"]] == list(SECTIONS)
    assert data["docs"] == {"docs": "/api/docs/", "redoc": "/api/redoc/", "schema": "/api/schema/"}
    for section in data["sections"]:
        assert section["url"] == f"/api/v1/{section['name']}/" and section["description"]


def test_every_mounted_section_is_listed():
    mounted = {str(pattern.pattern).strip("/") for pattern in api_urls.urlpatterns} - {""}
    # The keywords library is mounted at the root of the API, under its own name.
    assert mounted | {"keywords-library"} == set(SECTIONS)
    assert resolve("/api/v1/keywords-library/").url_name


def test_a_write_without_the_trailing_slash_reaches_its_route(tenant, as_user, big_tenant):
    client = as_user(tenant.owner)

    created = client.post("/api/v1/auth/sites", {"name": "No slash", "domain": "noslash.example.com"}, format="json")

    assert created.status_code == 201, created.content
    site = Site.objects.for_account(tenant.account).get(pk=created.json()["data"]["id"])
    updated = client.patch(f"/api/v1/auth/sites/{site.pk}", {"name": "Still no slash"}, format="json")
    assert updated.status_code == 200, updated.content
    site.refresh_from_db()
    assert site.name == "Still no slash"


def test_a_write_to_a_path_that_is_no_route_is_a_404_envelope(api_client):
    response = api_client.post("/api/v1/auth/no-such-thing", {}, format="json")

    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_read_without_the_trailing_slash_is_redirected_to_it(tenant, as_user):
    response = as_user(tenant.owner).get("/api/v1/auth/sites")

    assert response.status_code == 301 and response["Location"] == "/api/v1/auth/sites/"
