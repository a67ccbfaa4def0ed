"""A generated keywords library: ~1,500 keywords over six industry sectors, the same on every run.

The generator deliberately produces what the list and statistics must get right: difficulty on
every band edge (0, 25, 26, 50, 51, 75, 76, 100), many equal volumes and equal keyword texts (so
that the id tie-breaker decides the order), keywords differing only in case (for the
case-insensitive search), several countries, paid keywords with a cost and free ones costing 0,
and high-opportunity flags. Rows are bulk-created (no signals), then the totals are rebuilt with
``refresh_library_stats``, the way an import does.
"""

import datetime as dt
import random
import uuid
from dataclasses import dataclass

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.stats import refresh_library_stats
from inkwell.tenancy.models import Industry, IndustrySector

SEED = 20240611
KEYWORD_COUNT = 1500
SECTOR_NAMES = ("Bakeries", "Cycling", "Dentistry", "Gardening", "Plumbing", "Yoga")
COUNTRIES = ("US", "GB", "DE", "FR", "IN")
# Capitalised variants share the lowercase text, so a search for "blue" must find "Blue" and "BLUE" too.
ADJECTIVES = ("blue", "Blue", "BLUE", "cheap", "best", "local", "organic", "fast", "quiet", "smart", "green", "Green")
NOUNS = ("widget", "Widget", "bakery", "bike", "dentist", "garden", "plumber", "yoga mat", "repair", "course")
SUFFIXES = ("", " near me", " prices", " 2024", " reviews")
BAND_EDGES = (0, 25, 26, 50, 51, 75, 76, 100)
# A few volumes drawn often, so long runs of equal volumes exercise the tie-breaker.
TIED_VOLUMES = (0, 10, 480, 1000, 2400)
CREATED_BASE = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)

# The library is served identically at both paths.
LIBRARY_PATHS = ("/api/v1/keywords-library/", "/api/v1/auth/keywords-library/")
STATS_PATHS = tuple(f"{path}sector_stats/" for path in LIBRARY_PATHS)


def assert_error(response, status: int, code: str, *, field: str | None = None) -> dict:
    """The error the API's error envelope, with ``field`` among the field errors when given."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    body = response.json()
    assert body["success"] is False
    assert body["code"] == code
    assert isinstance(body["error"], str) and body["error"]
    uuid.UUID(body["request_id"])
    if field is not None:
        assert body["error"] == "Validation failed"
        messages = body["errors"][field]
        assert messages and all(isinstance(message, str) and message for message in messages)
    return body


def band_of(difficulty: int) -> str:
    """The band of a 0..100 difficulty, written out independently of the code."""
    if difficulty <= 25:
        return "easy"
    if difficulty <= 50:
        return "medium"
    if difficulty <= 75:
        return "hard"
    return "very_hard"


def queries_of(http, path: str, params: dict) -> int:
    """How many SQL queries one successful GET runs."""
    with CaptureQueriesContext(connection) as captured:
        response = http.get(path, params)
    assert response.status_code == 200, response.content[:500]
    return len(captured)


@dataclass
class Library:
    sectors: list[IndustrySector]
    empty_sector: IndustrySector  # a sector of the same industry with no keywords at all

    @property
    def sector_ids(self) -> list[int]:
        return [sector.pk for sector in self.sectors]


def _generated_keywords(sectors: list[IndustrySector]) -> list[SeedKeyword]:
    rng = random.Random(SEED)
    seen: set[tuple[str, str, int]] = set()
    keywords = []
    while len(keywords) < KEYWORD_COUNT:
        sector = rng.choice(sectors)
        country = rng.choice(COUNTRIES)
        text = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}{rng.choice(SUFFIXES)}"
        if (text, country, sector.pk) in seen:
            continue
        seen.add((text, country, sector.pk))
        is_paid = rng.random() < 0.4
        keywords.append(
            SeedKeyword(
                keyword=text,
                volume=rng.choice(TIED_VOLUMES) if rng.random() < 0.35 else rng.randint(0, 100_000),
                difficulty=rng.choice(BAND_EDGES) if rng.random() < 0.3 else rng.randint(0, 100),
                country=country,
                industry_sector=sector,
                is_high_opportunity=rng.random() < 0.25,
                is_paid=is_paid,
                credit_cost=rng.randint(1, 10) if is_paid else 0,
                created_at=CREATED_BASE + dt.timedelta(seconds=rng.randint(0, 30_000_000), microseconds=rng.randint(0, 999_999)),
            )
        )
    return keywords


@pytest.fixture
def library(db) -> Library:
    industry = Industry.objects.create(name="Generated industry", slug="generated-industry", description="Test library")
    sectors = [
        IndustrySector.objects.create(industry=industry, name=name, slug=name.lower(), description=f"Everything about {name.lower()}")
        for name in SECTOR_NAMES
    ]
    empty_sector = IndustrySector.objects.create(industry=industry, name="Empty", slug="empty", description="No keywords here")
    SeedKeyword.objects.bulk_create(_generated_keywords(sectors), batch_size=500)
    refresh_library_stats()
    return Library(sectors=sectors, empty_sector=empty_sector)


@pytest.fixture
def http(tenant, as_user):
    """The account owner's API client."""
    return as_user(tenant.owner)


@pytest.fixture
def unthrottled(settings):
    """Reading a whole library page by page takes hundreds of requests; the rate limit is tested elsewhere."""
    settings.INKWELL_RATE_LIMITS = {scope: 1_000_000 for scope in settings.INKWELL_RATE_LIMITS}


@pytest.fixture
def local_memory_cache(settings):
    """The rate-limit counter in local memory, so that counted queries are the endpoint's own on both profiles."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"keywords-{uuid.uuid4().hex}"}}


@pytest.fixture
def no_counter(monkeypatch):
    """No ``added`` counter registered (the planner's seam, selectors.register_added_counter): nothing is added."""
    monkeypatch.setattr("inkwell.keywords.selectors._added_counter", None)
