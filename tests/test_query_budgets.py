"""Per-endpoint SQL query budgets: an N+1 query fails CI the day it appears.

``tests/query_counts.json`` maps the path of every list route under /api/v1/ to the most SQL
queries one ``GET ?page_size=100`` by an account owner may run. Routes are discovered from the
URL conf (the same walk as the cross-account matrix), so a new list endpoint without a budget
fails here until its measured count is committed; a budget for a route that is gone fails too.

Each route is requested against an account holding at least 15 rows of every tenancy resource,
so a query per row would blow any budget. The first request warms per-process state; the second
is measured. The rate-limit counter lives in the cache (Redis in production, a database table in
the embedded profile); it is swapped for local memory so that the budget counts the endpoint's own
queries and is the same on both profiles.

To set a budget: run this file, read the measured count from the failure, and commit it. A lower
count is always welcome; raising a budget needs a reason in the commit message.
"""

import json
import re
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import mixins

from inkwell.automation.models import AutomationLog, AutomationRun, AutomationStageRun
from inkwell.billing import services as billing
from inkwell.integration.models import SiteIntegration
from inkwell.jobs.models import Job
from inkwell.keywords.models import SeedKeyword
from inkwell.notifications.services import notify
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.publishing.models import Deployment, PublishingRecord
from inkwell.tenancy import services
from inkwell.tenancy.models import IndustrySector, Plan, Role, RoleName, Site, SiteUserAccess, Subscription, User
from inkwell.webhooks.models import WebhookEndpoint
from inkwell.writer import services as writer_services
from inkwell.writer.models import Content, ContentRevision, Image, ImageStatus, Task, Taxonomy
from tests.routes import Route, discover_api_routes

BUDGETS_FILE = Path(__file__).with_name("query_counts.json")
BUDGETS: dict[str, int] = json.loads(BUDGETS_FILE.read_text())
ROWS = 15

# Lists that the seeded account fills, and how many rows each must return for the budget to mean something.
SEEDED_LISTS = {
    "/api/v1/auth/sites/": ROWS,
    "/api/v1/auth/sectors/": ROWS,
    "/api/v1/auth/users/": ROWS,
    "/api/v1/auth/site-access/": ROWS,
    "/api/v1/auth/api-keys/": ROWS,
    "/api/v1/notifications/": ROWS,
    "/api/v1/jobs/": ROWS,
    "/api/v1/billing/usage/": ROWS,
    "/api/v1/billing/transactions/": ROWS,
    "/api/v1/planner/keywords/": 2 * ROWS,
    "/api/v1/planner/clusters/": ROWS,
    "/api/v1/planner/ideas/": ROWS,
    "/api/v1/writer/tasks/": ROWS,
    "/api/v1/writer/content/": ROWS,
    "/api/v1/writer/content/{content_pk}/comments/": 2 * ROWS,
    "/api/v1/writer/content/{content_pk}/review_links/": ROWS,
    "/api/v1/writer/taxonomies/": ROWS,
    "/api/v1/writer/images/": ROWS,
    "/api/v1/integration/": ROWS,
    "/api/v1/publisher/records/": ROWS,
    "/api/v1/publisher/deployments/": ROWS,
    "/api/v1/automation/runs/": ROWS,
    "/api/v1/automation/logs/": ROWS,
    "/api/v1/webhooks/": ROWS,
}


# Lists that need more in their query: every automation GET names its site.
LIST_QUERIES = {"/api/v1/automation/runs/": "&site_id={site_id}", "/api/v1/automation/logs/": "&site_id={site_id}"}


def _is_list_route(route: Route) -> bool:
    if route.actions:
        return route.actions.get("get") == "list"
    return "get" in route.methods and issubclass(route.view_class, mixins.ListModelMixin)


def _path_template(pattern: str) -> str:
    """``api/v1/auth/^sites/$`` → ``/api/v1/auth/sites/``; path parameters become ``{name}``."""
    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", pattern)
    path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", path)
    return "/" + path.replace("^", "").replace("$", "").replace("\\Z", "")


LIST_ROUTES = {_path_template(route.pattern): route for route in discover_api_routes() if _is_list_route(route)}


@pytest.fixture(autouse=True)
def local_memory_cache(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"budgets-{uuid.uuid4().hex}"}}


@pytest.fixture
def seeded(make_tenant, settings):
    """An owner's account on the biggest plan with ROWS sites, sectors, users, grants, API keys,
    notifications, jobs and charges, next to another account with a few rows of its own."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    tenant = make_tenant("budget")
    neighbour = make_tenant("neighbour")
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug="scale"))
    tenant.account.refresh_from_db()

    sites = [tenant.site] + [
        services.site_create(account=tenant.account, name=f"Site {n}", domain=f"site-{n}.budget.example.com") for n in range(1, ROWS)
    ]
    industry_sectors = list(IndustrySector.objects.order_by("id")[:ROWS])
    sectors = [
        services.sector_create(account=tenant.account, site=site, industry_sector=industry_sector)
        for site, industry_sector in zip(sites, industry_sectors, strict=True)
    ]
    roles = {name: Role.objects.get(name=name) for name in (RoleName.EDITOR, RoleName.VIEWER)}
    for n in range(ROWS):
        # No password: hashing is not what is measured, and it is slow.
        user = User.dangerously_unscoped.create_user(
            f"member-{n}@budget.example.com", None, account=tenant.account, role=roles[RoleName.EDITOR if n % 2 else RoleName.VIEWER]
        )
        for site in sites[n % 3 :: 5]:
            services.site_access_grant(account=tenant.account, actor=tenant.owner, user=user, site=site)
        services.api_key_create(account=tenant.account, user=tenant.owner, name=f"key {n}", site=sites[n] if n % 2 else None)
    for n in range(ROWS):
        notify(account=tenant.account, notification_type="system_info", title=f"Notice {n}", message="m", site=sites[n] if n % 2 else None)
        Job.objects.create(account=tenant.account, site=sites[n], created_by=tenant.owner, kind="test.echo", params={"n": n})
        billing.spend(account=tenant.account, operation_type="keyword_purchase", amount=1, site=sites[n], related=("seed_keyword", n))
    seeds = SeedKeyword.objects.bulk_create(
        SeedKeyword(keyword=f"budget keyword {n}", volume=n, difficulty=n % 101, industry_sector=industry_sectors[n // 2]) for n in range(2 * ROWS)
    )
    for n, (site, sector) in enumerate(zip(sites, sectors, strict=True)):
        cluster = Cluster.objects.create(account=tenant.account, site=site, sector=sector, name=f"Cluster {n}")
        for seed in seeds[2 * n : 2 * n + 2]:
            Keyword.objects.create(account=tenant.account, site=site, sector=sector, seed_keyword=seed, cluster=cluster, keyword=seed.keyword)
        ContentIdea.objects.create(account=tenant.account, site=site, sector=sector, cluster=cluster, title=f"Idea {n}")
        task = Task.objects.create(account=tenant.account, site=site, sector=sector, title=f"Task {n}")
        content = Content.objects.create(account=tenant.account, site=site, sector=sector, task=task, title=f"Content {n}", html="<p>Body</p>")
        ContentRevision.objects.create(account=tenant.account, content=content, title=f"Content {n}", status="draft")
        Taxonomy.objects.create(account=tenant.account, site=site, taxonomy_type="category", name=f"Category {n}", slug=f"category-{n}")
        Image.objects.create(
            account=tenant.account, site=site, content=content, prompt=f"Prompt {n}", status=ImageStatus.GENERATED,
            file=f"images/{tenant.account.pk}/{site.pk}/image-{n}.png", width=1024, height=1024, mime_type="image/png",
        )
        SiteIntegration.objects.create(
            account=tenant.account, site=site, base_url=f"https://site-{n}.budget.example.com", username="editor", app_password="app password", webhook_secret="s" * 32,
        )
        PublishingRecord.objects.create(account=tenant.account, site=site, content=content, platform="wordpress", trigger="manual", created_by=tenant.owner)
        Deployment.objects.create(account=tenant.account, site=site, version=1, checksum="0" * 64, definition={})
        # Runs are listed per site (site_id is required): all of them on the first site.
        run = AutomationRun.objects.create(account=tenant.account, site=tenant.site, status="completed", created_by=tenant.owner)
        AutomationStageRun.objects.create(account=tenant.account, run=run, stage=1, status="completed")
        AutomationLog.objects.create(account=tenant.account, run=run, site=tenant.site, stage=1, event="item_processed", message=f"Item {n}")
        WebhookEndpoint.objects.create(account=tenant.account, url=f"https://hooks-{n}.budget.example.com/", events=["content.updated"], secret=f"whsec_{n}")
    services.api_key_create(account=neighbour.account, user=neighbour.owner, name="neighbour key")
    SiteUserAccess.objects.create(account=neighbour.account, user=neighbour.viewer, site=neighbour.site)
    # Review together (#36): the first content's comments (each mentioning two people) and review links.
    reviewed = Content.objects.for_account(tenant.account).filter(site=tenant.site).order_by("id").first()
    for n in range(ROWS):
        comment = writer_services.comment_create(account=tenant.account, content=reviewed, body=f"@{tenant.admin.email} @{tenant.editor.email} note {n}", user=tenant.owner)
        writer_services.comment_create(account=tenant.account, content=reviewed, body=f"reply {n}", reviewer_name="Client", parent=comment)
        writer_services.review_link_create(account=tenant.account, content=reviewed, user=tenant.owner)
    tenant.reviewed_content = reviewed
    assert Site.objects.for_account(tenant.account).count() == ROWS
    return tenant


def _url(path: str, tenant) -> str:
    values = {"site_id": tenant.site.pk, "site_pk": tenant.site.pk, "account_id": tenant.account.pk, "account_pk": tenant.account.pk, "content_pk": tenant.reviewed_content.pk}
    try:
        return path.format(**values)
    except KeyError as missing:
        pytest.fail(f"{path}: no value for path parameter {missing}; teach _url about it")


@pytest.mark.parametrize("path", sorted(LIST_ROUTES))
def test_list_endpoint_stays_within_its_query_budget(seeded, as_user, django_assert_max_num_queries, path):
    client = as_user(seeded.owner)
    url = f"{_url(path, seeded)}?page_size=100{LIST_QUERIES.get(path, '').format(site_id=seeded.site.pk)}"
    warm_up = client.get(url)
    assert warm_up.status_code == 200, f"{path}: {warm_up.status_code} {warm_up.content[:300]!r}"
    assert len(warm_up.json()["results"]) >= SEEDED_LISTS.get(path, 0), f"{path}: too few rows for an N+1 to show"

    if path not in BUDGETS:
        with CaptureQueriesContext(connection) as captured:
            client.get(url)
        queries = "\n".join(f"  {query['sql']}" for query in captured.captured_queries)
        pytest.fail(f"{path} has no budget in {BUDGETS_FILE.name}; it ran {len(captured)} queries:\n{queries}")

    with django_assert_max_num_queries(BUDGETS[path], info=f"{path}: budget in {BUDGETS_FILE.name}"):
        response = client.get(url)
    assert response.status_code == 200, response.content


def test_list_endpoints_are_discovered():
    # Guards the discovery itself: if it found nothing, the budget test would pass vacuously.
    assert set(SEEDED_LISTS) <= set(LIST_ROUTES)


def test_every_budget_names_a_list_route():
    stale = sorted(set(BUDGETS) - set(LIST_ROUTES))
    assert not stale, f"budgets for routes that are not list routes any more: {stale}; remove them from {BUDGETS_FILE.name}"


def test_budgets_are_positive_whole_numbers():
    assert all(isinstance(budget, int) and budget > 0 for budget in BUDGETS.values())
