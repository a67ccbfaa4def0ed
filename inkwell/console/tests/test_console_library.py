"""The keywords library's selection (issue 30, case 10): ticks survive filtering and paging, the page
says how many are selected across them, and the selection can be cleared."""

import re

import pytest

from inkwell.keywords.stats import refresh_library_stats
from inkwell.planner.models import Keyword
from inkwell.planner.tests.factories import make_sector, make_seed_keywords

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_pages(big_tenant):
    """A sector whose library holds 60 keywords: two pages of 50; five of them name "trail"."""
    sector = make_sector(big_tenant)
    seeds = make_seed_keywords(sector.industry_sector, texts=[f"{'trail' if n % 12 == 0 else 'road'} running shoes {n:02d}" for n in range(60)])
    refresh_library_stats([sector.industry_sector_id])  # the totals an unfiltered list counts by
    return sector, seeds


def _ticked(page: str) -> set[int]:
    return {int(value) for value in re.findall(r'name="seed_keyword_ids" value="(\d+)"[^>]*checked', page)}


def _on_page(page: str) -> list[int]:
    return [int(value) for value in re.findall(r'name="on_page" value="(\d+)"', page)]


def test_ticks_survive_filtering_and_paging_and_the_page_says_how_many_are_selected(console_client, big_tenant, two_pages):
    sector, seeds = two_pages
    client = console_client(big_tenant.owner)
    library = f"/app/sites/{big_tenant.site.pk}/library/"
    selection = f"{library}selection/"
    first = client.get(library).content.decode()
    page_one = _on_page(first)
    assert len(page_one) == 50 and "None selected" in first

    # Two ticks on page 1, one on page 2 (each page posts its boxes as they change).
    client.post(selection, {"on_page": page_one, "seed_keyword_ids": page_one[:2]}, HTTP_HX_REQUEST="true")
    second = client.get(library, {"page": 2}).content.decode()
    page_two = _on_page(second)
    assert "2 selected" in second and not _ticked(second)
    answer = client.post(selection, {"on_page": page_two, "seed_keyword_ids": page_two[:1], "page": 2}, HTTP_HX_REQUEST="true").content.decode()
    assert "3 selected" in answer

    # A filter that shows none of them keeps them; back on page 1 they are still ticked.
    filtered = client.get(library, {"search": "trail"}).content.decode()
    assert "3 selected" in filtered
    again = client.get(library).content.decode()
    assert _ticked(again) == set(page_one[:2]) and "3 selected" in again

    # Unticking one on page 1 leaves the other pages' ticks alone.
    client.post(selection, {"on_page": page_one, "seed_keyword_ids": page_one[:1]}, HTTP_HX_REQUEST="true")
    assert "2 selected" in client.get(library).content.decode()

    # The review and the addition take the whole selection, not only the page's ticks.
    review = client.post(f"{library}review/", {"sector_id": sector.pk, "on_page": page_one, "seed_keyword_ids": page_one[:1]}).content.decode()
    assert re.search(r"Add 2 keywords", review)
    client.post(f"{library}add/", {"sector_id": sector.pk, "on_page": page_one, "seed_keyword_ids": page_one[:1]})
    added = set(Keyword.objects.for_account(big_tenant.account).values_list("seed_keyword_id", flat=True))
    assert added == {page_one[0], page_two[0]}
    assert "None selected" in client.get(library).content.decode()


def test_the_selection_can_be_cleared(console_client, big_tenant, two_pages):
    client = console_client(big_tenant.owner)
    library = f"/app/sites/{big_tenant.site.pk}/library/"
    page_one = _on_page(client.get(library).content.decode())
    client.post(f"{library}selection/", {"on_page": page_one, "seed_keyword_ids": page_one[:3]}, HTTP_HX_REQUEST="true")
    page = client.get(library).content.decode()
    assert "3 selected" in page and "Clear the selection" in page

    cleared = client.post(f"{library}selection/", {"on_page": page_one, "seed_keyword_ids": page_one[:3], "selection": "clear"}, HTTP_HX_REQUEST="true").content.decode()

    assert "None selected" in cleared and not _ticked(cleared) and "Clear the selection" not in cleared
    assert "None selected" in client.get(library).content.decode()


def test_without_javascript_a_tick_is_kept_when_the_page_is_reviewed_and_clearing_goes_back_to_the_list(console_client, big_tenant, two_pages):
    client = console_client(big_tenant.owner)
    library = f"/app/sites/{big_tenant.site.pk}/library/"
    page_one = _on_page(client.get(library, {"search": "road"}).content.decode())

    response = client.post(f"{library}selection/", {"on_page": page_one, "seed_keyword_ids": page_one[:1], "selection": "clear", "back": f"{library}?search=road"})

    assert response.status_code == 302 and response["Location"] == f"{library}?search=road"
    assert "None selected" in client.get(library).content.decode()


def test_one_sites_selection_is_not_anothers(console_client, big_tenant, two_pages):
    from inkwell.tenancy.models import Site

    client = console_client(big_tenant.owner)
    library = f"/app/sites/{big_tenant.site.pk}/library/"
    page_one = _on_page(client.get(library).content.decode())
    client.post(f"{library}selection/", {"on_page": page_one, "seed_keyword_ids": page_one[:2]}, HTTP_HX_REQUEST="true")
    other = Site.objects.create(account=big_tenant.account, name="Other", domain="other.example.com", slug="other-site")
    make_sector(big_tenant, site=other)

    assert "None selected" in client.get(f"/app/sites/{other.pk}/library/").content.decode()
