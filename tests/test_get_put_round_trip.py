"""What a GET answers can be sent back unchanged to the matching PUT (or PATCH, or save), everywhere
(issue 14): read-only fields a client echoes back are ignored, and the resource stays as it was.
Fields that are not part of the resource still get their field error.

The resources are discovered from the URL conf (issue 30: a pair listed by hand missed
``update_config``): every route that answers PUT or PATCH is written back with what its GET answers,
the GET of its own path or, for a write that lives at a path of its own, the GET ``READ_ELSEWHERE``
names. A route that can take no such round trip is in ``NO_ROUND_TRIP`` with the reason."""

import importlib
import json

import pytest
from django.apps import apps
from django.urls import reverse

from inkwell.api.tests import assert_error
from inkwell.writer.services import brief_propose
from tests.routes import Route, discover_api_routes

pytestmark = pytest.mark.django_db

# What a save itself changes: the time, a prompt saved by the account is its own from then on, a
# content's version, and its word count, counted again from its body (a factory stores its own).
DERIVED = {"updated_at", "is_customized", "version", "word_count"}

# Writes whose resource is read at another route: the write's route name → the GET's route name.
READ_ELSEWHERE = {"automation-update-config": "automation-config"}

# Writes of an item that is read in its list (no GET of its own): the write's route name → the list's.
READ_IN_LIST = {"writer-comment-detail": "writer-comment-list"}

# Routes that answer PUT or PATCH but hold no resource to send back.
NO_ROUND_TRIP = {
    "auth-seed-keywords-gone": "gone: every method answers 410",
    "auth-seed-keywords-item-gone": "gone: every method answers 410",
}

# Writes that are POSTs to a path of their own (no PUT or PATCH route to discover): GET → save.
SAVED_BY_POST = {
    "/api/v1/system/settings/content/content_generation/": "/api/v1/system/settings/content/content_generation/save/",
    "/api/v1/system/settings/content/publishing/": "/api/v1/system/settings/content/publishing/save/",
}

# Routes that name their site in the query string (every automation endpoint).
SITE_QUERY_ROUTES = {"automation-config", "automation-update-config"}

# Resources of an object that exist only once made (a task's brief): the route's name → how the test makes it.
MADE_FIRST = {"writer-task-brief": lambda task: brief_propose(account=task.account, task=task)}

# Path parameters that are names, not ids: any valid one will do.
NAMED_PATH_VALUES = {"prompt_type": "clustering"}

ROUTES = {route.name: route for route in discover_api_routes()}
WRITE_ROUTES = [route for route in ROUTES.values() if {"put", "patch"} & set(route.methods) and route.name not in NO_ROUND_TRIP]


def _own_object(route: Route, tenant):
    factories = {}
    for app in apps.get_app_configs():
        if app.name.startswith("inkwell."):
            try:
                factories.update(getattr(importlib.import_module(f"{app.name}.tests.factories"), "CROSS_ACCOUNT_FACTORIES", {}))
            except ModuleNotFoundError:
                pass
    model = route.view_class.queryset.model
    assert model in factories, f"{route}: no factory for {model.__name__} in its app's tests/factories.py"
    return factories[model](tenant, "round-trip")


def _path(route: Route, tenant, own=None) -> str:
    values = {"site_id": tenant.site.pk, "pk": getattr(own, "pk", None), "content_pk": getattr(own, "content_id", None), **NAMED_PATH_VALUES}
    path = reverse(route.name, kwargs={name: values[name] for name in route.kwargs})
    return f"{path}?site_id={tenant.site.pk}" if route.name in SITE_QUERY_ROUTES else path


def round_trips(tenant) -> list[tuple[str, str, str, int | None]]:
    """(GET path, write method, write path, the item's id when the GET is its list) of every resource
    a client reads and writes back whole."""
    trips = [(read, "post", write, None) for read, write in SAVED_BY_POST.items()]
    for route in WRITE_ROUTES:
        own = _own_object(route, tenant) if "pk" in route.kwargs else None
        if route.name in MADE_FIRST:
            MADE_FIRST[route.name](own)
        read_name = READ_ELSEWHERE.get(route.name) or READ_IN_LIST.get(route.name)
        read_route = ROUTES[read_name] if read_name else route
        assert "get" in read_route.methods, f"{route}: a write with no GET; name its GET in READ_ELSEWHERE or READ_IN_LIST"
        item = own.pk if route.name in READ_IN_LIST else None
        for method in ("put", "patch"):
            if method in route.methods:
                trips.append((_path(read_route, tenant, own), method, _path(route, tenant, own), item))
    return trips


def _read(client, path: str, item: int | None) -> dict:
    data = client.get(path).json()
    if item is None:
        return data["data"]
    [found] = [entry for entry in data["results"] if entry["id"] == item]
    return found


def test_every_route_that_writes_is_discovered_with_its_get(tenant):
    names = {route.name for route in WRITE_ROUTES}

    assert {"automation-update-config", "site-unified-settings", "writer-content-detail", "site-detail"} <= names
    assert all(ROUTES[read].methods for read in READ_ELSEWHERE.values())
    assert set(NO_ROUND_TRIP) <= set(ROUTES)


def test_every_get_can_be_sent_back_unchanged_and_changes_nothing(tenant, as_user):
    client = as_user(tenant.owner)
    refused, changes = {}, {}
    for read, method, write, item in round_trips(tenant):
        before = _read(client, read, item)
        response = getattr(client, method)(write, before, format="json")
        if response.status_code != 200:
            refused[f"{method.upper()} {write}"] = response.json()
            continue
        after = _read(client, read, item)
        if isinstance(before, list):  # a list of settings, as notification preferences answer
            changed = {"the list"} if before != after else set()
        else:
            changed = {name for name in before if before[name] != after.get(name) and name not in DERIVED}
        if changed:
            changes[f"{method.upper()} {write}"] = changed
    assert not refused, json.dumps(refused, indent=1)
    assert not changes, changes


def test_the_automation_config_goes_back_without_the_query_string_naming_its_site_in_the_body(tenant, as_user):
    client = as_user(tenant.owner)
    before = client.get("/api/v1/automation/config/", {"site_id": tenant.site.pk}).json()["data"]

    response = client.put("/api/v1/automation/update_config/", {**before, "enabled": True}, format="json")

    assert response.status_code == 200, response.json()
    assert before["site_id"] == tenant.site.pk
    assert client.get("/api/v1/automation/config/", {"site_id": tenant.site.pk}).json()["data"]["enabled"] is True


def test_the_automation_config_takes_the_specs_is_enabled_and_site_id(tenant, as_user):
    client = as_user(tenant.owner)
    path = f"/api/v1/automation/update_config/?site_id={tenant.site.pk}"
    before = client.get(path.replace("update_config", "config")).json()["data"]
    body = {name: value for name, value in before.items() if name != "enabled"}

    response = client.put(path, {**body, "site_id": tenant.site.pk, "is_enabled": True}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["data"]["enabled"] is True


def test_the_automation_configs_two_names_of_one_thing_must_agree(tenant, make_tenant, as_user):
    client = as_user(tenant.owner)
    path = f"/api/v1/automation/update_config/?site_id={tenant.site.pk}"
    before = client.get(path.replace("update_config", "config")).json()["data"]
    other = make_tenant("other")

    assert_error(client.put(path, {**before, "is_enabled": not before["enabled"]}, format="json"), 400, "validation_error", errors={"is_enabled": ["Differs from enabled"]})
    assert_error(client.put(path, {**before, "site_id": other.site.pk}, format="json"), 400, "validation_error", errors={"site_id": ["Site must belong to your account"]})
    assert_error(client.put("/api/v1/automation/update_config/", {name: v for name, v in before.items() if name != "site_id"}, format="json"), 400, "validation_error", errors={"site_id": ["This field is required"]})


def test_a_field_that_is_not_part_of_the_resource_is_still_refused(tenant, as_user):
    client = as_user(tenant.owner)
    path = "/api/v1/system/settings/integrations/ai_provider/"
    body = {**client.get(path).json()["data"], "temperature": 0.3}

    assert_error(client.put(path, body, format="json"), 400, "validation_error", errors={"temperature": ["Unknown field"]})
