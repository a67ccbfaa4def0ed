"""The CSV import (``inkwell.keywords.importer``, ``manage.py import_keywords``) and the demo library."""

import csv
import io
import re
from collections import Counter

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count

from inkwell.keywords import importer
from inkwell.keywords.data import make_demo
from inkwell.keywords.models import BAND_RANGES, SeedKeyword, SeedKeywordStats
from inkwell.tenancy.models import IndustrySector

HEADER = ["keyword", "volume", "difficulty", "country", "industry", "sector", "is_high_opportunity", "is_paid", "credit_cost"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def sectors():
    """Two industry sectors of the default catalogue."""
    return list(IndustrySector.objects.select_related("industry").order_by("id")[:2])


def write_csv(path, rows, header=HEADER):
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        if header is not None:
            writer.writerow(header)
        writer.writerows(rows)
    return path


def row(sector, keyword="best crm", volume="1000", difficulty="40", country="US", high="false", paid="false", cost="0"):
    return [keyword, volume, difficulty, country, sector.industry.name, sector.name, high, paid, cost]


def run_command(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_keywords", *map(str, args), "--no-progress", stdout=out, stderr=err)
    return out.getvalue()


def stats_cells():
    return {
        (cell.industry_sector_id, cell.country, cell.difficulty_band, cell.is_paid, cell.is_high_opportunity): cell.total
        for cell in SeedKeywordStats.objects.all()
    }


def group_by_cells():
    """The totals computed straight from the keywords (GROUP BY), bands applied in Python."""
    cells = Counter()
    grouped = SeedKeyword.objects.values("industry_sector_id", "country", "difficulty", "is_paid", "is_high_opportunity").annotate(n=Count("id"))
    for group in grouped.order_by():
        band = next(int(band) for band, (low, high) in BAND_RANGES.items() if low <= group["difficulty"] <= high)
        cells[(group["industry_sector_id"], group["country"], band, group["is_paid"], group["is_high_opportunity"])] += group["n"]
    return dict(cells)


# ---- valid rows


def test_valid_rows_are_inserted_with_every_field(tmp_path, sectors):
    first, second = sectors
    path = write_csv(
        tmp_path / "k.csv",
        [
            row(first, "Best  CRM\tsoftware ", "12000", "35", "us", "yes", "1", "3"),
            # industry and sector by slug, upper-cased: names and slugs match case-insensitively
            ["crm pricing", "0", "100", "gb", second.industry.slug.upper(), second.slug.upper(), "FALSE", "no", ""],
            row(first, "crm, quoted", "7", "0", "DE", "true", "true", "5"),
        ],
    )
    result = importer.import_file(path)

    assert (result.rows, result.inserted, result.updated, result.rejected) == (3, 3, 0, 0)
    values = {
        k.keyword: (k.volume, k.difficulty, k.country, k.industry_sector_id, k.is_high_opportunity, k.is_paid, k.credit_cost)
        for k in SeedKeyword.objects.all()
    }
    assert values == {
        "Best CRM software": (12000, 35, "US", first.pk, True, True, 3),  # whitespace collapsed, case kept
        "crm pricing": (0, 100, "GB", second.pk, False, False, 0),
        "crm, quoted": (7, 0, "DE", first.pk, True, True, 5),
    }


def test_optional_columns_default_to_us_false_false_0(tmp_path, sectors):
    path = write_csv(tmp_path / "k.csv", [["best crm", "10", "20", sectors[0].industry.name, sectors[0].name]], header=HEADER[:3] + ["industry", "sector"])
    importer.import_file(path)
    keyword = SeedKeyword.objects.get()
    assert (keyword.country, keyword.is_high_opportunity, keyword.is_paid, keyword.credit_cost) == ("US", False, False, 0)


def test_the_sector_can_be_given_by_industry_sector_id(tmp_path, sectors):
    path = write_csv(tmp_path / "k.csv", [["best crm", "10", "20", str(sectors[1].pk)]], header=["Keyword", "Volume", "Difficulty", "Industry_Sector_ID"])
    result = importer.import_file(path)
    assert result.inserted == 1
    assert SeedKeyword.objects.get().industry_sector_id == sectors[1].pk


def test_a_byte_order_mark_and_unknown_columns_are_tolerated(tmp_path, sectors):
    path = tmp_path / "k.csv"
    text = ",".join([*HEADER, "notes"]) + "\n" + ",".join([*row(sectors[0]), "ignored"]) + "\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    result = importer.import_file(path)
    assert (result.inserted, result.ignored_columns) == (1, ["notes"])


def test_created_at_is_set_on_insert(tmp_path, sectors):
    importer.import_file(write_csv(tmp_path / "k.csv", [row(sectors[0])]))
    assert SeedKeyword.objects.get().created_at is not None


# ---- re-import and duplicates


def test_reimport_is_idempotent_and_applies_changed_values(tmp_path, sectors):
    rows = [row(sectors[0], f"keyword {n}", volume=str(n * 10)) for n in range(50)]
    first = importer.import_file(write_csv(tmp_path / "a.csv", rows))
    before = {k.keyword: (k.pk, k.created_at) for k in SeedKeyword.objects.all()}

    again = importer.import_file(write_csv(tmp_path / "a.csv", rows))
    assert (first.inserted, first.updated, first.unchanged) == (50, 0, 0)
    assert (again.rows, again.inserted, again.updated, again.unchanged) == (50, 0, 0, 50)
    assert SeedKeyword.objects.count() == 50

    changed = [row(sectors[0], f"keyword {n}", volume=str(n * 10 + 1), difficulty="90", paid="true", cost="2") for n in range(50)]
    updated = importer.import_file(write_csv(tmp_path / "b.csv", changed))
    assert (updated.inserted, updated.updated, updated.unchanged) == (0, 50, 0)
    after = {k.keyword: (k.pk, k.created_at) for k in SeedKeyword.objects.all()}
    assert after == before  # same rows, created_at untouched
    assert set(SeedKeyword.objects.values_list("difficulty", "is_paid", "credit_cost")) == {(90, True, 2)}
    assert SeedKeyword.objects.get(keyword="keyword 7").volume == 71


def test_the_key_is_keyword_country_and_sector(tmp_path, sectors):
    first, second = sectors
    rows = [row(first, "best crm"), row(first, "best crm", country="GB"), row(second, "best crm"), row(first, "Best CRM")]
    result = importer.import_file(write_csv(tmp_path / "k.csv", rows))
    assert (result.inserted, result.merged) == (4, 0)


def test_duplicate_keys_within_a_batch_the_last_row_wins(tmp_path, sectors):
    rows = [
        row(sectors[0], "best crm", volume="1"),
        row(sectors[0], "other", volume="5"),
        row(sectors[0], " best   crm ", volume="2"),  # same key once whitespace is collapsed
        row(sectors[0], "best crm", volume="3", country="us"),
    ]
    result = importer.import_file(write_csv(tmp_path / "k.csv", rows))
    assert (result.rows, result.inserted, result.merged) == (4, 2, 2)
    assert result.merges == [(2, 4), (4, 5)]  # (superseded line, the line that superseded it)
    assert SeedKeyword.objects.get(keyword="best crm").volume == 3
    summary = "\n".join(importer.format_summary(result, "k.csv"))
    assert "line 2 superseded by line 4" in summary


def test_duplicate_keys_across_batches_count_as_updates(tmp_path, sectors):
    rows = [row(sectors[0], "a", volume="1"), row(sectors[0], "b"), row(sectors[0], "a", volume="2")]
    result = importer.import_file(write_csv(tmp_path / "k.csv", rows), batch_size=2)
    assert (result.inserted, result.updated, result.merged, result.batches) == (2, 1, 0, 2)
    assert SeedKeyword.objects.get(keyword="a").volume == 2


# ---- rejected rows

BAD_ROWS = [
    ("empty keyword", {"keyword": "   "}, importer.KEYWORD_EMPTY),
    ("keyword too long", {"keyword": "k" * 256}, importer.KEYWORD_TOO_LONG),
    ("keyword with a control character", {"keyword": "best\x00crm"}, importer.KEYWORD_CONTROL),
    ("negative volume", {"volume": "-5"}, importer.BAD_VOLUME),
    ("volume not a number", {"volume": "lots"}, importer.BAD_VOLUME),
    ("decimal volume", {"volume": "1.5"}, importer.BAD_VOLUME),
    ("volume past the column's range", {"volume": "2147483648"}, importer.BAD_VOLUME),
    ("empty volume", {"volume": ""}, importer.BAD_VOLUME),
    ("volume of 5,000 digits", {"volume": "9" * 5000}, importer.BAD_VOLUME),
    ("difficulty over 100", {"difficulty": "101"}, importer.BAD_DIFFICULTY),
    ("negative difficulty", {"difficulty": "-1"}, importer.BAD_DIFFICULTY),
    ("three-letter country", {"country": "USA"}, importer.BAD_COUNTRY),
    ("country with a digit", {"country": "U1"}, importer.BAD_COUNTRY),
    ("is_paid not a boolean", {"paid": "maybe"}, importer.bad_boolean("is_paid")),
    ("is_high_opportunity not a boolean", {"high": "y"}, importer.bad_boolean("is_high_opportunity")),
    ("negative credit cost", {"paid": "true", "cost": "-1"}, importer.BAD_CREDIT_COST),
    ("free keyword with a cost", {"paid": "false", "cost": "2"}, importer.FREE_WITH_COST),
]


@pytest.mark.parametrize(("bad", "expected_reason"), [case[1:] for case in BAD_ROWS], ids=[case[0] for case in BAD_ROWS])
def test_each_malformed_row_is_rejected_with_its_reason_and_line_while_good_rows_import(tmp_path, sectors, bad, expected_reason):
    good_first, good_last = row(sectors[0], "good one"), row(sectors[0], "good two")
    path = write_csv(tmp_path / "k.csv", [good_first, row(sectors[0], **{"keyword": "bad", **bad}), good_last])
    result = importer.import_file(path)
    assert (result.inserted, result.rejected) == (2, 1)
    assert [(r.line, r.reason) for r in result.rejections] == [(3, expected_reason)]
    assert set(SeedKeyword.objects.values_list("keyword", flat=True)) == {"good one", "good two"}


def test_unknown_sector_is_rejected(tmp_path, sectors):
    rows = [
        row(sectors[0]),
        ["k1", "1", "1", "US", "Technology", "Quantum Knitting", "false", "false", "0"],
        ["k2", "1", "1", "US", "No Such Industry", sectors[0].name, "false", "false", "0"],
        ["k3", "1", "1", "US", "", "", "false", "false", "0"],
    ]
    result = importer.import_file(write_csv(tmp_path / "k.csv", rows))
    assert [(r.line, r.reason) for r in result.rejections] == [
        (3, importer.SECTOR_UNKNOWN),
        (4, importer.SECTOR_UNKNOWN),
        (5, importer.SECTOR_MISSING),
    ]
    assert "'Technology' / 'Quantum Knitting'" in str(result.rejections[0])
    assert result.inserted == 1


def test_unknown_industry_sector_id_is_rejected(tmp_path, sectors):
    rows = [["a", "1", "1", "999999"], ["b", "1", "1", "x"], ["c", "1", "1", "7" * 5000], ["d", "1", "1", str(sectors[0].pk)]]
    result = importer.import_file(write_csv(tmp_path / "k.csv", rows, header=HEADER[:3] + ["industry_sector_id"]))
    assert [(r.line, r.reason) for r in result.rejections] == [(line, importer.SECTOR_UNKNOWN) for line in (2, 3, 4)]
    assert result.inserted == 1


def test_rows_with_the_wrong_number_of_fields_are_rejected(tmp_path, sectors):
    path = tmp_path / "k.csv"
    good = ",".join(row(sectors[0], "good"))
    path.write_text(
        ",".join(HEADER) + "\n"
        + "short,1,1\n"
        + ",".join(row(sectors[0], "extra")) + ",surprise\n"
        + ",".join(row(sectors[0], "trailing")) + ",\n"  # an empty extra field (spreadsheet export) is fine
        + "\n"  # blank lines are skipped
        + good + "\n"
    )
    result = importer.import_file(path)
    assert [(r.line, r.reason) for r in result.rejections] == [(2, importer.WRONG_FIELD_COUNT), (3, importer.WRONG_FIELD_COUNT)]
    assert set(SeedKeyword.objects.values_list("keyword", flat=True)) == {"trailing", "good"}


def test_a_row_that_is_not_utf8_is_rejected_and_the_rest_imports(tmp_path, sectors):
    path = tmp_path / "k.csv"
    lines = [",".join(HEADER), ",".join(row(sectors[0], "caf\N{LATIN SMALL LETTER E WITH ACUTE}")), ",".join(row(sectors[0], "latin1 XX")), ""]
    data = "\n".join(lines).encode().replace(b"XX", b"caf\xe9")
    path.write_bytes(data)
    result = importer.import_file(path)
    assert [(r.line, r.reason) for r in result.rejections] == [(3, importer.NOT_UTF8)]
    assert SeedKeyword.objects.get().keyword == "caf\N{LATIN SMALL LETTER E WITH ACUTE}"


def test_line_numbers_count_physical_lines_of_multiline_rows(tmp_path, sectors):
    path = write_csv(tmp_path / "k.csv", [row(sectors[0], "two\nlines"), row(sectors[0], "bad", volume="x")])
    result = importer.import_file(path)
    assert [r.line for r in result.rejections] == [4]
    assert SeedKeyword.objects.get().keyword == "two lines"


def test_the_summary_counts_rejections_per_reason_and_lists_the_first_20(tmp_path, sectors):
    rows = [row(sectors[0], f"v{n}", volume="x") for n in range(15)] + [row(sectors[0], f"d{n}", difficulty="200") for n in range(10)]
    out = run_command(write_csv(tmp_path / "k.csv", rows + [row(sectors[0])]))
    assert re.search(r"inserted +1\n", out) and re.search(r"rejected +25\n", out)
    assert re.search(rf" 15  {re.escape(importer.BAD_VOLUME)}\n", out)
    assert re.search(rf" 10  {re.escape(importer.BAD_DIFFICULTY)}\n", out)
    assert "First 20 rejected rows:" in out
    assert "line 2: volume" in out and "line 21: difficulty" in out and "line 22:" not in out


# ---- whole-file errors and options


def test_a_header_missing_a_required_column_is_a_command_error(tmp_path, sectors):
    path = write_csv(tmp_path / "k.csv", [["best crm", "10", sectors[0].industry.name, sectors[0].name]], header=["keyword", "volume", "industry", "sector"])
    with pytest.raises(CommandError, match="lacks required columns: difficulty"):
        run_command(path)
    assert not SeedKeyword.objects.exists()


def test_a_header_without_sector_columns_is_a_command_error(tmp_path):
    path = write_csv(tmp_path / "k.csv", [["best crm", "10", "10", "Technology"]], header=["keyword", "volume", "difficulty", "industry"])
    with pytest.raises(CommandError, match=r"industry and sector \(or industry_sector_id\)"):
        run_command(path)


def test_an_empty_file_is_a_command_error(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(CommandError, match="a header row is required"):
        run_command(path)


def test_a_missing_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        run_command(tmp_path / "nope.csv")


def test_a_file_or_demo_is_required_but_not_both(tmp_path):
    with pytest.raises(CommandError, match="either a CSV file or --demo"):
        run_command()
    with pytest.raises(CommandError, match="not both"):
        run_command(tmp_path / "k.csv", "--demo")


def test_the_batch_size_is_bounded(tmp_path, sectors):
    path = write_csv(tmp_path / "k.csv", [row(sectors[0])])
    for size in ("0", str(importer.MAX_BATCH_SIZE + 1)):
        with pytest.raises(CommandError, match="--batch-size"):
            run_command(path, "--batch-size", size)


def test_dry_run_writes_nothing_but_counts(tmp_path, sectors):
    importer.import_file(write_csv(tmp_path / "a.csv", [row(sectors[0], "existing")]))
    stats_before = stats_cells()
    path = write_csv(tmp_path / "b.csv", [row(sectors[0], "existing", volume="5"), row(sectors[1], "new"), row(sectors[0], "bad", volume="x")])
    out = run_command(path, "--dry-run")
    assert "dry run: nothing was written" in out
    assert re.search(r"would be inserted +1\n", out) and re.search(r"would be updated +1\n", out) and re.search(r"rejected +1\n", out)
    assert list(SeedKeyword.objects.values_list("keyword", "volume")) == [("existing", 1000)]
    assert stats_cells() == stats_before


def test_if_empty_imports_into_an_empty_library_only(tmp_path, sectors):
    first = write_csv(tmp_path / "a.csv", [row(sectors[0], "first")])
    second = write_csv(tmp_path / "b.csv", [row(sectors[0], "second")])
    run_command(first, "--if-empty")
    out = run_command(second, "--if-empty")
    assert "already has keywords" in out
    assert list(SeedKeyword.objects.values_list("keyword", flat=True)) == ["first"]


def test_progress_is_reported_per_batch_by_bytes_read(tmp_path, sectors):
    path = write_csv(tmp_path / "k.csv", [row(sectors[0], f"k{n}") for n in range(5)])
    calls = []
    importer.import_file(path, batch_size=2, progress=lambda done, total, rows: calls.append((done, total, rows)))
    size = path.stat().st_size
    assert calls[0][2] == 0 and calls[-1] == (size, size, 5)
    assert len(calls) >= 4  # the start, every full batch, the end
    assert [rows for _, _, rows in calls] == sorted(rows for _, _, rows in calls)


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_bar_shows_on_a_terminal_only(tmp_path, sectors):
    path = write_csv(tmp_path / "k.csv", [row(sectors[0], f"k{n}") for n in range(3)])
    terminal, plain, out = FakeTerminal(), io.StringIO(), io.StringIO()
    call_command("import_keywords", str(path), stdout=out, stderr=terminal)
    assert "] 100% 3 rows" in terminal.getvalue() and "[###" in terminal.getvalue()
    call_command("import_keywords", str(path), stdout=out, stderr=plain)
    call_command("import_keywords", str(path), "--no-progress", stdout=out, stderr=(quiet := FakeTerminal()))
    assert plain.getvalue() == "" and quiet.getvalue() == ""
    assert out.getvalue().count("Imported") == 3  # the summary is printed either way


# ---- totals and the demo library


def test_after_import_the_stats_totals_equal_a_group_by_count(tmp_path, sectors):
    run_command("--demo")
    assert stats_cells() == group_by_cells()
    # Move keywords across bands, paid and high-opportunity, and add new ones: still exact.
    sample = list(SeedKeyword.objects.filter(industry_sector=sectors[0]).order_by("id")[:30])
    rows = [
        [k.keyword, str(k.volume), str(100 - k.difficulty), k.country, sectors[0].industry.name, sectors[0].name, "true", "true", "1"]
        for k in sample
    ] + [row(sectors[1], f"brand new {n}", difficulty=str(n * 9)) for n in range(12)]
    result = importer.import_file(write_csv(tmp_path / "k.csv", rows))
    assert (result.updated, result.inserted) == (30, 12)
    assert result.sector_ids == {sectors[0].pk, sectors[1].pk}
    assert stats_cells() == group_by_cells()
    assert sum(stats_cells().values()) == SeedKeyword.objects.count()


def test_the_demo_library_imports_without_rejections(sectors):
    with open(importer.DEMO_CSV, newline="", encoding="utf-8") as file:
        lines = sum(1 for _ in csv.DictReader(file))
    result = importer.import_file(importer.DEMO_CSV)
    assert (result.rows, result.inserted, result.rejected, result.merged) == (lines, lines, 0, 0)
    assert 3_000 <= lines <= 5_000

    per_sector = dict(SeedKeyword.objects.values_list("industry_sector").annotate(n=Count("id")).order_by())
    assert len(per_sector) == IndustrySector.objects.count()  # every default sector has keywords
    paid_sectors = set(SeedKeyword.objects.filter(is_paid=True).values_list("industry_sector", flat=True))
    opportunity_sectors = set(SeedKeyword.objects.filter(is_high_opportunity=True).values_list("industry_sector", flat=True))
    assert len(paid_sectors) >= 30 and len(opportunity_sectors) >= 30

    paid = SeedKeyword.objects.filter(is_paid=True)
    assert 0.07 <= paid.count() / lines <= 0.13
    assert set(paid.values_list("credit_cost", flat=True)) <= {1, 2, 3, 4, 5}
    assert not SeedKeyword.objects.filter(is_paid=False, credit_cost__gt=0).exists()
    high = SeedKeyword.objects.filter(is_high_opportunity=True)
    assert 0.05 <= high.count() / lines <= 0.11
    assert not high.filter(volume__lt=1_000).exists() and not high.filter(difficulty__gt=50).exists()
    assert SeedKeyword.objects.filter(volume__gte=100_000).exists() and SeedKeyword.objects.filter(volume__lte=50).exists()
    countries = Counter(SeedKeyword.objects.values_list("country", flat=True))
    assert set(countries) == {"US", "GB", "CA", "AU", "DE"} and countries["US"] / lines > 0.6


def test_the_committed_demo_csv_is_what_the_generator_writes():
    assert make_demo.render(make_demo.generate()) == importer.DEMO_CSV.read_text(encoding="utf-8")
