"""Imports seed keywords from CSV into the library: streamed, validated, upserted in batches.

The file is read row by row (never loaded whole). Every row is validated; a bad row is rejected
with its line number and reason and the others still import. Valid rows are upserted in batches
(``bulk_create(update_conflicts=True)`` on the (keyword, country, industry sector) key), one
transaction per batch, so re-importing a file changes nothing but the values that differ and never
duplicates a keyword. ``created_at`` is set on insert only. Because bulk writes bypass the model
signals, the totals table is refreshed once at the end for the sectors that changed.

Columns (a header row is required; names are case-insensitive, unknown columns are ignored):

    keyword             required; Unicode NFC, surrounding whitespace stripped, inner runs
                        collapsed to one space, case kept; 1..255 characters
    volume              required; integer >= 0 (plain digits: no separators, signs or decimals)
    difficulty          required; integer 0..100
    industry, sector    the industry sector, each by name or slug (case-insensitive) ...
    industry_sector_id  ... or by id; one of the two forms is required
    country             2 letters, uppercased; default US
    is_high_opportunity true/false/1/0/yes/no; default false
    is_paid             true/false/1/0/yes/no; default false
    credit_cost         integer >= 0; default 0, and must be 0 for a free keyword

Empty optional cells take the default. A row with fewer fields than the header, or with extra
non-empty fields, is rejected; blank lines are skipped.
"""

import csv
import io
import os
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.stats import refresh_library_stats
from inkwell.tenancy.models import IndustrySector

DEMO_CSV = Path(__file__).resolve().parent / "data" / "demo_keywords.csv"

DEFAULT_BATCH_SIZE = 5_000
MAX_BATCH_SIZE = 10_000  # keeps each batch's lookup under SQLite's 32,766 bound parameters
SAMPLE_SIZE = 20  # rejected (and merged) rows listed in the summary

REQUIRED_COLUMNS = ("keyword", "volume", "difficulty")
SECTOR_BY_NAME = ("industry", "sector")
SECTOR_BY_ID = "industry_sector_id"
OPTIONAL_COLUMNS = ("country", "is_high_opportunity", "is_paid", "credit_cost")
KNOWN_COLUMNS = frozenset((*REQUIRED_COLUMNS, *SECTOR_BY_NAME, SECTOR_BY_ID, *OPTIONAL_COLUMNS))

KEY_FIELDS = ("keyword", "country", "industry_sector_id")
VALUE_FIELDS = ("volume", "difficulty", "is_high_opportunity", "is_paid", "credit_cost")

MAX_KEYWORD_LENGTH = SeedKeyword._meta.get_field("keyword").max_length
MAX_INTEGER = 2_147_483_647  # PositiveIntegerField's upper bound on every backend
TRUE_VALUES = frozenset({"true", "1", "yes"})
FALSE_VALUES = frozenset({"false", "0", "no", ""})
_DIGITS = re.compile(r"[0-9]+")
_COUNTRY = re.compile(r"[A-Za-z]{2}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # Unicode category Cc


class ImportFileError(Exception):
    """The file cannot be imported at all: missing, unreadable, no header, or required columns absent."""


class RowError(Exception):
    """One row is invalid; ``reason`` is the category counted in the summary, ``detail`` the value."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


# The reasons a row is rejected (the categories counted in the summary).
MALFORMED = "malformed CSV row"
WRONG_FIELD_COUNT = "wrong number of fields"
NOT_UTF8 = "not valid UTF-8"
KEYWORD_EMPTY = "keyword is empty"
KEYWORD_TOO_LONG = f"keyword is longer than {MAX_KEYWORD_LENGTH} characters"
KEYWORD_CONTROL = "keyword contains control characters"
BAD_VOLUME = f"volume is not an integer 0..{MAX_INTEGER}"
BAD_DIFFICULTY = "difficulty is not an integer 0..100"
BAD_COUNTRY = "country is not a 2-letter code"
BAD_CREDIT_COST = f"credit_cost is not an integer 0..{MAX_INTEGER}"
FREE_WITH_COST = "free keyword (is_paid false) with credit_cost > 0"
SECTOR_MISSING = "industry sector is missing"
SECTOR_UNKNOWN = "unknown industry sector"


def bad_boolean(column: str) -> str:
    return f"{column} is not true/false/1/0/yes/no"


@dataclass(frozen=True)
class Rejection:
    line: int
    reason: str
    detail: str = ""

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}" + (f" ({self.detail})" if self.detail else "")


@dataclass
class ImportResult:
    """What an import did. Every data row is counted exactly once: inserted, updated, unchanged,
    merged (superseded by a later row with the same key in the same batch) or rejected."""

    dry_run: bool = False
    rows: int = 0
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    merged: int = 0
    rejected: int = 0
    batches: int = 0
    reasons: Counter = field(default_factory=Counter)
    rejections: list[Rejection] = field(default_factory=list)  # the first SAMPLE_SIZE
    merges: list[tuple[int, int]] = field(default_factory=list)  # (superseded line, winning line), the first SAMPLE_SIZE
    ignored_columns: list[str] = field(default_factory=list)
    sector_ids: set[int] = field(default_factory=set)  # sectors whose keywords changed
    seconds: float = 0.0

    def reject(self, line: int, reason: str, detail: str = "") -> None:
        self.rejected += 1
        self.reasons[reason] += 1
        if len(self.rejections) < SAMPLE_SIZE:
            self.rejections.append(Rejection(line, reason, detail))

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0


Progress = Callable[[int, int, int], None]  # (bytes read, file size, rows read)


class SectorResolver:
    """All industry sectors, loaded with one query, by id and by (industry, sector) name or slug."""

    def __init__(self):
        self.by_id: dict[int, int] = {}
        self.by_names: dict[tuple[str, str], int] = {}
        for sector in IndustrySector.objects.select_related("industry").order_by("id"):
            self.by_id[sector.pk] = sector.pk
            for industry_key in {sector.industry.name.lower(), sector.industry.slug.lower()}:
                for sector_key in {sector.name.lower(), sector.slug.lower()}:
                    self.by_names[(industry_key, sector_key)] = sector.pk

    def resolve_names(self, industry: str, sector: str) -> int | None:
        industry, sector = _collapse(industry).lower(), _collapse(sector).lower()
        found = self.by_names.get((industry, sector))
        if found is None:  # "Health and Wellness" style spellings still match the slug
            found = self.by_names.get((slugify(industry), slugify(sector)))
        return found

    def resolve_id(self, value: str) -> int | None:
        value = value.strip()
        return self.by_id.get(int(value)) if _is_small_integer(value) else None


def _is_small_integer(value: str) -> bool:
    """Plain digits, short enough for int() (which refuses over 4,300 digits) and the columns."""
    return bool(_DIGITS.fullmatch(value)) and len(value.lstrip("0")) <= 10


def _collapse(value: str) -> str:
    return " ".join(unicodedata.normalize("NFC", value).split())


def _integer(value: str | None, reason: str, *, low: int = 0, high: int = MAX_INTEGER, default: int | None = None) -> int:
    value = (value or "").strip()
    if not value and default is not None:
        return default
    if not _is_small_integer(value) or not low <= int(value) <= high:
        raise RowError(reason, repr(value[:40]))
    return int(value)


def _boolean(value: str | None, column: str) -> bool:
    value = (value or "").strip().lower()
    if value in TRUE_VALUES:
        return True
    if value in FALSE_VALUES:
        return False
    raise RowError(bad_boolean(column), repr(value[:40]))


def _keyword(value: str | None) -> str:
    keyword = _collapse(value or "")
    if not keyword:
        raise RowError(KEYWORD_EMPTY)
    if len(keyword) > MAX_KEYWORD_LENGTH:
        raise RowError(KEYWORD_TOO_LONG, f"{len(keyword)} characters")
    if _CONTROL.search(keyword):  # NUL would abort a PostgreSQL batch
        raise RowError(KEYWORD_CONTROL, repr(keyword[:40]))
    return keyword


def parse_row(row: dict, sectors: SectorResolver) -> tuple[tuple, tuple]:
    """The (key, values) of a valid row, in KEY_FIELDS and VALUE_FIELDS order; raises RowError.

    Checks run in column order and the first failure is the row's reason.
    """
    extra = row.pop(None, None)  # fields past the header's last column
    if any(value is None for value in row.values()) or (extra and any(value.strip() for value in extra)):
        raise RowError(WRONG_FIELD_COUNT)
    try:
        for value in row.values():
            value.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes, kept as surrogates when the file was read
        raise RowError(NOT_UTF8) from None

    keyword = _keyword(row.get("keyword"))
    volume = _integer(row.get("volume"), BAD_VOLUME)
    difficulty = _integer(row.get("difficulty"), BAD_DIFFICULTY, high=100)
    country = (row.get("country") or "").strip() or "US"
    if not _COUNTRY.fullmatch(country):
        raise RowError(BAD_COUNTRY, repr(country[:40]))
    country = country.upper()

    sector_id = None
    raw_id = (row.get(SECTOR_BY_ID) or "").strip()
    industry, sector = (row.get("industry") or "").strip(), (row.get("sector") or "").strip()
    if raw_id:
        sector_id = sectors.resolve_id(raw_id)
        if sector_id is None:
            raise RowError(SECTOR_UNKNOWN, f"id {raw_id[:40]!r}")
    elif industry or sector:
        sector_id = sectors.resolve_names(industry, sector)
        if sector_id is None:
            raise RowError(SECTOR_UNKNOWN, f"{industry[:80]!r} / {sector[:80]!r}")
    else:
        raise RowError(SECTOR_MISSING)

    is_high_opportunity = _boolean(row.get("is_high_opportunity"), "is_high_opportunity")
    is_paid = _boolean(row.get("is_paid"), "is_paid")
    credit_cost = _integer(row.get("credit_cost"), BAD_CREDIT_COST, default=0)
    if not is_paid and credit_cost:
        raise RowError(FREE_WITH_COST, f"credit_cost {credit_cost}")
    return (keyword, country, sector_id), (volume, difficulty, is_high_opportunity, is_paid, credit_cost)


def check_header(fieldnames: list[str] | None) -> tuple[list[str], list[str]]:
    """The normalised column names and the ignored ones; raises ImportFileError when unusable."""
    if not fieldnames:
        raise ImportFileError("the file is empty: a header row is required")
    columns = [name.strip().lower() for name in fieldnames]
    duplicates = sorted({name for name in columns if name and columns.count(name) > 1})
    if duplicates:
        raise ImportFileError(f"the header repeats columns: {', '.join(duplicates)}")
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    has_names = all(name in columns for name in SECTOR_BY_NAME)
    if not has_names and SECTOR_BY_ID not in columns:
        missing.append("industry and sector (or industry_sector_id)")
    if missing:
        raise ImportFileError(
            f"the header lacks required columns: {', '.join(missing)} (found: {', '.join(columns)}; "
            f"expected: keyword,volume,difficulty,country,industry,sector,is_high_opportunity,is_paid,credit_cost)"
        )
    return columns, [name for name in columns if name and name not in KNOWN_COLUMNS]


def _rows(reader: csv.DictReader, result: ImportResult) -> Iterator[tuple[int, dict]]:
    """(line number, row) of each data row; rows the csv module cannot parse are rejected."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            result.rows += 1
            result.reject(reader.line_num, MALFORMED, str(error))
            continue
        result.rows += 1
        yield reader.line_num, row  # the last physical line of the row (quoted fields may span lines)


def _write_batch(batch: dict[tuple, tuple[int, tuple]], result: ImportResult, *, dry_run: bool) -> None:
    """Upserts one batch of distinct keys; counts inserted / updated / unchanged with one lookup."""
    keywords = {key[0] for key in batch}
    sector_ids = {key[2] for key in batch}
    with transaction.atomic():
        existing = {}
        for *key, volume, difficulty, high, paid, cost in (
            SeedKeyword.objects.filter(keyword__in=keywords, industry_sector_id__in=sector_ids)
            .order_by()
            .values_list(*KEY_FIELDS, *VALUE_FIELDS)
        ):
            if tuple(key) in batch:
                existing[tuple(key)] = (volume, difficulty, high, paid, cost)

        now = timezone.now()
        to_write = []
        for key, (_, values) in batch.items():
            before = existing.get(key)
            if before is None:
                result.inserted += 1
            elif before == values:
                result.unchanged += 1
                continue
            else:
                result.updated += 1
            to_write.append(SeedKeyword(**dict(zip(KEY_FIELDS, key, strict=True)), **dict(zip(VALUE_FIELDS, values, strict=True)), created_at=now))
        if dry_run or not to_write:
            return
        SeedKeyword.objects.bulk_create(
            to_write,
            update_conflicts=True,
            unique_fields=["keyword", "country", "industry_sector"],
            update_fields=list(VALUE_FIELDS),  # not created_at: it keeps the first import's time
        )
    result.sector_ids.update(keyword.industry_sector_id for keyword in to_write)


def import_stream(
    binary: BinaryIO,
    *,
    total_bytes: int = 0,
    batch_size: int = DEFAULT_BATCH_SIZE,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportResult:
    """Imports CSV from an open binary file (UTF-8, an optional BOM); see the module docstring.

    ``progress(bytes_read, total_bytes, rows_read)`` is called after every batch. A dry run
    validates and counts (looking up which keys exist) but writes nothing; its counts assume no
    key is repeated across batches.
    """
    if not 1 <= batch_size <= MAX_BATCH_SIZE:
        raise ValueError(f"batch size must be 1..{MAX_BATCH_SIZE}")
    started = time.monotonic()
    result = ImportResult(dry_run=dry_run)
    # Undecodable bytes become surrogates, so the row holding them is rejected and the rest imports.
    text = io.TextIOWrapper(binary, encoding="utf-8-sig", errors="surrogateescape", newline="")
    reader = csv.DictReader(text)
    try:
        fieldnames = reader.fieldnames
    except csv.Error as error:
        raise ImportFileError(f"the header row cannot be parsed: {error}") from None
    columns, result.ignored_columns = check_header(fieldnames)
    reader.fieldnames = columns
    sectors = SectorResolver()

    reported = None

    def report() -> None:
        nonlocal reported
        if not progress:
            return
        try:
            position = binary.tell()
        except (OSError, ValueError):
            position = 0
        if (position, result.rows) != reported:  # the last batch and the end are often the same point
            reported = (position, result.rows)
            progress(position, total_bytes, result.rows)

    batch: dict[tuple, tuple[int, tuple]] = {}
    try:
        report()
        for line, row in _rows(reader, result):
            try:
                key, values = parse_row(row, sectors)
            except RowError as error:
                result.reject(line, error.reason, error.detail)
                continue
            previous = batch.pop(key, None)  # pop + insert: the last row wins and keeps its place
            if previous is not None:
                result.merged += 1
                if len(result.merges) < SAMPLE_SIZE:
                    result.merges.append((previous[0], line))
            batch[key] = (line, values)
            if len(batch) >= batch_size:
                _write_batch(batch, result, dry_run=dry_run)
                result.batches += 1
                batch = {}
                report()
        if batch:
            _write_batch(batch, result, dry_run=dry_run)
            result.batches += 1
        report()
    finally:
        # Committed batches count even when a later one fails: keep the totals exact either way.
        if not dry_run and result.sector_ids:
            refresh_library_stats(result.sector_ids)
        result.seconds = time.monotonic() - started
        text.detach()
    return result


def import_file(
    path: str | os.PathLike,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportResult:
    """Imports a CSV file; raises ImportFileError when it is missing or unusable."""
    path = Path(path)
    try:
        binary = path.open("rb")
    except FileNotFoundError:
        raise ImportFileError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise ImportFileError(f"{path} is a directory, not a CSV file") from None
    except OSError as error:
        raise ImportFileError(f"cannot read {path}: {error.strerror}") from None
    with binary:
        return import_stream(
            binary, total_bytes=os.fstat(binary.fileno()).st_size, batch_size=batch_size, dry_run=dry_run, progress=progress
        )


def library_is_empty() -> bool:
    return not SeedKeyword.objects.exists()


MERGED_NOTE = "same keyword, country and sector as a later row of its batch: the later row won"


def format_summary(result: ImportResult, name: str) -> list[str]:
    """The human summary: counts, rejections per reason, the first rejected and merged lines."""
    verb = "Checked" if result.dry_run else "Imported"
    lines = [f"{verb} {name}: {result.rows:,} rows in {result.seconds:.1f} s ({result.rows_per_second:,.0f} rows/s)"]
    if result.dry_run:
        lines.append("  dry run: nothing was written; the counts say what an import would do")
    would = "would be " if result.dry_run else ""
    lines += [
        f"  {would}inserted   {result.inserted:>10,}",
        f"  {would}updated    {result.updated:>10,}",
        f"  unchanged  {result.unchanged:>10,}",
        f"  merged     {result.merged:>10,}" + (f"  ({MERGED_NOTE})" if result.merged else ""),
        f"  rejected   {result.rejected:>10,}",
    ]
    if result.ignored_columns:
        lines.append(f"  ignored columns: {', '.join(result.ignored_columns)}")
    if result.reasons:
        lines.append("Rejected rows by reason:")
        lines += [f"  {count:>10,}  {reason}" for reason, count in result.reasons.most_common()]
        shown = len(result.rejections)
        lines.append(f"First {shown} rejected rows:" if result.rejected > shown else "Rejected rows:")
        lines += [f"  {rejection}" for rejection in result.rejections]
    if result.merges:
        lines.append("First merged rows:" if result.merged > len(result.merges) else "Merged rows:")
        lines += [f"  line {old} superseded by line {new}" for old, new in result.merges]
    return lines
