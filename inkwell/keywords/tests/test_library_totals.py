"""The totals table (``SeedKeywordStats``) always equals a GROUP BY over the keywords.

The list's ``count`` and the sector statistics are read from that table, so after every write
path (a rebuild, a save or delete through the ORM, an edit in the admin) it must hold exactly
one row per (sector, country, band, paid, high opportunity) that has keywords, with their number.
Single-row writes rebuild on commit; ``django_capture_on_commit_callbacks(execute=True)`` runs
those callbacks as a commit would.
"""

from collections import Counter
from contextlib import contextmanager

import pytest

from inkwell.keywords import selectors
from inkwell.keywords.models import DifficultyBand, SeedKeyword, SeedKeywordStats
from inkwell.keywords.stats import refresh_library_stats
from inkwell.keywords.tests.conftest import band_of
from inkwell.tenancy.models import User

Cell = tuple[int, str, str, bool, bool]  # sector, country, band, paid, high opportunity


def grouped_keywords() -> dict[Cell, int]:
    """The GROUP BY the table must equal, computed here from the rows with the test's own band rule."""
    rows = SeedKeyword.objects.values_list("industry_sector_id", "country", "difficulty", "is_paid", "is_high_opportunity")
    return dict(Counter((sector, country, band_of(difficulty), paid, high) for sector, country, difficulty, paid, high in rows))


def totals_table() -> dict[Cell, int]:
    rows = SeedKeywordStats.objects.values_list("industry_sector_id", "country", "difficulty_band", "is_paid", "is_high_opportunity", "total")
    return {(sector, country, DifficultyBand(band).label, paid, high): total for sector, country, band, paid, high, total in rows}


def assert_totals_exact():
    assert totals_table() == grouped_keywords()


def sector_cells(table: dict[Cell, int], sector_id: int) -> dict[Cell, int]:
    return {cell: total for cell, total in table.items() if cell[0] == sector_id}


def new_keyword(sector_id: int, **fields) -> SeedKeyword:
    return SeedKeyword(
        **{"keyword": "fresh keyword", "volume": 321, "difficulty": 40, "country": "US", "industry_sector_id": sector_id, "is_paid": False, "credit_cost": 0, **fields}
    )


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """``with on_commit():`` runs the write's on-commit callbacks at the end, as a commit would, and checks it registered some."""

    @contextmanager
    def committed():
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            yield
        assert callbacks, "the write registered no rebuild of the totals"

    return committed


# --- rebuilding ------------------------------------------------------------------------------


def test_the_generated_library_starts_with_exact_totals(library):
    table = totals_table()
    assert table == grouped_keywords()
    assert sum(table.values()) == SeedKeyword.objects.count()
    assert {cell[0] for cell in table} == set(library.sector_ids)


def test_refresh_repairs_wrong_missing_and_stray_rows(library):
    first, second = library.sector_ids[:2]
    SeedKeywordStats.objects.filter(industry_sector_id=first).update(total=7)
    SeedKeywordStats.objects.filter(industry_sector_id=second).delete()
    SeedKeywordStats.objects.create(industry_sector=library.empty_sector, country="US", difficulty_band=1, is_paid=False, is_high_opportunity=False, total=3)
    assert totals_table() != grouped_keywords()
    refresh_library_stats()
    assert_totals_exact()


def test_refresh_of_some_sectors_rebuilds_those_and_leaves_the_others_alone(library):
    first, second = library.sector_ids[:2]
    # Bulk writes send no signals: both sectors are out of date until refreshed.
    SeedKeyword.objects.bulk_create([new_keyword(first, keyword="bulk one"), new_keyword(second, keyword="bulk two")])
    before = totals_table()
    refresh_library_stats([first])
    after = totals_table()
    assert sector_cells(after, first) == sector_cells(grouped_keywords(), first)
    assert {cell: total for cell, total in after.items() if cell[0] != first} == {cell: total for cell, total in before.items() if cell[0] != first}
    refresh_library_stats([second])
    assert_totals_exact()


def test_refresh_of_no_sectors_changes_nothing(library):
    SeedKeyword.objects.bulk_create([new_keyword(library.sector_ids[0], keyword="not yet counted")])
    before = totals_table()
    refresh_library_stats([])
    assert totals_table() == before


# --- single writes through the ORM -----------------------------------------------------------


def test_saving_a_new_keyword_counts_it(library, on_commit):
    with on_commit():
        new_keyword(library.sector_ids[0], difficulty=76, country="GB", is_paid=True, credit_cost=3, is_high_opportunity=True).save()
    assert_totals_exact()
    assert totals_table()[(library.sector_ids[0], "GB", "very_hard", True, True)] >= 1


def test_a_keyword_added_to_an_empty_sector_gives_that_sector_totals(library, on_commit):
    with on_commit():
        SeedKeyword.objects.create(keyword="first of its sector", difficulty=10, industry_sector=library.empty_sector)
    assert_totals_exact()
    assert sector_cells(totals_table(), library.empty_sector.pk) == {(library.empty_sector.pk, "US", "easy", False, False): 1}


CELL_FIELDS = {"difficulty", "country", "is_paid", "is_high_opportunity", "industry_sector_id"}


@pytest.mark.parametrize(
    "start, changes",
    [
        ({"difficulty": 25}, {"difficulty": 26}),
        ({"difficulty": 26}, {"difficulty": 25}),
        ({"difficulty": 50}, {"difficulty": 51}),
        ({"difficulty": 75}, {"difficulty": 76}),
        ({"difficulty": 0}, {"difficulty": 100}),
        ({"country": "US"}, {"country": "IN"}),
        ({"is_paid": False}, {"is_paid": True, "credit_cost": 9}),
        ({"is_paid": True}, {"is_paid": False, "credit_cost": 0}),
        ({"is_high_opportunity": False}, {"is_high_opportunity": True}),
        ({}, {"volume": 1, "keyword": "renamed keyword"}),
    ],
    ids=lambda fields: ",".join(f"{name}={value}" for name, value in fields.items()) or "any",
)
def test_editing_a_keyword_moves_it_to_its_new_cell(library, on_commit, start, changes):
    keyword = SeedKeyword.objects.filter(**start).order_by("id").first()
    before = grouped_keywords()
    with on_commit():
        for name, value in changes.items():
            setattr(keyword, name, value)
        keyword.save()
    assert (grouped_keywords() != before) == bool(CELL_FIELDS & set(changes))
    assert_totals_exact()


@pytest.mark.parametrize("update_fields", [None, ["industry_sector", "difficulty"]], ids=["save", "save-update-fields"])
def test_moving_a_keyword_to_another_sector_updates_both_sectors(library, on_commit, update_fields):
    source, target = library.sector_ids[0], library.sector_ids[1]
    keyword = SeedKeyword.objects.filter(industry_sector_id=source).order_by("id").first()
    before = grouped_keywords()
    with on_commit():
        keyword.industry_sector_id = target
        keyword.difficulty = 100
        keyword.save(update_fields=update_fields)
    assert_totals_exact()
    assert sum(sector_cells(totals_table(), source).values()) == sum(sector_cells(before, source).values()) - 1
    assert sum(sector_cells(totals_table(), target).values()) == sum(sector_cells(before, target).values()) + 1


def test_deleting_a_keyword_uncounts_it(library, on_commit):
    keyword = SeedKeyword.objects.order_by("-id").first()
    with on_commit():
        keyword.delete()
    assert_totals_exact()


def test_deleting_every_keyword_of_a_sector_removes_the_sector_from_the_totals(library, on_commit, tenant, monkeypatch):
    sector = library.sector_ids[3]
    with on_commit():
        deleted, _ = SeedKeyword.objects.filter(industry_sector_id=sector).delete()
    assert deleted > 0
    assert_totals_exact()
    assert sector_cells(totals_table(), sector) == {}
    monkeypatch.setattr(selectors, "_added_counter", None)
    assert sector not in {row["sector_id"] for row in selectors.sector_stats(account=tenant.account)}


def test_a_bulk_delete_rebuilds_each_touched_sector_once(library, on_commit, monkeypatch):
    rebuilds = []

    def recording_refresh(sector_ids):
        rebuilds.append(set(sector_ids))
        refresh_library_stats(sector_ids)

    monkeypatch.setattr("inkwell.keywords.signals.refresh_library_stats", recording_refresh)
    doomed = SeedKeyword.objects.filter(industry_sector_id__in=library.sector_ids[:2])
    with on_commit():
        deleted, _ = doomed.delete()
    assert deleted > 100
    assert rebuilds == [set(library.sector_ids[:2])]
    assert_totals_exact()


# --- the admin -------------------------------------------------------------------------------


@pytest.fixture
def staff_client(db, client):
    staff = User.dangerously_unscoped.create_superuser("ops@example.com", "a long operator password")
    client.force_login(staff)
    return client


def admin_form(keyword: SeedKeyword, **changes) -> dict:
    """The admin's change form as a browser submits it."""
    fields = {
        "keyword": keyword.keyword,
        "volume": keyword.volume,
        "difficulty": keyword.difficulty,
        "country": keyword.country,
        "industry_sector": keyword.industry_sector_id,
        "is_high_opportunity": keyword.is_high_opportunity,
        "is_paid": keyword.is_paid,
        "credit_cost": keyword.credit_cost,
        "created_at_0": keyword.created_at.strftime("%Y-%m-%d"),
        "created_at_1": keyword.created_at.strftime("%H:%M:%S"),
        **changes,
    }
    return {name: ("on" if value is True else value) for name, value in fields.items() if value is not False}


def test_an_admin_edit_keeps_the_totals_exact(library, staff_client, on_commit):
    keyword = SeedKeyword.objects.filter(industry_sector_id=library.sector_ids[0], is_paid=False).order_by("id").first()
    url = f"/admin/keywords/seedkeyword/{keyword.pk}/change/"
    assert staff_client.get(url).status_code == 200
    with on_commit():
        response = staff_client.post(url, admin_form(keyword, industry_sector=library.sector_ids[4], difficulty=51, is_paid=True, credit_cost=4))
    assert response.status_code == 302, response.content.decode()[:2000]
    keyword.refresh_from_db()
    assert (keyword.industry_sector_id, keyword.difficulty, keyword.is_paid, keyword.credit_cost) == (library.sector_ids[4], 51, True, 4)
    assert_totals_exact()


def test_an_admin_add_and_delete_keep_the_totals_exact(library, staff_client, on_commit):
    template = new_keyword(library.empty_sector.pk, keyword="added in the admin", difficulty=0)
    template.created_at = SeedKeyword.objects.first().created_at
    with on_commit():
        response = staff_client.post("/admin/keywords/seedkeyword/add/", admin_form(template))
    assert response.status_code == 302, response.content.decode()[:2000]
    added = SeedKeyword.objects.get(keyword="added in the admin")
    assert_totals_exact()
    assert sector_cells(totals_table(), library.empty_sector.pk) == {(library.empty_sector.pk, "US", "easy", False, False): 1}

    with on_commit():
        response = staff_client.post(f"/admin/keywords/seedkeyword/{added.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not SeedKeyword.objects.filter(pk=added.pk).exists()
    assert_totals_exact()
    assert sector_cells(totals_table(), library.empty_sector.pk) == {}
