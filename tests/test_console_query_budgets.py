"""Per-page SQL query budgets of the console: an N+1 query fails the day it appears.

``tests/console_query_counts.json`` maps the URL name of every console page that reads (found from
the URL conf) to the most SQL queries one GET by an owner may run, with ``ROWS`` rows behind every
list (a query per row would blow any budget). The first request warms per-process state; the
second is measured. To set a budget: run this file, read the measured count from the failure,
commit it; raising one needs a reason in the commit message.
"""

import json
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from inkwell.console.tests.seed import console_pages, seed_site
from inkwell.tenancy.models import Plan, Subscription
from tests.routes import discover_console_routes

BUDGETS_FILE = Path(__file__).with_name("console_query_counts.json")
BUDGETS: dict[str, int] = json.loads(BUDGETS_FILE.read_text())
ROWS = 15
PAGES = sorted(route.name.split(":")[1] for route in discover_console_routes() if "get" in route.methods and route.tenant_scope != "public" and route.name != "console:home")


@pytest.fixture(autouse=True)
def local_memory_cache(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"console-budgets-{uuid.uuid4().hex}"}}


@pytest.fixture
def seeded(make_tenant):
    tenant = make_tenant("console-budget")
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug="scale"))
    client = Client()
    client.force_login(tenant.owner)
    return client, console_pages(seed_site(tenant.site, tenant.owner, ROWS))


def test_every_console_page_has_a_budget_and_every_budget_a_page():
    assert sorted(BUDGETS) == PAGES


@pytest.mark.django_db
@pytest.mark.parametrize("page", PAGES)
def test_console_page_stays_within_its_query_budget(page, seeded):
    client, paths = seeded
    client.get(paths[page])
    with CaptureQueriesContext(connection) as queries:
        response = client.get(paths[page])
    assert response.status_code == 200, f"{paths[page]} answered {response.status_code}"
    assert len(queries) <= BUDGETS[page], f"{page}: {len(queries)} queries, budget {BUDGETS[page]}:\n" + "\n".join(q["sql"][:200] for q in queries.captured_queries)
