"""The library's page and sector totals on plain SQL: the page's values have the types the ORM
gives them on this database, with the converters looked up once per connection, and a sector's
totals are the sums of its keywords."""

from datetime import datetime

from django.db import DEFAULT_DB_ALIAS, connections

from inkwell.api import sql
from inkwell.keywords import selectors
from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.selectors import LibraryFilters


def test_a_page_has_the_orm_types_of_its_values_on_this_database(library):
    items = selectors.library_page(LibraryFilters(ordering="keyword"), 0, 5)
    expected = SeedKeyword.objects.order_by("keyword", "id")[:5]
    assert [item["id"] for item in items] == [keyword.pk for keyword in expected]
    for item, keyword in zip(items, expected, strict=True):
        assert item["is_paid"] is keyword.is_paid and item["is_high_opportunity"] is keyword.is_high_opportunity
        assert isinstance(item["created_at"], datetime) and item["created_at"] == keyword.created_at


def test_a_pages_converters_are_looked_up_once_per_connection(library):
    selectors.library_page(LibraryFilters(), 0, 5)
    looked_up = sql.column_converters.cache_info().misses
    for offset in (5, 10, 15):
        selectors.library_page(LibraryFilters(), offset, 5)
    assert sql.column_converters.cache_info().misses == looked_up
    database = connections[DEFAULT_DB_ALIAS]
    assert sql.column_converters(selectors._PAGE_COLUMNS, database) is sql.column_converters(selectors._PAGE_COLUMNS, database)


def test_sector_totals_are_the_sums_of_each_sectors_keywords(library, tenant):
    stats = selectors.sector_stats(account=tenant.account, sector_ids=tuple(library.sector_ids))
    for row in stats:
        keywords = SeedKeyword.objects.filter(industry_sector_id=row["sector_id"])
        assert row["stats"]["total"] == keywords.count()
        assert row["stats"]["paid"] == keywords.filter(is_paid=True).count()
        assert row["stats"]["high_opportunity"] == keywords.filter(is_high_opportunity=True).count()
        assert row["stats"]["free"] == keywords.filter(is_paid=False).count()
    assert selectors.sector_stats(account=tenant.account, sector_ids=()) == []
