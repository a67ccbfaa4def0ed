"""The keywords library list over a generated library of 1,500 keywords (conftest.library).

Every filter and ordering is checked against every item of every page, and the ids returned are
compared with what the database holds (computed here in Python from the rows, so a filter that
drops or adds rows fails). Pagination, validation, the two paths, the retired path, read-only
access and tenancy follow.
"""

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import pytest

from inkwell.keywords.models import SeedKeyword, SeedKeywordStats
from inkwell.keywords.tests.conftest import BAND_EDGES, COUNTRIES, LIBRARY_PATHS, STATS_PATHS, TIED_VOLUMES, Library, assert_error, band_of, queries_of

pytestmark = pytest.mark.usefixtures("unthrottled")

LIBRARY, AUTH_LIBRARY = LIBRARY_PATHS
ITEM_FIELDS = [
    "id",
    "keyword",
    "volume",
    "difficulty",
    "country",
    "industry_sector",
    "industry_sector_name",
    "is_high_opportunity",
    "is_paid",
    "credit_cost",
    "created_at",
]
BANDS = ("easy", "medium", "hard", "very_hard")
ORDERING_FIELDS = ("keyword", "volume", "difficulty", "country")
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
# The user, the count, the page (one statement: a deferred join).
LIST_QUERIES = 3
ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


# --- helpers ---------------------------------------------------------------------------------


def fetch_all(http, path: str, params: dict | None = None, page_size: int | None = MAX_PAGE_SIZE) -> list[dict]:
    """Every item of a listing, following ``next`` links; checks the envelope of every page on the way."""
    query = dict(params or {})
    if page_size is not None:
        query["page_size"] = page_size
    expected_page_length = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    response = http.get(path, query)
    pages = []
    while True:
        assert response.status_code == 200, (response.status_code, response.content[:500])
        body = response.json()
        assert list(body) == ["success", "count", "next", "previous", "results"] and body["success"] is True
        pages.append(body)
        if body["next"] is None:
            break
        assert urlsplit(body["next"]).path == path
        response = http.get(body["next"])

    count = pages[0]["count"]
    assert all(page["count"] == count for page in pages), "count changed between pages"
    assert pages[0]["previous"] is None
    for number, page in enumerate(pages[1:], start=2):
        previous = parse_qs(urlsplit(page["previous"]).query)
        assert previous.get("page", ["1"]) == [str(number - 1)]
    assert all(len(page["results"]) == expected_page_length for page in pages[:-1])
    items = [item for page in pages for item in page["results"]]
    assert len(items) == count
    return items


def library_rows() -> dict[int, dict]:
    """Every keyword, shaped like a list item for the predicates (band from the number, by the test's own rule)."""
    rows = SeedKeyword.objects.values(
        "id", "keyword", "volume", "difficulty", "country", "industry_sector_id", "industry_sector__name", "is_high_opportunity", "is_paid", "credit_cost", "created_at"
    )
    return {
        row["id"]: {
            **row,
            "band": band_of(row["difficulty"]),
            "industry_sector": row["industry_sector_id"],
            "industry_sector_name": row["industry_sector__name"],
        }
        for row in rows
    }


def sort_key(field: str) -> Callable[[dict], object]:
    """The order the database must produce for ``field``; text compares in the database's own collation."""
    if field in ("keyword", "country"):
        ranks = {text: rank for rank, text in enumerate(SeedKeyword.objects.order_by(field).values_list(field, flat=True).distinct())}
        return lambda row: ranks[row[field]]
    return lambda row: row[field]


def expected_ids(rows: dict[int, dict], matches: Callable[[dict], bool], ordering: str) -> list[int]:
    """The ids the list must return, in order: requested field, then id, both in the requested direction."""
    field = ordering.lstrip("-")
    key = sort_key(field)
    selected = [row for row in rows.values() if matches(row)]
    return [row["id"] for row in sorted(selected, key=lambda row: (key(row), row["id"]), reverse=ordering.startswith("-"))]


def item_matches_row(item: dict, row: dict) -> bool:
    return item == {
        "id": row["id"],
        "keyword": row["keyword"],
        "volume": row["volume"],
        "difficulty": row["band"],
        "country": row["country"],
        "industry_sector": row["industry_sector"],
        "industry_sector_name": row["industry_sector_name"],
        "is_high_opportunity": row["is_high_opportunity"],
        "is_paid": row["is_paid"],
        "credit_cost": row["credit_cost"],
        "created_at": row["created_at"].astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
    }


def assert_listing(http, params: dict, matches: Callable[[dict], bool], *, path: str = LIBRARY, page_size: int | None = MAX_PAGE_SIZE) -> list[dict]:
    """Fetches every page and checks each item against the filter and the database, and the whole sequence."""
    items = fetch_all(http, path, params, page_size=page_size)
    rows = library_rows()
    for item in items:
        row = rows[item["id"]]
        assert item_matches_row(item, row), (item, row)
        assert matches(row), f"{item} does not satisfy {params}"
    assert [item["id"] for item in items] == expected_ids(rows, matches, params.get("ordering", "-volume"))
    return items


def snapshot() -> tuple[list, list]:
    keywords = list(SeedKeyword.objects.order_by("id").values_list())
    totals = list(SeedKeywordStats.objects.order_by("id").values_list())
    return keywords, totals


# --- the generated library -------------------------------------------------------------------


def test_generated_library_covers_what_these_tests_rely_on(library):
    rows = library_rows().values()
    assert len(rows) >= 1000
    assert {row["industry_sector"] for row in rows} == set(library.sector_ids)
    assert {row["difficulty"] for row in rows} >= set(BAND_EDGES)
    assert {row["country"] for row in rows} == set(COUNTRIES)
    volumes = Counter(row["volume"] for row in rows)
    assert all(volumes[volume] >= 10 for volume in TIED_VOLUMES), "equal volumes exercise the tie-breaker"
    assert max(Counter(row["keyword"] for row in rows).values()) >= 5, "equal keywords exercise the tie-breaker"
    assert {"blue", "Blue", "BLUE"} <= {row["keyword"].split()[0] for row in rows}
    assert {(row["is_paid"], row["is_high_opportunity"]) for row in rows} == {(False, False), (False, True), (True, False), (True, True)}
    assert all(row["credit_cost"] == 0 for row in rows if not row["is_paid"])
    assert all(row["credit_cost"] > 0 for row in rows if row["is_paid"])


# --- items -----------------------------------------------------------------------------------


def test_every_item_has_exactly_the_spec_fields_and_matches_its_keyword(library, http):
    items = assert_listing(http, {}, lambda row: True)
    assert len(items) == SeedKeyword.objects.count()
    for item in items:
        assert list(item) == ITEM_FIELDS
        assert item["difficulty"] in BANDS
        assert ISO_UTC.match(item["created_at"]), item["created_at"]
        assert isinstance(item["credit_cost"], int) and (item["credit_cost"] == 0) == (not item["is_paid"])


@pytest.mark.parametrize(
    "difficulty, band",
    [(0, "easy"), (25, "easy"), (26, "medium"), (50, "medium"), (51, "hard"), (75, "hard"), (76, "very_hard"), (100, "very_hard")],
)
def test_difficulty_is_shown_as_its_band_at_every_band_edge(library, http, difficulty, band):
    ids = set(SeedKeyword.objects.filter(difficulty=difficulty).values_list("id", flat=True))
    assert ids
    shown = {item["id"]: item["difficulty"] for item in fetch_all(http, LIBRARY, {"difficulty": band})}
    assert ids <= set(shown), f"keywords of difficulty {difficulty} missing from the {band} band"
    assert {shown[pk] for pk in ids} == {band}


# --- filters ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterCase:
    name: str
    params: Callable[[Library], dict]
    matches: Callable[[Library], Callable[[dict], bool]]

    def __str__(self):
        return self.name


def _case(name, params, matches) -> FilterCase:
    return FilterCase(name, params, matches)


FILTER_CASES = [
    _case("one sector", lambda lib: {"sector_ids": str(lib.sector_ids[0])}, lambda lib: lambda r: r["industry_sector"] == lib.sector_ids[0]),
    _case(
        "two sectors with spaces and a repeat",
        lambda lib: {"sector_ids": f"{lib.sector_ids[1]}, {lib.sector_ids[3]},{lib.sector_ids[1]}"},
        lambda lib: lambda r: r["industry_sector"] in {lib.sector_ids[1], lib.sector_ids[3]},
    ),
    _case(
        "sectors without keywords add nothing",
        lambda lib: {"sector_ids": f"{lib.sector_ids[2]},{lib.empty_sector.pk},999999"},
        lambda lib: lambda r: r["industry_sector"] == lib.sector_ids[2],
    ),
    _case("only an empty sector", lambda lib: {"sector_ids": str(lib.empty_sector.pk)}, lambda lib: lambda r: False),
    _case("blank sector ids filter nothing", lambda lib: {"sector_ids": ""}, lambda lib: lambda r: True),
    _case("search lowercase finds every case", lambda lib: {"search": "blue"}, lambda lib: lambda r: "blue" in r["keyword"].lower()),
    _case("search uppercase finds every case", lambda lib: {"search": "WIDGET"}, lambda lib: lambda r: "widget" in r["keyword"].lower()),
    _case("search inside a word", lambda lib: {"search": "dge"}, lambda lib: lambda r: "dge" in r["keyword"].lower()),
    _case("search with spaces", lambda lib: {"search": "  Near Me "}, lambda lib: lambda r: "near me" in r["keyword"].lower()),
    _case("search without matches", lambda lib: {"search": "zzz"}, lambda lib: lambda r: False),
    _case("country", lambda lib: {"country": "GB"}, lambda lib: lambda r: r["country"] == "GB"),
    _case("country in lowercase", lambda lib: {"country": "de"}, lambda lib: lambda r: r["country"] == "DE"),
    _case("country without keywords", lambda lib: {"country": "JP"}, lambda lib: lambda r: False),
    _case("volume_min", lambda lib: {"volume_min": 50000}, lambda lib: lambda r: r["volume"] >= 50000),
    _case("volume_max", lambda lib: {"volume_max": 480}, lambda lib: lambda r: r["volume"] <= 480),
    _case("volume range", lambda lib: {"volume_min": 1000, "volume_max": 30000}, lambda lib: lambda r: 1000 <= r["volume"] <= 30000),
    _case("volume exactly", lambda lib: {"volume_min": 1000, "volume_max": 1000}, lambda lib: lambda r: r["volume"] == 1000),
    _case("volume zero", lambda lib: {"volume_min": 0, "volume_max": 0}, lambda lib: lambda r: r["volume"] == 0),
    *(_case(f"difficulty {band}", lambda lib, band=band: {"difficulty": band}, lambda lib, band=band: lambda r: r["band"] == band) for band in BANDS),
    _case("high opportunity", lambda lib: {"is_high_opportunity": "true"}, lambda lib: lambda r: r["is_high_opportunity"]),
    _case("not high opportunity", lambda lib: {"is_high_opportunity": "false"}, lambda lib: lambda r: not r["is_high_opportunity"]),
    _case("paid", lambda lib: {"is_paid": "true"}, lambda lib: lambda r: r["is_paid"]),
    _case("free", lambda lib: {"is_paid": "false"}, lambda lib: lambda r: not r["is_paid"]),
    _case("paid as 1", lambda lib: {"is_paid": "1"}, lambda lib: lambda r: r["is_paid"]),
    _case(
        "sector, country, band, paid and opportunity (counted from the totals)",
        lambda lib: {"sector_ids": f"{lib.sector_ids[0]},{lib.sector_ids[4]}", "country": "US", "difficulty": "hard", "is_paid": "false", "is_high_opportunity": "false"},
        lambda lib: lambda r: r["industry_sector"] in {lib.sector_ids[0], lib.sector_ids[4]}
        and r["country"] == "US"
        and r["band"] == "hard"
        and not r["is_paid"]
        and not r["is_high_opportunity"],
    ),
    _case(
        "search, volume range and country (counted from the keywords)",
        lambda lib: {"search": "Green", "volume_min": 100, "volume_max": 90000, "country": "FR"},
        lambda lib: lambda r: "green" in r["keyword"].lower() and 100 <= r["volume"] <= 90000 and r["country"] == "FR",
    ),
    _case(
        "sector, search, band and paid",
        lambda lib: {"sector_ids": str(lib.sector_ids[5]), "search": "bike", "difficulty": "easy", "is_paid": "true"},
        lambda lib: lambda r: r["industry_sector"] == lib.sector_ids[5] and "bike" in r["keyword"].lower() and r["band"] == "easy" and r["is_paid"],
    ),
    _case(
        "every filter at once",
        lambda lib: {
            "sector_ids": ",".join(map(str, lib.sector_ids[:3])),
            "search": "e",
            "country": "in",
            "volume_min": 10,
            "volume_max": 99000,
            "difficulty": "medium",
            "is_high_opportunity": "true",
            "is_paid": "false",
        },
        lambda lib: lambda r: r["industry_sector"] in set(lib.sector_ids[:3])
        and "e" in r["keyword"].lower()
        and r["country"] == "IN"
        and 10 <= r["volume"] <= 99000
        and r["band"] == "medium"
        and r["is_high_opportunity"]
        and not r["is_paid"],
    ),
]


@pytest.mark.parametrize("case", FILTER_CASES, ids=str)
def test_every_filter_returns_exactly_the_matching_keywords_on_every_page(library, http, case):
    matches = case.matches(library)
    assert_listing(http, case.params(library), matches)


@pytest.mark.postgres_only  # SQLite's LIKE folds the case of ASCII letters only
def test_search_ignores_case_beyond_ascii(library, http):
    keyword = SeedKeyword.objects.create(keyword="Café MÜNCHEN", difficulty=3, industry_sector=library.sectors[0])
    for search in ("münchen", "MÜNCHEN", "café", "CAFÉ", "fé mü"):
        assert [item["id"] for item in fetch_all(http, LIBRARY, {"search": search})] == [keyword.pk], search


def test_filters_that_match_nothing_return_an_empty_first_page(library, http):
    response = http.get(LIBRARY, {"search": "no such keyword"})
    assert response.status_code == 200
    assert response.json() == {"success": True, "count": 0, "next": None, "previous": None, "results": []}


# --- ordering --------------------------------------------------------------------------------


ORDERINGS = [prefix + field for field in ORDERING_FIELDS for prefix in ("", "-")]


@pytest.mark.parametrize("ordering", ORDERINGS)
def test_every_ordering_sorts_the_whole_library_with_id_as_tie_breaker(library, http, ordering):
    items = assert_listing(http, {"ordering": ordering}, lambda row: True)
    assert len(items) == SeedKeyword.objects.count()


def test_default_ordering_is_descending_volume_then_descending_id(library, http):
    by_default = fetch_all(http, LIBRARY)
    assert by_default == fetch_all(http, LIBRARY, {"ordering": "-volume"})
    assert [item["id"] for item in by_default] == expected_ids(library_rows(), lambda row: True, "-volume")


@pytest.mark.parametrize("ordering", ["difficulty", "-keyword", "country"])
def test_ordering_applies_within_a_filter(library, http, ordering):
    sector = library.sector_ids[2]
    assert_listing(http, {"ordering": ordering, "sector_ids": str(sector), "is_paid": "false"}, lambda r: r["industry_sector"] == sector and not r["is_paid"])


# --- pagination ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "page_size, ordering",
    [(7, "country"), (None, "volume"), (33, "-difficulty"), (MAX_PAGE_SIZE, "-volume"), (250, "keyword")],
    ids=["7-by-country", "default-by-volume", "33-by-difficulty", "100-by-volume", "250-clamped-by-keyword"],
)
def test_pages_concatenate_to_every_keyword_exactly_once_in_order(library, http, page_size, ordering):
    # Small pages walk one sector, to keep the number of requests reasonable.
    params = {"ordering": ordering, **({"sector_ids": str(library.sector_ids[1])} if page_size and page_size < 20 else {})}
    reference = fetch_all(http, LIBRARY, params, page_size=MAX_PAGE_SIZE)
    paged = fetch_all(http, LIBRARY, params, page_size=page_size)
    ids = [item["id"] for item in paged]
    assert len(ids) == len(set(ids)), "an id appeared on two pages"
    assert ids == [item["id"] for item in reference]
    assert len(ids) == (SeedKeyword.objects.filter(industry_sector_id=library.sector_ids[1]).count() if "sector_ids" in params else SeedKeyword.objects.count())


def test_page_size_above_the_maximum_is_clamped_to_100(library, http):
    body = http.get(LIBRARY, {"page_size": 5000}).json()
    assert len(body["results"]) == MAX_PAGE_SIZE
    assert parse_qs(urlsplit(body["next"]).query)["page"] == ["2"]


def test_page_size_defaults_to_20(library, http):
    assert len(http.get(LIBRARY).json()["results"]) == DEFAULT_PAGE_SIZE


@pytest.mark.parametrize("params", [{"page": 16, "page_size": 100}, {"page": 2, "search": "no such keyword"}, {"page": 10**9}])
def test_a_page_past_the_end_is_not_found(library, http, params):
    assert SeedKeyword.objects.count() == 15 * 100  # page 16 is the first past the end
    assert_error(http.get(LIBRARY, params), 404, "not_found")


def test_the_last_page_is_served_and_has_no_next(library, http):
    body = http.get(LIBRARY, {"page": 15, "page_size": 100}).json()
    assert len(body["results"]) == 100 and body["next"] is None and body["previous"]


# --- validation ------------------------------------------------------------------------------


INVALID_PARAMETERS = [
    ({"volume_min": "abc"}, "volume_min"),
    ({"volume_min": "1.5"}, "volume_min"),
    ({"volume_min": "99999999999999999999"}, "volume_min"),
    ({"volume_max": "-1"}, "volume_max"),
    ({"volume_min": "500", "volume_max": "100"}, "volume_max"),
    ({"difficulty": "impossible"}, "difficulty"),
    ({"ordering": "bogus"}, "ordering"),
    ({"ordering": "-id"}, "ordering"),
    ({"ordering": "credit_cost"}, "ordering"),
    ({"is_paid": "maybe"}, "is_paid"),
    ({"is_high_opportunity": "2"}, "is_high_opportunity"),
    ({"sector_ids": "1,x"}, "sector_ids"),
    ({"sector_ids": "0"}, "sector_ids"),
    ({"sector_ids": "-3"}, "sector_ids"),
    ({"sector_ids": "1.5"}, "sector_ids"),
    ({"sector_ids": str(2**63)}, "sector_ids"),
    ({"country": "USA"}, "country"),
    ({"country": "U1"}, "country"),
    ({"search": "x" * 101}, "search"),
    ({"page": "0"}, "page"),
    ({"page": "-2"}, "page"),
    ({"page": "abc"}, "page"),
    ({"page_size": "abc"}, "page_size"),
    ({"page_size": "0"}, "page_size"),
]


@pytest.mark.parametrize("path", LIBRARY_PATHS)
@pytest.mark.parametrize("params, field", INVALID_PARAMETERS, ids=[f"{field}={'&'.join(map(str, params.values()))[:20]}" for params, field in INVALID_PARAMETERS])
def test_each_invalid_parameter_is_a_400_naming_the_field(db, http, path, params, field):
    assert_error(http.get(path, params), 400, "validation_error", field=field)


def test_several_invalid_parameters_are_reported_together(db, http):
    body = assert_error(http.get(LIBRARY, {"volume_min": "abc", "difficulty": "impossible", "country": "USA"}), 400, "validation_error")
    assert set(body["errors"]) == {"volume_min", "difficulty", "country"}


@pytest.mark.parametrize(
    "params",
    [{"sector_ids": str(2**63 - 1)}, {"volume_min": str(2**31 - 1)}, {"volume_max": "0", "volume_min": "0", "page_size": "100000"}, {"search": "%"}, {"search": "_"}, {"search": "'; --"}],
    ids=["largest-sector-id", "largest-volume", "huge-page-size", "percent", "underscore", "quote"],
)
def test_extreme_but_valid_parameters_are_answered_not_crashed(library, http, params):
    response = http.get(LIBRARY, params)
    assert response.status_code == 200, response.content[:300]
    if "search" in params:  # LIKE wildcards and quotes are matched literally, and no keyword contains them
        assert response.json()["count"] == 0


# --- both paths, the retired path ------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        lambda lib: {},
        lambda lib: {"page": 3, "page_size": 7, "ordering": "keyword"},
        lambda lib: {"search": "blue", "difficulty": "hard", "page": 2, "page_size": 10},
        lambda lib: {"sector_ids": ",".join(map(str, lib.sector_ids[:2])), "is_paid": "true", "ordering": "-country"},
    ],
    ids=["default", "page-3-by-keyword", "search-and-band", "sectors-paid-by-country"],
)
def test_both_paths_answer_identically(library, http, params):
    params = params(library)
    body = http.get(LIBRARY, params).json()
    auth_body = http.get(AUTH_LIBRARY, params).json()
    assert body["results"] or body["count"] == 0
    for link in ("next", "previous"):
        if body[link] is not None:
            body[link] = body[link].replace(LIBRARY, AUTH_LIBRARY)
    assert auth_body == body


@pytest.mark.parametrize("path", ["/api/v1/auth/seed-keywords/", "/api/v1/auth/seed-keywords/5/", "/api/v1/auth/seed-keywords/?page=2"])
@pytest.mark.parametrize("authenticated", [False, True], ids=["anonymous", "owner"])
@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
def test_the_old_seed_keywords_path_is_gone_and_names_the_new_one(db, tenant, as_user, api_client, path, authenticated, method):
    caller = as_user(tenant.owner) if authenticated else api_client
    body = assert_error(getattr(caller, method)(path), 410, "gone")
    assert "/api/v1/keywords-library/" in body["error"]


# --- read-only, authentication, tenancy ------------------------------------------------------


WRITE_METHODS = ("post", "put", "patch", "delete")
ROUTES = (*LIBRARY_PATHS, *STATS_PATHS)


@pytest.mark.parametrize("method", WRITE_METHODS)
def test_the_library_is_read_only_for_every_role(library, tenant, as_user, method):
    before = snapshot()
    payload = {"keyword": "injected", "volume": 1, "difficulty": 10, "country": "US", "industry_sector": library.sector_ids[0]}
    for role in ("owner", "admin", "editor"):
        for route in ROUTES:
            response = getattr(as_user(tenant.user(role)), method)(route, payload, format="json")
            assert_error(response, 405, "method_not_allowed")
    # A viewer may not write anything, so the role check refuses before the method is looked at.
    for route in ROUTES:
        response = getattr(as_user(tenant.viewer), method)(route, payload, format="json")
        assert response.status_code in (403, 405) and response.json()["success"] is False
    assert snapshot() == before


@pytest.mark.parametrize("method", ["get", "put", "patch", "delete"])
def test_keywords_have_no_item_route_to_change_them(library, http, method):
    keyword = SeedKeyword.objects.order_by("id").first()
    before = snapshot()
    for path in LIBRARY_PATHS:
        assert_error(getattr(http, method)(f"{path}{keyword.pk}/", {"volume": 7}, format="json"), 404, "not_found")
    assert snapshot() == before


@pytest.mark.parametrize("route", ROUTES)
def test_reading_the_library_needs_authentication(db, api_client, route):
    assert_error(api_client.get(route), 401, "authentication_required")


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_every_role_reads_the_whole_library(library, tenant, as_user, role):
    http = as_user(tenant.user(role))
    for path in LIBRARY_PATHS:
        response = http.get(path)
        assert response.status_code == 200 and response.json()["count"] == SeedKeyword.objects.count()
    for path in STATS_PATHS:
        response = http.get(path)
        assert response.status_code == 200 and {row["sector_id"] for row in response.json()["data"]} == set(library.sector_ids)


def test_another_account_sees_the_same_library(library, tenant, other_tenant, as_user, no_counter):
    mine, theirs = as_user(tenant.owner), as_user(other_tenant.viewer)
    for params in ({}, {"page": 4, "page_size": 50, "ordering": "keyword"}, {"search": "garden", "is_paid": "false"}):
        assert mine.get(LIBRARY, params).json() == theirs.get(LIBRARY, params).json()
    assert mine.get(STATS_PATHS[0]).json() == theirs.get(STATS_PATHS[0]).json()


# --- queries ---------------------------------------------------------------------------------


def test_the_list_runs_a_fixed_number_of_queries_whatever_the_page_size(library, http, local_memory_cache, django_assert_max_num_queries):
    http.get(LIBRARY)  # warms per-process state
    counts = {
        "page_size 5": queries_of(http, LIBRARY, {"page_size": 5}),
        "page_size 100": queries_of(http, LIBRARY, {"page_size": 100}),
        "deep page": queries_of(http, LIBRARY, {"page_size": 100, "page": 15}),
        "counted from the keywords": queries_of(http, LIBRARY, {"page_size": 100, "search": "e", "volume_min": 1}),
        "counted from the totals": queries_of(http, LIBRARY, {"page_size": 100, "sector_ids": ",".join(map(str, library.sector_ids)), "difficulty": "hard"}),
    }
    assert len(set(counts.values())) == 1, counts
    with django_assert_max_num_queries(LIST_QUERIES):
        assert len(http.get(LIBRARY, {"page_size": 100}).json()["results"]) == 100
