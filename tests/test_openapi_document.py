"""The OpenAPI document as clients read it: JSON request bodies only (and the server accepts
nothing else), a summary and a description on every operation, tags in the order of the content
flow, retired operations left out (they still answer 410), and ``?format=json`` answering JSON."""

import json

import pytest
import yaml

from inkwell.api.schema import TAGS, tag_of
from inkwell.api.tests import assert_error

pytestmark = pytest.mark.django_db

ACCOUNT_ADMINISTRATION = ("auth", "account")


@pytest.fixture(scope="module")
def document(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return json.loads(response.content)


def operations(document):
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            if isinstance(operation, dict) and "operationId" in operation:
                yield path, method, operation


def test_the_schema_answers_json_with_format_json_and_yaml_by_default(client):
    as_json = client.get("/api/schema/?format=json")
    as_yaml = client.get("/api/schema/")

    assert as_json["Content-Type"].startswith("application/vnd.oai.openapi+json") or as_json["Content-Type"].startswith("application/json")
    assert json.loads(as_json.content)["openapi"].startswith("3.")
    assert yaml.safe_load(as_yaml.content)["openapi"].startswith("3.")
    assert client.get("/api/schema/", HTTP_ACCEPT="application/json")["Content-Type"].endswith("json")


# The one upload of the API: contract section 12 takes Search Console's export as a multipart file.
MULTIPART_ONLY = {("/api/v1/integration/sites/{site_id}/search-performance/import/", "post")}


def test_every_request_body_is_json_only(document):
    media_types = {(path, method): sorted(operation["requestBody"]["content"]) for path, method, operation in operations(document) if "requestBody" in operation}

    assert media_types
    assert {key: value for key, value in media_types.items() if value != ["application/json"] and key not in MULTIPART_ONLY} == {}
    assert {key: media_types[key] for key in MULTIPART_ONLY} == {key: ["multipart/form-data"] for key in MULTIPART_ONLY}


@pytest.mark.parametrize(
    ("content_type", "body"),
    [("application/x-www-form-urlencoded", "name=Blog&domain=form.example.com"), ("multipart/form-data; boundary=b", '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nBlog\r\n--b--\r\n')],
)
def test_the_server_refuses_form_and_multipart_bodies(tenant, as_user, content_type, body):
    response = as_user(tenant.owner).generic("POST", "/api/v1/auth/sites/", body, content_type=content_type)

    assert_error(response, 415, "unsupported_media_type", error="Unsupported media type")


def test_every_operation_has_a_summary_and_a_description(document):
    missing = [f"{method.upper()} {path}" for path, method, operation in operations(document) if not operation.get("summary") or not operation.get("description")]

    assert missing == []


def test_tags_follow_the_content_flow_before_the_account_administration(document):
    names = [tag["name"] for tag in document["tags"]]

    assert names == [name for name, _ in TAGS if name in names]
    assert names[:3] == ["library", "planner", "writer"]
    assert names[-2:] == list(ACCOUNT_ADMINISTRATION)
    for earlier, later in [("writer", "publishing"), ("publishing", "automation"), ("automation", "billing")]:
        assert names.index(earlier) < names.index(later)
    for path, _, operation in operations(document):
        assert operation["tags"] == [tag_of(path)]
    assert tag_of("/api/v1/keywords-library/") == tag_of("/api/v1/auth/keywords-library/sector_stats/") == "library"
    assert (tag_of("/api/v1/auth/login/"), tag_of("/api/v1/auth/sites/{id}/")) == ("auth", "account")


def test_a_retired_operation_leaves_the_schema_but_still_answers_410(document, api_client):
    assert not [path for path in document["paths"] if "seed-keywords" in path]

    for path in ("/api/v1/auth/seed-keywords/", "/api/v1/auth/seed-keywords/12/"):
        response = api_client.get(path)
        assert_error(response, 410, "gone", error="This endpoint was removed; use /api/v1/keywords-library/")


def test_anonymous_operations_need_no_credential_and_the_others_name_theirs(document):
    paths = document["paths"]

    assert paths["/api/v1/auth/login/"]["post"]["security"] == []
    assert paths["/api/v1/auth/register/"]["post"]["security"] == []
    assert {name for requirement in paths["/api/v1/auth/sites/"]["get"]["security"] for name in requirement} == {"bearerAuth", "apiKeyAuth", "cookieAuth"}
    assert not [f"{method} {path}" for path, method, operation in operations(document) if operation.get("security") == [{}]]


def test_a_body_whose_shape_the_path_chooses_may_fit_any_of_its_shapes(document, tenant, as_user):
    body_schema = document["paths"]["/api/v1/system/settings/content/{key}/save/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    shapes = document["components"]["schemas"][body_schema["$ref"].rsplit("/", 1)[1]]
    # Every field of both shapes is optional: an empty body fits both, which oneOf would call invalid.
    assert "oneOf" not in shapes and len(shapes["anyOf"]) == 2

    response = as_user(tenant.owner).post("/api/v1/system/settings/content/publishing/save/", {}, format="json")
    assert response.status_code == 200


def test_cms_fields_that_may_be_empty_are_not_documented_with_a_format_empty_breaks(document):
    schemas = document["components"]["schemas"]

    for name in ("ContentListItem", "Content", "ContentCreated", "PublishingRecord"):
        assert schemas[name]["properties"]["external_url"].get("format") != "uri", name
    for name in ("ContentListItem", "Content", "ContentCreated"):
        assert "pattern" not in schemas[name]["properties"]["slug"], name
