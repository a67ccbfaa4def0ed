"""The whole content workflow through the HTTP API, as a content team drives it:

200 library keywords → add to workflow → auto cluster → generate ideas → create tasks → generate
content → generate images → review → approve → schedule → unschedule,

checking state, credits and notifications at every step. It runs with the offline ``local``
provider and again with the ``openai`` provider against the protocol-faithful test server; and
every AI step is tried once with one credit too few, which must answer 402 and change nothing.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from inkwell.ai.tests.openai_server import TEST_API_KEY
from inkwell.billing import services as billing
from inkwell.billing.models import CreditLedger
from inkwell.billing.services import cost_of
from inkwell.billing.tests.ledger import assert_ledger_consistent
from inkwell.integration.models import SiteIntegration
from inkwell.jobs.models import Job
from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.stats import refresh_library_stats
from inkwell.notifications.models import Notification
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.sitesettings.tests import publish_any_time
from inkwell.tenancy.models import IndustrySector, Sector
from inkwell.writer.models import Content, Image, Task

pytestmark = pytest.mark.django_db

TOPICS = {
    "running shoes": ["best", "cheap", "trail", "womens", "mens", "wide", "cushioned", "lightweight", "waterproof", "beginner"],
    "espresso machine": ["best", "cheap", "home", "manual", "automatic", "compact", "commercial", "dual boiler", "beginner", "quiet"],
    "dog training": ["puppy", "leash", "crate", "clicker", "potty", "obedience", "agility", "recall", "barking", "online"],
    "solar panels": ["rooftop", "portable", "cost of", "best", "efficiency of", "home", "off grid", "installing", "used", "monocrystalline"],
}
SUFFIXES = ["", " review", " guide", " tips", " near me"]


@pytest.fixture
def account_with_library(big_tenant):
    """The tenant on the scale plan with 1,000 credits, a sector, and 200 library keywords in it."""
    industry_sector = IndustrySector.objects.order_by("id").first()
    sector = Sector.objects.create(account=big_tenant.account, site=big_tenant.site, industry_sector=industry_sector, name="Flow sector")
    keywords = [
        SeedKeyword(keyword=f"{modifier} {topic}{suffix}".strip(), volume=100 + index, difficulty=index % 101, industry_sector=industry_sector)
        for topic, modifiers in TOPICS.items()
        for modifier in modifiers
        for index, suffix in enumerate(SUFFIXES)
    ]
    SeedKeyword.objects.bulk_create(keywords)
    refresh_library_stats([industry_sector.pk])
    billing.grant(account=big_tenant.account, amount=900)
    return big_tenant, sector, list(SeedKeyword.objects.filter(industry_sector=industry_sector).order_by("id").values_list("pk", flat=True))


@pytest.fixture(params=["local", "openai"])
def provider(request, settings):
    if request.param == "openai":
        server = request.getfixturevalue("openai_server")
        settings.INKWELL_AI = {
            **settings.INKWELL_AI,
            "PROVIDER": "openai",
            "BASE_URL": server.base_url,
            "API_KEY": TEST_API_KEY,
            "IMAGE_PROVIDER": "openai",
            "IMAGE_BASE_URL": server.base_url,
            "IMAGE_API_KEY": TEST_API_KEY,
            "MAX_RETRIES": 0,
            "TIMEOUT_SECONDS": 10,
        }
    return request.param


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def balance(account) -> int:
    return CreditLedger.objects.for_account(account).get().balance


def notified(account, notification_type: str) -> int:
    return Notification.objects.for_account(account).filter(notification_type=notification_type).count()


def finished_job(client, response) -> dict:
    assert response.status_code == 202, response.content
    job_id = response.json()["data"]["job_id"]
    job = client.get(f"/api/v1/jobs/{job_id}/").json()["data"]
    assert job["status"] == "succeeded", job
    return job


def test_the_whole_workflow_through_the_api(account_with_library, provider, as_user, eager_jobs):
    tenant, sector, seed_ids = account_with_library
    account, site = tenant.account, tenant.site
    publish_any_time(site)  # the schedule below is two days out, whatever the weekday; the rules are not this test's subject
    client = as_user(tenant.owner)
    credits = balance(account)

    # 1. Add 200 library keywords to the site's workflow (all free).
    response = client.post("/api/v1/planner/keywords/add_to_workflow/", {"seed_keyword_ids": seed_ids, "site_id": site.pk, "sector_id": sector.pk}, format="json")
    assert response.status_code in (200, 201), response.content
    assert (response.json()["data"]["added"], response.json()["data"]["credits_used"]) == (200, 0)
    assert Keyword.objects.for_account(account).count() == 200
    assert notified(account, "keywords_imported") == 1
    stats = client.get("/api/v1/keywords-library/sector_stats/", {"sector_ids": str(sector.industry_sector_id), "site_id": site.pk}).json()["data"]
    assert stats[0]["stats"]["added"] == 200

    # 2. Cluster them.
    with eager_jobs():
        response = client.post("/api/v1/planner/clusters/auto_cluster/", {"site_id": site.pk, "sector_id": sector.pk}, format="json")
    finished_job(client, response)
    clusters = Cluster.objects.for_account(account)
    assert clusters.count() >= 2
    assert not Keyword.objects.for_account(account).filter(cluster__isnull=True).exists()
    assert balance(account) == credits - cost_of(operation_type="clustering", units=200)
    credits = balance(account)
    assert notified(account, "ai_cluster_complete") == 1

    # 3. Ideas for two clusters.
    cluster_ids = list(clusters.order_by("id").values_list("pk", flat=True)[:2])
    with eager_jobs():
        response = client.post("/api/v1/planner/clusters/generate_ideas/", {"cluster_ids": cluster_ids}, format="json")
    finished_job(client, response)
    ideas = ContentIdea.objects.for_account(account)
    assert ideas.count() >= 2
    assert balance(account) == credits - cost_of(operation_type="idea_generation", units=2)
    credits = balance(account)
    assert notified(account, "ai_ideas_complete") == 1

    # 4. Tasks from two ideas; converting them again creates nothing.
    idea_ids = list(ideas.order_by("id").values_list("pk", flat=True)[:2])
    response = client.post("/api/v1/planner/ideas/create_tasks/", {"idea_ids": idea_ids}, format="json")
    assert response.status_code in (200, 201), response.content
    created = response.json()["data"]
    assert created["created"] == 2 and len(created["task_ids"]) == 2
    again = client.post("/api/v1/planner/ideas/create_tasks/", {"idea_ids": idea_ids}, format="json").json()["data"]
    assert again["created"] == 0 and len(again["skipped"]) == 2
    assert Task.objects.for_account(account).count() == 2

    # 5. An article for the first task.
    task = Task.objects.for_account(account).get(pk=created["task_ids"][0])
    with eager_jobs():
        response = client.post(f"/api/v1/writer/tasks/{task.pk}/generate_content/", {}, format="json")
    finished_job(client, response)
    content = Content.objects.for_account(account).get(task=task)
    assert content.status == "draft" and content.word_count > 0 and content.html
    assert balance(account) == credits - cost_of(operation_type="content_generation", units=task.word_count)
    credits = balance(account)
    assert notified(account, "ai_content_complete") == 1

    # 6. Two images for it.
    with eager_jobs():
        response = client.post(f"/api/v1/writer/content/{content.pk}/generate_images/", {"count": 2}, format="json")
    finished_job(client, response)
    images = Image.objects.for_account(account).filter(content=content, status="generated")
    assert images.count() == 2
    listed = client.get("/api/v1/writer/images/", {"content_id": content.pk}).json()["results"]
    assert all(item["url"] for item in listed)
    assert client.get(listed[0]["url"]).status_code == 200
    assert balance(account) == credits - cost_of(operation_type="image_prompt_extraction", units=1) - cost_of(operation_type="image_generation", units=2)
    assert notified(account, "ai_images_complete") == 1

    # 7. Review, approve, schedule, unschedule.
    url = f"/api/v1/writer/content/{content.pk}/"
    response = client.post(f"{url}update_content/", {"status": "review"}, format="json")
    assert response.status_code == 200, response.content
    assert notified(account, "content_ready_review") == 1
    assert client.post(f"{url}update_content/", {"status": "approved"}, format="json").json()["data"]["status"] == "approved"
    when = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    # The editorial gate: scheduling needs an active CMS integration, which the site gets now.
    refused = client.post(f"{url}schedule/", {"scheduled_publish_at": when.isoformat()}, format="json")
    assert refused.status_code == 409 and list(refused.json()["errors"]) == ["site"]
    SiteIntegration.objects.create(account=account, site=site, base_url="https://cms.example.com", username="editor", app_password="app password", webhook_secret="s" * 32)
    scheduled = client.post(f"{url}schedule/", {"scheduled_publish_at": when.isoformat()}, format="json").json()["data"]
    assert scheduled["content_id"] == content.pk and scheduled["site_status"] == "scheduled"
    assert parse_datetime(scheduled["scheduled_publish_at"]) == when
    assert client.post(f"{url}unschedule/", {}, format="json").status_code == 200
    content.refresh_from_db()
    assert (content.site_status, content.scheduled_publish_at) == ("not_published", None)
    assert_ledger_consistent(account)


def _starve(account, leave: int) -> None:
    """Leaves the account exactly ``leave`` credits."""
    current = balance(account)
    if current > leave:
        billing.spend(account=account, operation_type="linking", amount=current - leave)


def test_every_ai_step_answers_402_and_changes_nothing_when_one_credit_is_missing(account_with_library, as_user, eager_jobs):
    tenant, sector, seed_ids = account_with_library
    account, site = tenant.account, tenant.site
    client = as_user(tenant.owner)
    assert client.post("/api/v1/planner/keywords/add_to_workflow/", {"seed_keyword_ids": seed_ids, "site_id": site.pk, "sector_id": sector.pk}, format="json").status_code in (200, 201)

    def refused(path, body, cost):
        _starve(account, cost - 1)
        jobs_before = Job.objects.for_account(account).count()
        with eager_jobs():
            response = client.post(path, body, format="json")
        assert response.status_code == 402, (path, response.content)
        assert response.json()["errors"] == {"credits": ["Insufficient credits"]}
        assert Job.objects.for_account(account).count() == jobs_before
        assert balance(account) == cost - 1
        billing.grant(account=account, amount=1000)

    refused("/api/v1/planner/clusters/auto_cluster/", {"site_id": site.pk, "sector_id": sector.pk}, cost_of(operation_type="clustering", units=200))
    assert not Cluster.objects.for_account(account).exists()

    with eager_jobs():
        response = client.post("/api/v1/planner/clusters/auto_cluster/", {"site_id": site.pk, "sector_id": sector.pk}, format="json")
    finished_job(client, response)
    cluster_ids = list(Cluster.objects.for_account(account).values_list("pk", flat=True)[:2])
    refused("/api/v1/planner/clusters/generate_ideas/", {"cluster_ids": cluster_ids}, cost_of(operation_type="idea_generation", units=2))
    assert not ContentIdea.objects.for_account(account).exists()

    task = Task.objects.create(account=account, site=site, sector=sector, title="Espresso at home", keywords=["home espresso machine"], word_count=800)
    refused(f"/api/v1/writer/tasks/{task.pk}/generate_content/", {}, cost_of(operation_type="content_generation", units=800))
    assert not Content.objects.for_account(account).exists()

    content = Content.objects.create(account=account, site=site, sector=sector, title="Espresso at home", html="<h2>Beans</h2><p>Fresh beans matter.</p>")
    refused(f"/api/v1/writer/content/{content.pk}/generate_images/", {"count": 2}, cost_of(operation_type="image_prompt_extraction", units=1) + cost_of(operation_type="image_generation", units=2))
    assert not Image.objects.for_account(account).exists()

    _starve(account, 0)
    paid_seed = SeedKeyword.objects.create(keyword="paid espresso keyword", volume=10, difficulty=10, industry_sector=sector.industry_sector, is_paid=True, credit_cost=5)
    response = client.post("/api/v1/planner/keywords/add_to_workflow/", {"seed_keyword_ids": [paid_seed.pk], "site_id": site.pk, "sector_id": sector.pk}, format="json")
    assert response.status_code == 402
    assert not Keyword.objects.for_account(account).filter(seed_keyword=paid_seed).exists()
    assert_ledger_consistent(account)
