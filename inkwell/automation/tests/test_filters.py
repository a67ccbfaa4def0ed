"""The automation lists' FilterSets (``RunFilter``, ``LogFilter``): the site they name comes first,
and a bad parameter is answered in the words of the query serializers they replaced."""

from unittest.mock import ANY

import pytest

from inkwell.api.tests import assert_error
from inkwell.automation.models import RunStatus
from inkwell.automation.serializers import INVALID_LEVEL
from inkwell.automation.tests.factories import make_log, make_run

pytestmark = pytest.mark.django_db

API = "/api/v1/automation/"


@pytest.fixture
def owner(tenant, as_user):
    return as_user(tenant.owner)


@pytest.mark.parametrize("path", ["runs/", "logs/"])
@pytest.mark.parametrize(
    ("site_id", "message"),
    [("abc", "A valid integer is required."), ("", "A valid integer is required."), ("0", "Ensure this value is greater than or equal to 1.")],
)
def test_a_list_refuses_a_site_id_that_is_not_an_id(tenant, owner, path, site_id, message):
    assert_error(owner.get(f"{API}{path}", {"site_id": site_id}), 400, "validation_error", errors={"site_id": [message]})


@pytest.mark.parametrize(("path", "bad"), [("runs/", {"status": "asleep"}), ("logs/", {"level": "debug"})])
def test_another_accounts_site_is_a_404_before_the_other_parameters_are_read(tenant, other_tenant, owner, path, bad):
    assert_error(owner.get(f"{API}{path}", {"site_id": other_tenant.site.pk, **bad}), 404, "not_found")


@pytest.mark.parametrize(("path", "bad"), [("runs/", {"status": "asleep"}), ("logs/", {"level": "debug"})])
def test_a_site_id_that_is_not_an_id_is_reported_with_the_other_bad_parameters(tenant, owner, path, bad):
    body = assert_error(owner.get(f"{API}{path}", {"site_id": "x", **bad}), 400, "validation_error", errors=ANY)
    assert list(body["errors"]) == ["site_id", *bad]


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ({"status": ""}, {"status": ["Invalid status value"]}),
        ({"status": "asleep"}, {"status": ["Invalid status value"]}),
    ],
)
def test_the_runs_list_answers_a_bad_status_in_the_query_serializers_words(tenant, owner, query, errors):
    assert_error(owner.get(f"{API}runs/", {"site_id": tenant.site.pk, **query}), 400, "validation_error", errors=errors)


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ({"level": ""}, {"level": [INVALID_LEVEL]}),
        ({"stage": "0"}, {"stage": ["Ensure this value is greater than or equal to 1."]}),
        ({"stage": ""}, {"stage": ["A valid integer is required."]}),
        ({"run_id": "9223372036854775808"}, {"run_id": ["Ensure this value is less than or equal to 9223372036854775807."]}),
    ],
)
def test_the_log_answers_bad_filters_in_the_query_serializers_words(tenant, owner, query, errors):
    assert_error(owner.get(f"{API}logs/", {"site_id": tenant.site.pk, **query}), 400, "validation_error", errors=errors)


def test_a_run_is_addressed_by_its_id_whatever_the_list_filters_say(tenant, owner):
    run = make_run(tenant, status=RunStatus.COMPLETED)
    response = owner.get(f"{API}runs/{run.pk}/", {"site_id": tenant.site.pk, "status": "asleep"})
    assert response.status_code == 200, response.content
    assert response.json()["data"]["id"] == run.pk


def test_the_log_of_one_run_is_newest_first_by_id(tenant, owner):
    run = make_run(tenant)
    lines = [make_log(run, stage=1, message=f"line {n}") for n in range(3)]
    response = owner.get(f"{API}logs/", {"site_id": tenant.site.pk, "run_id": run.pk})
    assert response.status_code == 200, response.content
    assert [item["id"] for item in response.json()["results"]] == [line.pk for line in reversed(lines)]
