"""The library by a site's sector (issue 14): ``site_sector_id`` names a sector of one of the
caller's sites and stands for its industry sector, on the list and on sector_stats; another
account's sector, or one of a site the caller may not see, is a 404."""

import pytest

from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.stats import refresh_library_stats
from inkwell.tenancy.models import IndustrySector, Sector
from inkwell.writer.tests.factories import make_sector

pytestmark = pytest.mark.django_db

LIBRARY = "/api/v1/keywords-library/"
STATS = "/api/v1/keywords-library/sector_stats/"


@pytest.fixture
def two_sectors(tenant):
    """A site sector whose id is not its industry sector's id, and keywords in two industry sectors."""
    first, second = IndustrySector.objects.order_by("-id")[:2]
    # Sector ids and industry sector ids start apart: a site sector id passed as sector_ids names another industry.
    sector = Sector.objects.create(account=tenant.account, site=tenant.site, industry_sector=first, name="Our sector")
    assert sector.pk != first.pk
    SeedKeyword.objects.bulk_create(
        [SeedKeyword(keyword=f"first {n}", volume=100 + n, difficulty=10, industry_sector=first) for n in range(3)]
        + [SeedKeyword(keyword=f"second {n}", volume=100 + n, difficulty=10, industry_sector=second) for n in range(2)]
    )
    refresh_library_stats([first.pk, second.pk])
    return sector, first, second


def test_the_list_by_site_sector_shows_its_industry_sectors_keywords(tenant, as_user, two_sectors):
    sector, first, second = two_sectors
    client = as_user(tenant.owner)

    body = client.get(LIBRARY, {"site_sector_id": sector.pk}).json()

    assert body["count"] == 3 and {item["industry_sector"] for item in body["results"]} == {first.pk}
    both = client.get(LIBRARY, {"site_sector_id": sector.pk, "sector_ids": str(second.pk)}).json()
    assert both["count"] == 5


def test_sector_stats_by_site_sector_count_its_industry_sector(tenant, as_user, two_sectors):
    sector, first, _ = two_sectors

    data = as_user(tenant.owner).get(STATS, {"site_sector_id": sector.pk}).json()["data"]

    assert [(row["sector_id"], row["stats"]["total"]) for row in data] == [(first.pk, 3)]


def test_another_accounts_site_sector_is_not_found(tenant, other_tenant, as_user, two_sectors):
    theirs = make_sector(other_tenant)
    client = as_user(tenant.owner)

    for path in (LIBRARY, STATS):
        response = client.get(path, {"site_sector_id": theirs.pk})
        assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_a_sector_of_a_site_not_granted_to_an_editor_is_not_found(tenant, as_user, two_sectors):
    sector, _, _ = two_sectors

    assert as_user(tenant.editor).get(LIBRARY, {"site_sector_id": sector.pk}).status_code == 404


def test_every_site_sector_answer_carries_its_industry_sector(tenant, as_user, two_sectors):
    sector, first, _ = two_sectors
    client = as_user(tenant.owner)

    listed = client.get("/api/v1/auth/sectors/", {"site_id": tenant.site.pk}).json()["results"]
    detail = client.get(f"/api/v1/auth/sectors/{sector.pk}/").json()["data"]

    for row in (next(row for row in listed if row["id"] == sector.pk), detail):
        assert (row["industry_sector_id"], row["industry_sector_name"]) == (first.pk, first.name)
