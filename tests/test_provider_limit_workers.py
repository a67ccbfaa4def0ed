"""The shared limit of AI provider calls in flight on real Celery workers: two worker processes
write articles and make images through the OpenAI-compatible test server, and the server counts
the calls it works on at once.

Both profiles: Redis with PostgreSQL (the limit kept in Redis) and the filesystem transport with
SQLite (the limit kept in the database). The work is started and read back with
``manage.py shell`` in the deployment's own environment.
"""

import json
import os
import time

import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY, OpenAICompatibleServer
from tests.live_server import celery_worker, manage, server_environment

pytestmark = pytest.mark.live_server_process

PROFILES = [pytest.param(False, id="redis-postgresql"), pytest.param(True, id="embedded-filesystem-sqlite")]

SETUP = """
import json
from types import SimpleNamespace
from inkwell.automation.tests.pipeline_data import add_keywords, fund, quick_settings
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Plan, Site, Subscription
from inkwell.writer import services as writer

owner = tenancy.account_register(email="limit-{tag}@example.com", password="correct-horse-1", account_name="Limit test")
Subscription.objects.for_account(owner.account).update(plan=Plan.objects.get(slug="scale"))
site = Site.objects.create(account=owner.account, name="Limit test", domain="limit-{tag}.example.com", slug="limit-{tag}")
tenant = SimpleNamespace(account=owner.account, owner=owner, site=site)
sector = add_keywords(tenant, 1)
quick_settings(tenant, images_per_article={images})
fund(owner.account, 100000)
jobs = []
for index in range({articles}):
    task = writer.task_create(account=owner.account, site=site, sector=sector, title=f"Tomato seeds guide {{index}}", keywords=["tomato seeds"], word_count=300)
    jobs.append(writer.start_content_generation(account=owner.account, task=task, user=owner).pk)
print("JOBS", json.dumps(jobs))
"""

START_IMAGES = """
import json
from inkwell.tenancy.models import User
from inkwell.writer import services as writer
from inkwell.writer.models import Content

owner = User.dangerously_unscoped.get(email="limit-{tag}@example.com")
jobs = [writer.start_image_generation(account=owner.account, content=content, user=owner, count={images}).pk for content in Content.objects.for_account(owner.account)]
print("JOBS", json.dumps(jobs))
"""

SUMMARY = """
import json
from collections import Counter
from django.db.models import Sum
from inkwell.billing.models import CreditReservation, CreditUsage
from inkwell.jobs.models import Job
from inkwell.tenancy.models import User
from inkwell.writer.models import Content, Image, Task

account = User.dangerously_unscoped.get(email="limit-{tag}@example.com").account
jobs = Job.objects.for_account(account)
print("SUMMARY", json.dumps({{
    "jobs": sorted(Counter(jobs.values_list("status", flat=True)).items()),
    "attempts": sorted(set(jobs.values_list("attempts", flat=True))),
    "contents_per_task": sorted({{task.contents.count() for task in Task.objects.for_account(account)}}),
    "images": Image.objects.for_account(account).filter(status="generated").count(),
    "image_statuses": sorted(set(Image.objects.for_account(account).values_list("status", flat=True))),
    "reservations": sorted(set(CreditReservation.objects.for_account(account).values_list("status", flat=True))),
    "charged": CreditUsage.objects.for_account(account).filter(job__isnull=False).aggregate(total=Sum("credits_used"))["total"],
    "charged_per_job": sorted(Counter(CreditUsage.objects.for_account(account).filter(job__isnull=False).values_list("job_id", "operation_type")).values()),
}}))
"""


def _run(env, script: str, marker: str):
    output = manage(env, "shell", "-c", script)
    return json.loads(output.split(f"{marker} ")[1].splitlines()[0])


def _wait_until_done(env, tag: str, count: int, timeout: float = 180) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        summary = _run(env, SUMMARY.format(tag=tag), "SUMMARY")
        if dict(summary["jobs"]).get("succeeded", 0) + dict(summary["jobs"]).get("failed", 0) >= count:
            return summary
        assert time.monotonic() < deadline, f"jobs still at work after {timeout} s: {summary}"
        time.sleep(1)


@pytest.fixture
def provider_deployment(request):
    embedded, server_options, variables = request.param
    if not embedded and not os.environ.get("REDIS_URL"):
        pytest.skip("the Redis profile runs in the production pass of `make test`")
    with OpenAICompatibleServer(**server_options) as server:
        overrides = {
            "AI_PROVIDER": "openai",
            "AI_IMAGE_PROVIDER": "openai",
            "AI_BASE_URL": server.base_url,
            "AI_API_KEY": TEST_API_KEY,
            "AI_IMAGE_MODEL": "gpt-image-1",
            "AI_ALLOW_PRIVATE_ENDPOINTS": "1",
            "JOB_HEARTBEAT_SECONDS": "1",
            **variables,
        }
        with server_environment(embedded=embedded, **overrides) as env:
            yield env, server


def _profiles(server_options: dict, variables: dict):
    return [pytest.param((param.values[0], server_options, variables), id=param.id) for param in PROFILES]


@pytest.mark.parametrize(
    "provider_deployment",
    # Sixteen threads in two processes against a limit of three: the server may never see four.
    _profiles({"latencies": {"write_article": 0.3}}, {"AI_MAX_CONCURRENCY": "3"}),
    indirect=True,
)
def test_two_worker_processes_never_have_more_calls_of_one_account_in_flight_than_its_limit(provider_deployment):
    env, server = provider_deployment
    jobs = _run(env, SETUP.format(tag="shared", images=1, articles=12), "JOBS")
    with celery_worker(env, concurrency=8), celery_worker(env, concurrency=8, beat=False):
        summary = _wait_until_done(env, "shared", len(jobs))
    assert server.peak_in_flight == 3
    assert summary["jobs"] == [["succeeded", 12]]
    assert summary["attempts"] == [1]
    assert summary["contents_per_task"] == [1]
    # Each article asked for once: nothing was sent twice.
    assert len(server.requests_to("chat")) == 12
    assert summary["reservations"] == ["settled"]
    assert summary["charged_per_job"] == [1] * 12


@pytest.mark.parametrize(
    "provider_deployment",
    # A provider that allows two calls at once, and Inkwell that would send eight: a storm of
    # 429s. No SDK retries: the shared limit alone must wait them out, with no job retried.
    _profiles(
        {"latencies": {"write_article": 0.2, "extract_image_prompts": 0.05, "images": 0.1}, "max_in_flight": 2, "cap_retry_after": 0.05},
        {"AI_MAX_CONCURRENCY": "8", "AI_PROVIDER_MAX_CONCURRENCY": "8", "AI_MAX_RETRIES": "0"},
    ),
    indirect=True,
)
def test_a_429_storm_ends_with_every_article_and_image_made_once_and_paid_once(provider_deployment):
    env, server = provider_deployment
    articles, images = 8, 3
    jobs = _run(env, SETUP.format(tag="storm", images=images, articles=articles), "JOBS")
    with celery_worker(env, concurrency=4), celery_worker(env, concurrency=4, beat=False):
        _wait_until_done(env, "storm", len(jobs))
        image_jobs = _run(env, START_IMAGES.format(tag="storm", images=images), "JOBS")
        summary = _wait_until_done(env, "storm", len(jobs) + len(image_jobs))
    assert server.refused > 0, "the provider never refused a call: no storm"
    assert server.peak_in_flight == 2
    assert summary["jobs"] == [["succeeded", articles * 2]]
    assert summary["attempts"] == [1]
    assert summary["contents_per_task"] == [1]
    assert (summary["images"], summary["image_statuses"]) == (articles * images, ["generated"])
    answered = {endpoint: len(server.requests_to(endpoint)) for endpoint in ("chat", "images")}
    assert answered["chat"] - server.refused_by_endpoint["chat"] == articles * 2  # an article and its image prompts each
    assert answered["images"] - server.refused_by_endpoint["images"] == articles * images
    assert summary["reservations"] == ["settled"]
    assert summary["charged_per_job"] == [1] * (articles * 3)


@pytest.mark.parametrize("provider_deployment", _profiles({"latencies": {"images": 0.5}}, {}), indirect=True)
def test_the_images_of_one_article_are_made_at_once_by_one_job(provider_deployment):
    env, server = provider_deployment
    images = 4
    jobs = _run(env, SETUP.format(tag="images", images=images, articles=1), "JOBS")
    with celery_worker(env, concurrency=1):
        _wait_until_done(env, "images", len(jobs))
        image_jobs = _run(env, START_IMAGES.format(tag="images", images=images), "JOBS")
        summary = _wait_until_done(env, "images", len(jobs) + len(image_jobs))
    image_requests = sorted(request.received_at for request in server.requests_to("images"))
    # One worker thread, four images in flight at once: sent within a moment, not 0.5 s apart.
    assert len(image_requests) == images
    assert image_requests[-1] - image_requests[0] < 0.4
    assert server.peak_in_flight == images
    assert summary["jobs"] == [["succeeded", 2]]
    assert (summary["images"], summary["image_statuses"]) == (images, ["generated"])
    assert summary["charged_per_job"] == [1, 1, 1]


def test_a_worker_imports_the_provider_sdk_when_it_starts_not_in_its_first_job():
    with server_environment(embedded=True) as env, celery_worker(env, beat=False) as worker:
        log = worker.log_file.read_text(errors="replace")
    imported, ready = log.find("AI provider SDK imported at worker start"), log.find(" ready.")
    assert -1 < imported < ready, log
