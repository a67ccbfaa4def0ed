"""POST /planner/keywords/add_to_workflow/: many library keywords at once, the sector's library only,
duplicates reported, paid keywords charged all or nothing, the plan limit, the notification, the
library's sector_stats.added, and 5,000 keywords in a bounded number of queries."""

import math
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditUsage
from inkwell.keywords.stats import refresh_library_stats
from inkwell.notifications.models import Notification
from inkwell.planner.models import Keyword
from inkwell.planner.services import INSERT_BATCH_SIZE
from inkwell.planner.tests.conftest import PLANNER, balance_of, set_balance
from inkwell.planner.tests.factories import make_keyword, make_sector, make_seed_keywords
from inkwell.tenancy.models import Plan, Site, Subscription

pytestmark = pytest.mark.django_db

ADD = f"{PLANNER}/keywords/add_to_workflow/"
BULK_DELETE = f"{PLANNER}/keywords/bulk_delete/"
STATS = "/api/v1/keywords-library/sector_stats/"


def added_seed_ids(planner) -> set[int]:
    return set(Keyword.objects.for_account(planner.account).filter(site=planner.site).values_list("seed_keyword_id", flat=True))


def imported_notifications(account) -> list[Notification]:
    return list(Notification.objects.for_account(account).filter(notification_type="keywords_imported"))


def test_the_sectors_library_keywords_are_added_with_their_library_values(planner, owner):
    seeds = planner.seeds[:5]
    response = owner.post(ADD, planner.payload(seed_keyword_ids=[seed.pk for seed in seeds]), format="json")

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"added": 5, "skipped": [], "credits_used": 0}
    rows = {row.seed_keyword_id: row for row in Keyword.objects.for_account(planner.account)}
    for seed in seeds:
        row = rows[seed.pk]
        assert (row.site_id, row.sector_id, row.keyword, row.volume, row.difficulty, row.country, row.status, row.credits_paid) == (
            planner.site.pk, planner.sector.pk, seed.keyword, seed.volume, seed.difficulty, seed.country, "active", 0
        )


def test_duplicates_other_sectors_and_unknown_ids_are_skipped_and_reported(planner, owner):
    already = make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0])
    foreign = make_seed_keywords(make_sector(planner.tenant).industry_sector, 1)[0]
    ids = [planner.seeds[0].pk, planner.seeds[1].pk, foreign.pk, 999999999, planner.seeds[2].pk, planner.seeds[1].pk]

    response = owner.post(ADD, planner.payload(seed_keyword_ids=ids), format="json")

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {
        "added": 2,
        "skipped": [
            {"seed_keyword_id": planner.seeds[0].pk, "reason": "already_added"},
            {"seed_keyword_id": foreign.pk, "reason": "not_in_sector"},
            {"seed_keyword_id": 999999999, "reason": "not_found"},
        ],
        "credits_used": 0,
    }
    assert added_seed_ids(planner) == {already.seed_keyword_id, planner.seeds[1].pk, planner.seeds[2].pk}


def test_adding_the_same_keywords_again_adds_nothing_and_raises_no_notification(planner, owner):
    payload = planner.payload(seed_keyword_ids=[seed.pk for seed in planner.seeds[:3]])
    assert owner.post(ADD, payload, format="json").json()["data"]["added"] == 3

    again = owner.post(ADD, payload, format="json").json()["data"]

    assert again["added"] == 0 and [row["reason"] for row in again["skipped"]] == ["already_added"] * 3
    assert len(imported_notifications(planner.account)) == 1


def test_paid_keywords_are_charged_their_credit_cost_in_one_charge(planner, owner):
    paid = make_seed_keywords(planner.sector.industry_sector, 4, paid_cost=5, paid_every=2)  # two paid, two free
    before = balance_of(planner.account)

    response = owner.post(ADD, planner.payload(seed_keyword_ids=[seed.pk for seed in paid]), format="json")

    assert response.json()["data"] == {"added": 4, "skipped": [], "credits_used": 10}
    assert balance_of(planner.account) == before - 10
    [usage] = CreditUsage.objects.for_account(planner.account).filter(operation_type="keyword_purchase")
    assert (usage.credits_used, usage.site_id) == (10, planner.site.pk)
    assert sorted(Keyword.objects.for_account(planner.account).values_list("credits_paid", flat=True)) == [0, 0, 5, 5]


def test_short_of_credits_it_is_a_402_and_nothing_is_added(planner, owner):
    paid = make_seed_keywords(planner.sector.industry_sector, 3, paid_cost=4, paid_every=1)
    set_balance(planner.account, 11)
    notifications = Notification.objects.for_account(planner.account).count()

    response = owner.post(ADD, planner.payload(seed_keyword_ids=[planner.seeds[0].pk] + [seed.pk for seed in paid]), format="json")

    assert_error(response, 402, "insufficient_credits", errors={"credits": ["Insufficient credits"]}, error="Insufficient credits")
    assert balance_of(planner.account) == 11
    assert not Keyword.objects.for_account(planner.account).exists()
    assert not CreditUsage.objects.for_account(planner.account).filter(operation_type="keyword_purchase").exists()
    assert Notification.objects.for_account(planner.account).count() == notifications


def test_the_notification_tells_the_count_and_the_credits(planner, owner):
    paid = make_seed_keywords(planner.sector.industry_sector, 1, paid_cost=3, paid_every=1)
    owner.post(ADD, planner.payload(seed_keyword_ids=[planner.seeds[0].pk, paid[0].pk]), format="json")

    [notification] = imported_notifications(planner.account)
    assert notification.metadata == {"count": 2, "credits": 3}
    assert notification.site_id == planner.site.pk
    assert notification.message == f"2 keywords were added to {planner.site.name} ({planner.sector.name}) for 3 credits."


def test_the_notification_agrees_in_number_for_one_keyword_and_one_credit(planner, owner):
    paid = make_seed_keywords(planner.sector.industry_sector, 1, paid_cost=1, paid_every=1)
    owner.post(ADD, planner.payload(seed_keyword_ids=[paid[0].pk]), format="json")

    [notification] = imported_notifications(planner.account)
    assert notification.message == f"1 keyword was added to {planner.site.name} ({planner.sector.name}) for 1 credit."


def test_past_the_plans_keyword_limit_nothing_is_added(planner, owner):
    plan = Plan.objects.create(slug="tiny", name="Tiny", max_sites=1, max_users=5, max_keywords=4, monthly_credits=100)
    Subscription.objects.for_account(planner.account).update(plan=plan)
    make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0])

    response = owner.post(ADD, planner.payload(seed_keyword_ids=[seed.pk for seed in planner.seeds[1:5]]), format="json")

    assert_error(response, 403, "plan_limit_reached", errors={"max_keywords": ["Your plan allows at most 4 keywords; 3 more can be added"]})
    assert added_seed_ids(planner) == {planner.seeds[0].pk}
    # Exactly up to the limit is fine.
    assert owner.post(ADD, planner.payload(seed_keyword_ids=[seed.pk for seed in planner.seeds[1:4]]), format="json").status_code == 200


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"seed_keyword_ids": ["This field is required"], "site_id": ["This field is required"], "sector_id": ["This field is required"]}),
        ({"seed_keyword_ids": [], "site_id": "{site}", "sector_id": "{sector}"}, {"seed_keyword_ids": ["Send at least one id"]}),
        ({"seed_keyword_ids": [1], "site_id": "{other_site}", "sector_id": "{sector}"}, {"site_id": ["Site must belong to your account"]}),
        ({"seed_keyword_ids": [1], "site_id": "{site}", "sector_id": "{other_sector}"}, {"sector_id": ["Sector must belong to the selected site"]}),
    ],
)
def test_bad_input_is_a_400_with_the_specs_messages(planner, owner, other_tenant, body, errors):
    ids = {"site": planner.site.pk, "sector": planner.sector.pk, "other_site": other_tenant.site.pk, "other_sector": make_sector(other_tenant).pk}
    payload = {key: ids[value[1:-1]] if isinstance(value, str) else value for key, value in body.items()}
    assert_error(owner.post(ADD, payload, format="json"), 400, "validation_error", errors=errors)


def test_an_idempotency_key_replays_the_first_answer_and_charges_once(planner, owner):
    paid = make_seed_keywords(planner.sector.industry_sector, 2, paid_cost=2, paid_every=1)
    payload = planner.payload(seed_keyword_ids=[seed.pk for seed in paid])
    before = balance_of(planner.account)

    first = owner.post(ADD, payload, format="json", HTTP_IDEMPOTENCY_KEY="add-1")
    second = owner.post(ADD, payload, format="json", HTTP_IDEMPOTENCY_KEY="add-1")

    assert first.json() == second.json()
    assert second["Idempotent-Replayed"] == "true"
    assert balance_of(planner.account) == before - 4


def test_the_library_sector_stats_count_the_added_keywords(planner, owner, other_tenant, as_user):
    second = make_sector(planner.tenant)
    second_seeds = make_seed_keywords(second.industry_sector, 3)
    refresh_library_stats([planner.sector.industry_sector_id, second.industry_sector_id])
    owner.post(ADD, planner.payload(seed_keyword_ids=[seed.pk for seed in planner.seeds[:4]]), format="json")
    owner.post(ADD, {"site_id": planner.site.pk, "sector_id": second.pk, "seed_keyword_ids": [second_seeds[0].pk]}, format="json")
    # A second site of the account counts for the account, not for the first site.
    other_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    other_site_sector = make_sector(planner.tenant, other_site, industry_sector=planner.sector.industry_sector)
    owner.post(ADD, {"site_id": other_site.pk, "sector_id": other_site_sector.pk, "seed_keyword_ids": [planner.seeds[0].pk, planner.seeds[8].pk]}, format="json")
    # Another account adding the same library keywords changes nothing for this one.
    theirs = make_sector(other_tenant, industry_sector=planner.sector.industry_sector)
    as_user(other_tenant.owner).post(ADD, {"site_id": other_tenant.site.pk, "sector_id": theirs.pk, "seed_keyword_ids": [planner.seeds[9].pk]}, format="json")

    def added(params) -> dict[int, int]:
        rows = owner.get(STATS, params).json()["data"]
        assert all(row["stats"]["available"] == row["stats"]["total"] - row["stats"]["added"] for row in rows)
        return {row["sector_id"]: row["stats"]["added"] for row in rows}

    sector_ids = f"{planner.sector.industry_sector_id},{second.industry_sector_id}"
    assert added({"sector_ids": sector_ids}) == {planner.sector.industry_sector_id: 6, second.industry_sector_id: 1}
    assert added({"sector_ids": sector_ids, "site_id": planner.site.pk}) == {planner.sector.industry_sector_id: 4, second.industry_sector_id: 1}
    assert added({"sector_ids": sector_ids, "site_id": other_site.pk}) == {planner.sector.industry_sector_id: 2, second.industry_sector_id: 0}


# 5,000 at once ------------------------------------------------------------------------------

BULK = 5_000
# Authentication, modules, the payload's site and sector, the library lookup, the account lock, the
# duplicates, the plan count, the charge (ledger, usage, transaction) and the notification, with
# their savepoints: what the request costs beside the INSERT batches.
FIXED_QUERIES = 25


def insert_batches(count: int) -> int:
    """The INSERT statements ``count`` keywords take on this database."""
    fields = [field for field in Keyword._meta.concrete_fields if not field.primary_key]
    batch = min(INSERT_BATCH_SIZE, connection.ops.bulk_batch_size(fields, [None] * count))
    return math.ceil(count / batch)


@pytest.fixture
def five_thousand(planner, local_memory_cache):
    return make_seed_keywords(planner.sector.industry_sector, BULK, paid_cost=1, paid_every=10)


def test_five_thousand_keywords_are_added_in_a_bounded_number_of_queries(planner, owner, five_thousand, django_assert_max_num_queries):
    payload = planner.payload(seed_keyword_ids=[seed.pk for seed in five_thousand])
    set_balance(planner.account, 1000)

    started = time.perf_counter()
    with django_assert_max_num_queries(FIXED_QUERIES + insert_batches(BULK)):
        response = owner.post(ADD, payload, format="json")
    elapsed = time.perf_counter() - started

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"added": BULK, "skipped": [], "credits_used": BULK // 10}
    assert Keyword.objects.for_account(planner.account).count() == BULK
    assert balance_of(planner.account) == 1000 - BULK // 10
    print(f"\nadd_to_workflow of {BULK} keywords on {connection.vendor}: {elapsed * 1000:.0f} ms")


def test_five_thousand_keywords_are_deleted_in_a_bounded_number_of_queries(planner, owner, five_thousand, django_assert_max_num_queries):
    set_balance(planner.account, 1000)
    owner.post(ADD, planner.payload(seed_keyword_ids=[seed.pk for seed in five_thousand]), format="json")
    ids = list(Keyword.objects.for_account(planner.account).values_list("pk", flat=True))

    started = time.perf_counter()
    with CaptureQueriesContext(connection) as captured, django_assert_max_num_queries(10):
        response = owner.post(BULK_DELETE, {"ids": ids}, format="json")
    elapsed = time.perf_counter() - started

    assert response.json()["data"] == {"deleted": BULK, "not_found": []}
    assert not Keyword.objects.for_account(planner.account).exists()
    print(f"\nbulk_delete of {BULK} keywords on {connection.vendor}: {elapsed * 1000:.0f} ms in {len(captured)} queries")
