#!/usr/bin/env python
"""Keywords library benchmark: the API over real HTTP against the same SQL run directly.

    .venv/bin/python bench/keywords_library.py [--rows 1000000] [--sectors 50] [--requests 300]
                                               [--concurrency 4] [--keep] [--explain] [--db-time]
                                               [--database-url postgresql://...] [--baseline DIR]

What it does, in order (docs/benchmarks.md, "Keywords library at a million rows", has the details and the measured numbers):

1. Creates a dedicated PostgreSQL database (``inkwell_bench``; dropped and created again unless
   ``--keep`` finds keywords in it) and migrates it with ``manage.py migrate``.
2. Generates ``--rows`` keywords in one ``INSERT ... SELECT FROM generate_series`` (secondary
   indexes and constraints are dropped for the load and rebuilt afterwards, in the same
   transaction), spread over ``--sectors`` industry sectors, then refreshes the totals table and
   runs VACUUM ANALYZE.
3. Starts gunicorn as in production (2 sync workers, PostgreSQL + Redis, no DEBUG) on a free
   loopback port, signs a user up over HTTP and gives their site 20 sectors.
4. For each scenario: runs one request in-process with the same settings and records the SQL it
   issues; warms up; then sends ``--requests`` sequential requests over HTTP (latency
   percentiles), alternating in blocks with replays of exactly the recorded statements on
   PostgreSQL with psycopg (the difference between the two medians is what the API adds over its
   database) and with as many ``/healthz`` requests (the bare round trip the overhead is compared
   with, taken at the same moments); then the same number of requests from ``--concurrency`` clients (requests per
   second). Every response must be a 200 whose ``count`` (or sector totals) equals a direct SQL
   count.

With ``--baseline DIR`` a second gunicorn serves another checkout of the code (``git archive REV |
tar -x -C DIR``, same migrations) on the same database and Redis, and its requests alternate with
this checkout's and the SQL replays in the same blocks, so before and after sample the same moments
of a shared machine. Its overhead is taken against the same replayed statements (this checkout's).

gunicorn is always stopped (its whole process group), also on Ctrl-C.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import psycopg
from psycopg import sql

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from tests.live_server import manage, stop_process_group  # noqa: E402  (the repository root is on the path only from here)

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/inkwell_bench"
LIBRARY = "/api/v1/keywords-library/"
PAGE_SIZE = 20  # the API's default page size
SITE_SECTORS = 20
STARTUP_TIMEOUT_SECONDS = 30
UNLIMITED = str(10**9)  # requests per minute: the benchmark must never be throttled
DB_TIME_HEADER = "X-Bench-DB-Seconds"  # sent by timed_application (--db-time)
BUSY_BEFORE_PERCENT = 10  # machine CPU busy before measuring, above which the numbers are suspect
BUSY_MARGIN_PERCENT = 15  # allowance over one request stream's share during sequential runs

# --------------------------------------------------------------------------------------------
# Data: keywords are "<modifier> <topic> <qualifier>", e.g. "best espresso near me".
#
# A topic is one word that occurs in no modifier and no qualifier, so a keyword names its three
# parts unambiguously and every (modifier, topic, qualifier) triple is a different keyword. Row i
# takes triple number (i * STRIDE) mod M (a bijection on 0..M-1 because STRIDE and M are coprime),
# which scatters the words without ever repeating a keyword; rows past M get a " 2", " 3"...
# suffix. Searching a topic word ("garden") matches about 1/len(TOPICS) of the library.
# --------------------------------------------------------------------------------------------

MODIFIERS = (
    "best", "top", "cheap", "affordable", "buy", "free", "easy", "quick", "simple", "diy",
    "professional", "organic", "natural", "luxury", "premium", "budget", "used", "new", "local",
    "online", "custom", "small", "large", "portable", "healthy", "modern", "vintage", "eco friendly",
    "smart", "wireless", "electric", "handmade", "homemade", "compact", "durable", "lightweight",
    "waterproof", "family", "kids", "beginner", "advanced", "outdoor", "indoor", "commercial",
    "residential", "seasonal", "how to choose", "what is", "where to buy", "how much is",
)
TOPICS = (
    # technology
    "software", "laptop", "router", "firewall", "antivirus", "password", "cloud", "server", "database",
    "website", "hosting", "domain", "smartphone", "tablet", "headphones", "speaker", "camera", "drone",
    "printer", "monitor", "keyboard", "chatbot", "robot", "python", "javascript", "wordpress", "crm", "vpn",
    # health and wellness
    "yoga", "pilates", "treadmill", "dumbbell", "protein", "vitamin", "supplement", "diet", "keto", "vegan",
    "meditation", "therapy", "anxiety", "sleep", "toothbrush", "braces", "whitening", "implant",
    "sunscreen", "moisturizer", "serum", "acne", "collagen", "massage", "running", "cycling", "swimming",
    "marathon", "stretching", "posture",
    # finance
    "savings", "mortgage", "loan", "credit", "retirement", "pension", "stocks", "bonds", "etf", "dividend",
    "brokerage", "insurance", "annuity", "bitcoin", "ethereum", "wallet", "taxes", "invoice", "payroll",
    "accounting", "bookkeeping", "grant", "refinance", "bankruptcy", "inflation", "forex", "portfolio",
    # home and garden
    "garden", "tomato", "compost", "lawn", "mower", "greenhouse", "orchid", "succulent", "fertilizer",
    "sofa", "curtain", "rug", "lamp", "wallpaper", "kitchen", "bathroom", "flooring", "roofing",
    "plumbing", "insulation", "thermostat", "doorbell", "lighting", "furniture", "mattress", "pillow",
    "blanket", "paint", "drywall",
    # travel
    "hotel", "hostel", "resort", "cruise", "flight", "luggage", "backpack", "passport", "visa", "camping",
    "hiking", "safari", "island", "beach", "ski", "itinerary", "airport", "train", "roadtrip", "tent",
    # food and beverage
    "recipe", "pasta", "pizza", "bread", "sourdough", "cake", "cookie", "salad", "soup", "curry", "sushi",
    "steak", "chicken", "salmon", "coffee", "espresso", "latte", "tea", "wine", "champagne", "whiskey",
    "beer", "cocktail", "smoothie", "chocolate", "cheese", "barbecue", "grill", "breakfast", "dessert",
    # retail
    "dress", "jeans", "sneakers", "boots", "jacket", "handbag", "watch", "necklace", "earrings",
    "bracelet", "sunglasses", "perfume", "dog", "cat", "aquarium", "parrot", "leash", "kayak", "bicycle",
    # education
    "tutorial", "certificate", "degree", "scholarship", "spanish", "french", "german", "japanese",
    "grammar", "vocabulary", "exam", "toefl", "math", "physics", "chemistry", "biology", "preschool",
    "kindergarten",
    # automotive
    "car", "tesla", "hybrid", "charger", "battery", "tire", "brake", "engine", "transmission", "suv",
    "truck", "sedan", "lease", "dealership",
    # real estate
    "apartment", "condo", "house", "rental", "landlord", "tenant", "realtor", "appraisal", "foreclosure",
    "office", "warehouse", "duplex",
    # legal
    "lawyer", "attorney", "divorce", "custody", "alimony", "immigration", "greencard", "citizenship",
    "lawsuit", "settlement",
    # marketing
    "seo", "backlinks", "analytics", "newsletter", "email", "instagram", "tiktok", "youtube",
    "facebook", "linkedin", "podcast", "blog", "copywriting", "branding", "logo", "advertising",
    "influencer",
)
QUALIFIERS = (
    "near me", "for beginners", "reviews", "ideas", "tips", "cost", "price", "guide", "2025", "vs",
    "alternatives", "at home", "for sale", "service", "company", "jobs", "salary", "training",
    "certification", "checklist", "template", "tools", "kit", "set", "accessories", "parts", "repair",
    "installation", "maintenance", "cleaning", "benefits", "side effects", "examples", "definition",
    "meaning", "history", "trends", "statistics", "pros and cons", "comparison", "brands", "deals",
    "coupons", "discount", "wholesale", "hire", "financing", "calculator", "quotes", "uk", "usa",
    "canada", "australia", "london", "new york", "chicago", "texas", "california", "florida",
    "for women", "for men", "for children", "for seniors", "for small business", "for students",
    "under 100", "under 50", "on a budget", "step by step", "in 2025", "this weekend", "online free",
    "app", "login", "phone number", "hours", "open now", "delivery", "subscription", "monthly",
    "yearly", "pdf", "reddit", "amazon", "walmart", "ikea", "costco", "sizes", "colors", "problems",
    "questions", "course online", "classes", "workshop", "club", "community", "forum", "news",
    "events", "gifts", "bundle", "kit for kids",
)
STRIDE = 1_000_003  # prime; scatters triple numbers (see above)
COUNTRIES = (("US", 0.50), ("GB", 0.20), ("CA", 0.10), ("AU", 0.10), ("DE", 0.10))  # share of the keywords


def _check_vocabulary() -> None:
    topic_words = set(TOPICS)
    assert len(topic_words) == len(TOPICS), "duplicate topic"
    assert len(set(MODIFIERS)) == len(MODIFIERS) and len(set(QUALIFIERS)) == len(QUALIFIERS), "duplicate word"
    assert all(" " not in topic for topic in TOPICS), "a topic is one word"
    other_words = {word for phrase in MODIFIERS + QUALIFIERS for word in phrase.split()}
    assert not topic_words & other_words, f"topic words in modifiers/qualifiers: {topic_words & other_words}"
    assert math.gcd(STRIDE, len(MODIFIERS) * len(TOPICS) * len(QUALIFIERS)) == 1


def _country_case() -> str:
    cases, cumulative = [], 0.0
    for code, share in COUNTRIES[:-1]:
        cumulative += share
        cases.append(f"WHEN r_country < {cumulative:.2f} THEN '{code}'")
    return f"CASE {' '.join(cases)} ELSE '{COUNTRIES[-1][0]}' END"


# One row per generate_series value. Each random() in the subquery is drawn once per row (OFFSET 0
# keeps the planner from inlining the subquery, which would draw again for every use).
#   volume        Pareto tail: half the keywords at 10-24 searches a month, 2.5 % above 1,000, a few
#                 hundred above 100,000; many ties, so the id tie-breaker matters.
#   difficulty    0..100 skewed towards easy: about 38 % easy, 24 % medium, 20 % hard, 18 % very hard.
#   country       US 50 %, GB 20 %, CA, AU and DE 10 % each.
#   sector        uniform over the benchmark's sectors.
#   paid          10 %, costing 1-5 credits (free ones cost 0); high opportunity 8 %.
GENERATE_SQL = f"""
INSERT INTO keywords_seedkeyword
    (keyword, volume, difficulty, country, industry_sector_id, is_high_opportunity, is_paid, credit_cost, created_at)
SELECT
    concat_ws(' ', (%(modifiers)s::text[])[k %% %(a)s + 1],
                   (%(topics)s::text[])[(k / %(a)s) %% %(b)s + 1],
                   (%(qualifiers)s::text[])[k / (%(a)s * %(b)s) + 1])
        || CASE WHEN i >= %(m)s THEN ' ' || (i / %(m)s + 1) ELSE '' END,
    least(10000000, floor(10 * power(1 - r_volume, -1.25)))::int,
    least(100, floor(101 * power(r_difficulty, 1.4)))::int,
    {_country_case()},
    (%(sector_ids)s::bigint[])[1 + floor(r_sector * %(sectors)s)::int],
    r_opportunity < 0.08,
    r_paid < 0.10,
    CASE WHEN r_paid < 0.10 THEN 1 + floor(r_paid * 50)::int ELSE 0 END,
    now() - r_created * interval '730 days'
FROM (
    SELECT i, ((i %% %(m)s) * {STRIDE}) %% %(m)s AS k,
           random() AS r_volume, random() AS r_difficulty, random() AS r_country, random() AS r_sector,
           random() AS r_opportunity, random() AS r_paid, random() AS r_created
    FROM generate_series(0::bigint, %(rows)s - 1) AS i
    OFFSET 0
) AS g
"""

# Indexes, unique and foreign-key constraints of the keywords table other than the primary key:
# dropped for the bulk load and rebuilt from their own definitions. Building an index once is far
# cheaper than maintaining it row by row, and adding the foreign key back checks it with one join
# instead of a million queued row checks (Django creates it DEFERRABLE INITIALLY DEFERRED).
SECONDARY_INDEXES_SQL = """
SELECT i.indexname, i.indexdef
FROM pg_indexes i
WHERE i.schemaname = current_schema() AND i.tablename = 'keywords_seedkeyword'
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
ORDER BY i.indexname
"""
CONSTRAINTS_SQL = """
SELECT conname, pg_get_constraintdef(oid)
FROM pg_constraint
WHERE conrelid = 'keywords_seedkeyword'::regclass AND contype IN ('u', 'f')
ORDER BY contype DESC, conname
"""


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


def log(message: str) -> None:
    print(message, flush=True)


@contextmanager
def timed(label: str, timings: dict[str, float]) -> Iterator[None]:
    start = time.perf_counter()
    yield
    timings[label] = time.perf_counter() - start
    log(f"  {label}: {timings[label]:.1f} s")


def percentile(values: list[float], p: float) -> float:
    """Linear-interpolated percentile (p in 0..100) of the values."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * p / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _cpu_counters() -> tuple[int, int] | None:
    """(total, idle) jiffies of all CPUs from /proc/stat; None where there is no /proc."""
    try:
        values = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None
    return sum(values), values[3] + values[4]  # idle + iowait


class CpuMeter:
    """How busy the whole machine was (percent of all CPUs) during the ``with`` blocks it measured.

    One request at a time keeps at most about one CPU busy (client, worker and database take
    turns), so during sequential requests a share well above 100 / CPUs means that other work
    ran on the machine meanwhile (the latencies are inflated), unless PostgreSQL itself ran a
    query with parallel workers.
    """

    def __init__(self) -> None:
        self.total = self.idle = 0
        self._start: tuple[int, int] | None = None

    def __enter__(self) -> CpuMeter:
        self._start = _cpu_counters()
        return self

    def __exit__(self, *exc) -> None:
        end = _cpu_counters()
        if self._start is not None and end is not None:
            self.total += end[0] - self._start[0]
            self.idle += end[1] - self._start[1]

    @property
    def percent(self) -> float | None:
        """None until enough was measured to mean something (jiffies are 10 ms)."""
        enough = (os.cpu_count() or 1) * 50  # half a second of wall time
        return 100 * (1 - self.idle / self.total) if self.total >= enough else None


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def admin_url(url: str) -> str:
    """The maintenance database of the same server, to create and drop the benchmark's."""
    return urlsplit(url)._replace(path="/postgres").geturl()


# --------------------------------------------------------------------------------------------
# 1-2. The database: created, migrated and filled
# --------------------------------------------------------------------------------------------


def keyword_rows(database_url: str) -> int | None:
    """How many keywords the database holds; None when it does not exist or is not migrated."""
    try:
        with psycopg.connect(database_url, autocommit=True) as conn:
            return conn.execute("SELECT count(*) FROM keywords_seedkeyword").fetchone()[0]
    except (psycopg.OperationalError, psycopg.errors.UndefinedTable):
        return None


def recreate_database(database_url: str) -> None:
    name = database_name(database_url)
    with psycopg.connect(admin_url(database_url), autocommit=True) as conn:
        # FORCE: a server left behind by an interrupted run must not keep the database alive.
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def ensure_industry_sectors(count: int) -> list[int]:
    """The ids of the first ``count`` industry sectors, creating benchmark sectors if fewer exist."""
    from inkwell.tenancy.models import Industry, IndustrySector

    missing = count - IndustrySector.objects.count()
    if missing > 0:
        industry, _ = Industry.objects.get_or_create(slug="benchmark", defaults={"name": "Benchmark"})
        start = IndustrySector.objects.filter(industry=industry).count() + 1
        IndustrySector.objects.bulk_create(
            IndustrySector(industry=industry, name=f"Benchmark sector {n}", slug=f"benchmark-sector-{n}")
            for n in range(start, start + missing)
        )
    return list(IndustrySector.objects.order_by("id").values_list("id", flat=True)[:count])


def generate_keywords(database_url: str, rows: int, sector_ids: list[int], seed: float) -> None:
    """Bulk-loads ``rows`` keywords in one transaction: drop secondary indexes, insert, rebuild."""
    _check_vocabulary()
    a, b = len(MODIFIERS), len(TOPICS)
    params = {
        "modifiers": list(MODIFIERS),
        "topics": list(TOPICS),
        "qualifiers": list(QUALIFIERS),
        "a": a,
        "b": b,
        "m": a * b * len(QUALIFIERS),
        "rows": rows,
        "sector_ids": sector_ids,
        "sectors": len(sector_ids),
    }
    with psycopg.connect(database_url) as conn:  # one transaction: all or nothing
        conn.execute("SET LOCAL synchronous_commit = off")
        conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
        conn.execute("SELECT setseed(%s)", [seed])
        indexes = conn.execute(SECONDARY_INDEXES_SQL).fetchall()
        constraints = conn.execute(CONSTRAINTS_SQL).fetchall()
        for name, _ in constraints:
            conn.execute(sql.SQL("ALTER TABLE keywords_seedkeyword DROP CONSTRAINT {}").format(sql.Identifier(name)))
        for name, _ in indexes:
            conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
        # CASCADE: planner keywords reference the library (empty here, but PostgreSQL refuses without it).
        conn.execute("TRUNCATE keywords_seedkeyword, keywords_seedkeywordstats RESTART IDENTITY CASCADE")
        started = time.perf_counter()
        conn.execute(GENERATE_SQL, params)
        log(f"  insert {rows:,} rows: {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        for name, definition in constraints:
            conn.execute(
                sql.SQL("ALTER TABLE keywords_seedkeyword ADD CONSTRAINT {} {}").format(sql.Identifier(name), sql.SQL(definition))
            )
        for _, definition in indexes:
            conn.execute(definition)
        log(f"  rebuild {len(constraints)} constraint(s) and {len(indexes)} index(es): {time.perf_counter() - started:.1f} s")


def vacuum_analyze(database_url: str) -> None:
    """Statistics for the planner, and the visibility map that makes index-only scans index-only."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")


def database_exists(database_url: str) -> bool:
    try:
        psycopg.connect(database_url).close()
    except psycopg.OperationalError:
        return False
    return True


def prepare_database(args, env: dict[str, str], timings: dict[str, float]) -> None:
    """The benchmark's database, migrated, with its keywords, exact totals and fresh statistics."""
    existing = keyword_rows(args.database_url) if args.keep else None
    started = time.perf_counter()
    if existing:
        log(f"--keep: reusing {existing:,} keywords in {database_name(args.database_url)}")
        if existing != args.rows:
            log(f"  (note: --rows {args.rows:,} ignored; drop --keep to regenerate)")
    else:
        log(f"Creating {database_name(args.database_url)} with {args.rows:,} keywords over {args.sectors} sectors")
        if not (args.keep and database_exists(args.database_url)):
            recreate_database(args.database_url)
    with timed("migrate", timings):
        manage(env, "migrate", "--noinput", timeout=600)
    setup_django()
    sector_ids = ensure_industry_sectors(args.sectors)
    if not existing:
        with timed("generate keywords (insert + index rebuild)", timings):
            generate_keywords(args.database_url, args.rows, sector_ids, args.seed)
    from inkwell.keywords.stats import refresh_library_stats

    with timed("refresh totals table", timings):
        refresh_library_stats()
    with timed("VACUUM ANALYZE", timings):
        vacuum_analyze(args.database_url)
    timings["total data preparation"] = time.perf_counter() - started
    log(f"  total data preparation: {timings['total data preparation']:.1f} s")


_django_ready = False


def setup_django() -> None:
    """Django in this process, with the same environment as the server (set by ``main``)."""
    global _django_ready
    if not _django_ready:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inkwell.settings")
        import django

        django.setup()
        _django_ready = True


# --------------------------------------------------------------------------------------------
# 3. The server, and an account with a site of 20 sectors
# --------------------------------------------------------------------------------------------


@dataclass
class Server:
    host: str
    port: int
    log_file: Path


_wrapped_application = None


def timed_application(environ, start_response):
    """``inkwell.wsgi.application`` with the time spent in SQL in a response header (``--db-time``).

    Every statement of the request goes through a Django execute wrapper that adds up its
    duration. Django calls ``start_response`` once the view has run, so the sum is complete when
    the header is written. gunicorn loads this module by name (``--pythonpath bench``); the cost is
    two clock reads per statement.
    """
    global _wrapped_application
    if _wrapped_application is None:
        from inkwell.wsgi import application

        _wrapped_application = application
    from django.db import connection

    spent = [0.0]

    def timer(execute, sql_text, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql_text, params, many, context)
        finally:
            spent[0] += time.perf_counter() - started

    def start_with_timing(status, headers, exc_info=None):
        return start_response(status, [*headers, (DB_TIME_HEADER, f"{spent[0]:.6f}")], exc_info)

    with connection.execute_wrapper(timer):
        return _wrapped_application(environ, start_with_timing)


@contextmanager
def gunicorn(env: dict[str, str], *, workers: int, worker_class: str, db_time: bool = False, cwd: Path = REPO_ROOT, name: str = "gunicorn") -> Iterator[Server]:
    """``gunicorn inkwell.wsgi`` as in production, on a free loopback port; always stopped afterwards.

    The port is bound here and handed over as ``fd://``, so no other process can take it between
    choosing and binding. With ``db_time`` the workers serve ``timed_application`` instead.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    log_file = Path(env["INKWELL_DATA_DIR"]) / f"{name}.log"
    app = ["--pythonpath", str(Path(__file__).resolve().parent), f"{Path(__file__).stem}:timed_application"] if db_time else ["inkwell.wsgi"]
    command = [
        sys.executable, "-m", "gunicorn", *app,
        "--bind", f"fd://{sock.fileno()}", "--workers", str(workers), "--worker-class", worker_class,
    ]
    with sock, log_file.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT,
            pass_fds=[sock.fileno()], start_new_session=True,
        )
    server = Server("127.0.0.1", port, log_file)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}:\n{log_file.read_text(errors='replace')}")
            try:
                if request(http.client.HTTPConnection(server.host, server.port, timeout=2), "GET", "/healthz").status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer within {STARTUP_TIMEOUT_SECONDS} s")
            time.sleep(0.1)
        yield server
    finally:
        stop_process_group(process)


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    seconds: float  # until the whole body was read
    db_seconds: float | None  # SQL time inside the worker (``--db-time`` only)


def request(conn: http.client.HTTPConnection, method: str, path: str, *, headers=None, body=None) -> Reply:
    """One request on a reused connection object.

    gunicorn's sync workers answer ``Connection: close``; http.client then reconnects on the next
    request, so each measured request includes one loopback TCP connect, as a real client would.
    """
    headers = dict(headers or {})
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    start = time.perf_counter()
    conn.request(method, path, body=payload, headers=headers)
    response = conn.getresponse()
    data = response.read()
    seconds = time.perf_counter() - start
    db_time = response.getheader(DB_TIME_HEADER)
    return Reply(response.status, data, seconds, float(db_time) if db_time is not None else None)


@dataclass
class Fixture:
    token: str
    site_id: int
    industry_sector_ids: list[int]  # the site's 20 sectors

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}


def create_fixture(server: Server, sector_ids: list[int]) -> Fixture:
    """A new owner (register + login over HTTP) with one site holding ``SITE_SECTORS`` sectors."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)

    def call(method, path, body=None, token=None, expect=(200, 201)):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        reply = request(conn, method, path, headers=headers, body=body)
        if reply.status not in expect:
            raise RuntimeError(f"{method} {path} answered {reply.status}: {reply.body[:500]!r}")
        return json.loads(reply.body)["data"]

    email, password = f"bench-{uuid.uuid4().hex[:10]}@example.com", secrets.token_urlsafe(16)
    call("POST", "/api/v1/auth/register/", {"email": email, "password": password})
    token = call("POST", "/api/v1/auth/login/", {"email": email, "password": password})["access"]
    site = call("POST", "/api/v1/auth/sites/", {"name": "Benchmark site", "domain": "bench.example.com"}, token)
    chosen = sector_ids[:SITE_SECTORS]
    for industry_sector_id in chosen:
        call("POST", "/api/v1/auth/sectors/", {"site_id": site["id"], "industry_sector_id": industry_sector_id}, token)
    return Fixture(token=token, site_id=site["id"], industry_sector_ids=chosen)


# --------------------------------------------------------------------------------------------
# Scenarios, with the exact answers they must give (computed by plain SQL, independently of the app)
# --------------------------------------------------------------------------------------------


@dataclass
class Scenario:
    name: str
    path: str
    check: Callable[[dict], str | None] = field(repr=False)  # None when the body is right
    expected: str = ""  # what check compares against, for the report


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _list_check(expected_count: int, page: int) -> Callable[[dict], str | None]:
    expected_results = max(0, min(PAGE_SIZE, expected_count - (page - 1) * PAGE_SIZE))

    def check(body: dict) -> str | None:
        if body.get("count") != expected_count:
            return f"count {body.get('count')} != {expected_count}"
        if len(body.get("results", [])) != expected_results:
            return f"{len(body.get('results', []))} results, expected {expected_results}"
        return None

    return check


def build_scenarios(args, fixture: Fixture, database_url: str) -> list[Scenario]:
    with psycopg.connect(database_url, autocommit=True) as conn:

        def count(where: str = "TRUE", params=()) -> int:
            return conn.execute(f"SELECT count(*) FROM keywords_seedkeyword WHERE {where}", params).fetchone()[0]

        total = count()
        filtered_sectors = fixture.industry_sector_ids[: args.filter_sectors]
        filtered_where = "industry_sector_id = ANY(%s) AND difficulty BETWEEN 0 AND 25 AND volume BETWEEN %s AND %s"
        filtered_count = count(filtered_where, (filtered_sectors, args.volume_min, args.volume_max))
        search_count = count("keyword ILIKE %s", (f"%{_like_escape(args.search)}%",))
        per_sector = {
            sector: (total_, paid, opportunity)
            for sector, total_, paid, opportunity in conn.execute(
                "SELECT industry_sector_id, count(*), count(*) FILTER (WHERE is_paid), count(*) FILTER (WHERE is_high_opportunity)"
                " FROM keywords_seedkeyword WHERE industry_sector_id = ANY(%s) GROUP BY 1",
                (fixture.industry_sector_ids,),
            )
        }

    last_page = max(1, math.ceil(total / PAGE_SIZE))
    deep_page = min(args.deep_page, last_page)
    if deep_page != args.deep_page:
        log(f"note: {total:,} keywords have {last_page} pages; the deep page is page {deep_page}")

    def stats_check(body: dict) -> str | None:
        got = {item["sector_id"]: item["stats"] for item in body.get("data", [])}
        if set(got) != set(per_sector):
            return f"sectors {sorted(got)} != {sorted(per_sector)}"
        for sector, (total_, paid, opportunity) in per_sector.items():
            stats = got[sector]
            if (stats["total"], stats["paid"], stats["high_opportunity"], stats["free"]) != (total_, paid, opportunity, total_ - paid):
                return f"sector {sector}: {stats} != total {total_}, paid {paid}, high opportunity {opportunity}"
        return None

    filtered_query = urlencode(
        {
            "sector_ids": ",".join(map(str, filtered_sectors)),
            "difficulty": "easy",
            "volume_min": args.volume_min,
            "volume_max": args.volume_max,
            "ordering": args.filter_ordering,
        }
    )
    stats_query = urlencode({"site_id": fixture.site_id, "sector_ids": ",".join(map(str, fixture.industry_sector_ids))})
    return [
        Scenario("default list", LIBRARY, _list_check(total, 1), f"count {total:,}"),
        Scenario("filtered list", f"{LIBRARY}?{filtered_query}", _list_check(filtered_count, 1), f"count {filtered_count:,}"),
        Scenario("search", f"{LIBRARY}?{urlencode({'search': args.search})}", _list_check(search_count, 1), f"count {search_count:,}"),
        Scenario(f"page {deep_page:,}", f"{LIBRARY}?page={deep_page}", _list_check(total, deep_page), f"count {total:,}"),
        Scenario(
            f"sector_stats ({len(fixture.industry_sector_ids)} sectors)",
            f"{LIBRARY}sector_stats/?{stats_query}",
            stats_check,
            f"{len(per_sector)} sectors' totals",
        ),
    ]


# --------------------------------------------------------------------------------------------
# 4. The SQL of one request, recorded in-process
# --------------------------------------------------------------------------------------------


@dataclass
class Statement:
    sql: str
    params: tuple

    @property
    def summary(self) -> str:
        text = " ".join(self.sql.split())
        return text if len(text) <= 150 else text[:147] + "..."


def capture_sql(scenario: Scenario, fixture: Fixture) -> list[Statement]:
    """The statements one request of the scenario issues, recorded in-process with Django's test client.

    The in-process Django has the server's settings (same environment), so it issues the same SQL.
    The first request is a warm-up; the second one is recorded.
    """
    setup_django()
    from django.db import connection
    from django.test import Client

    client = Client()
    statements: list[Statement] = []

    def record(execute, sql_text, params, many, context):
        statements.append(Statement(sql_text, tuple(params or ())))
        return execute(sql_text, params, many, context)

    client.get(scenario.path, HTTP_AUTHORIZATION=f"Bearer {fixture.token}")
    with connection.execute_wrapper(record):
        response = client.get(scenario.path, HTTP_AUTHORIZATION=f"Bearer {fixture.token}")
    if response.status_code != 200:
        raise RuntimeError(f"{scenario.name}: in-process request answered {response.status_code}: {response.content[:300]!r}")
    return statements


class SqlReplay:
    """Runs one request's statements in order on a connection of its own, fetching every row.

    Django's psycopg backend binds parameters client-side; ``ClientCursor`` does the same, so
    PostgreSQL receives the very same text (and plans it each time, as it does for Django).
    """

    def __init__(self, database_url: str, statements: list[Statement]):
        self.statements = statements
        self.totals: list[float] = []  # seconds, all statements of one request
        self.per_statement: list[list[float]] = [[] for _ in statements]
        self._conn = psycopg.connect(database_url, autocommit=True, cursor_factory=psycopg.ClientCursor)

    def run(self, times: int, *, record: bool = True) -> None:
        with self._conn.cursor() as cursor:
            for _ in range(times):
                started = time.perf_counter()
                durations = []
                for statement in self.statements:
                    before = time.perf_counter()
                    cursor.execute(statement.sql, statement.params)
                    if cursor.description is not None:
                        cursor.fetchall()
                    durations.append(time.perf_counter() - before)
                if record:
                    self.totals.append(time.perf_counter() - started)
                    for index, seconds in enumerate(durations):
                        self.per_statement[index].append(seconds)

    @property
    def main(self) -> int:
        """The index of the statement with the highest median: the scenario's main query."""
        return max(range(len(self.statements)), key=lambda i: statistics.median(self.per_statement[i]))

    def close(self) -> None:
        self._conn.close()


# --------------------------------------------------------------------------------------------
# 5. Measuring: over HTTP and the same SQL directly, in alternating blocks
# --------------------------------------------------------------------------------------------


@dataclass
class Measurement:
    latencies: list[float]  # sequential requests over HTTP
    requests_per_second: float  # the concurrent run
    concurrent_latencies: list[float]
    sql: SqlReplay
    busy_percent: float | None  # the whole machine's CPU during the sequential requests
    failures: list[str]
    worker_db_seconds: list[float]  # SQL time inside the worker per sequential request (``--db-time``)
    floor_latencies: list[float]  # /healthz, sent in the same blocks: the bare round trip at the same moments


def _verify(scenario: Scenario, reply: Reply, failures: list[str]) -> None:
    if reply.status != 200:
        failures.append(f"{scenario.name}: HTTP {reply.status}: {reply.body[:300]!r}")
        return
    problem = scenario.check(json.loads(reply.body))
    if problem:
        failures.append(f"{scenario.name}: {problem}")


def sequential(server: Server, path: str, headers: dict, count: int, verify: Callable[[Reply], None]) -> list[Reply]:
    """``count`` requests one after the other on one connection object."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    replies = []
    for _ in range(count):
        reply = request(conn, "GET", path, headers=headers)
        replies.append(reply)
        verify(reply)
    conn.close()
    return replies


def concurrent(server: Server, path: str, headers: dict, total: int, clients: int, verify: Callable[[Reply], None]) -> tuple[list[float], float]:
    """``total`` requests shared by ``clients`` threads, each with its own connection: (latencies, wall seconds)."""
    latencies: list[float] = []
    lock = threading.Lock()
    remaining = [total]
    start_gate = threading.Barrier(clients + 1)

    def client() -> None:
        conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
        start_gate.wait()
        while True:
            with lock:
                if remaining[0] == 0:
                    break
                remaining[0] -= 1
            reply = request(conn, "GET", path, headers=headers)
            with lock:
                latencies.append(reply.seconds)
                verify(reply)
        conn.close()

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    start_gate.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - started


def _block_sizes(total: int, blocks: int) -> list[int]:
    blocks = max(1, min(blocks, total))
    return [total // blocks + (1 if n < total % blocks else 0) for n in range(blocks)]


def measure(servers: dict[str, Server], scenario: Scenario, fixture: Fixture, statements: list[Statement], args) -> dict[str, Measurement]:
    """Warm-up, then sequential requests and SQL replays in alternating blocks, then the concurrent run.

    Alternating blocks (say 30 requests, 30 replays, 30 requests...) let both medians sample the
    same moments: on a shared machine the speed drifts over minutes, and measuring the API first
    and the SQL afterwards would put that drift into the overhead. With a baseline, each block
    sends its requests to every server in turn.
    """
    failures: dict[str, list[str]] = {label: [] for label in servers}

    def verifier(label: str) -> Callable[[Reply], None]:
        return lambda reply: _verify(scenario, reply, failures[label])

    for label, server in servers.items():
        # Warm-up from several clients at once, so that every worker has its connections and caches.
        concurrent(server, scenario.path, fixture.headers, args.warmup, max(args.concurrency, args.workers), verifier(label))
    replay = SqlReplay(args.database_url, statements)
    replies: dict[str, list[Reply]] = {label: [] for label in servers}
    floors: dict[str, list[Reply]] = {label: [] for label in servers}
    meters = {label: CpuMeter() for label in servers}

    def floor_ok(reply: Reply) -> None:
        if reply.status != 200:
            raise RuntimeError(f"{FLOOR_PATH}: HTTP {reply.status}: {reply.body[:300]!r}")

    try:
        replay.run(args.warmup, record=False)
        for size in _block_sizes(args.requests, args.blocks):
            for label, server in servers.items():
                with meters[label]:
                    replies[label] += sequential(server, scenario.path, fixture.headers, size, verifier(label))
                floors[label] += sequential(server, FLOOR_PATH, {}, size, floor_ok)
            replay.run(size)
    finally:
        replay.close()
    measured = {}
    for label, server in servers.items():
        concurrent_latencies, wall = concurrent(server, scenario.path, fixture.headers, args.requests, args.concurrency, verifier(label))
        worker_db = [reply.db_seconds for reply in replies[label] if reply.db_seconds is not None]
        measured[label] = Measurement(
            [reply.seconds for reply in replies[label]], len(concurrent_latencies) / wall, concurrent_latencies, replay,
            meters[label].percent, failures[label], worker_db, [reply.seconds for reply in floors[label]],
        )
    return measured


THIS = ""
BASELINE = " (baseline)"
FLOOR_PATH = "/healthz"


# Reference points for the overhead: the server's floor (no authentication, no SQL) and an
# authenticated DRF endpoint that runs only the authentication query.
REFERENCES = (("/healthz (no auth, no SQL)", "/healthz", False), ("/auth/me/ (auth + throttle + 1 query)", "/api/v1/auth/me/", True))


def measure_references(server: Server, fixture: Fixture, args) -> list[tuple[str, list[float], float | None]]:
    results = []
    for name, path, authenticated in REFERENCES:
        headers = fixture.headers if authenticated else {}

        def verify(reply: Reply, name=name) -> None:
            if reply.status != 200:
                raise RuntimeError(f"{name}: HTTP {reply.status}: {reply.body[:300]!r}")

        sequential(server, path, headers, args.warmup, verify)
        with CpuMeter() as meter:
            replies = sequential(server, path, headers, args.requests, verify)
        results.append((name, [reply.seconds for reply in replies], meter.percent))
    return results


def explain(database_url: str, result: SqlReplay) -> str:
    """EXPLAIN ANALYZE of every statement of the request, the main query marked."""
    lines = []
    with psycopg.connect(database_url, autocommit=True, cursor_factory=psycopg.ClientCursor) as conn, conn.cursor() as cursor:
        for index, statement in enumerate(result.statements):
            median = statistics.median(result.per_statement[index])
            marker = "MAIN " if index == result.main else ""
            lines.append(f"  [{index + 1}] {marker}p50 {ms(median)} ms: {statement.summary}")
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + statement.sql, statement.params)
            lines.extend("        " + row[0] for row in cursor.fetchall())
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def result_row(scenario: Scenario, measured: Measurement, *, label: str) -> dict:
    api_p50, sql_p50 = percentile(measured.latencies, 50), percentile(measured.sql.totals, 50)
    return {
        "scenario": scenario.name + label,
        "server": label,
        "path": scenario.path,
        "expected": scenario.expected,
        "api_p50_ms": ms(api_p50),
        "api_p95_ms": ms(percentile(measured.latencies, 95)),
        "api_p99_ms": ms(percentile(measured.latencies, 99)),
        "requests_per_second": f"{measured.requests_per_second:.0f}",
        "floor_p50_ms": ms(percentile(measured.floor_latencies, 50)),
        "concurrent_p50_ms": ms(percentile(measured.concurrent_latencies, 50)),
        "concurrent_p99_ms": ms(percentile(measured.concurrent_latencies, 99)),
        "sql_p50_ms": ms(sql_p50),
        "main_query_p50_ms": ms(statistics.median(measured.sql.per_statement[measured.sql.main])),
        "overhead_ms": ms(api_p50 - sql_p50),
        "overhead_ratio": f"{(api_p50 - sql_p50) / percentile(measured.floor_latencies, 50):.1f}",
        "queries": len(measured.sql.statements),
        "worker_db_p50_ms": ms(percentile(measured.worker_db_seconds, 50)) if measured.worker_db_seconds else None,
        "worker_rest_p50_ms": ms(percentile([a - b for a, b in zip(measured.latencies, measured.worker_db_seconds)], 50))
        if measured.worker_db_seconds
        else None,
        "machine_busy_percent": None if measured.busy_percent is None else round(measured.busy_percent),
        "errors": len(measured.failures),
    }


def report(rows: list[dict]) -> str:
    columns = [
        ("scenario", "scenario"),
        ("API p50", "api_p50_ms"),
        ("p95", "api_p95_ms"),
        ("p99", "api_p99_ms"),
        ("req/s", "requests_per_second"),
        ("SQL p50", "sql_p50_ms"),
        ("overhead", "overhead_ms"),
        ("/healthz p50", "floor_p50_ms"),
        ("overhead / healthz", "overhead_ratio"),
        ("queries", "queries"),
    ]
    if any(row["worker_db_p50_ms"] for row in rows):
        columns += [("DB in worker p50", "worker_db_p50_ms"), ("rest p50", "worker_rest_p50_ms")]
    header = tuple(title for title, _ in columns)
    table = [header] + [tuple(row[key] for _, key in columns) for row in rows]
    table = [tuple(str(cell) for cell in line) for line in table]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    out = []
    for n, line in enumerate(table):
        out.append(" | ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(line)))
        if n == 0:
            out.append("-+-".join("-" * width for width in widths))
    return "\n".join(out)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="keywords to generate (default 1,000,000)")
    parser.add_argument("--sectors", type=int, default=50, help="industry sectors the keywords are spread over (default 50)")
    parser.add_argument("--requests", type=int, default=300, help="requests per scenario, sequential and again concurrent (default 300)")
    parser.add_argument("--concurrency", type=int, default=4, help="concurrent clients for the throughput run (default 4)")
    parser.add_argument("--warmup", type=int, default=30, help="warm-up requests per scenario (default 30)")
    parser.add_argument("--blocks", type=int, default=10, help="sequential requests and SQL replays alternate in this many blocks (default 10)")
    parser.add_argument("--keep", action="store_true", help="reuse the keywords already in the database instead of regenerating them")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL, help=f"the benchmark's database, dropped and created (default {DEFAULT_DATABASE_URL})")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0", help="Redis for cache and rate limits")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2, as `manage.py serve`)")
    parser.add_argument("--worker-class", default="sync", help="gunicorn worker class (default sync, as in production)")
    parser.add_argument("--search", default="garden", help="the search scenario's term (default garden)")
    parser.add_argument("--filter-sectors", type=int, default=3, help="sectors in the filtered list (default 3 of the site's 20)")
    parser.add_argument("--volume-min", type=int, default=100, help="filtered list: volume_min (default 100)")
    parser.add_argument("--volume-max", type=int, default=10_000, help="filtered list: volume_max (default 10000)")
    parser.add_argument("--filter-ordering", default="-volume", help="filtered list: ordering (default -volume)")
    parser.add_argument("--deep-page", type=int, default=2000, help="the deep page (default 2000)")
    parser.add_argument("--seed", type=float, default=0.42, help="setseed() for the generated data (default 0.42)")
    parser.add_argument("--db-time", action="store_true", help="serve through a wrapper that reports each request's SQL time from inside the worker")
    parser.add_argument("--explain", action="store_true", help="print EXPLAIN (ANALYZE, BUFFERS) of every statement of each scenario")
    parser.add_argument("--only", help="run only the scenarios whose names contain one of these comma-separated words")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    parser.add_argument("--force", action="store_true", help="allow a database whose name does not contain 'bench'")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout of the code (same migrations), served beside this one: its requests alternate with this one's"
    )
    args = parser.parse_args(argv)
    if "bench" not in database_name(args.database_url) and not args.force:
        parser.error(f"refusing to drop and fill {database_name(args.database_url)!r}: its name does not contain 'bench' (use --force)")
    if args.sectors < SITE_SECTORS:
        parser.error(f"--sectors must be at least {SITE_SECTORS} (the site has {SITE_SECTORS})")
    if not 1 <= args.filter_sectors <= SITE_SECTORS:
        parser.error(f"--filter-sectors must be 1..{SITE_SECTORS}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    # SIGTERM ends the run like Ctrl-C does: through the finally blocks that stop gunicorn.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))

    with tempfile.TemporaryDirectory(prefix="inkwell-bench-") as data_dir:
        return run(args, data_dir)


def run(args, data_dir: str) -> int:
    # One environment for the server and this process (which migrates, refreshes the totals and
    # records the SQL): the production profile, with limits that never throttle the benchmark.
    os.environ.update(
        DATABASE_URL=args.database_url,
        REDIS_URL=args.redis_url,
        CACHE_KEY_PREFIX=f"bench-{uuid.uuid4().hex[:12]}",
        INKWELL_DATA_DIR=data_dir,
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_DEBUG="false",
        JWT_ACCESS_TTL_SECONDS="86400",  # a long run must not outlive its token
        RATE_LIMIT_GENERAL=UNLIMITED,
        RATE_LIMIT_CONTENT=UNLIMITED,
        RATE_LIMIT_AUTH=UNLIMITED,
        RATE_LIMIT_AI=UNLIMITED,
        PYTHONUNBUFFERED="1",
    )
    env = dict(os.environ)
    timings: dict[str, float] = {}
    prepare_database(args, env, timings)
    from inkwell.tenancy.models import IndustrySector

    sector_ids = list(IndustrySector.objects.order_by("id").values_list("id", flat=True)[: args.sectors])

    rows, failures, explains = [], [], {}
    with CpuMeter() as before:
        time.sleep(1)
    busy_before = before.percent
    if busy_before is not None and busy_before > BUSY_BEFORE_PERCENT:
        log(f"\nWARNING: the machine was {busy_before:.0f} % busy before measuring: other work will inflate the numbers")
    log(f"\nServing with gunicorn ({args.workers} {args.worker_class} workers), {args.requests} requests per scenario, {args.concurrency} concurrent clients")
    with ExitStack() as stack:
        server = stack.enter_context(gunicorn(env, workers=args.workers, worker_class=args.worker_class, db_time=args.db_time))
        servers = {THIS: server}
        if args.baseline:
            # Its own cache prefix: the two checkouts may keep different things under the same keys.
            baseline_env = {**env, "CACHE_KEY_PREFIX": f"{env['CACHE_KEY_PREFIX']}-baseline"}
            servers[BASELINE] = stack.enter_context(
                gunicorn(baseline_env, workers=args.workers, worker_class=args.worker_class, db_time=args.db_time, cwd=args.baseline, name="baseline")
            )
        fixture = create_fixture(server, sector_ids)
        scenarios = build_scenarios(args, fixture, args.database_url)
        if args.only:
            wanted = [name.strip().lower() for name in args.only.split(",")]
            scenarios = [scenario for scenario in scenarios if any(name in scenario.name.lower() for name in wanted)]
        for scenario in scenarios:
            statements = capture_sql(scenario, fixture)
            measured_by_server = measure(servers, scenario, fixture, statements, args)
            for label, measured in measured_by_server.items():
                failures.extend(measured.failures)
                row = result_row(scenario, measured, label=label)
                rows.append(row)
                log(
                    f"  {row['scenario']:<37} API p50 {row['api_p50_ms']:>6} ms  p99 {row['api_p99_ms']:>6} ms  "
                    f"{row['requests_per_second']:>5} req/s  SQL p50 {row['sql_p50_ms']:>6} ms  ({row['queries']} queries; {scenario.expected})"
                )
            if args.explain:
                explains[scenario.name] = explain(args.database_url, measured_by_server[THIS].sql)
        references = {label: measure_references(each, fixture, args) for label, each in servers.items()}

    log("\nScenarios:")
    for row in rows:
        if row["server"] == THIS:
            log(f"  {row['scenario']:<26} GET {row['path']}")
    log(f"\n{report(rows)}")
    log(
        "\nAPI: over HTTP, sequential requests (p50/p95/p99 ms) and concurrent throughput (req/s);"
        "\nSQL: the statements of one request replayed on PostgreSQL (p50 ms, all statements together);"
        "\noverhead: API p50 - SQL p50 (HTTP, Django, DRF, auth, rate limit, JSON);"
        "\n/healthz p50: the bare round trip, sent in the same blocks as the scenario's requests, so that the ratio"
        "\noverhead / healthz compares moments of equal load on a shared machine."
    )
    if args.db_time:
        log(
            "DB in worker: the same statements timed inside the gunicorn worker during the API requests;"
            "\nrest: per request, API latency minus its DB time (HTTP, gunicorn, Python)."
        )
    log("\nReference points (sequential, p50 / p99 ms):")
    for label, server_references in references.items():
        for name, latencies, _ in server_references:
            log(f"  {name + label:<51} {ms(percentile(latencies, 50)):>6} / {ms(percentile(latencies, 99))}")
    for label in references:
        overheads = [float(row["overhead_ms"]) for row in rows if row["server"] == label]
        ratios = [float(row["overhead_ratio"]) for row in rows if row["server"] == label]
        log(f"\nMedian overhead over the scenarios{label}: {statistics.median(overheads):.2f} ms; median of the scenarios' overhead / "
            f"/healthz p50 (sent in the same blocks): {statistics.median(ratios):.1f} x the bare round trip (issue 20: at most 3 x)")
    for row in rows:
        if row["scenario"].startswith("filtered"):
            log(f"{row['scenario']}: p99 / p50 = {float(row['api_p99_ms']) / float(row['api_p50_ms']):.2f} (issue 20: at most 2)")
    measured_busy = [row["machine_busy_percent"] for row in rows if row["machine_busy_percent"] is not None]
    if measured_busy:
        single_stream = 100 / (os.cpu_count() or 1)
        log(f"\nMachine CPU during the sequential requests: at most {max(measured_busy)} % (one request stream alone keeps about {single_stream:.0f} % busy)")
        if max(measured_busy) > single_stream + BUSY_MARGIN_PERCENT:
            log(
                "WARNING: more CPU than one request stream uses: other work on the machine (latencies are inflated),"
                "\nor PostgreSQL's parallel workers (a parallel sequential scan, for example)"
            )
    if args.explain:
        for name, text in explains.items():
            log(f"\n== {name}\n{text}")
    if args.json:
        result = {
            "args": {key: str(value) for key, value in vars(args).items()},
            "timings_s": timings,
            "machine_busy_percent_before": busy_before,
            "results": rows,
            "references": [
                {"name": name + label, "p50_ms": ms(percentile(latencies, 50)), "p99_ms": ms(percentile(latencies, 99)), "machine_busy_percent": busy}
                for label, server_references in references.items()
                for name, latencies, busy in server_references
            ],
        }
        args.json.write_text(json.dumps(result, indent=2))
    if failures:
        log(f"\n{len(failures)} failed response(s); first ones:")
        for failure in failures[:10]:
            log(f"  {failure}")
        return 1
    log("\nEvery response was a 200 with the exact count.")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # gunicorn was already stopped on the way out
        log("\ninterrupted")
        sys.exit(130)
