"""CRUD of the tenancy resources through the real URLs: happy paths, field messages, conflicts."""

import pytest

from inkwell.tenancy import services
from inkwell.tenancy.models import Account, ApiKey, IndustrySector, Plan, Role, RoleName, Sector, Site, SiteUserAccess, Subscription, User

pytestmark = pytest.mark.django_db

API = "/api/v1/auth"


@pytest.fixture
def owner(big_tenant, as_user):
    return as_user(big_tenant.owner)


def assert_error(response, status: int, code: str, errors: dict | None = None):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["success"] is False
    assert body["code"] == code
    if errors is not None:
        assert body["errors"] == errors
    return body


def assert_list(response, count: int) -> list[dict]:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["success"] is True
    assert body["count"] == count
    assert len(body["results"]) == count
    return body["results"]


def data(response, status: int = 200):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["success"] is True
    return body["data"]


# Sites ----------------------------------------------------------------------------------------


def test_sites_crud(big_tenant, owner):
    created = data(
        owner.post(
            f"{API}/sites/", {"name": "Blog", "domain": "https://Blog.Example.org/some/path", "time_zone": "Europe/Berlin"}, format="json"
        ),
        201,
    )
    assert created["name"] == "Blog"
    assert created["domain"] == "blog.example.org"
    assert created["url"] == "https://blog.example.org"
    assert created["slug"] == "blog"
    assert created["time_zone"] == "Europe/Berlin"
    assert created["is_active"] is True
    site = Site.objects.for_account(big_tenant.account).get(pk=created["id"])
    assert site.domain == "blog.example.org"

    assert [row["id"] for row in assert_list(owner.get(f"{API}/sites/"), 2)] == [big_tenant.site.pk, site.pk]
    assert data(owner.get(f"{API}/sites/{site.pk}/"))["domain"] == "blog.example.org"

    replaced = data(owner.put(f"{API}/sites/{site.pk}/", {"name": "Journal", "domain": "journal.example.org"}, format="json"))
    assert (replaced["name"], replaced["domain"], replaced["time_zone"]) == ("Journal", "journal.example.org", "UTC")

    patched = data(owner.patch(f"{API}/sites/{site.pk}/", {"is_active": False}, format="json"))
    assert (patched["name"], patched["is_active"]) == ("Journal", False)
    assert [row["id"] for row in assert_list(owner.get(f"{API}/sites/?is_active=false"), 1)] == [site.pk]

    response = owner.delete(f"{API}/sites/{site.pk}/")
    assert response.status_code == 204
    assert response.content == b""
    assert not Site.dangerously_unscoped.filter(pk=site.pk).exists()


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"name": ["This field is required"], "domain": ["This field is required"]}),
        ({"name": "", "domain": ""}, {"name": ["This field is required"], "domain": ["This field is required"]}),
        ({"name": "Blog", "domain": "not a domain"}, {"domain": ["Enter a valid domain name, for example example.com"]}),
        ({"name": "Blog", "domain": "-bad-.example.com"}, {"domain": ["Enter a valid domain name, for example example.com"]}),
        (
            {"name": "Blog", "domain": "ok.example.com", "time_zone": "Mars/Olympus"},
            {"time_zone": ["Unknown time zone; use an IANA name such as Europe/Berlin"]},
        ),
    ],
    ids=["missing", "blank", "spaces", "hyphens", "time zone"],
)
def test_site_field_messages(big_tenant, owner, body, errors):
    assert_error(owner.post(f"{API}/sites/", body, format="json"), 400, "validation_error", errors)
    assert Site.objects.for_account(big_tenant.account).count() == 1


def test_a_duplicate_site_domain_is_a_409(big_tenant, owner):
    response = owner.post(f"{API}/sites/", {"name": "Copy", "domain": big_tenant.site.domain.upper()}, format="json")

    body = assert_error(response, 409, "conflict", {"domain": ["A site with this domain already exists"]})
    assert body["error"] == "Conflict"


def test_changing_a_site_to_a_taken_domain_is_a_409(big_tenant, owner):
    other = services.site_create(account=big_tenant.account, name="Other", domain="other.example.com")

    response = owner.patch(f"{API}/sites/{other.pk}/", {"domain": big_tenant.site.domain}, format="json")

    assert_error(response, 409, "conflict", {"domain": ["A site with this domain already exists"]})


def test_creating_sites_past_the_plan_is_refused(tenant, as_user):
    response = as_user(tenant.owner).post(f"{API}/sites/", {"name": "Second", "domain": "second.example.com"}, format="json")

    assert_error(response, 403, "plan_limit_reached", {"max_sites": ["Your plan allows at most 1"]})


def test_another_accounts_site_is_not_found(big_tenant, other_tenant, owner):
    for response in (
        owner.get(f"{API}/sites/{other_tenant.site.pk}/"),
        owner.patch(f"{API}/sites/{other_tenant.site.pk}/", {"name": "Mine"}, format="json"),
        owner.delete(f"{API}/sites/{other_tenant.site.pk}/"),
    ):
        assert_error(response, 404, "not_found")
    assert Site.dangerously_unscoped.get(pk=other_tenant.site.pk).name == "Site b"


# Sectors --------------------------------------------------------------------------------------


@pytest.fixture
def industry_sectors(db):
    return list(IndustrySector.objects.select_related("industry").order_by("id")[:2])


def test_sectors_crud(big_tenant, owner, industry_sectors):
    first, second = industry_sectors

    created = data(owner.post(f"{API}/sectors/", {"site_id": big_tenant.site.pk, "industry_sector_id": first.pk}, format="json"), 201)
    assert created["site_id"] == big_tenant.site.pk
    assert created["industry_sector_id"] == first.pk
    assert created["industry_sector_name"] == first.name
    assert created["industry_id"] == first.industry_id
    assert created["name"] == first.name
    named = data(
        owner.post(f"{API}/sectors/", {"site_id": big_tenant.site.pk, "industry_sector_id": second.pk, "name": "Ours"}, format="json"), 201
    )
    assert named["name"] == "Ours"

    assert_list(owner.get(f"{API}/sectors/"), 2)
    assert [row["id"] for row in assert_list(owner.get(f"{API}/sectors/?industry_sector_id={second.pk}"), 1)] == [named["id"]]
    assert_list(owner.get(f"{API}/sectors/?site_id={big_tenant.site.pk}"), 2)
    assert data(owner.get(f"{API}/sectors/{named['id']}/"))["name"] == "Ours"

    assert data(owner.put(f"{API}/sectors/{named['id']}/", {"name": "Renamed"}, format="json"))["name"] == "Renamed"
    assert data(owner.patch(f"{API}/sectors/{named['id']}/", {"name": "Again"}, format="json"))["name"] == "Again"
    assert Sector.objects.for_account(big_tenant.account).get(pk=named["id"]).name == "Again"

    assert owner.delete(f"{API}/sectors/{named['id']}/").status_code == 204
    assert list(Sector.objects.for_account(big_tenant.account).values_list("id", flat=True)) == [created["id"]]


def test_sector_field_messages(big_tenant, other_tenant, owner, industry_sectors):
    def post(body):
        return owner.post(f"{API}/sectors/", body, format="json")

    assert_error(
        post({}), 400, "validation_error", {"site_id": ["This field is required"], "industry_sector_id": ["This field is required"]}
    )
    assert_error(
        post({"site_id": other_tenant.site.pk, "industry_sector_id": industry_sectors[0].pk}),
        400,
        "validation_error",
        {"site_id": ["Site must belong to your account"]},
    )
    assert_error(
        post({"site_id": "abc", "industry_sector_id": industry_sectors[0].pk}),
        400,
        "validation_error",
        {"site_id": ["Site must belong to your account"]},
    )
    assert_error(
        post({"site_id": big_tenant.site.pk, "industry_sector_id": 10**9}),
        400,
        "validation_error",
        {"industry_sector_id": ["Invalid industry sector"]},
    )
    assert_error(owner.patch(f"{API}/sectors/1/", {"name": ""}, format="json"), 404, "not_found")
    assert not Sector.dangerously_unscoped.exists()


def test_a_blank_sector_name_is_refused(big_tenant, owner, industry_sectors):
    sector = services.sector_create(account=big_tenant.account, site=big_tenant.site, industry_sector=industry_sectors[0])

    response = owner.patch(f"{API}/sectors/{sector.pk}/", {"name": ""}, format="json")

    assert_error(response, 400, "validation_error", {"name": ["This field is required"]})


def test_a_duplicate_sector_is_a_409(big_tenant, owner, industry_sectors):
    body = {"site_id": big_tenant.site.pk, "industry_sector_id": industry_sectors[0].pk}
    data(owner.post(f"{API}/sectors/", body, format="json"), 201)

    response = owner.post(f"{API}/sectors/", {**body, "name": "Again"}, format="json")

    assert_error(response, 409, "conflict", {"industry_sector_id": ["This site already has this sector"]})
    assert Sector.objects.for_account(big_tenant.account).count() == 1


# Users ----------------------------------------------------------------------------------------


def test_users_crud(big_tenant, owner):
    second = services.site_create(account=big_tenant.account, name="Second", domain="second.example.com")

    created = data(
        owner.post(
            f"{API}/users/",
            {
                "email": "Writer@Example.com",
                "password": "long-enough-1",
                "first_name": "W",
                "role": "editor",
                "site_ids": [big_tenant.site.pk, second.pk],
            },
            format="json",
        ),
        201,
    )
    assert created["email"] == "writer@example.com"
    assert created["role"] == "editor"
    assert created["site_ids"] == sorted([big_tenant.site.pk, second.pk])
    assert created["account"] == {"id": big_tenant.account.pk, "name": big_tenant.account.name}
    assert "password" not in created
    user = User.objects.for_account(big_tenant.account).get(pk=created["id"])
    assert user.check_password("long-enough-1")

    assert_list(owner.get(f"{API}/users/"), 5)
    assert [row["id"] for row in assert_list(owner.get(f"{API}/users/?role=editor"), 2)] == [big_tenant.editor.pk, user.pk]
    assert data(owner.get(f"{API}/users/{user.pk}/"))["site_ids"] == sorted([big_tenant.site.pk, second.pk])

    patched = data(owner.patch(f"{API}/users/{user.pk}/", {"role": "viewer", "site_ids": [second.pk], "last_name": "X"}, format="json"))
    assert (patched["role"], patched["site_ids"], patched["first_name"], patched["last_name"]) == ("viewer", [second.pk], "W", "X")

    replaced = data(owner.put(f"{API}/users/{user.pk}/", {"first_name": "New", "is_active": False}, format="json"))
    assert (replaced["first_name"], replaced["is_active"]) == ("New", False)
    assert [row["id"] for row in assert_list(owner.get(f"{API}/users/?is_active=false"), 1)] == [user.pk]

    assert owner.delete(f"{API}/users/{user.pk}/").status_code == 204
    assert not User.dangerously_unscoped.filter(pk=user.pk).exists()
    assert not SiteUserAccess.objects.for_account(big_tenant.account).filter(user_id=user.pk).exists()


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({}, {"email": ["This field is required"], "password": ["This field is required"], "role": ["This field is required"]}),
        ({"email": "nope", "password": "long-enough-1", "role": "editor"}, {"email": ["Invalid email format"]}),
        ({"email": "a@example.com", "password": "short", "role": "editor"}, {"password": ["Password must be at least 8 characters"]}),
        ({"email": "a@example.com", "password": "long-enough-1", "role": "superhero"}, {"role": ["Invalid role"]}),
        (
            {"email": "a@example.com", "password": "long-enough-1", "role": "editor", "site_ids": [10**9]},
            {"site_ids.0": ["Site must belong to your account"]},
        ),
    ],
    ids=["missing", "email", "password", "role", "site"],
)
def test_user_field_messages(big_tenant, owner, body, errors):
    assert_error(owner.post(f"{API}/users/", body, format="json"), 400, "validation_error", errors)
    assert User.objects.for_account(big_tenant.account).count() == 4


def test_a_site_of_another_account_cannot_be_granted_to_a_user(big_tenant, other_tenant, owner):
    response = owner.patch(f"{API}/users/{big_tenant.viewer.pk}/", {"site_ids": [other_tenant.site.pk]}, format="json")

    assert_error(response, 400, "validation_error", {"site_ids.0": ["Site must belong to your account"]})
    assert not SiteUserAccess.dangerously_unscoped.exists()


def test_a_duplicate_user_email_is_a_409(big_tenant, other_tenant, owner):
    response = owner.post(
        f"{API}/users/", {"email": other_tenant.viewer.email.upper(), "password": "long-enough-1", "role": "viewer"}, format="json"
    )

    assert_error(response, 409, "conflict", {"email": ["User with this email already exists"]})
    assert User.objects.for_account(big_tenant.account).count() == 4


def test_creating_users_past_the_plan_is_refused(tenant, as_user):
    # The free plan allows two users; the tenant has four already.
    response = as_user(tenant.owner).post(
        f"{API}/users/", {"email": "fifth@example.com", "password": "long-enough-1", "role": "viewer"}, format="json"
    )

    assert_error(response, 403, "plan_limit_reached", {"max_users": ["Your plan allows at most 2"]})


def test_another_accounts_user_is_not_found(big_tenant, other_tenant, owner):
    assert_error(owner.get(f"{API}/users/{other_tenant.viewer.pk}/"), 404, "not_found")
    assert_error(owner.patch(f"{API}/users/{other_tenant.viewer.pk}/", {"first_name": "x"}, format="json"), 404, "not_found")
    assert_error(owner.delete(f"{API}/users/{other_tenant.viewer.pk}/"), 404, "not_found")
    assert User.dangerously_unscoped.filter(pk=other_tenant.viewer.pk, first_name="").exists()


# Site access ----------------------------------------------------------------------------------


def test_site_access_crud(big_tenant, owner):
    created = data(owner.post(f"{API}/site-access/", {"user_id": big_tenant.editor.pk, "site_id": big_tenant.site.pk}, format="json"), 201)
    assert (created["user_id"], created["site_id"], created["granted_by_id"]) == (
        big_tenant.editor.pk,
        big_tenant.site.pk,
        big_tenant.owner.pk,
    )
    services.site_access_grant(account=big_tenant.account, actor=big_tenant.owner, user=big_tenant.viewer, site=big_tenant.site)

    assert_list(owner.get(f"{API}/site-access/"), 2)
    assert [row["id"] for row in assert_list(owner.get(f"{API}/site-access/?user_id={big_tenant.editor.pk}"), 1)] == [created["id"]]
    assert_list(owner.get(f"{API}/site-access/?site_id={big_tenant.site.pk}"), 2)
    assert data(owner.get(f"{API}/site-access/{created['id']}/"))["user_id"] == big_tenant.editor.pk
    # Grants are created and revoked, never edited.
    assert_error(owner.patch(f"{API}/site-access/{created['id']}/", {"site_id": 1}, format="json"), 405, "method_not_allowed")

    assert owner.delete(f"{API}/site-access/{created['id']}/").status_code == 204
    assert not SiteUserAccess.objects.for_account(big_tenant.account).filter(pk=created["id"]).exists()


def test_site_access_field_messages(big_tenant, other_tenant, owner):
    def post(body):
        return owner.post(f"{API}/site-access/", body, format="json")

    assert_error(post({}), 400, "validation_error", {"user_id": ["This field is required"], "site_id": ["This field is required"]})
    assert_error(
        post({"user_id": other_tenant.editor.pk, "site_id": big_tenant.site.pk}),
        400,
        "validation_error",
        {"user_id": ["User must belong to your account"]},
    )
    assert_error(
        post({"user_id": big_tenant.editor.pk, "site_id": other_tenant.site.pk}),
        400,
        "validation_error",
        {"site_id": ["Site must belong to your account"]},
    )
    assert not SiteUserAccess.dangerously_unscoped.exists()


def test_a_duplicate_site_grant_is_a_409(big_tenant, owner):
    body = {"user_id": big_tenant.viewer.pk, "site_id": big_tenant.site.pk}
    data(owner.post(f"{API}/site-access/", body, format="json"), 201)

    assert_error(
        owner.post(f"{API}/site-access/", body, format="json"), 409, "conflict", {"site_id": ["This user already has access to this site"]}
    )
    assert SiteUserAccess.objects.for_account(big_tenant.account).count() == 1


# API keys -------------------------------------------------------------------------------------


def test_api_keys_crud_show_the_key_only_once(big_tenant, owner):
    created = data(owner.post(f"{API}/api-keys/", {"name": "CMS", "site_id": big_tenant.site.pk}, format="json"), 201)
    assert set(created) == {"id", "name", "prefix", "key", "site_id", "created_at"}
    assert created["key"].startswith(created["prefix"] + ".")
    assert created["site_id"] == big_tenant.site.pk
    unbound = data(owner.post(f"{API}/api-keys/", {"name": "Everything"}, format="json"), 201)
    assert unbound["site_id"] is None

    listed = assert_list(owner.get(f"{API}/api-keys/"), 2)
    assert all("key" not in row and "key_hash" not in row for row in listed)
    detail = data(owner.get(f"{API}/api-keys/{created['id']}/"))
    assert "key" not in detail
    assert (detail["user_id"], detail["last_used_at"]) == (big_tenant.owner.pk, None)
    assert created["key"] not in owner.get(f"{API}/api-keys/").content.decode()

    assert owner.delete(f"{API}/api-keys/{created['id']}/").status_code == 204
    assert list(ApiKey.objects.for_account(big_tenant.account).values_list("id", flat=True)) == [unbound["id"]]


def test_api_key_field_messages(big_tenant, other_tenant, owner):
    assert_error(owner.post(f"{API}/api-keys/", {}, format="json"), 400, "validation_error", {"name": ["This field is required"]})
    assert_error(owner.post(f"{API}/api-keys/", {"name": ""}, format="json"), 400, "validation_error", {"name": ["This field is required"]})
    assert_error(
        owner.post(f"{API}/api-keys/", {"name": "x", "site_id": other_tenant.site.pk}, format="json"),
        400,
        "validation_error",
        {"site_id": ["Site must belong to your account"]},
    )
    assert not ApiKey.dangerously_unscoped.exists()


# The account, accounts, subscriptions --------------------------------------------------------


def test_the_account_is_read_and_renamed(big_tenant, owner, as_user):
    account = data(owner.get(f"{API}/account/"))
    assert (account["id"], account["name"], account["credits"]) == (
        big_tenant.account.pk,
        big_tenant.account.name,
        big_tenant.account.credit_ledger.balance,
    )
    assert account["subscription"]["plan"]["slug"] == "scale"
    assert account["subscription"]["is_active"] is True

    assert data(owner.put(f"{API}/account/", {"name": "Renamed"}, format="json"))["name"] == "Renamed"
    assert data(as_user(big_tenant.admin).patch(f"{API}/account/", {"name": "Again"}, format="json"))["name"] == "Again"
    assert Account.objects.get(pk=big_tenant.account.pk).name == "Again"

    assert_error(owner.put(f"{API}/account/", {}, format="json"), 400, "validation_error", {"name": ["This field is required"]})
    assert_error(owner.put(f"{API}/account/", {"name": ""}, format="json"), 400, "validation_error", {"name": ["This field is required"]})
    assert_error(owner.put(f"{API}/account/", {"name": "x" * 151}, format="json"), 400, "validation_error")
    assert Account.objects.get(pk=big_tenant.account.pk).name == "Again"


def test_accounts_lists_only_the_callers_account(big_tenant, other_tenant, owner):
    rows = assert_list(owner.get(f"{API}/accounts/"), 1)
    assert rows[0]["id"] == big_tenant.account.pk
    assert data(owner.get(f"{API}/accounts/{big_tenant.account.pk}/"))["subscription"]["plan"]["slug"] == "scale"
    assert_error(owner.get(f"{API}/accounts/{other_tenant.account.pk}/"), 404, "not_found")


def test_subscriptions_lists_only_the_callers_subscription(big_tenant, other_tenant, owner):
    rows = assert_list(owner.get(f"{API}/subscriptions/"), 1)
    assert rows[0]["plan"]["slug"] == "scale"
    assert rows[0]["status"] == "active"
    other = Subscription.objects.for_account(other_tenant.account).get()
    assert_error(owner.get(f"{API}/subscriptions/{other.pk}/"), 404, "not_found")


# Catalogues -----------------------------------------------------------------------------------


def test_plans_list_the_public_plans(owner):
    rows = assert_list(owner.get(f"{API}/plans/"), Plan.objects.filter(is_public=True).count())
    assert [row["slug"] for row in rows] == ["free", "starter", "growth", "scale"]
    scale = Plan.objects.get(slug="scale")
    assert data(owner.get(f"{API}/plans/{scale.pk}/"))["max_sites"] == scale.max_sites


def test_hidden_plans_are_not_listed(owner):
    hidden = Plan.objects.create(
        slug="internal", name="Internal", max_sites=1, max_users=1, max_keywords=1, monthly_credits=1, is_public=False
    )

    assert "internal" not in [row["slug"] for row in assert_list(owner.get(f"{API}/plans/"), 4)]
    assert_error(owner.get(f"{API}/plans/{hidden.pk}/"), 404, "not_found")


def test_groups_list_the_five_roles(owner):
    rows = assert_list(owner.get(f"{API}/groups/"), 5)
    # The reviewer (#36) comes last: it was added by a later data migration.
    assert [row["name"] for row in rows] == ["owner", "admin", "editor", "viewer", "reviewer"]
    assert all(row["description"] for row in rows)
    assert data(owner.get(f"{API}/groups/{Role.objects.get(name=RoleName.VIEWER).pk}/"))["name"] == "viewer"


def test_industries_list_with_their_sectors(owner):
    response = owner.get(f"{API}/industries/?page_size=100")
    rows = assert_list(response, 12)
    by_name = {row["name"]: row for row in rows}
    assert {sector["name"] for sector in by_name["Finance"]["sectors"]} >= {"Investing", "Insurance"}
    assert sum(len(row["sectors"]) for row in rows) == IndustrySector.objects.count()


@pytest.mark.parametrize("path", ["/plans/", "/groups/", "/industries/"])
def test_catalogues_are_read_only(owner, path):
    assert_error(owner.post(f"{API}{path}", {"name": "x"}, format="json"), 405, "method_not_allowed")


# Me --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_me_is_the_caller(big_tenant, as_user, role):
    user = big_tenant.user(role)

    me = data(as_user(user).get(f"{API}/me/"))

    assert (me["id"], me["email"], me["role"]) == (user.pk, user.email, role)
    assert me["account"] == {"id": big_tenant.account.pk, "name": big_tenant.account.name}


def test_me_needs_credentials(api_client):
    assert_error(api_client.get(f"{API}/me/"), 401, "authentication_required")
