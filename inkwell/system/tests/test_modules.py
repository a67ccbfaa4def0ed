"""/system/modules/ and the ModuleEnabled permission: a switched-off module answers 403 module_disabled."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.tests import assert_error
from inkwell.system import selectors
from inkwell.system.models import ModuleSetting

URL = "/api/v1/system/modules/"
ALL_ON = {"planner": True, "writer": True, "automation": True, "linker": True, "optimizer": True, "publisher": True, "integration": True}

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


def test_every_module_is_enabled_until_switched_off(owner):
    response = owner.get(URL)
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"modules": ALL_ON}}


def test_a_save_switches_the_named_modules_and_keeps_the_others(owner, tenant):
    response = owner.put(URL, {"modules": {"planner": False, "linker": False}}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["modules"] == {**ALL_ON, "planner": False, "linker": False}

    response = owner.put(URL, {"modules": {"planner": True}}, format="json")
    assert response.json()["data"]["modules"] == {**ALL_ON, "linker": False}
    assert owner.get(URL).json()["data"]["modules"] == {**ALL_ON, "linker": False}
    assert selectors.module_enabled(tenant.account, "planner")
    assert not selectors.module_enabled(tenant.account, "linker")


def test_an_unknown_module_is_a_400_naming_it_and_nothing_changes(owner, tenant):
    response = owner.put(URL, {"modules": {"planner": False, "blog": False}}, format="json")
    assert_error(response, 400, "validation_error", errors={"modules.blog": ["Unknown module"]})
    assert not ModuleSetting.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"modules": ["This field is required"]}),
        ({"modules": {"planner": "sometimes"}}, {"modules.planner": ["Must be a valid boolean."]}),
        ({"modules": {"planner": False}, "theme": "dark"}, {"theme": ["Unknown field"]}),
    ],
)
def test_a_malformed_save_is_a_400(owner, body, errors):
    assert_error(owner.put(URL, body, format="json"), 400, "validation_error", errors=errors)


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_only_owners_and_admins_switch_modules(tenant, as_user, role):
    client = as_user(tenant.user(role))
    assert client.get(URL).status_code == 200
    assert_error(client.put(URL, {"modules": {"planner": False}}, format="json"), 403, "permission_denied")
    assert not ModuleSetting.objects.for_account(tenant.account).exists()


def test_an_unknown_module_name_is_a_programming_error(tenant):
    with pytest.raises(ValueError):
        selectors.module_enabled(tenant.account, "blog")


@pytest.mark.urls("inkwell.system.tests.module_urls")
def test_a_view_of_a_disabled_module_answers_module_disabled(owner):
    assert owner.get("/probe/planner/").status_code == 200
    owner.put(URL, {"modules": {"planner": False}}, format="json")
    assert_error(owner.get("/probe/planner/"), 403, "module_disabled")
    assert owner.get("/probe/writer/").status_code == 200
    assert owner.get("/probe/none/").status_code == 200
    owner.put(URL, {"modules": {"planner": True}}, format="json")
    assert owner.get("/probe/planner/").status_code == 200


@pytest.mark.urls("inkwell.system.tests.module_urls")
def test_another_accounts_switch_does_not_disable_a_module_here(owner, other_tenant, as_user):
    as_user(other_tenant.owner).put(URL, {"modules": {"planner": False}}, format="json")
    assert owner.get("/probe/planner/").status_code == 200
    assert_error(as_user(other_tenant.viewer).get("/probe/planner/"), 403, "module_disabled")


@pytest.mark.urls("inkwell.system.tests.module_urls")
def test_with_the_cache_off_the_module_check_is_one_query_per_request(owner, settings):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 0
    owner.get("/probe/planner/")
    with CaptureQueriesContext(connection) as queries:
        owner.get("/probe/planner/")
        owner.get("/probe/writer/")

    assert sum('"system_modulesetting"' in query["sql"] for query in queries.captured_queries) == 2


@pytest.mark.urls("inkwell.system.tests.module_urls")
def test_the_module_check_reads_the_switches_once_then_the_cache_and_only_where_a_module_is_declared(owner, settings):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300
    owner.get("/probe/none/")  # warms per-process state
    with CaptureQueriesContext(connection) as without_module:
        owner.get("/probe/none/")
    with CaptureQueriesContext(connection) as first:
        owner.get("/probe/planner/")
    with CaptureQueriesContext(connection) as next_ones:
        owner.get("/probe/planner/")
        owner.get("/probe/writer/")

    def switch_reads(queries) -> int:
        return sum('"system_modulesetting"' in query["sql"] for query in queries.captured_queries)

    assert (switch_reads(without_module), switch_reads(first), switch_reads(next_ones)) == (0, 1, 0)


@pytest.mark.urls("inkwell.system.tests.module_urls")
def test_a_switch_changed_outside_the_api_is_seen_on_the_next_request(owner, tenant, settings):
    settings.INKWELL_PRINCIPAL_CACHE_SECONDS = 300
    assert owner.get("/probe/planner/").status_code == 200  # cached: nothing switched off

    row = ModuleSetting.objects.create(account=tenant.account, module="planner", enabled=False)
    assert_error(owner.get("/probe/planner/"), 403, "module_disabled")

    row.delete()
    assert owner.get("/probe/planner/").status_code == 200


@pytest.mark.urls("inkwell.system.tests.module_urls")
def test_an_unauthenticated_request_is_refused_before_the_module_check(api_client):
    assert_error(api_client.get("/probe/planner/"), 401, "authentication_required")
