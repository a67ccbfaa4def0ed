#!/usr/bin/env python
"""Provider speed benchmark (issue 32): manual generations with images against the project's
OpenAI-compatible test server with realistic latencies scaled down ten times (an article 2.5 s,
other chat calls 0.4 s, an image 1.0 s), side by side with older code in the same run.

    .venv/bin/python bench/provider_speed.py [--baseline REV] [--articles 20] [--images 4]
        [--threads 2] [--cap N] [--profiles sqlite postgresql]

For each profile and each code path (``--baseline``'s tree, unpacked with ``git archive`` into a
temporary folder, then this tree), on a fresh deployment (``tests.live_server.server_environment``)
with one Celery worker of ``--threads`` threads running that tree, a child process of this script:

- **manual**: starts ``--articles`` article generations at once, as that many clicks of
  "generate" would, and each article's image generation (``--images`` images) as soon as the
  article is written, as its writer would; measured until every job has ended;
- **one article's images**: then one more image generation of ``--images`` images for one of the
  articles, alone.

The test server counts its calls in flight over time: reported are the peak, the mean while the
scenario ran, and the provider-bound limit (the longest chain) next to the sequential time.
``--cap`` makes the server allow only so many calls at once (429 beyond). Needs PostgreSQL for
its profile (``DATABASE_URL``, default below) and Redis (``REDIS_URL``) for the production one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from inkwell.ai.tests.openai_server import TEST_API_KEY, OpenAICompatibleServer  # noqa: E402
from tests.live_server import celery_worker, server_environment  # noqa: E402

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/inkwell"
LATENCIES = {"write_article": 2.5, "chat": 0.4, "images": 1.0}


def inner(args) -> dict:
    import django

    django.setup()

    from inkwell.automation.tests.pipeline_data import fund, quick_settings
    from inkwell.jobs.models import Job, JobStatus
    from inkwell.tenancy import services as tenancy
    from inkwell.tenancy.models import IndustrySector, Plan, Sector, Site, Subscription
    from inkwell.writer import services as writer
    from inkwell.writer.models import Content

    owner = tenancy.account_register(email="bench-speed@example.com", password="bench-password-1")
    account = owner.account
    Subscription.objects.for_account(account).update(plan=Plan.objects.get(slug="scale"))
    site = Site.objects.create(account=account, name="Bench", domain="bench.example.com", slug="bench")
    sector = Sector.objects.create(account=account, site=site, industry_sector=IndustrySector.objects.order_by("id").first(), name="Bench")
    tenant = type("Tenant", (), {"account": account, "owner": owner, "site": site})
    # Small images: the test server draws each one, on the same machine as Inkwell.
    quick_settings(tenant, images_per_article=args.images, image_size="256x256")
    fund(account, 1_000_000)
    tasks = [
        writer.task_create(account=account, site=site, sector=sector, title=f"Tomato seeds guide {index}", keywords=["tomato seeds"], word_count=1500)
        for index in range(args.articles)
    ]
    ended = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)

    started = time.monotonic()
    content_jobs = {writer.start_content_generation(account=account, task=task, user=owner).pk: task.pk for task in tasks}
    image_jobs: dict[int, int] = {}
    finished: dict[int, tuple[str, float]] = {}
    while len(finished) < len(content_jobs) + len(image_jobs):
        open_ids = [pk for pk in [*content_jobs, *image_jobs] if pk not in finished]
        for job in Job.objects.for_account(account).filter(pk__in=open_ids, status__in=ended):
            finished[job.pk] = (job.status, time.monotonic() - started)
            if job.pk in content_jobs and job.status == JobStatus.SUCCEEDED:
                content = Content.objects.for_account(account).get(task_id=content_jobs[job.pk])
                image_jobs[writer.start_image_generation(account=account, content=content, user=owner, count=args.images).pk] = content.pk
        time.sleep(0.05)
    manual_seconds = time.monotonic() - started
    image_ends = sorted(finished[pk][1] for pk in image_jobs)

    content = Content.objects.for_account(account).order_by("id").first()
    time.sleep(1)  # a quiet moment between the scenarios in the server's record
    one_started = time.monotonic()
    job = writer.start_image_generation(account=account, content=content, user=owner, count=args.images)
    while not Job.objects.for_account(account).filter(pk=job.pk, status__in=ended).exists():
        time.sleep(0.02)
    one_seconds = time.monotonic() - one_started
    jobs = Job.objects.for_account(account)
    return {
        "manual": {
            "seconds": round(manual_seconds, 2),
            "first_article_illustrated": round(image_ends[0], 2) if image_ends else None,
            "failed_jobs": sum(1 for status, _ in finished.values() if status != JobStatus.SUCCEEDED),
            "window": [started, started + manual_seconds],
        },
        "one_article_images": {
            "seconds": round(one_seconds, 2),
            "status": Job.objects.for_account(account).get(pk=job.pk).status,
            "window": [one_started, one_started + one_seconds],
        },
        "retried_jobs": jobs.filter(attempts__gt=1).count(),
    }


def in_flight_stats(server: OpenAICompatibleServer, window: list[float]) -> dict:
    """Peak and mean calls in flight in ``window`` (monotonic times of this machine)."""
    start, end = window
    log = server.in_flight_log
    peak, area, level, last = 0, 0.0, 0, start
    for moment, count in log:
        if moment < start:
            level = count
            continue
        if moment > end:
            break
        area += level * (moment - last)
        peak, level, last = max(peak, count), count, moment
    area += level * max(0.0, end - last)
    return {"peak_in_flight": peak, "mean_in_flight": round(area / max(end - start, 1e-9), 2)}


def run_path(tree: Path, profile: str, args) -> dict:
    with OpenAICompatibleServer(latencies=LATENCIES, max_in_flight=args.cap, cap_retry_after=0.5) as server:
        overrides = {
            "AI_PROVIDER": "openai",
            "AI_IMAGE_PROVIDER": "openai",
            "AI_BASE_URL": server.base_url,
            "AI_API_KEY": TEST_API_KEY,
            "AI_IMAGE_MODEL": "gpt-image-1",
            "AI_ALLOW_PRIVATE_ENDPOINTS": "1",
        }
        with server_environment(embedded=profile == "sqlite", **overrides) as env, celery_worker(env, concurrency=args.threads, cwd=tree):
            command = [sys.executable, __file__, "--inner", "--articles", str(args.articles), "--images", str(args.images)]
            result = subprocess.run(command, cwd=REPO_ROOT, env={**env, "DJANGO_SETTINGS_MODULE": "inkwell.settings"}, capture_output=True, text=True, timeout=3600)
            if result.returncode != 0:
                raise RuntimeError(f"the scenario failed:\n{result.stdout}\n{result.stderr}")
            measured = json.loads(result.stdout.strip().splitlines()[-1])
        for scenario in ("manual", "one_article_images"):
            measured[scenario].update(in_flight_stats(server, measured[scenario].pop("window")))
        measured["refused_429"] = server.refused
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=None, help="the git revision of the old code path (default: where this branch left main)")
    parser.add_argument("--articles", type=int, default=20)
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2, help="the worker's threads (WORKER_CONCURRENCY's default: 2)")
    parser.add_argument("--cap", type=int, default=None, help="calls the provider allows in flight (429 beyond)")
    parser.add_argument("--profiles", nargs="+", choices=["postgresql", "sqlite"], default=["sqlite"])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps(inner(args)))
        return

    if args.baseline is None:
        args.baseline = subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout.strip()[:12]
    sequential = args.articles * (LATENCIES["write_article"] + LATENCIES["chat"] + args.images * LATENCIES["images"])
    results: dict = {
        "provider_bound": {
            "longest_chain_seconds": LATENCIES["write_article"] + LATENCIES["chat"] + LATENCIES["images"],
            "sequential_seconds": round(sequential, 1),
            "one_article_images_sequential_seconds": LATENCIES["chat"] + args.images * LATENCIES["images"],
        }
    }
    with tempfile.TemporaryDirectory(prefix="inkwell-baseline-") as baseline:
        archive = subprocess.run(["git", "archive", args.baseline], cwd=REPO_ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", baseline], input=archive, check=True)
        for profile in args.profiles:
            if profile == "postgresql":
                os.environ["DATABASE_URL"] = args.database_url  # REDIS_URL from the environment
            results[profile] = {
                f"baseline ({args.baseline})": run_path(Path(baseline), profile, args),
                "this tree": run_path(REPO_ROOT, profile, args),
            }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
