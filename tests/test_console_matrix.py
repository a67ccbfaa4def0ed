"""The console's cross-account and role matrix: routes come from the URL conf, so a console page
added later is covered without editing this file.

- Every console route is a ``ConsoleView`` (signed in, the API's permission classes) or declares
  ``tenant_scope = "public"`` (sign-in pages); every route that names an object declares its
  ``model``.
- Another account's id answers 404 on every method, and the object does not change.
- The owning account reads every such page (the 404s above are not vacuous).
- A viewer, who may read but not act, is answered 403 on every POST that needs a writer role,
  and the pages a viewer reads show no form that posts to such a route (no button to press).
- A reviewer (#36), who may comment and approve but not edit or publish, is likewise answered
  403 on every POST that needs a writer role, and sees no form that posts to one.
- Without a session every non-public page sends the browser to sign in.
"""

import re
import uuid

import pytest
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import resolve, reverse

from inkwell.console.base import ConsoleView
from inkwell.tenancy.models import Role, RoleName, Site, SiteUserAccess, User
from tests.routes import discover_console_routes
from tests.test_cross_account_matrix import _factories

ROUTES = discover_console_routes()
OBJECT_ROUTES = [route for route in ROUTES if route.kwargs and route.tenant_scope != "public"]
PROTECTED_ROUTES = [route for route in ROUTES if route.tenant_scope != "public"]
WRITE_ROUTES = [route for route in PROTECTED_ROUTES if "post" in route.methods and RoleName.VIEWER not in route.view_class.write_roles]
REVIEWER_WRITE_ROUTES = [route for route in PROTECTED_ROUTES if "post" in route.methods and RoleName.REVIEWER not in route.view_class.write_roles]
READ_ROUTES = [route for route in PROTECTED_ROUTES if "get" in route.methods]
FORM_ACTION = re.compile(r'<form[^>]*method="post"[^>]*action="([^"]+)"|<form[^>]*action="([^"]+)"[^>]*method="post"')


def test_every_console_route_is_signed_in_or_declares_it_is_public():
    loose = [str(route) for route in ROUTES if not issubclass(route.view_class, ConsoleView) and route.tenant_scope != "public"]
    assert not loose, f"console routes outside ConsoleView: {loose}"
    assert all(route.view_class.model is not None for route in OBJECT_ROUTES), "a route naming an object must declare its model"
    assert len(OBJECT_ROUTES) >= 20


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _object_of(route, tenant, marker):
    model = route.view_class.model
    if model is Site:
        return tenant.site
    return _factories()[model](tenant, marker)


def _url(route, obj) -> str:
    key = route.kwargs[0]
    return reverse(route.name, kwargs={key: obj.site_id if key == "site_id" and not isinstance(obj, Site) else obj.pk})


@pytest.fixture
def victim(make_tenant):
    return make_tenant("victim")


@pytest.mark.django_db
@pytest.mark.parametrize("route", OBJECT_ROUTES, ids=str)
def test_another_accounts_object_is_not_found_on_every_method(route, victim, make_tenant):
    attacker = make_tenant("attacker")
    obj = _object_of(route, victim, f"victim-{uuid.uuid4().hex[:10]}")
    before = model_to_dict(obj)
    client = _signed_in(attacker.owner)
    url = _url(route, obj)
    for method in route.methods:
        response = getattr(client, method)(url, {"status": "review", "ids": [obj.pk], "alt_text": "x", "name": "x"})
        assert response.status_code == 404, f"{method.upper()} {url} answered {response.status_code} to another account"
    obj.refresh_from_db()
    assert model_to_dict(obj) == before


@pytest.mark.django_db
@pytest.mark.parametrize("route", [route for route in OBJECT_ROUTES if "get" in route.methods], ids=str)
def test_the_owning_account_reads_the_page(route, victim):
    obj = _object_of(route, victim, f"own-{uuid.uuid4().hex[:10]}")
    response = _signed_in(victim.owner).get(_url(route, obj))
    assert response.status_code == 200, f"GET {_url(route, obj)} answered {response.status_code} to its own account"


@pytest.fixture
def viewer(victim):
    SiteUserAccess.objects.create(account=victim.account, user=victim.viewer, site=victim.site)
    return victim.viewer


@pytest.mark.django_db
@pytest.mark.parametrize("route", WRITE_ROUTES, ids=str)
def test_a_viewer_who_posts_anyway_is_refused(route, victim, viewer):
    obj = _object_of(route, victim, f"viewer-{uuid.uuid4().hex[:10]}") if route.kwargs else None
    before = model_to_dict(obj) if obj is not None else None
    url = _url(route, obj) if obj is not None else reverse(route.name)
    response = _signed_in(viewer).post(url, {"status": "review", "ids": [obj.pk] if obj else [], "alt_text": "x", "name": "x", "domain": "x.example.com"})
    assert response.status_code == 403, f"POST {url} answered {response.status_code} to a viewer"
    if obj is not None:
        obj.refresh_from_db()
        assert model_to_dict(obj) == before


def _form_targets(html: str) -> list[str]:
    return [first or second for first, second in FORM_ACTION.findall(html)]


@pytest.mark.django_db
@pytest.mark.parametrize("route", READ_ROUTES, ids=str)
def test_a_viewer_sees_no_button_it_may_not_press(route, victim, viewer):
    obj = _object_of(route, victim, f"viewer-{uuid.uuid4().hex[:10]}") if route.kwargs else None
    url = _url(route, obj) if obj is not None else reverse(route.name)
    response = _signed_in(viewer).get(url, follow=True)
    assert response.status_code == 200
    forbidden = []
    for action in _form_targets(response.content.decode()):
        target = resolve(action.split("?")[0]).func.view_class
        if issubclass(target, ConsoleView) and RoleName.VIEWER not in target.write_roles:
            forbidden.append(action)
    assert not forbidden, f"{url} shows a viewer forms it may not submit: {forbidden}"


@pytest.fixture
def reviewer(victim):
    user = User.dangerously_unscoped.create_user("reviewer-victim@example.com", "correct-horse-1", account=victim.account, role=Role.objects.get(name=RoleName.REVIEWER))
    SiteUserAccess.objects.create(account=victim.account, user=user, site=victim.site)
    return user


@pytest.mark.django_db
@pytest.mark.parametrize("route", REVIEWER_WRITE_ROUTES, ids=str)
def test_a_reviewer_who_posts_anyway_is_refused(route, victim, reviewer):
    obj = _object_of(route, victim, f"reviewer-{uuid.uuid4().hex[:10]}") if route.kwargs else None
    before = model_to_dict(obj) if obj is not None else None
    url = _url(route, obj) if obj is not None else reverse(route.name)
    response = _signed_in(reviewer).post(url, {"status": "review", "ids": [obj.pk] if obj else [], "alt_text": "x", "name": "x", "domain": "x.example.com"})
    assert response.status_code == 403, f"POST {url} answered {response.status_code} to a reviewer"
    if obj is not None:
        obj.refresh_from_db()
        assert model_to_dict(obj) == before


@pytest.mark.django_db
@pytest.mark.parametrize("route", READ_ROUTES, ids=str)
def test_a_reviewer_sees_no_button_it_may_not_press(route, victim, reviewer):
    obj = _object_of(route, victim, f"reviewer-{uuid.uuid4().hex[:10]}") if route.kwargs else None
    url = _url(route, obj) if obj is not None else reverse(route.name)
    response = _signed_in(reviewer).get(url, follow=True)
    assert response.status_code == 200
    forbidden = []
    for action in _form_targets(response.content.decode()):
        target = resolve(action.split("?")[0]).func.view_class
        if issubclass(target, ConsoleView) and RoleName.REVIEWER not in target.write_roles:
            forbidden.append(action)
    assert not forbidden, f"{url} shows a reviewer forms it may not submit: {forbidden}"


@pytest.mark.django_db
@pytest.mark.parametrize("route", PROTECTED_ROUTES, ids=str)
def test_every_console_page_needs_a_session(route, client, victim):
    url = reverse(route.name, kwargs={key: victim.site.pk for key in route.kwargs})
    for method in route.methods:
        response = getattr(client, method)(url)
        assert response.status_code == 302 and response.headers["Location"].startswith("/app/signin/"), f"{method.upper()} {url}"
