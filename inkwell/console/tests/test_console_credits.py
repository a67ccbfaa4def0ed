"""The Credits and plan screen: balance, plan limits beside their use, the usage chart's data,
usage by operation and the transactions, paged; readable by every role and by a lapsed plan."""

import json
import re

import pytest
from django.utils import timezone

from inkwell.billing import selectors, services
from inkwell.billing.models import CreditTransaction
from inkwell.console.views.credits import TRANSACTIONS_PAGE_SIZE, chart_data
from inkwell.tenancy.models import Subscription

pytestmark = pytest.mark.django_db


@pytest.fixture
def spent(tenant):
    services.spend(account=tenant.account, operation_type="clustering", amount=4)
    services.spend(account=tenant.account, operation_type="content_generation", amount=15)
    services.reserve(account=tenant.account, operation_type="image_generation", amount=6)
    return tenant


def test_the_page_shows_the_balance_the_plan_limits_and_usage_by_operation(spent, console_client):
    page = console_client(spent.owner).get("/app/credits/").content.decode()
    balance = selectors.balance(spent.account)
    assert f'<p class="stat__value" id="credits-available">{balance["available"]}</p>' in page
    assert "6 held by work in progress" in page
    assert re.search(r"Sites</span> <span class=\"muted\">1 of \d+", page)
    assert re.search(r"Credits this period</span> <span class=\"muted\">19 of 100", page)
    assert re.search(r"Content generation</th><td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">15</td>", page)


def test_the_chart_is_drawn_from_the_usage_by_day_selector_with_the_vendored_library(spent, console_client):
    page = console_client(spent.owner).get("/app/credits/?days=7").content.decode()
    data = json.loads(re.search(r'<script id="usage-data" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert data == chart_data(selectors.usage_by_day(spent.account, last_day=timezone.now().date(), days=7))
    assert data["series"][0]["credits"][-1] == 15 and len(data["days"]) == 7
    assert '<script src="/static/console/vendor/chartjs/chart.umd.min.js" defer></script>' in page
    assert "http" not in re.search(r"<head>(.*?)</head>", page, re.S).group(1).replace("http-equiv", "")


def test_an_unknown_period_falls_back_to_30_days(spent, console_client):
    page = console_client(spent.owner).get("/app/credits/?days=12345").content.decode()
    assert len(json.loads(re.search(r'<script id="usage-data" type="application/json">(.*?)</script>', page, re.S).group(1))["days"]) == 30


def test_transactions_are_paged_newest_first_and_filtered_by_type(spent, console_client):
    for _ in range(TRANSACTIONS_PAGE_SIZE):
        services.grant(account=spent.account, amount=1, description="top-up")
    client = console_client(spent.owner)
    first = client.get("/app/credits/", HTTP_HX_REQUEST="true").content.decode()
    newest = CreditTransaction.objects.for_account(spent.account).order_by("-created_at", "-id").first()
    assert first.count("<tr><td") == TRANSACTIONS_PAGE_SIZE and f"{newest.balance_after}</td></tr>" in first.split("<tbody>")[1].split("</tr>")[0] + "</tr>"
    assert "Page 1 of 2" in first
    usage_only = client.get("/app/credits/?type=usage", HTTP_HX_REQUEST="true").content.decode()
    assert usage_only.count("<tr><td") == 2 and "top-up" not in usage_only


def test_every_role_reads_it_even_when_the_plan_has_lapsed(spent, console_client):
    Subscription.objects.for_account(spent.account).update(status="expired")
    for user in (spent.owner, spent.viewer):
        assert console_client(user).get("/app/credits/").status_code == 200
