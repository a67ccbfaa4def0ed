"""Sector statistics over the generated library (conftest.library).

Totals are compared with counts taken directly from the keywords. ``added`` comes from the seam
the planner will fill (``selectors.register_added_counter``); these tests register a recording
counter there, so what it is asked (whose account, which site, which sectors) and what the
endpoint makes of its answer are both checked.
"""

from collections import Counter
from dataclasses import dataclass, field

import pytest

from inkwell.keywords import selectors
from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.tests.conftest import STATS_PATHS, assert_error, queries_of
from inkwell.tenancy import services
from inkwell.tenancy.models import Account, IndustrySector, Site

pytestmark = pytest.mark.usefixtures("unthrottled")

STATS, AUTH_STATS = STATS_PATHS
STATS_FIELDS = ["total", "added", "available", "high_opportunity", "paid", "free"]
# The user, the site (only with site_id), the totals.
STATS_QUERIES = 3


@dataclass
class RecordingCounter:
    """Stands in for the planner: answers ``added`` per sector and records every question."""

    added: dict[int, int] = field(default_factory=dict)
    calls: list[tuple[Account, Site | None, list[int]]] = field(default_factory=list)

    def __call__(self, account, site, sector_ids):
        self.calls.append((account, site, list(sector_ids)))
        return {sector_id: self.added[sector_id] for sector_id in sector_ids if sector_id in self.added}


@pytest.fixture
def counter(monkeypatch, library) -> RecordingCounter:
    """A registered counter; monkeypatch puts the previous one back afterwards."""
    monkeypatch.setattr(selectors, "_added_counter", selectors._added_counter)
    first, second, third = library.sector_ids[:3]
    recording = RecordingCounter(added={first: 5, second: 0, third: SeedKeyword.objects.filter(industry_sector_id=third).count()})
    selectors.register_added_counter(recording)
    return recording


def direct_counts() -> dict[int, dict[str, int]]:
    """Per sector, counted from the keywords themselves."""
    counts: dict[int, Counter] = {}
    for sector_id, is_paid, is_high_opportunity in SeedKeyword.objects.values_list("industry_sector_id", "is_paid", "is_high_opportunity"):
        sector = counts.setdefault(sector_id, Counter())
        sector["total"] += 1
        sector["paid"] += is_paid
        sector["free"] += not is_paid
        sector["high_opportunity"] += is_high_opportunity
    return {sector_id: dict(counter) for sector_id, counter in counts.items()}


def stats_of(response) -> dict[int, dict]:
    assert response.status_code == 200, response.content[:500]
    body = response.json()
    assert body["success"] is True and isinstance(body["data"], list)
    by_sector = {row["sector_id"]: row for row in body["data"]}
    assert len(by_sector) == len(body["data"]), "a sector appears twice"
    return by_sector


def assert_stats_match_the_keywords(by_sector: dict[int, dict], added: dict[int, int]):
    counts = direct_counts()
    sectors = IndustrySector.objects.in_bulk(list(by_sector))
    for sector_id, row in by_sector.items():
        assert list(row) == ["sector_id", "sector_name", "sector_description", "stats"]
        assert list(row["stats"]) == STATS_FIELDS
        assert (row["sector_name"], row["sector_description"]) == (sectors[sector_id].name, sectors[sector_id].description)
        stats, expected = row["stats"], counts[sector_id]
        assert stats["total"] == expected["total"]
        assert stats["paid"] == expected.get("paid", 0)
        assert stats["free"] == expected.get("free", 0)
        assert stats["high_opportunity"] == expected.get("high_opportunity", 0)
        assert stats["paid"] + stats["free"] == stats["total"]
        assert stats["added"] == added.get(sector_id, 0)
        assert stats["available"] == stats["total"] - stats["added"]


# --- totals ----------------------------------------------------------------------------------


def test_each_sector_totals_equal_direct_counts_and_add_up(library, http, no_counter):
    by_sector = stats_of(http.get(STATS))
    assert_stats_match_the_keywords(by_sector, added={})
    assert all(row["stats"]["paid"] and row["stats"]["free"] and row["stats"]["high_opportunity"] for row in by_sector.values())


def test_without_sector_ids_exactly_the_sectors_with_keywords_appear(library, http, no_counter):
    by_sector = stats_of(http.get(STATS))
    assert set(by_sector) == set(SeedKeyword.objects.values_list("industry_sector_id", flat=True)) == set(library.sector_ids)
    assert library.empty_sector.pk not in by_sector
    assert IndustrySector.objects.exclude(pk__in=library.sector_ids).exists(), "sectors without keywords exist and are left out"


def test_blank_sector_ids_are_no_filter(library, http, no_counter):
    assert stats_of(http.get(STATS, {"sector_ids": ""})) == stats_of(http.get(STATS))


@pytest.mark.parametrize(
    "pick",
    [
        lambda lib: [lib.sector_ids[0]],
        lambda lib: lib.sector_ids[1:4],
        lambda lib: [lib.sector_ids[2], lib.empty_sector.pk, 999999],
        lambda lib: [lib.empty_sector.pk],
    ],
    ids=["one", "three", "with-empty-and-unknown", "only-empty"],
)
def test_sector_ids_restricts_the_statistics_to_those_sectors(library, http, no_counter, pick):
    requested = pick(library)
    by_sector = stats_of(http.get(STATS, {"sector_ids": ",".join(map(str, requested))}))
    assert set(by_sector) == set(requested) & set(library.sector_ids)
    assert_stats_match_the_keywords(by_sector, added={})


@pytest.mark.parametrize(
    "params, field",
    [({"site_id": "abc"}, "site_id"), ({"site_id": "0"}, "site_id"), ({"site_id": "-4"}, "site_id"), ({"sector_ids": "1,x"}, "sector_ids"), ({"sector_ids": "0"}, "sector_ids")],
)
@pytest.mark.parametrize("path", STATS_PATHS)
def test_invalid_parameters_are_a_400_naming_the_field(db, http, path, params, field):
    assert_error(http.get(path, params), 400, "validation_error", field=field)


@pytest.mark.parametrize(
    "params",
    [lambda lib, tenant: {}, lambda lib, tenant: {"sector_ids": ",".join(map(str, lib.sector_ids[:2]))}, lambda lib, tenant: {"site_id": tenant.site.pk}],
    ids=["all", "two-sectors", "site"],
)
def test_both_paths_answer_identically(library, tenant, http, counter, params):
    query = params(library, tenant)
    body = http.get(STATS, query).json()
    assert body["data"]
    assert http.get(AUTH_STATS, query).json() == body


# --- added: the planner's seam ---------------------------------------------------------------


def test_without_a_registered_counter_nothing_is_added(library, tenant, http, no_counter):
    for query in ({}, {"site_id": tenant.site.pk}):
        for row in stats_of(http.get(STATS, query)).values():
            assert row["stats"]["added"] == 0 and row["stats"]["available"] == row["stats"]["total"]


def test_added_and_available_reflect_the_registered_counter(library, http, counter):
    by_sector = stats_of(http.get(STATS))
    assert_stats_match_the_keywords(by_sector, added=counter.added)
    fully_added = library.sector_ids[2]
    assert by_sector[fully_added]["stats"]["available"] == 0


def test_the_counter_is_asked_about_the_callers_account_and_the_listed_sectors(library, tenant, http, counter):
    stats_of(http.get(STATS))
    ((account, site, sector_ids),) = counter.calls
    assert account.pk == tenant.account.pk
    assert site is None
    assert sorted(sector_ids) == sorted(library.sector_ids)


def test_the_counter_is_given_the_site_when_site_id_is_given(library, tenant, http, counter):
    requested = library.sector_ids[:2]
    by_sector = stats_of(http.get(STATS, {"site_id": tenant.site.pk, "sector_ids": ",".join(map(str, requested))}))
    ((account, site, sector_ids),) = counter.calls
    assert account.pk == tenant.account.pk
    assert isinstance(site, Site) and site.pk == tenant.site.pk and site.account_id == tenant.account.pk
    assert sorted(sector_ids) == sorted(requested)
    assert_stats_match_the_keywords(by_sector, added=counter.added)


def test_each_account_is_counted_as_itself(library, tenant, other_tenant, as_user, counter):
    stats_of(as_user(tenant.editor).get(STATS))
    stats_of(as_user(other_tenant.viewer).get(STATS))
    stats_of(as_user(other_tenant.owner).get(STATS, {"site_id": other_tenant.site.pk}))
    assert [(account.pk, site.pk if site else None) for account, site, _ in counter.calls] == [
        (tenant.account.pk, None),
        (other_tenant.account.pk, None),
        (other_tenant.account.pk, other_tenant.site.pk),
    ]


def test_another_accounts_site_is_not_found_and_never_counted(library, tenant, other_tenant, as_user, counter):
    caller = as_user(other_tenant.owner)
    for path in STATS_PATHS:
        assert_error(caller.get(path, {"site_id": tenant.site.pk}), 404, "not_found")
        assert_error(caller.get(path, {"site_id": 999_999_999}), 404, "not_found")
    assert counter.calls == []


def test_a_site_the_caller_may_not_access_is_not_found(library, tenant, as_user, counter):
    viewer = as_user(tenant.viewer)
    assert_error(viewer.get(STATS, {"site_id": tenant.site.pk}), 404, "not_found")
    assert counter.calls == []

    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.viewer, site=tenant.site)
    stats_of(viewer.get(STATS, {"site_id": tenant.site.pk}))
    ((account, site, _),) = counter.calls
    assert (account.pk, site.pk) == (tenant.account.pk, tenant.site.pk)


# --- queries ---------------------------------------------------------------------------------


def test_sector_stats_run_a_fixed_number_of_queries_whatever_the_number_of_sectors(
    library, tenant, http, counter, local_memory_cache, django_assert_max_num_queries
):
    http.get(STATS)  # warms per-process state
    one, every = str(library.sector_ids[0]), ",".join(map(str, library.sector_ids))
    assert queries_of(http, STATS, {"sector_ids": one}) == queries_of(http, STATS, {"sector_ids": every}) == queries_of(http, STATS, {})
    site = tenant.site.pk
    assert queries_of(http, STATS, {"sector_ids": one, "site_id": site}) == queries_of(http, STATS, {"site_id": site})
    with django_assert_max_num_queries(STATS_QUERIES):
        assert len(stats_of(http.get(STATS, {"site_id": site}))) == len(library.sector_ids)
