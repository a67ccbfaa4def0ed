"""Reading Google Search Console's Performance report as people export it (issue #37).

Accepted, one file per import:

- **CSV** from "Export → Download CSV" of the Performance report: ``Pages.csv`` (header
  ``Top pages,Clicks,Impressions,CTR,Position``), ``Queries.csv`` (``Top queries,...``) or
  ``Dates.csv`` (``Date,...``). CTR is a percentage (``4.55%``), position a decimal (``7.34``);
  counts may carry thousands separators (``1,234``, ``1.234``, ``1 234``) and decimals a comma
  (``7,34``) as some locales write them. A UTF-8 byte order mark is ignored.
- **ZIP** from "Export → Download ZIP" (or CSV, which is the same archive): ``Pages.csv``,
  ``Queries.csv`` and ``Dates.csv`` are read; ``Countries.csv``, ``Devices.csv``,
  ``Search appearance.csv`` and ``Filters.csv`` are ignored. At least one of the three is required.
- **JSON** of the Search Analytics API (``searchanalytics.query``): ``{"rows": [{"keys": [...],
  "clicks", "impressions", "ctr", "position"}], "responseAggregationType": ...}``. The keys are in
  the order of the request's dimensions: name them with ``dimensions`` (in the body beside
  ``rows``, or in the upload's ``dimensions`` field, e.g. ``query,page``); without them, rows of
  one key are ``page`` when it is a web address, ``date`` when it is ``YYYY-MM-DD`` and ``query``
  otherwise, and rows of two keys are ``query,page`` (the order the API's own examples use).
  An answer without ``rows`` but with ``responseAggregationType`` is a period without data.
  Dimensions other than query, page and date (country, device, searchAppearance) are refused.

Any other shape (another header, a row whose numbers do not read, a ZIP with none of the three
files, a JSON without ``rows``) is an ``ExportFormatError`` that names the file and line; nothing
of that file is imported.
"""

import csv
import io
import json
import re
import zipfile
from dataclasses import dataclass
from datetime import date

MAX_ROWS = 100_000  # the API answers at most 25,000 rows a page; the UI exports at most 1,000
MAX_ZIP_MEMBER_BYTES = 20 * 1024 * 1024

DIMENSIONS = ("query", "page", "date")
# The first column of each CSV the report exports, and the dimension it holds.
CSV_FIRST_COLUMNS = {"top pages": "page", "top queries": "query", "date": "date", "page": "page", "query": "query", "pages": "page", "queries": "query"}
METRIC_COLUMNS = ("clicks", "impressions", "ctr", "position")
ZIP_MEMBERS = {"pages.csv": "page", "queries.csv": "query", "dates.csv": "date"}
ZIP_IGNORED = frozenset({"countries.csv", "devices.csv", "search appearance.csv", "filters.csv"})
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class ExportFormatError(Exception):
    """The file is not a Search Console Performance export this importer reads."""


@dataclass(frozen=True)
class MetricRow:
    """One row of the report: the values of its dimensions and its four metrics."""

    query: str = ""
    page: str = ""
    day: date | None = None
    clicks: int = 0
    impressions: int = 0
    ctr: float = 0.0  # a fraction, 0.0455 for 4.55%
    position: float = 0.0


@dataclass(frozen=True)
class ParsedTable:
    """The rows of one report table and the dimensions they are broken down by."""

    dimensions: tuple[str, ...]
    rows: list[MetricRow]
    source: str

    @property
    def kind(self) -> str:
        return "+".join(sorted(self.dimensions))


# Numbers as the exports write them


def _digits_only(text: str) -> str:
    return re.sub(r"[\s\u00a0\u202f,.'’]", "", text)


def parse_count(text: str, *, what: str) -> int:
    """``1234``, ``1,234``, ``1.234``, ``1 234`` → 1234. Decimals or signs are an error."""
    cleaned = _digits_only(text.strip())
    if not cleaned.isdigit():
        raise ValueError(f"{what} is not a whole number: {text!r}")
    if not re.fullmatch(r"\d{1,3}([,.\s\u00a0\u202f'’]\d{3})*|\d+", text.strip()):
        raise ValueError(f"{what} is not a whole number: {text!r}")
    return int(cleaned)


def parse_decimal(text: str, *, what: str) -> float:
    """``7.34``, ``7,34``, ``1,234.5``, ``1.234,5`` → a float."""
    value = text.strip().replace("\u00a0", "").replace("\u202f", "").replace(" ", "")
    if not value:
        raise ValueError(f"{what} is empty")
    if "," in value and "." in value:
        value = value.replace(",", "") if value.rfind(".") > value.rfind(",") else value.replace(".", "").replace(",", ".")
    elif "," in value:
        value = value.replace(",", ".") if re.fullmatch(r"-?\d+,\d{1,2}", value) else value.replace(",", "")
    if not re.fullmatch(r"\d+(\.\d+)?", value):
        raise ValueError(f"{what} is not a number: {text!r}")
    return float(value)


def parse_ctr(text: str) -> float:
    """``4.55%`` (or ``4,55 %``) → 0.0455; ``0%`` → 0.0."""
    value = text.strip()
    if not value.endswith("%"):
        raise ValueError(f"CTR is not a percentage: {text!r}")
    share = parse_decimal(value[:-1], what="CTR")
    if share > 100:
        raise ValueError(f"CTR is over 100%: {text!r}")
    return round(share / 100, 6)


def parse_day(text: str) -> date:
    value = text.strip()
    if not _DATE.fullmatch(value):
        raise ValueError(f"Date is not YYYY-MM-DD: {text!r}")
    return date.fromisoformat(value)


# CSV


def _decode(data: bytes, *, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExportFormatError(f"{source}: not UTF-8 text") from None


def parse_csv(data: bytes, *, source: str) -> ParsedTable:
    """One of the report's CSV files."""
    text = _decode(data, source=source)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise ExportFormatError(f"{source}: the file is empty") from None
    except csv.Error as error:
        raise ExportFormatError(f"{source}: line 1 is not CSV ({error})") from None
    names = [name.strip().lower() for name in header]
    dimension = CSV_FIRST_COLUMNS.get(names[0]) if names else None
    if dimension is None or tuple(names[1:]) != METRIC_COLUMNS:
        expected = "Top pages|Top queries|Date,Clicks,Impressions,CTR,Position"
        raise ExportFormatError(f"{source}: the header is {','.join(header)!r}, not a Search Console Performance table ({expected})")
    rows = []
    try:
        for line_number, record in enumerate(reader, start=2):
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != 5:
                raise ExportFormatError(f"{source}: line {line_number} has {len(record)} fields, not 5")
            if len(rows) >= MAX_ROWS:
                raise ExportFormatError(f"{source}: more than {MAX_ROWS} rows")
            try:
                rows.append(_csv_row(dimension, record))
            except ValueError as error:
                raise ExportFormatError(f"{source}: line {line_number}: {error}") from None
    except csv.Error as error:
        raise ExportFormatError(f"{source}: not CSV ({error})") from None
    return ParsedTable(dimensions=(dimension,), rows=rows, source=source)


def _csv_row(dimension: str, record: list[str]) -> MetricRow:
    key, clicks, impressions, ctr, position = record
    key = key.strip()
    if not key:
        raise ValueError(f"the {dimension} is empty")
    values = {
        "clicks": parse_count(clicks, what="Clicks"),
        "impressions": parse_count(impressions, what="Impressions"),
        "ctr": parse_ctr(ctr),
        "position": parse_decimal(position, what="Position"),
    }
    if dimension == "date":
        return MetricRow(day=parse_day(key), **values)
    if dimension == "page":
        _check_page(key)
    return MetricRow(**{dimension: key[:1000]}, **values)


def _check_page(url: str) -> None:
    if not re.match(r"(?i)https?://[^/\s]+", url):
        raise ValueError(f"the page is not a web address: {url[:100]!r}")


# ZIP


def parse_zip(data: bytes, *, source: str) -> list[ParsedTable]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ExportFormatError(f"{source}: not a ZIP archive") from None
    tables = []
    with archive:
        for info in archive.infolist():
            name = info.filename.rsplit("/", 1)[-1].lower()
            if info.is_dir() or name not in ZIP_MEMBERS:
                continue
            if info.file_size > MAX_ZIP_MEMBER_BYTES:
                raise ExportFormatError(f"{source}: {info.filename} is larger than {MAX_ZIP_MEMBER_BYTES} bytes")
            table = parse_csv(archive.read(info), source=f"{source}/{info.filename}")
            if table.dimensions != (ZIP_MEMBERS[name],):
                raise ExportFormatError(f"{source}/{info.filename}: holds {table.dimensions[0]} rows, not {ZIP_MEMBERS[name]} rows")
            tables.append(table)
    if not tables:
        raise ExportFormatError(f"{source}: the archive holds none of Pages.csv, Queries.csv, Dates.csv")
    return tables


# JSON of the Search Analytics API


def _dimensions_hint(value) -> tuple[str, ...] | None:
    if value in (None, "", []):
        return None
    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ExportFormatError("dimensions must be a list of names or a comma-separated text")
    dims = tuple(name.strip().lower() for name in names)
    unknown = [name for name in dims if name not in DIMENSIONS]
    if unknown:
        raise ExportFormatError(f"dimensions {', '.join(unknown)} are not read (only query, page and date)")
    if len(set(dims)) != len(dims) or not dims:
        raise ExportFormatError("dimensions must name query, page or date, each once")
    return dims


def _guess_dimensions(keys: list) -> tuple[str, ...]:
    if len(keys) == 1:
        key = str(keys[0])
        if _DATE.fullmatch(key):
            return ("date",)
        return ("page",) if re.match(r"(?i)https?://", key) else ("query",)
    if len(keys) == 2:
        return ("query", "page")
    raise ExportFormatError(f"rows with {len(keys)} keys need dimensions to say what each key is")


def _number(row: dict, name: str, index: int, source: str) -> float:
    value = row.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ExportFormatError(f"{source}: row {index}: {name} is not a number ≥ 0")
    return value


def parse_api_json(data: bytes, *, source: str, dimensions=None) -> ParsedTable:
    try:
        body = json.loads(_decode(data, source=source))
    except (ValueError, RecursionError):
        raise ExportFormatError(f"{source}: not JSON") from None
    if not isinstance(body, dict):
        raise ExportFormatError(f'{source}: not a Search Analytics API answer (no "rows" list)')
    if "rows" not in body and "responseAggregationType" in body:
        body["rows"] = []  # the API leaves "rows" out when the period has no data
    if not isinstance(body.get("rows"), list):
        raise ExportFormatError(f'{source}: not a Search Analytics API answer (no "rows" list)')
    dims = _dimensions_hint(dimensions) or _dimensions_hint(body.get("dimensions"))
    rows = body["rows"]
    if len(rows) > MAX_ROWS:
        raise ExportFormatError(f"{source}: more than {MAX_ROWS} rows")
    if dims is None:
        first = rows[0].get("keys") if rows and isinstance(rows[0], dict) else None
        dims = _guess_dimensions(first) if isinstance(first, list) else ("page",)
    parsed = []
    for index, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not isinstance(row.get("keys"), list):
            raise ExportFormatError(f'{source}: row {index} has no "keys" list')
        keys = row["keys"]
        if len(keys) != len(dims) or not all(isinstance(key, str) and key.strip() for key in keys):
            raise ExportFormatError(f"{source}: row {index} has {len(keys)} keys, not {len(dims)} ({','.join(dims)})")
        values = dict(zip(dims, (key.strip() for key in keys), strict=True))
        clicks, impressions = _number(row, "clicks", index, source), _number(row, "impressions", index, source)
        ctr, position = _number(row, "ctr", index, source), _number(row, "position", index, source)
        if clicks != int(clicks) or impressions != int(impressions) or ctr > 1:
            raise ExportFormatError(f"{source}: row {index}: clicks and impressions are whole numbers and ctr a fraction ≤ 1")
        try:
            if "page" in values:
                _check_page(values["page"])
            day = parse_day(values["date"]) if "date" in values else None
        except ValueError as error:
            raise ExportFormatError(f"{source}: row {index}: {error}") from None
        parsed.append(
            MetricRow(
                query=values.get("query", "")[:1000],
                page=values.get("page", "")[:1000],
                day=day,
                clicks=int(clicks),
                impressions=int(impressions),
                ctr=round(float(ctr), 6),
                position=round(float(position), 2),
            )
        )
    return ParsedTable(dimensions=dims, rows=parsed, source=source)


# One upload


def parse_upload(*, data: bytes, filename: str, dimensions=None) -> list[ParsedTable]:
    """The tables of one uploaded file, told apart by its content (a ZIP's signature, JSON's
    opening brace), not only by its name. Raises ``ExportFormatError``."""
    source = (filename or "upload").rsplit("/", 1)[-1][:100]
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return parse_zip(data, source=source)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return [parse_api_json(data, source=source, dimensions=dimensions)]
    if not data.strip():
        raise ExportFormatError(f"{source}: the file is empty")
    return [parse_csv(data, source=source)]
