"""Pagination: ``page`` (1-based) and ``page_size`` (default 20, larger
values clamped to 100), inside ``{success, count, next, previous, results}``."""

from urllib.parse import parse_qs, urlparse

import pytest
from django.core.paginator import EmptyPage

from inkwell.api.pagination import RowsFirstPaginator
from inkwell.api.tests import assert_error
from inkwell.api.tests.urls_for_tests import NUMBER_COUNT, PREFIX
from inkwell.tenancy.models import Site

NUMBERS = f"{PREFIX}numbers/"
LIST_KEYS = {"success", "count", "next", "previous", "results"}

pytestmark = [pytest.mark.urls("inkwell.api.tests.urls_for_tests"), pytest.mark.django_db]


def get_page(client, **params) -> dict:
    response = client.get(NUMBERS, params)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == LIST_KEYS
    assert body["success"] is True
    return body


def numbers(body: dict) -> list[int]:
    return [item["n"] for item in body["results"]]


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlparse(url).query)


def test_default_page_size_is_20(api_client):
    body = get_page(api_client)

    assert body["count"] == NUMBER_COUNT
    assert numbers(body) == list(range(1, 21))
    assert body["previous"] is None
    assert query_of(body["next"])["page"] == ["2"]


def test_page_size_is_honoured(api_client):
    body = get_page(api_client, page_size=7, page=2)

    assert numbers(body) == list(range(8, 15))
    assert query_of(body["next"]) == {"page": ["3"], "page_size": ["7"]}
    assert query_of(body["previous"]) == {"page_size": ["7"]}  # page 1 is the URL without a page


def test_page_size_above_the_maximum_is_clamped_to_100(api_client):
    body = get_page(api_client, page_size=500)

    assert numbers(body) == list(range(1, 101))
    assert body["count"] == NUMBER_COUNT


def test_page_size_of_exactly_100_is_allowed(api_client):
    assert len(get_page(api_client, page_size=100)["results"]) == 100


def test_last_page_has_the_remainder_and_no_next_link(api_client):
    body = get_page(api_client, page_size=100, page=3)

    assert numbers(body) == list(range(201, NUMBER_COUNT + 1))
    assert body["next"] is None
    assert query_of(body["previous"])["page"] == ["2"]


def test_next_links_walk_every_item_exactly_once(api_client):
    seen, url = [], f"{NUMBERS}?page_size=30"
    while url:
        body = api_client.get(url).json()
        seen.extend(numbers(body))
        url = body["next"]

    assert seen == list(range(1, NUMBER_COUNT + 1))


NOT_AN_INTEGER = "A valid integer is required"
BELOW_ONE = "Ensure this value is greater than or equal to 1"


@pytest.mark.parametrize(("value", "message"), [("abc", NOT_AN_INTEGER), ("1.5", NOT_AN_INTEGER), ("0", BELOW_ONE), ("-1", BELOW_ONE)])
def test_invalid_page_answers_400_with_a_page_field_error(api_client, value, message):
    response = api_client.get(NUMBERS, {"page": value})

    assert_error(response, 400, "validation_error", errors={"page": [message]})


@pytest.mark.parametrize(("value", "message"), [("abc", NOT_AN_INTEGER), ("0", BELOW_ONE), ("-5", BELOW_ONE)])
def test_invalid_page_size_answers_400_with_a_page_size_field_error(api_client, value, message):
    response = api_client.get(NUMBERS, {"page_size": value})

    assert_error(response, 400, "validation_error", errors={"page_size": [message]})


def test_page_past_the_end_answers_404_envelope(api_client):
    assert_error(api_client.get(NUMBERS, {"page": 99}), 404, "not_found")


def test_page_one_of_an_empty_list_is_an_empty_page(tenant, as_user):
    body = as_user(tenant.owner).get("/api/v1/auth/site-access/").json()

    assert body == {"success": True, "count": 0, "next": None, "previous": None, "results": []}


def test_real_list_endpoint_uses_the_list_envelope_and_page_size(tenant, as_user):
    for index in range(3):
        Site.objects.create(account=tenant.account, name=f"Extra {index}", domain=f"extra{index}.example.com", slug=f"extra-{index}-{tenant.account.pk}")

    response = as_user(tenant.owner).get("/api/v1/auth/sites/", {"page_size": 3})

    body = response.json()
    assert set(body) == LIST_KEYS
    assert body["count"] == 4
    assert len(body["results"]) == 3
    assert query_of(body["next"])["page"] == ["2"]


def extra_sites(tenant, count: int) -> None:
    Site.objects.bulk_create(
        Site(account=tenant.account, name=f"Extra {n}", domain=f"extra{n}.example.com", slug=f"extra-{n}-{tenant.account.pk}") for n in range(count)
    )


def sites_of(tenant):
    return Site.objects.for_account(tenant.account).order_by("pk")


def test_a_page_shorter_than_the_page_size_tells_the_total_without_a_count_query(tenant, django_assert_num_queries):
    extra_sites(tenant, 6)  # 7 with the tenant's own site
    paginator = RowsFirstPaginator(sites_of(tenant), 3)

    with django_assert_num_queries(1):
        page = paginator.page(3)
        assert paginator.count == 7
        assert paginator.num_pages == 3

    assert [site.pk for site in page] == list(sites_of(tenant).values_list("pk", flat=True))[6:]
    assert not page.has_next()


def test_an_empty_first_page_is_a_count_of_zero_without_a_count_query(tenant, django_assert_num_queries):
    paginator = RowsFirstPaginator(sites_of(tenant).filter(pk=0), 20)

    with django_assert_num_queries(1):
        page = paginator.page(1)
        assert paginator.count == 0

    assert list(page) == []


def test_a_full_page_still_counts_the_whole_list(tenant, django_assert_num_queries):
    extra_sites(tenant, 6)
    paginator = RowsFirstPaginator(sites_of(tenant), 7)

    with django_assert_num_queries(2):
        page = paginator.page(1)
        assert paginator.count == 7
        assert len(page) == 7
    assert not page.has_next()


def test_a_page_past_the_last_is_refused_after_counting(tenant):
    extra_sites(tenant, 2)

    with pytest.raises(EmptyPage):
        RowsFirstPaginator(sites_of(tenant), 3).page(2)
    with pytest.raises(EmptyPage):
        RowsFirstPaginator(sites_of(tenant), 3).page(0)


@pytest.mark.parametrize("page", ["50326060297488015360", "37708498929225513492807680"])
def test_a_page_past_any_sql_integer_is_a_404_not_a_database_error(tenant, as_user, page):
    assert_error(as_user(tenant.owner).get("/api/v1/auth/sites/", {"page": page, "page_size": 100}), 404, "not_found")
    assert_error(as_user(tenant.owner).get("/api/v1/keywords-library/", {"page": page, "page_size": 100}), 404, "not_found")
