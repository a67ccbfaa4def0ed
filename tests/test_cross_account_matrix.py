"""Cross-account matrix: account B can never read or change account A's data.

Routes are discovered from the URL conf, so an endpoint added later is covered without editing
this file. Every route under /api/v1/ must either be served by an ``AccountScopedViewSet`` or
declare ``tenant_scope`` ("public", "global" or "own_account"); a route that does neither fails
here. For scoped routes:

- every method of a detail route, called by B's owner with A's object id, answers 404 and
  leaves the object unchanged;
- B's lists never contain A's object;
- no GET response B receives, on any route, contains A's marker text;
- without credentials every non-public route answers 401.

Objects of A come from ``CROSS_ACCOUNT_FACTORIES`` in each app's ``tests/factories.py``; a path
parameter besides ``pk`` that names another row of A (``delivery_id``) is filled by that app's
``CROSS_ACCOUNT_PATH_VALUES``, from A's object.
"""

import importlib
import uuid

import pytest
from django.apps import apps
from django.forms.models import model_to_dict
from django.urls import reverse

from tests.routes import Route, discover_api_routes

DECLARED_SCOPES = {"public", "global", "own_account"}
UNSAFE_METHODS = {"post", "put", "patch", "delete"}


ROUTES = discover_api_routes()


def _factory_tables(name: str) -> dict:
    tables = {}
    for app in apps.get_app_configs():
        if not app.name.startswith("inkwell."):
            continue
        try:
            module = importlib.import_module(f"{app.name}.tests.factories")
        except ModuleNotFoundError:
            continue
        tables.update(getattr(module, name, {}))
    return tables


def _factories() -> dict:
    return _factory_tables("CROSS_ACCOUNT_FACTORIES")


def _path_value_factories() -> dict:
    return _factory_tables("CROSS_ACCOUNT_PATH_VALUES")


def _url(route: Route, values: dict) -> str:
    missing = [name for name in route.kwargs if name not in values]
    assert not missing, f"{route}: the matrix does not know how to fill {missing}; teach _path_values about them"
    return reverse(route.name, kwargs={name: values[name] for name in route.kwargs})


@pytest.fixture
def victim(make_tenant):
    return make_tenant("victim")


@pytest.fixture
def attacker(make_tenant, as_user):
    tenant = make_tenant("attacker")
    return tenant, as_user(tenant.owner)


def _victim_object(route: Route, victim, marker: str):
    model = route.view_class.queryset.model
    factory = _factories().get(model)
    assert factory, f"{route}: no cross-account factory for {model.__name__}; add one to its app's tests/factories.py"
    return factory(victim, marker)


# Routes that need the caller's site in the query (every automation GET names its site): the
# requester names one of its own sites, so what is checked is the object, not the site.
SITE_QUERY_ROUTES = {"automation-run-list", "automation-run-detail", "automation-logs"}


def _query(route: Route, tenant) -> dict:
    return {"site_id": tenant.site.pk} if route.name in SITE_QUERY_ROUTES else {}


# Path parameters that are names, not ids: any valid one will do.
NAMED_PATH_VALUES = {"prompt_type": "clustering", "key": "content_generation"}


def _path_values(victim, obj=None, route: Route | None = None) -> dict:
    values = {"site_id": victim.site.pk, **NAMED_PATH_VALUES}
    if obj is not None:
        values["pk"] = obj.pk
        values.update({name: value_of(victim, obj) for name, value_of in _path_value_factories().items()})
    if route is not None and "content_pk" in route.kwargs:
        # Rows of one content live under it (/writer/content/{id}/comments/): the victim's content.
        values["content_pk"] = getattr(obj, "content_id", None) or _factories()[apps.get_model("writer", "Content")](victim, "parent").pk
    return values


def routes_without_tenancy(routes: list[Route]) -> list[str]:
    return [str(route) for route in routes if not route.is_scoped and route.tenant_scope not in DECLARED_SCOPES]


def test_every_api_route_is_scoped_or_declares_why_not():
    undeclared = routes_without_tenancy(ROUTES)
    assert not undeclared, f"routes without tenancy: {undeclared}"
    assert all(route.name for route in ROUTES), "every API route needs a name"
    assert len(ROUTES) > 30


def test_the_matrix_sees_the_routes_it_must_cover():
    names = {route.name for route in ROUTES}
    assert {"site-list", "site-detail", "sector-detail", "user-detail", "api-key-detail", "site-access-detail"} <= names


DETAIL_ROUTES = [route for route in ROUTES if route.is_scoped and "pk" in route.kwargs]
LIST_ROUTES = [route for route in ROUTES if route.is_scoped and route.actions and route.actions.get("get") == "list"]
GET_ROUTES = [route for route in ROUTES if "get" in route.methods and route.tenant_scope != "public"]
PROTECTED_ROUTES = [route for route in ROUTES if route.tenant_scope != "public"]


@pytest.mark.django_db
@pytest.mark.parametrize("route", DETAIL_ROUTES, ids=str)
def test_another_accounts_object_is_not_found_on_every_method(route, victim, attacker):
    marker = f"victim-{uuid.uuid4().hex[:10]}"
    obj = _victim_object(route, victim, marker)
    before = model_to_dict(obj)
    attacking, client = attacker
    url = _url(route, _path_values(victim, obj, route))
    for method in route.methods:
        data = _query(route, attacking) if method == "get" else {}
        response = getattr(client, method)(url, data, format="json")
        assert response.status_code == 404, f"{method.upper()} {url} answered {response.status_code} to another account"
        assert response.json()["code"] == "not_found"
    obj.refresh_from_db()
    assert model_to_dict(obj) == before


@pytest.mark.django_db
@pytest.mark.parametrize("route", LIST_ROUTES, ids=str)
def test_another_accounts_objects_never_appear_in_lists(route, victim, attacker, as_user):
    marker = f"victim-{uuid.uuid4().hex[:10]}"
    obj = _victim_object(route, victim, marker)
    attacking, client = attacker
    url = _url(route, _path_values(victim, obj, route))
    response = client.get(url, {"page_size": 100, **_query(route, attacking)})
    if "content_pk" in route.kwargs:
        # A list under another account's content: the content itself is not found.
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    else:
        assert response.status_code == 200
        assert obj.pk not in [item["id"] for item in response.json()["results"]]
    assert marker not in response.content.decode()
    # The same list, asked by the victim, does show the object: the check above is not vacuous.
    own = as_user(victim.owner).get(url, {"page_size": 100, **_query(route, victim)})
    assert obj.pk in [item["id"] for item in own.json()["results"]]


@pytest.mark.django_db
@pytest.mark.parametrize("route", GET_ROUTES, ids=str)
def test_no_response_to_another_account_contains_the_victims_data(route, victim, attacker):
    marker = f"victim-{uuid.uuid4().hex[:10]}"
    for factory in _factories().values():
        factory(victim, f"{marker}-{uuid.uuid4().hex[:4]}")
    _, client = attacker
    obj = _victim_object(route, victim, f"{marker}-detail") if "pk" in route.kwargs and route.is_scoped else None
    obj_values = _path_values(victim, obj, route)
    if "pk" in route.kwargs and obj is None:
        obj_values["pk"] = 1
    response = client.get(_url(route, obj_values))
    assert response.status_code < 500
    assert marker not in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("route", PROTECTED_ROUTES, ids=str)
def test_every_non_public_route_needs_credentials(route, api_client, victim):
    url = _url(route, {"site_id": victim.site.pk, "pk": 1, "content_pk": 1, **NAMED_PATH_VALUES, **dict.fromkeys(_path_value_factories(), 1)})
    for method in route.methods:
        response = getattr(api_client, method)(url, {}, format="json")
        assert response.status_code == 401, f"{method.upper()} {url} answered {response.status_code} without credentials"
        assert response.json()["code"] == "authentication_required"


# Public routes that name an object (a CMS's webhook for one integration): no login, so the proof
# is a signature. Each is called with the victim's object and a body signed the only way the
# attacker can, with a secret of its own account: refused, and the victim's rows stay as they were.
PUBLIC_OBJECT_ROUTES = [route for route in ROUTES if route.tenant_scope == "public" and "pk" in route.kwargs]


def _ghost_delivery_signed_by_attacker(victim, attacking_tenant) -> tuple:
    import time

    from inkwell.cms.ghost import webhook_signature
    from inkwell.integration.models import Platform
    from inkwell.integration.tests.factories import make_integration, make_site

    target = make_integration(victim, site=make_site(victim), platform=Platform.GHOST, username="", base_url="https://victim.example.com")
    own = make_integration(attacking_tenant, site=make_site(attacking_tenant), platform=Platform.GHOST, username="", base_url="https://attacker.example.com")
    body = b'{"post":{"current":{},"previous":{"id":"' + b"a" * 24 + b'"}}}'
    now_ms = str(int(time.time() * 1000))
    signature = webhook_signature(secret=own.webhook_secret, raw_body=body, timestamp_ms=now_ms)
    return target, body, {"HTTP_X_GHOST_SIGNATURE": f"sha256={signature}, t={now_ms}"}


PUBLIC_OBJECT_DELIVERIES = {"integration-webhook-ghost": _ghost_delivery_signed_by_attacker}


def test_every_public_route_that_names_an_object_is_covered():
    assert {route.name for route in PUBLIC_OBJECT_ROUTES} == set(PUBLIC_OBJECT_DELIVERIES)


@pytest.mark.django_db
@pytest.mark.parametrize("route", PUBLIC_OBJECT_ROUTES, ids=str)
def test_a_public_route_refuses_another_accounts_object_signed_with_the_attackers_secret(route, victim, make_tenant, api_client):
    from inkwell.integration.models import WebhookDelivery

    attacking_tenant = make_tenant("attacker")
    target, body, headers = PUBLIC_OBJECT_DELIVERIES[route.name](victim, attacking_tenant)
    before = model_to_dict(target)

    response = api_client.post(_url(route, {"pk": target.pk}), body, content_type="application/json", **headers)

    assert response.status_code == 401, f"POST {route} answered {response.status_code} to another account's signature"
    target.refresh_from_db()
    assert model_to_dict(target) == before
    assert not WebhookDelivery.dangerously_unscoped.filter(integration=target).exists()


@pytest.mark.urls("tests.matrix_leaky_urls")
def test_a_new_route_that_forgets_tenancy_is_caught():
    assert routes_without_tenancy(discover_api_routes()) == ["api/v1/leaky/sites/ (LeakySiteList)"]
