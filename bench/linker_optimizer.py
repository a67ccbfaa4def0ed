#!/usr/bin/env python
"""Linker and optimizer benchmark (issue 8).

    .venv/bin/python bench/linker_optimizer.py [--articles 1000] [--postgres] [--database-url URL]

On a fresh deployment (``tests.live_server.server_environment``; the embedded SQLite profile, or
PostgreSQL with ``--postgres``), in a child process of this script:

1. A site of ``--articles`` articles, each about 1,200 words in 10 paragraphs, with its own focus
   keyword and secondary keyword; each paragraph mentions one or two other articles' keywords.
2. Linking, the pure core: the site's targets compiled once, then every body linked in memory
   (no database), per article p50/p95.
3. Linking the whole site as the batch job does it (``linker.batch_process`` run in this process:
   each article read, linked and saved as a new revision in its own transaction); total time and
   links added; then the same job again, which must add nothing (idempotence).
4. Analysis of every article as ``POST /optimizer/analyze/`` computes it (``analyze_content``:
   its queries and the score), per article p50/p95.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from tests.live_server import server_environment  # noqa: E402  (the repository root is on the path only from here)

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/inkwell"
WORDS = (
    "trail road hill river forest city winter summer night morning coastal desert alpine urban beginner "
    "advanced budget premium family solo"
).split()
THINGS = "shoes socks jackets packs poles watches lamps tents stoves maps bottles gloves hats bags belts".split()
FILLER = (
    "Most readers want a clear answer before they spend money, so this section keeps things short and practical. "
    "Compare the options side by side, try them on a short outing first and keep notes on what works. "
    "Small details such as weight, fit and care decide whether you keep using the gear after the first month. "
)


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
        "n": len(ordered),
    }


def keywords(count: int) -> list[tuple[str, str]]:
    """A distinct (focus keyword, secondary keyword) pair per article."""
    pairs = []
    for index in range(count):
        first, second = WORDS[index % len(WORDS)], WORDS[(index // len(WORDS)) % len(WORDS)]
        thing = THINGS[(index // (len(WORDS) ** 2)) % len(THINGS)] if count > len(WORDS) ** 2 else THINGS[index % len(THINGS)]
        pairs.append((f"{first} {second} {thing} {index}", f"best {first} {thing} {index}"))
    return pairs


def body(index: int, pairs: list[tuple[str, str]], rng: random.Random) -> str:
    paragraphs = [f"<p>This guide covers {pairs[index][0]} in depth. {FILLER}</p>"]
    for number in range(9):
        others = rng.sample(range(len(pairs)), 2)
        mentions = " and ".join(pairs[other][rng.randrange(2)] for other in others if other != index)
        heading = f"<h2>Part {number + 1}: {pairs[rng.randrange(len(pairs))][0]}</h2>" if number % 3 == 0 else ""
        paragraphs.append(f"{heading}<p>{FILLER}Readers who liked this also compared {mentions or 'other gear'}. {FILLER}</p>")
    return "\n".join(paragraphs)


def inner(args) -> dict:
    import django

    django.setup()
    from inkwell.jobs.services import execute
    from inkwell.linker.services import site_index, start_batch_linking
    from inkwell.optimizer.selectors import analyze_content
    from inkwell.tenancy.models import Site
    from inkwell.tenancy.services import account_register
    from inkwell.writer.models import Content, SiteStatus
    from inkwell.writer.sanitize import visible_word_count

    owner = account_register(email="bench-linker@example.com", password="bench-password-1")
    account = owner.account
    site = Site.objects.create(account=account, name="Bench", domain="bench.example.com", slug="bench-linker")
    rng = random.Random(8)
    pairs = keywords(args.articles)
    bodies = [body(index, pairs, rng) for index in range(args.articles)]
    Content.objects.bulk_create(
        [
            Content(
                account=account,
                site=site,
                title=f"Guide {index}: {pairs[index][0]}",
                slug=f"guide-{index}",
                # Live on the site: the linker links only to articles that are.
                site_status=SiteStatus.PUBLISHED,
                external_url=f"https://bench.example.com/guide-{index}/",
                html=html,
                focus_keyword=pairs[index][0],
                keywords=[pairs[index][0], pairs[index][1]],
                word_count=visible_word_count(html),
                meta_title=f"{pairs[index][0]} guide"[:60],
                meta_description=f"Everything about {pairs[index][0]}: how to choose, use and care for it.",
            )
            for index, html in enumerate(bodies)
        ],
        batch_size=500,
    )
    contents = list(Content.objects.for_account(account).filter(site=site).order_by("id"))
    words = statistics.mean(content.word_count for content in contents)

    started = time.perf_counter()
    index = site_index(account=account, site_id=site.pk)
    compile_seconds = time.perf_counter() - started
    pure = []
    for content in contents:
        started = time.perf_counter()
        index.link(content.html, 5, exclude_content_id=content.pk, own_phrases=[content.focus_keyword])
        pure.append(time.perf_counter() - started)

    runs = []
    for _ in range(2):
        job = start_batch_linking(account=account, user=owner, contents=Content.objects.for_account(account), content_ids=[content.pk for content in contents])
        started = time.perf_counter()
        execute(job_id=job.pk, heartbeat=False)
        seconds = time.perf_counter() - started
        job.refresh_from_db()
        runs.append({"status": job.status, "seconds": round(seconds, 2), "per_article_ms": round(seconds * 1000 / len(contents), 2), "links_added": job.result["links_added"]})

    analysis = []
    scores = []
    for content in Content.objects.for_account(account).filter(site=site).order_by("id"):
        started = time.perf_counter()
        scores.append(analyze_content(account, content)["score"])
        analysis.append(time.perf_counter() - started)

    return {
        "articles": len(contents),
        "mean_words": round(words),
        "link_targets_compile_seconds": round(compile_seconds, 3),
        "link_html_in_memory": percentiles(pure),
        "batch_job_first_run": runs[0],
        "batch_job_second_run": runs[1],
        "analyze_per_article": percentiles(analysis),
        "analyze_total_seconds": round(sum(analysis), 2),
        "mean_score": round(statistics.mean(scores), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL instead of the embedded SQLite profile")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps(inner(args)))
        return

    if args.postgres:
        os.environ["DATABASE_URL"] = args.database_url
    with server_environment(embedded=not args.postgres) as env:
        command = [sys.executable, __file__, "--inner", "--articles", str(args.articles)]
        result = subprocess.run(command, cwd=REPO_ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "inkwell.settings"}, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise SystemExit(f"benchmark failed:\n{result.stdout}\n{result.stderr}")
    print(json.dumps({"profile": "PostgreSQL" if args.postgres else "embedded (SQLite)", **json.loads(result.stdout.strip().splitlines()[-1])}, indent=2))


if __name__ == "__main__":
    main()
