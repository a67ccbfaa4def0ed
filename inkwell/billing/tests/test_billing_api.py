"""The billing endpoints through the real URLs: balance, usage log and summary, limits,
transactions and the staff-only credit grant."""

from datetime import timedelta
from unittest.mock import ANY

import pytest
from django.utils import timezone

from inkwell.api.tests import assert_error
from inkwell.billing import services
from inkwell.billing.models import CreditTransaction, CreditUsage
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.tenancy.models import Site, Subscription, User

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db):
    return User.dangerously_unscoped.create_user("staff@example.com", "correct-horse-1", is_staff=True)


def test_balance_shows_balance_reservations_and_the_current_period(tenant, as_user):
    services.spend(account=tenant.account, operation_type="keyword_purchase", amount=30)
    services.reserve(account=tenant.account, operation_type="content_generation", amount=15)
    data = as_user(tenant.viewer).get("/api/v1/billing/balance/").json()["data"]
    subscription = Subscription.objects.for_account(tenant.account).get()
    assert data == {
        "balance": 70,
        "reserved": 15,
        "available": 55,
        "monthly_credits": 100,
        "used_this_period": 30,
        "period_start": subscription.current_period_start.isoformat().replace("+00:00", "Z"),
        "period_end": subscription.current_period_end.isoformat().replace("+00:00", "Z"),
        "plan": "free",
    }


def test_billing_stays_readable_when_the_plan_is_inactive(tenant, as_user):
    Subscription.objects.for_account(tenant.account).update(status="cancelled")
    client = as_user(tenant.owner)
    for path in ("/api/v1/billing/balance/", "/api/v1/billing/usage/", "/api/v1/billing/usage/summary/", "/api/v1/billing/usage/limits/", "/api/v1/billing/transactions/"):
        assert client.get(path).status_code == 200, path


def test_usage_log_is_newest_first_and_filters_by_operation_and_dates(tenant, as_user):
    account = tenant.account
    first = services.spend(account=account, operation_type="keyword_purchase", amount=3)
    second = services.settle(reservation=services.reserve(account=account, operation_type="content_generation", amount=15), model="local", prompt_tokens=10, completion_tokens=2000)
    CreditUsage.objects.for_account(account).filter(pk=first.pk).update(created_at=timezone.now() - timedelta(days=3))
    client = as_user(tenant.owner)
    results = client.get("/api/v1/billing/usage/").json()["results"]
    assert [item["id"] for item in results] == [second.pk, first.pk]
    assert results[0] | {"created_at": ANY} == {
        "id": second.pk,
        "operation_type": "content_generation",
        "credits_used": 15,
        "site": None,
        "job": None,
        "related_object_type": "",
        "related_object_id": None,
        "model": "local",
        "prompt_tokens": 10,
        "completion_tokens": 2000,
        "description": "",
        "refunded_at": None,
        "created_at": ANY,
    }
    assert [item["id"] for item in client.get("/api/v1/billing/usage/", {"operation_type": "keyword_purchase"}).json()["results"]] == [first.pk]
    today = timezone.now().date()
    assert [item["id"] for item in client.get("/api/v1/billing/usage/", {"start_date": today.isoformat()}).json()["results"]] == [second.pk]
    before = (today - timedelta(days=1)).isoformat()
    assert [item["id"] for item in client.get("/api/v1/billing/usage/", {"end_date": before}).json()["results"]] == [first.pk]


@pytest.mark.parametrize("query", [{"operation_type": "teleportation"}, {"start_date": "yesterday"}, {"end_date": "2026-13-01"}])
def test_bad_usage_filters_are_a_400(tenant, as_user, query):
    assert_error(as_user(tenant.owner).get("/api/v1/billing/usage/", query), 400, "validation_error", errors={next(iter(query)): ANY})


def test_usage_summary_adds_credits_operations_and_tokens_per_operation(tenant, as_user):
    account = tenant.account
    services.spend(account=account, operation_type="keyword_purchase", amount=3)
    services.spend(account=account, operation_type="keyword_purchase", amount=2)
    services.settle(reservation=services.reserve(account=account, operation_type="content_generation", amount=15), prompt_tokens=100, completion_tokens=900)
    refunded = services.spend(account=account, operation_type="keyword_purchase", amount=4)
    services.refund(usage=refunded)
    data = as_user(tenant.owner).get("/api/v1/billing/usage/summary/").json()["data"]
    assert data["total_credits"] == 20
    assert data["total_operations"] == 3
    assert data["by_operation"] == [
        {"operation_type": "content_generation", "credits": 15, "operations": 1, "tokens": 1000},
        {"operation_type": "keyword_purchase", "credits": 5, "operations": 2, "tokens": 0},
    ]


def test_usage_summary_over_a_chosen_period(tenant, as_user):
    services.spend(account=tenant.account, operation_type="keyword_purchase", amount=3)
    client = as_user(tenant.owner)
    tomorrow = (timezone.now() + timedelta(days=1)).date().isoformat()
    assert client.get("/api/v1/billing/usage/summary/", {"start_date": tomorrow}).json()["data"]["total_credits"] == 0
    response = client.get("/api/v1/billing/usage/summary/", {"start_date": "2026-02-01", "end_date": "2026-01-01"})
    assert_error(response, 400, "validation_error", errors={"end_date": ["end_date must not be before start_date"]})


def test_limits_show_each_plan_limit_beside_its_use(tenant, as_user):
    Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug="second-site")
    services.spend(account=tenant.account, operation_type="keyword_purchase", amount=12)
    data = as_user(tenant.owner).get("/api/v1/billing/usage/limits/").json()["data"]
    assert data["plan"] == {"slug": "free", "name": "Free"}
    assert {entry["limit"]: (entry["maximum"], entry["used"], entry["remaining"]) for entry in data["limits"]} == {
        "max_sites": (1, 2, 0),
        "max_users": (2, 4, 0),
        "max_keywords": (500, 0, 500),
        "monthly_credits": (100, 12, 88),
    }


def test_transactions_list_every_change_with_the_balance_it_left(tenant, as_user):
    services.spend(account=tenant.account, operation_type="keyword_purchase", amount=30)
    services.grant(account=tenant.account, amount=5, description="goodwill")
    client = as_user(tenant.owner)
    results = client.get("/api/v1/billing/transactions/").json()["results"]
    assert [(item["transaction_type"], item["amount"], item["balance_after"]) for item in results] == [
        ("credit_grant", 5, 75),
        ("usage", -30, 70),
        ("credit_grant", 100, 100),
    ]
    grants = client.get("/api/v1/billing/transactions/", {"transaction_type": "credit_grant"}).json()["results"]
    assert [item["amount"] for item in grants] == [5, 100]
    assert_error(client.get("/api/v1/billing/transactions/", {"transaction_type": "gift"}), 400, "validation_error", errors={"transaction_type": ANY})


def test_staff_add_credits_as_a_grant(tenant, staff, as_user):
    response = as_user(staff).post("/api/v1/billing/credits/add/", {"account_id": tenant.account.pk, "amount": 250, "description": "Conference promo"}, format="json")
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["balance"] == 350
    assert (data["transaction"]["transaction_type"], data["transaction"]["amount"], data["transaction"]["description"]) == ("credit_grant", 250, "Conference promo")
    assert CreditTransaction.objects.for_account(tenant.account).filter(created_by=staff).count() == 1
    assert_ledger_consistent(tenant.account)


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"amount": ["This field is required"], "account_id": ["This field is required"]}),
        ({"amount": 0}, {"amount": ["Amount must be positive"]}),
        ({"amount": -5}, {"amount": ["Amount must be positive"]}),
        ({"amount": "lots"}, {"amount": ["Amount must be positive"]}),
        ({"amount": None}, {"amount": ["Amount must be positive"]}),
    ],
)
def test_credit_amount_messages_are_the_specs(tenant, staff, as_user, body, errors):
    body = {"account_id": tenant.account.pk, **body} if "account_id" not in errors else body
    response = as_user(staff).post("/api/v1/billing/credits/add/", body, format="json")
    assert_error(response, 400, "validation_error", errors=errors)
    assert balance_of(tenant.account) == 100


def test_credits_for_an_unknown_account_are_refused(staff, as_user):
    response = as_user(staff).post("/api/v1/billing/credits/add/", {"account_id": 987654321, "amount": 5}, format="json")
    assert_error(response, 400, "validation_error", errors={"account_id": ["Account not found"]})


def test_only_staff_may_add_credits(tenant, as_user, api_client):
    body = {"account_id": tenant.account.pk, "amount": 1000}
    assert_error(as_user(tenant.owner).post("/api/v1/billing/credits/add/", body, format="json"), 403, "permission_denied")
    assert_error(api_client.post("/api/v1/billing/credits/add/", body, format="json"), 401, "authentication_required")
    assert balance_of(tenant.account) == 100


def test_another_accounts_ledger_never_shows(tenant, other_tenant, as_user):
    services.spend(account=other_tenant.account, operation_type="keyword_purchase", amount=40, description="victim-marker")
    client = as_user(tenant.owner)
    assert client.get("/api/v1/billing/balance/").json()["data"]["balance"] == 100
    for path in ("/api/v1/billing/usage/", "/api/v1/billing/transactions/", "/api/v1/billing/usage/summary/"):
        assert "victim-marker" not in client.get(path).content.decode()
    assert client.get("/api/v1/billing/usage/").json()["count"] == 0
    assert client.get("/api/v1/billing/usage/summary/").json()["data"]["total_credits"] == 0
