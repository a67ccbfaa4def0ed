"""The API's keyword list on plain SQL (``selectors.KeywordListPage``) answers what its ORM path
answered: for every filter alone and combined, every ordering both ways, searches with LIKE's
own characters, every page, and every caller's scope (the account, the granted sites, a
site-bound API key), the same rows with the same values and types, and the same count."""

import json
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.db.models import F, QuerySet
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from inkwell.api.renderers import EnvelopeJSONRenderer
from inkwell.planner.filters import KeywordFilter, keyword_list_filters
from inkwell.planner.models import Cluster, Keyword
from inkwell.planner.selectors import KEYWORD_LIST_FIELDS, KeywordListPage, with_difficulty_band
from inkwell.planner.tests.conftest import PLANNER
from inkwell.planner.tests.factories import make_cluster, make_keyword, make_sector
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Sector, Site

pytestmark = pytest.mark.django_db

KEYWORDS = f"{PLANNER}/keywords/"
PAGE_SIZE = 5
ORDERINGS = [prefix + field for field in ("keyword", "volume", "difficulty", "created_at") for prefix in ("", "-")]
TEXTS = [
    "best running shoes", "Running Shoes for flat feet", "cheap RUNNING shoes", "trail running shoes", "marathon training plan",
    "100% cotton socks", "socks_for_running", "back\\slash socks", "50%_off trail shoes", "knee pain after running",
    "stretching after running", "half marathon training plan", "shin splints running", "hip stretches for runners",
]
VOLUMES = (10, 800, 800, 2400, 5000)
DIFFICULTIES = (0, 45, 45, 90, 100)
STATUSES = ("active", "active", "paused", "archived")


@dataclass
class Listing:
    """The tenant's keywords on two sites, three sectors and two clusters, one archived (some
    keywords unclustered), with tied volumes and difficulties; and another account's keywords with
    the same texts."""

    site: Site
    second_site: Site
    other_site: Site
    sectors: list[Sector]
    clusters: list[Cluster]


@pytest.fixture
def listing(planner, second_site, other_tenant) -> Listing:
    other_sector = make_sector(planner.tenant)
    second_sector = second_site.sectors.get()
    clusters = [make_cluster(planner.tenant, sector=planner.sector, name="Shoes"), make_cluster(planner.tenant, site=second_site, name="Socks", status="archived")]
    places = [(planner.site, planner.sector, clusters[0]), (planner.site, other_sector, None), (second_site, second_sector, clusters[1]), (planner.site, planner.sector, None)]
    for n, text in enumerate(TEXTS * 2):
        site, sector, cluster = places[n % len(places)]
        make_keyword(
            planner.tenant, site=site, sector=sector, cluster=cluster, keyword=text,
            volume=VOLUMES[n % len(VOLUMES)], difficulty=DIFFICULTIES[(n // 2) % len(DIFFICULTIES)], status=STATUSES[n % len(STATUSES)],
        )
    for text in TEXTS[:4]:
        make_keyword(other_tenant, keyword=text, cluster=make_cluster(other_tenant, name="Theirs"))
    return Listing(planner.site, second_site, other_tenant.site, [planner.sector, other_sector, second_sector], clusters)


def filter_queries(listing: Listing) -> list[dict]:
    """Each filter alone and in combinations, as a query string gives them."""
    site, second, other = listing.site.pk, listing.second_site.pk, listing.other_site.pk
    sector, cluster = listing.sectors[0].pk, listing.clusters[0].pk
    return [
        {},
        {"site_id": site}, {"site_id": second}, {"site_id": other},
        *({"sector_id": s.pk} for s in listing.sectors),
        *({"cluster_id": c.pk} for c in listing.clusters),
        {"status": "active"}, {"status": "paused"}, {"status": "archived"},
        {"difficulty_min": 45}, {"difficulty_max": 45}, {"difficulty_min": 0, "difficulty_max": 0}, {"difficulty_min": 90, "difficulty_max": 100},
        {"volume_min": 800}, {"volume_max": 800}, {"volume_min": 801, "volume_max": 2400}, {"volume_min": 0, "volume_max": 0},
        {"search": "shoes"}, {"search": "SHOES"}, {"search": "%"}, {"search": "_"}, {"search": "\\"}, {"search": "100%"},
        {"search": "s_f"}, {"search": "%_"}, {"search": "  socks  "}, {"search": ""}, {"search": "nothing like it"},
        {"site_id": site, "status": "active", "volume_min": 800},
        {"sector_id": sector, "search": "running", "ordering": "-volume"},
        {"cluster_id": cluster, "difficulty_min": 40, "difficulty_max": 90, "ordering": "keyword"},
        {"site_id": second, "cluster_id": cluster},
        {"site_id": site, "sector_id": sector, "cluster_id": cluster, "status": "active", "difficulty_min": 0, "difficulty_max": 100,
         "volume_min": 10, "volume_max": 5000, "search": "Shoes", "ordering": "-difficulty"},
        *({"ordering": ordering} for ordering in ORDERINGS),
        *({"ordering": ordering, "status": "active", "search": "run"} for ordering in ORDERINGS),
    ]


def orm_rows(keywords: QuerySet) -> QuerySet:
    """The list's rows as its ORM path read them before plain SQL."""
    return keywords.annotate(cluster_name=F("cluster__name")).values(*KEYWORD_LIST_FIELDS)


def orm_keywords(query: dict, *, account, site_ids: frozenset[int] | None) -> QuerySet:
    """The view's queryset as ``get_queryset`` and ``DjangoFilterBackend`` built it: the account's
    keywords, on the sites the caller may touch (``restrict_to_accessible_sites``), filtered."""
    keywords = Keyword.objects.select_related("cluster").all().for_account(account)
    if site_ids is not None:
        keywords = keywords.filter(site__in=site_ids)
    filterset = KeywordFilter(QueryDict(urlencode(query)), queryset=keywords)
    assert filterset.is_valid(), filterset.errors
    return orm_rows(filterset.qs)


def typed(rows: list[dict]) -> list[list[tuple]]:
    """Every value with its name, in order, and its exact type and repr (a datetime's time zone too)."""
    return [[(name, type(value), repr(value)) for name, value in row.items()] for row in rows]


def windows(count: int) -> list[slice]:
    """The paginator's slices: every page of ``PAGE_SIZE``, and the empty one past the last."""
    return [slice(start, start + PAGE_SIZE) for start in range(0, count + PAGE_SIZE, PAGE_SIZE)]


def sql_page(query: dict, *, account, site_ids: frozenset[int] | None) -> KeywordListPage:
    cleaned = KeywordFilter.shared_form_class()(QueryDict(urlencode(query)))
    assert cleaned.is_valid(), cleaned.errors
    return KeywordListPage(keyword_list_filters(cleaned.cleaned_data, account_id=account.pk, site_ids=site_ids))


def test_every_filter_ordering_page_and_site_scope_reads_the_rows_and_count_of_the_orm(planner, listing):
    scopes = [None, frozenset({listing.site.pk}), frozenset({listing.second_site.pk}), frozenset({listing.site.pk, listing.second_site.pk}), frozenset({listing.other_site.pk})]
    compared = 0
    for query in filter_queries(listing):
        for site_ids in scopes:
            expected = orm_keywords(query, account=planner.account, site_ids=site_ids)
            page = sql_page(query, account=planner.account, site_ids=site_ids)
            count = expected.count()
            assert page.count() == len(page) == count, (query, site_ids)
            for window in windows(count):
                assert typed(page[window]) == typed(with_difficulty_band(list(expected[window]))), (query, site_ids, window)
            compared += count
    assert compared > 1000  # the grid reaches rows, not only empty answers


def test_a_caller_who_may_see_no_site_gets_no_rows_without_a_query(planner, listing, django_assert_num_queries):
    page = sql_page({"site_id": listing.site.pk}, account=planner.account, site_ids=frozenset())
    with django_assert_num_queries(0):
        assert page.count() == 0
        assert page[0:PAGE_SIZE] == []


def test_another_accounts_keywords_are_never_read_even_on_its_site(planner, listing):
    for site_ids in (None, frozenset({listing.other_site.pk})):
        assert sql_page({"site_id": listing.other_site.pk}, account=planner.account, site_ids=site_ids).count() == 0
    assert sql_page({}, account=planner.account, site_ids=None).count() == Keyword.objects.for_account(planner.account).count()


# Through the API: each caller's scope comes from the request (accessible_site_ids).


@pytest.fixture
def callers(planner, listing, as_user, api_client):
    """Each caller's client and the sites it may see: the owner (every site), an editor granted
    the first site, a viewer granted none, and the owner's API key bound to the second site."""
    tenancy.site_access_grant(account=planner.account, actor=planner.tenant.owner, user=planner.tenant.editor, site=listing.site)
    _, raw_key = tenancy.api_key_create(account=planner.account, user=planner.tenant.owner, name="cms", site=listing.second_site)
    api_client.credentials(HTTP_AUTHORIZATION=f"ApiKey {raw_key}")
    return {
        "owner": (as_user(planner.tenant.owner), None),
        "editor": (as_user(planner.tenant.editor), frozenset({listing.site.pk})),
        "viewer": (as_user(planner.tenant.viewer), frozenset()),
        "site-bound key": (api_client, frozenset({listing.second_site.pk})),
    }


def rendered(rows: list[dict]) -> list[dict]:
    return json.loads(EnvelopeJSONRenderer().render(rows))["data"]


@pytest.mark.parametrize("caller", ["owner", "editor", "viewer", "site-bound key"])
def test_each_caller_lists_on_every_page_the_json_of_the_orm_path_for_its_sites(planner, listing, callers, caller):
    client, site_ids = callers[caller]
    for query in filter_queries(listing):
        expected = orm_keywords(query, account=planner.account, site_ids=site_ids)
        count = expected.count()
        for number, window in enumerate(windows(count)[: max(1, -(-count // PAGE_SIZE))], start=1):
            response = client.get(KEYWORDS, {**query, "page": number, "page_size": PAGE_SIZE})
            assert response.status_code == 200, (query, response.content)
            body = response.json()
            assert body["count"] == count, query
            assert body["results"] == rendered(with_difficulty_band(list(expected[window]))), (query, number)
            assert [list(row) for row in body["results"]] == [[*KEYWORD_LIST_FIELDS[:9], "difficulty_band", *KEYWORD_LIST_FIELDS[9:]]] * len(body["results"])


def test_the_list_reads_its_rows_with_the_plain_sql_statement(planner, listing, owner):
    with CaptureQueriesContext(connection) as queries:
        assert owner.get(KEYWORDS, {"site_id": listing.site.pk}).status_code == 200
    table = connection.ops.quote_name(Keyword._meta.db_table)
    assert any(f"FROM {table} k LEFT OUTER JOIN" in query["sql"] for query in queries.captured_queries)
