#!/usr/bin/env python
"""Automation benchmark (issue 7 target): 500 keywords through all seven stages with the `local`
provider and zero delays in under 3 minutes, on PostgreSQL and on SQLite.

    .venv/bin/python bench/automation.py [--keywords 500] [--profiles postgresql sqlite] [--image-batch 4]

Each profile runs on its own fresh deployment (``tests.live_server.server_environment``) in a
child process of this script. The child adds ``--keywords`` keywords of one niche (five topics of
bench/ai_local.py) to a site, keeps every other setting at its default (1,500-word articles,
4 images of 1024x1024 per article, 3 ideas per cluster, stage batch sizes) but the delays (0),
the stages' budget shares (all in stage 1's, which cuts no stage) and stage 4's per-run limit (none,
where the default writes three articles a run), starts a
run and runs its ``automation.run`` job in-process as a worker does (``jobs.services.execute``).

Reported: wall time of the run, items per stage, credits, and the engine's overhead: the run's
time outside the provider calls (every ``AIClient`` call is timed), in total and per item
processed. The overhead holds the jobs' own work around the provider (rows, credits,
notifications, image files) as well as the engine's.

Needs PostgreSQL for its profile (``scripts/services-up`` prints the URL; default below).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from tests.live_server import server_environment  # noqa: E402  (the repository root is on the path only from here)

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/inkwell"
TARGET_SECONDS = 180
# One site's niche: five related topics (the local provider makes 74 clusters of 500 of their
# keywords in stage 1's default batches of 50; 15 of one topic's, 283 of all 40 topics').
NICHE = ("running shoes", "hiking", "camping gear", "home workouts", "yoga")
PROVIDER_CALLS = ("cluster_keywords", "generate_ideas", "write_article", "extract_image_prompts", "generate_image")


def niche_keywords(total: int) -> list[tuple[str, int]]:
    """``total`` keywords of one site's niche: the phrases of NICHE's topics in bench/ai_local.py
    (prefix, head term, facet, suffix), sampled with a fixed seed, each with a search volume."""
    from bench.ai_local import PREFIXES, SUFFIXES, TOPICS

    rng = random.Random(7)
    phrases = sorted(
        {
            " ".join(part for part in (prefix, head, facet, suffix) if part)
            for topic in NICHE
            for head in TOPICS[topic][0]
            for facet in ["", *TOPICS[topic][1]]
            for prefix in PREFIXES
            for suffix in SUFFIXES
            if suffix != "vs"
        }
    )
    return [(phrase, rng.randrange(10, 20000)) for phrase in rng.sample(phrases, total)]


def _time_provider_calls() -> Counter:
    """Wraps every AIClient call; the returned counter accumulates seconds per call name."""
    from inkwell.ai.client import AIClient

    spent: Counter = Counter()

    def timed(name, call):
        def wrapper(self, *args, **kwargs):
            started = time.perf_counter()
            try:
                return call(self, *args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - started
                spent[f"{name}_calls"] += 1

        return wrapper

    for name in PROVIDER_CALLS:
        setattr(AIClient, name, timed(name, getattr(AIClient, name)))
    return spent


def inner(args) -> dict:
    import django

    django.setup()

    from django.db import connection

    from inkwell.automation import selectors, services
    from inkwell.automation.models import AutomationStageRun
    from inkwell.automation.tests.pipeline_data import automation_settings, fund, uncut_shares
    from inkwell.jobs.services import execute
    from inkwell.keywords.models import SeedKeyword
    from inkwell.planner.models import Keyword
    from inkwell.sitesettings.selectors import effective_settings as pipeline_settings
    from inkwell.tenancy.models import IndustrySector, Plan, Sector, Site, Subscription
    from inkwell.tenancy.services import account_register

    owner = account_register(email="bench-automation@example.com", password="bench-password-1")
    account = owner.account
    Subscription.objects.for_account(account).update(plan=Plan.objects.get(slug="scale"))
    site = Site.objects.create(account=account, name="Bench", domain="bench.example.com", slug="bench")
    industry_sector = IndustrySector.objects.order_by("id").first()
    sector = Sector.objects.create(account=account, site=site, industry_sector=industry_sector, name="Bench")
    keywords = niche_keywords(args.keywords)
    seeds = SeedKeyword.objects.bulk_create(SeedKeyword(keyword=text, volume=volume, difficulty=volume % 101, industry_sector=industry_sector) for text, volume in keywords)
    Keyword.objects.bulk_create(
        Keyword(account=account, site=site, sector=sector, seed_keyword=seed, keyword=seed.keyword, volume=seed.volume) for seed in seeds
    )
    quote = selectors.estimate(site)
    stages = uncut_shares()
    if args.image_batch:
        stages[6]["batch_size"] = args.image_batch
    automation_settings(site, stages=stages)
    # More than the estimate: once clustered, the run's budget becomes the exact need (see the engine).
    fund(account, 10 * quote["estimated_credits"])
    run = services.start_run(site=site, user=owner)

    spent = _time_provider_calls()
    started = time.perf_counter()
    execute(job_id=run.job_id)
    seconds = time.perf_counter() - started
    run.refresh_from_db()
    provider = sum(value for name, value in spent.items() if not name.endswith("_calls"))
    stages = {
        row.stage: {"processed": row.processed, "failed": row.failed, "credits": row.credits_used, "seconds": round((row.finished_at - row.started_at).total_seconds(), 1)}
        for row in AutomationStageRun.objects.for_account(account).filter(run=run).order_by("stage")
    }
    return {
        "database": connection.vendor,
        "keywords": args.keywords,
        "image_batch_size": pipeline_settings(site).stage(6).batch_size,
        "status": run.status,
        "seconds": round(seconds, 1),
        "within_target": run.status == "completed" and seconds < TARGET_SECONDS,
        "items_processed": run.items_processed,
        "credits_used": run.credits_used,
        "estimated_credits": quote["estimated_credits"],
        "stages": stages,
        "provider_seconds": round(provider, 1),
        "provider_calls": {name: {"calls": spent[f"{name}_calls"], "seconds": round(spent[name], 1)} for name in PROVIDER_CALLS},
        "overhead_seconds": round(seconds - provider, 1),
        "overhead_ms_per_item": round((seconds - provider) * 1000 / max(run.items_processed, 1), 1),
    }


def run_inner(env: dict, args) -> dict:
    command = [sys.executable, __file__, "--inner", "--keywords", str(args.keywords), "--image-batch", str(args.image_batch)]
    result = subprocess.run(command, cwd=REPO_ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "inkwell.settings"}, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise RuntimeError(f"the run failed:\n{result.stdout}\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--keywords", type=int, default=500)
    parser.add_argument("--profiles", nargs="+", choices=["postgresql", "sqlite"], default=["postgresql", "sqlite"])
    parser.add_argument("--image-batch", type=int, default=0, help="stage 6's batch size (default: the site default, 4 images a batch, one images job per content)")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps(inner(args)))
        return

    results = {}
    for profile in args.profiles:
        if profile == "postgresql":
            os.environ["DATABASE_URL"] = args.database_url
        with server_environment(embedded=profile == "sqlite") as env:
            results[profile] = run_inner(env, args)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
