"""/planner/keywords/: create from the library with the spec's messages, read, change, delete, bulk
actions, list filters and ordering, plan limit and the price of paid keywords."""

import json
from unittest.mock import ANY

import pytest

from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditUsage
from inkwell.planner.models import Keyword
from inkwell.planner.tests.conftest import PLANNER, balance_of, set_balance
from inkwell.planner.tests.factories import make_cluster, make_keyword, make_sector, make_seed_keywords
from inkwell.tenancy.models import Plan, Site, Subscription

pytestmark = pytest.mark.django_db

KEYWORDS = f"{PLANNER}/keywords/"


def detail(keyword) -> str:
    return f"{KEYWORDS}{keyword.pk}/"


def keyword_ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


# Create -------------------------------------------------------------------------------------


def test_creating_a_keyword_copies_the_library_keyword_into_the_site(planner, owner):
    seed = planner.seeds[0]
    response = owner.post(KEYWORDS, planner.payload(seed_keyword_id=seed.pk), format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data == {
        "id": ANY,
        "site_id": planner.site.pk,
        "sector_id": planner.sector.pk,
        "seed_keyword_id": seed.pk,
        "cluster_id": None,
        "cluster_name": None,
        "keyword": seed.keyword,
        "volume": seed.volume,
        "difficulty": seed.difficulty,
        "difficulty_band": "easy",
        "country": "US",
        "status": "active",
        "credits_paid": 0,
        "created_at": ANY,
        "updated_at": ANY,
    }
    assert Keyword.objects.for_account(planner.account).get(pk=data["id"]).seed_keyword_id == seed.pk


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"seed_keyword_id": ["This field is required"], "site_id": ["This field is required"], "sector_id": ["This field is required"]}),
        ({"site_id": "{site}", "sector_id": "{sector}"}, {"seed_keyword_id": ["This field is required"]}),
        ({"seed_keyword_id": "{seed}", "sector_id": "{sector}"}, {"site_id": ["This field is required"]}),
        ({"seed_keyword_id": "{seed}", "site_id": "{site}"}, {"sector_id": ["This field is required"]}),
        ({"seed_keyword_id": 999999999, "site_id": "{site}", "sector_id": "{sector}"}, {"seed_keyword_id": ["Invalid seed keyword"]}),
        ({"seed_keyword_id": "nope", "site_id": "{site}", "sector_id": "{sector}"}, {"seed_keyword_id": ["Invalid seed keyword"]}),
        ({"seed_keyword_id": "{seed}", "site_id": "{other_site}", "sector_id": "{sector}"}, {"site_id": ["Site must belong to your account"]}),
        ({"seed_keyword_id": "{seed}", "site_id": "{site}", "sector_id": "{other_sector}"}, {"sector_id": ["Sector must belong to the selected site"]}),
        ({"seed_keyword_id": "{seed}", "site_id": "{site}", "sector_id": "{second_site_sector}"}, {"sector_id": ["Sector must belong to the selected site"]}),
        ({"seed_keyword_id": "{seed}", "site_id": "{site}", "sector_id": "{sector}", "status": "deleted"}, {"status": ["Invalid status value"]}),
    ],
    ids=["all-missing", "no-seed", "no-site", "no-sector", "unknown-seed", "seed-not-a-number", "other-accounts-site", "other-accounts-sector", "sector-of-another-site", "bad-status"],
)
def test_create_answers_the_specs_field_messages_word_for_word(planner, owner, other_tenant, body, errors):
    second_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    ids = {
        "seed": planner.seeds[0].pk,
        "site": planner.site.pk,
        "sector": planner.sector.pk,
        "other_site": other_tenant.site.pk,
        "other_sector": make_sector(other_tenant).pk,
        "second_site_sector": make_sector(planner.tenant, second_site).pk,
    }
    payload = {key: ids[value[1:-1]] if isinstance(value, str) and value.startswith("{") else value for key, value in body.items()}

    assert_error(owner.post(KEYWORDS, payload, format="json"), 400, "validation_error", errors=errors)
    assert not Keyword.objects.for_account(planner.account).exists()


def test_a_seed_keyword_of_another_industry_sector_is_refused(planner, owner):
    foreign = make_seed_keywords(make_sector(planner.tenant).industry_sector, 1)[0]
    response = owner.post(KEYWORDS, planner.payload(seed_keyword_id=foreign.pk), format="json")
    assert_error(response, 400, "validation_error", errors={"seed_keyword_id": ["Seed keyword must belong to the selected sector's industry"]})


def test_adding_a_keyword_the_site_has_is_a_conflict(planner, owner):
    payload = planner.payload(seed_keyword_id=planner.seeds[0].pk)
    assert owner.post(KEYWORDS, payload, format="json").status_code == 201
    assert_error(owner.post(KEYWORDS, payload, format="json"), 409, "conflict", errors={"seed_keyword_id": ["This keyword is already in the site's workflow"]})
    assert Keyword.objects.for_account(planner.account).count() == 1


def test_a_paid_seed_keyword_costs_its_credit_cost(planner, owner):
    paid = make_seed_keywords(planner.sector.industry_sector, 1, paid_cost=7, paid_every=1)[0]
    before = balance_of(planner.account)

    response = owner.post(KEYWORDS, planner.payload(seed_keyword_id=paid.pk), format="json")

    assert response.status_code == 201, response.content
    assert response.json()["data"]["credits_paid"] == 7
    assert balance_of(planner.account) == before - 7
    usage = CreditUsage.objects.for_account(planner.account).get(operation_type="keyword_purchase")
    assert (usage.credits_used, usage.related_object_type, usage.related_object_id, usage.site_id) == (7, "seed_keyword", paid.pk, planner.site.pk)


def test_a_paid_keyword_without_the_credits_is_a_402_and_nothing_is_added(planner, owner):
    paid = make_seed_keywords(planner.sector.industry_sector, 1, paid_cost=7, paid_every=1)[0]
    set_balance(planner.account, 6)

    response = owner.post(KEYWORDS, planner.payload(seed_keyword_id=paid.pk), format="json")

    assert_error(response, 402, "insufficient_credits", errors={"credits": ["Insufficient credits"]}, error="Insufficient credits")
    assert balance_of(planner.account) == 6
    assert not Keyword.objects.for_account(planner.account).exists()


def test_the_plans_keyword_limit_refuses_one_more(planner, owner):
    plan = Plan.objects.create(slug="tiny", name="Tiny", max_sites=1, max_users=5, max_keywords=2, monthly_credits=100)
    Subscription.objects.for_account(planner.account).update(plan=plan)
    for seed in planner.seeds[:2]:
        assert owner.post(KEYWORDS, planner.payload(seed_keyword_id=seed.pk), format="json").status_code == 201

    response = owner.post(KEYWORDS, planner.payload(seed_keyword_id=planner.seeds[2].pk), format="json")

    assert_error(response, 403, "plan_limit_reached", errors={"max_keywords": ["Your plan allows at most 2 keywords; 0 more can be added"]})
    assert Keyword.objects.for_account(planner.account).count() == 2


def test_the_plan_limits_endpoint_counts_planner_keywords(planner, owner):
    for seed in planner.seeds[:3]:
        make_keyword(planner.tenant, sector=planner.sector, seed=seed)
    limits = {row["limit"]: row for row in owner.get("/api/v1/billing/usage/limits/").json()["data"]["limits"]}
    assert limits["max_keywords"]["used"] == 3


# Read, change, delete -----------------------------------------------------------------------


def test_retrieve_put_patch_and_delete_one_keyword(planner, owner):
    keyword = make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0])
    cluster = make_cluster(planner.tenant, name="Shoes")

    assert owner.get(detail(keyword)).json()["data"]["keyword"] == keyword.keyword
    put = owner.put(detail(keyword), {"status": "paused", "cluster_id": cluster.pk}, format="json")
    assert put.status_code == 200, put.content
    assert (put.json()["data"]["status"], put.json()["data"]["cluster_id"], put.json()["data"]["cluster_name"]) == ("paused", cluster.pk, "Shoes")
    patch = owner.patch(detail(keyword), {"cluster_id": None}, format="json")
    assert (patch.json()["data"]["status"], patch.json()["data"]["cluster_id"]) == ("paused", None)

    assert owner.delete(detail(keyword)).status_code == 204
    assert not Keyword.objects.for_account(planner.account).exists()


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"status": "gone"}, {"status": ["Invalid status value"]}),
        ({"status": None}, {"status": ["Invalid status value"]}),
        ({"cluster_id": 999999999}, {"cluster_id": ["Cluster must belong to your account"]}),
    ],
)
def test_update_refuses_bad_values(planner, owner, body, errors):
    keyword = make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0])
    assert_error(owner.put(detail(keyword), body, format="json"), 400, "validation_error", errors=errors)
    keyword.refresh_from_db()
    assert (keyword.status, keyword.cluster_id) == ("active", None)


def test_a_keyword_joins_only_a_cluster_of_its_own_site(planner, owner, other_tenant):
    keyword = make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0])
    second_site = Site.objects.create(account=planner.account, name="Second", domain="second.example.com", slug=f"second-{planner.site.slug}")
    elsewhere = make_cluster(planner.tenant, site=second_site)
    foreign = make_cluster(other_tenant)

    assert_error(owner.put(detail(keyword), {"cluster_id": elsewhere.pk}, format="json"), 400, "validation_error", errors={"cluster_id": ["Cluster must belong to the same site"]})
    assert_error(owner.put(detail(keyword), {"cluster_id": foreign.pk}, format="json"), 400, "validation_error", errors={"cluster_id": ["Cluster must belong to your account"]})


def test_another_accounts_keyword_is_not_found(planner, owner, other_tenant):
    theirs = make_keyword(other_tenant)
    for method in ("get", "put", "patch", "delete"):
        assert_error(getattr(owner, method)(detail(theirs), {"status": "paused"}, format="json"), 404, "not_found")
    theirs.refresh_from_db()
    assert theirs.status == "active"


# Bulk actions -------------------------------------------------------------------------------


def test_bulk_delete_hard_deletes_the_callers_keywords_and_reports_the_rest(planner, owner, other_tenant):
    mine = [make_keyword(planner.tenant, sector=planner.sector, seed=seed) for seed in planner.seeds[:3]]
    theirs = make_keyword(other_tenant)

    response = owner.post(f"{KEYWORDS}bulk_delete/", {"ids": [mine[0].pk, theirs.pk, mine[2].pk, 999999999, mine[0].pk]}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"deleted": 2, "not_found": [theirs.pk, 999999999]}
    assert list(Keyword.objects.for_account(planner.account).values_list("pk", flat=True)) == [mine[1].pk]
    assert Keyword.objects.for_account(other_tenant.account).filter(pk=theirs.pk).exists()


def test_bulk_status_changes_the_callers_keywords_and_reports_the_rest(planner, owner, other_tenant):
    mine = [make_keyword(planner.tenant, sector=planner.sector, seed=seed) for seed in planner.seeds[:3]]
    theirs = make_keyword(other_tenant)

    response = owner.post(f"{KEYWORDS}bulk_status/", {"ids": [mine[0].pk, mine[1].pk, theirs.pk], "status": "archived"}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"updated": 2, "not_found": [theirs.pk]}
    statuses = dict(Keyword.objects.for_account(planner.account).values_list("pk", "status"))
    assert statuses == {mine[0].pk: "archived", mine[1].pk: "archived", mine[2].pk: "active"}
    theirs.refresh_from_db()
    assert theirs.status == "active"


@pytest.mark.parametrize(
    ("path", "body", "errors"),
    [
        ("bulk_status/", {"ids": [1], "status": "deleted"}, {"status": ["Invalid status value"]}),
        ("bulk_status/", {"ids": [1]}, {"status": ["This field is required"]}),
        ("bulk_status/", {"status": "paused"}, {"ids": ["This field is required"]}),
        ("bulk_delete/", {}, {"ids": ["This field is required"]}),
        ("bulk_delete/", {"ids": []}, {"ids": ["Send at least one id"]}),
        ("bulk_delete/", {"ids": "1,2"}, {"ids": [ANY]}),
        ("bulk_delete/", {"ids": [0]}, {"ids.0": [ANY]}),
    ],
)
def test_bulk_actions_refuse_bad_input(planner, owner, path, body, errors):
    keyword = make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0])
    assert_error(owner.post(f"{KEYWORDS}{path}", body, format="json"), 400, "validation_error", errors=errors)
    keyword.refresh_from_db()
    assert keyword.status == "active"


# List filters and ordering ------------------------------------------------------------------


@pytest.fixture
def listed(planner):
    """Six keywords of two sectors and two clusters, with spread volumes and difficulties."""
    other_sector = make_sector(planner.tenant)
    other_seeds = make_seed_keywords(other_sector.industry_sector, texts=["zebra socks", "yellow shoes"])
    cluster = make_cluster(planner.tenant, sector=planner.sector, name="Shoes")
    rows = [
        make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0], keyword="best running shoes", volume=5000, difficulty=10, cluster=cluster),
        make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[1], keyword="running shoes for flat feet", volume=800, difficulty=45, cluster=cluster),
        make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[5], keyword="marathon training plan", volume=2400, difficulty=60, status="paused"),
        make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[10], keyword="knee pain after running", volume=100, difficulty=90, status="archived"),
        make_keyword(planner.tenant, sector=other_sector, seed=other_seeds[0], keyword="zebra socks", volume=10, difficulty=0),
        make_keyword(planner.tenant, sector=other_sector, seed=other_seeds[1], keyword="yellow shoes", volume=2400, difficulty=100),
    ]
    return rows, cluster, other_sector


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (lambda c, s: {"status": "paused"}, [2]),
        (lambda c, s: {"status": "active"}, [5, 4, 1, 0]),
        (lambda c, s: {"cluster_id": c.pk}, [1, 0]),
        (lambda c, s: {"sector_id": s.pk}, [5, 4]),
        (lambda c, s: {"difficulty_min": 45, "difficulty_max": 90}, [3, 2, 1]),
        (lambda c, s: {"difficulty_max": 0}, [4]),
        (lambda c, s: {"volume_min": 2400}, [5, 2, 0]),
        (lambda c, s: {"volume_min": 100, "volume_max": 800}, [3, 1]),
        (lambda c, s: {"search": "SHOES"}, [5, 1, 0]),
        (lambda c, s: {"search": "shoes", "volume_max": 1000}, [1]),
    ],
    ids=["status-paused", "status-active", "cluster", "sector", "difficulty-range", "difficulty-max-0", "volume-min", "volume-range", "search-any-case", "search-and-volume"],
)
def test_list_filters_select_exactly_the_matching_keywords(planner, owner, listed, params, expected):
    rows, cluster, other_sector = listed
    assert keyword_ids(owner.get(KEYWORDS, params(cluster, other_sector))) == [rows[index].pk for index in expected]


@pytest.mark.parametrize(
    ("ordering", "expected"),
    [
        ("volume", [4, 3, 1, 2, 5, 0]),
        ("-volume", [0, 5, 2, 1, 3, 4]),
        ("difficulty", [4, 0, 1, 2, 3, 5]),
        ("-difficulty", [5, 3, 2, 1, 0, 4]),
        ("keyword", [0, 3, 2, 1, 5, 4]),
        ("created_at", [0, 1, 2, 3, 4, 5]),
        ("-created_at", [5, 4, 3, 2, 1, 0]),
    ],
)
def test_list_orders_by_the_requested_field_with_the_id_breaking_ties(planner, owner, listed, ordering, expected):
    rows, _, _ = listed
    assert keyword_ids(owner.get(KEYWORDS, {"ordering": ordering})) == [rows[index].pk for index in expected]


def test_the_list_is_newest_first_by_default_and_filters_by_site(planner, owner, listed):
    rows, _, _ = listed
    assert keyword_ids(owner.get(KEYWORDS)) == [row.pk for row in reversed(rows)]
    assert keyword_ids(owner.get(KEYWORDS, {"site_id": planner.site.pk})) == [row.pk for row in reversed(rows)]


def test_the_list_answers_exactly_what_the_keyword_serializer_writes(planner, owner, listed):
    """The list is built from ``.values()`` for speed; each row must be the serializer's, key for key."""
    from inkwell.api.renderers import EnvelopeJSONRenderer
    from inkwell.planner.serializers import KeywordSerializer

    listed_rows = owner.get(KEYWORDS, {"ordering": "keyword"}).json()["results"]

    keywords = Keyword.objects.for_account(planner.tenant.account).select_related("cluster").order_by("keyword", "id")
    serialized = json.loads(EnvelopeJSONRenderer().render(KeywordSerializer(keywords, many=True).data))["data"]
    assert listed_rows == serialized
    assert [list(row) for row in listed_rows] == [list(row) for row in serialized]
    assert {row["cluster_name"] for row in listed_rows} == {"Shoes", None}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"status": "deleted"}, "status"),
        ({"difficulty_min": "101"}, "difficulty_min"),
        ({"difficulty_max": "-1"}, "difficulty_max"),
        ({"difficulty_min": "easy"}, "difficulty_min"),
        ({"volume_min": "-5"}, "volume_min"),
        ({"volume_min": "10", "volume_max": "5"}, "volume_max"),
        ({"difficulty_min": "60", "difficulty_max": "50"}, "difficulty_max"),
        ({"ordering": "site"}, "ordering"),
        ({"site_id": "abc"}, "site_id"),
        ({"cluster_id": "0"}, "cluster_id"),
    ],
)
def test_invalid_list_parameters_are_a_400_naming_the_field(planner, owner, params, field):
    body = assert_error(owner.get(KEYWORDS, params), 400, "validation_error", errors=ANY)
    assert list(body["errors"]) == [field]


def test_the_status_filter_answers_the_specs_message(planner, owner):
    assert_error(owner.get(KEYWORDS, {"status": "deleted"}), 400, "validation_error", errors={"status": ["Invalid status value"]})


def test_a_filter_on_another_accounts_site_returns_nothing(planner, owner, other_tenant, listed):
    make_keyword(other_tenant)
    assert keyword_ids(owner.get(KEYWORDS, {"site_id": other_tenant.site.pk})) == []
