#!/usr/bin/env python
"""In-process profile of the light endpoints (issue 20): where a request's time goes, without HTTP.

    DATABASE_URL=postgresql://... REDIS_URL=redis://... .venv/bin/python bench/profile_requests.py \
        [--requests 2000] [--top 25] [--sort cumulative] [--only unread,me,keywords]

Seeds the same rows as ``bench/light_endpoints.py`` (production settings: ``DEBUG`` off, the
environment's database and cache), warms each endpoint, then sends ``--requests`` requests to each
through Django's test client (the whole middleware and DRF stack, no socket) under cProfile. Prints
per endpoint the milliseconds per request without and with the profiler, the SQL statements and
milliseconds per request, and the functions with the most cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inkwell.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")
for scope in ("AI", "CONTENT", "AUTH", "GENERAL"):  # counted, never reached
    os.environ.setdefault(f"RATE_LIMIT_{scope}", str(10**9))


class SqlTimer:
    """Counts the statements and their time through Django's ``execute_wrapper``."""

    def __init__(self):
        self.statements = 0
        self.seconds = 0.0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.statements += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="cumulative", help="pstats order of the printed functions: cumulative, tottime, ...")
    parser.add_argument("--only", default="", help="comma-separated words; endpoints whose name holds one")
    args = parser.parse_args()

    from bench.light_endpoints import seed

    seeded = seed()
    from django.db import connection
    from django.test import Client

    from inkwell.keywords.models import SeedKeywordStats

    library_sectors = sorted(set(SeedKeywordStats.objects.values_list("industry_sector_id", flat=True)))[:20]
    filtered_sectors = ",".join(map(str, library_sectors[:3]))
    stats_sectors = ",".join(map(str, library_sectors))

    client = Client(HTTP_AUTHORIZATION=f"Bearer {seeded['token']}", raise_request_exception=True)
    endpoints = {
        "unread-count": "/api/v1/notifications/unread-count/",
        "auth/me": "/api/v1/auth/me/",
        "planner keywords": f"/api/v1/planner/keywords/?site_id={seeded['site_id']}",
        "keywords library": "/api/v1/keywords-library/",
        "keywords library filtered": f"/api/v1/keywords-library/?sector_ids={filtered_sectors}&difficulty=easy&volume_min=100&volume_max=10000&ordering=-volume",
        "keywords library page 2000": "/api/v1/keywords-library/?page=2000",
        "keywords library sector_stats": f"/api/v1/keywords-library/sector_stats/?site_id={seeded['site_id']}&sector_ids={stats_sectors}",
    }
    wanted = [word.strip() for word in args.only.split(",") if word.strip()]
    for name, url in endpoints.items():
        if wanted and not any(word in name for word in wanted):
            continue
        for _ in range(50):
            assert client.get(url).status_code == 200, name
        started = time.perf_counter()
        for _ in range(args.requests):
            client.get(url)
        plain_ms = (time.perf_counter() - started) * 1000 / args.requests
        timer = SqlTimer()
        with connection.execute_wrapper(timer):
            for _ in range(args.requests):
                client.get(url)
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        for _ in range(args.requests):
            client.get(url)
        profiler.disable()
        profiled_ms = (time.perf_counter() - started) * 1000 / args.requests
        print(f"\n=== {name} {url}: {plain_ms:.3f} ms a request ({profiled_ms:.3f} profiled); "
              f"SQL {timer.statements / args.requests:.2f} statements, {timer.seconds * 1000 / args.requests:.3f} ms a request")
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
        print(out.getvalue())


if __name__ == "__main__":
    main()
