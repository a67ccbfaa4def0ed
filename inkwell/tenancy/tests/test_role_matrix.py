"""Who may do what on the tenancy resources, through the real URLs.

owner: everything; admin: everything but touching an owner; editor: reads, no users, site
access or API keys; viewer: reads only; reviewer (#36): reads, and on content comments and
approves (inkwell/writer/tests/test_approval_rules.py), here nothing more than a viewer. Editors,
viewers and reviewers see only the sites granted to them.
"""

from dataclasses import dataclass

import pytest
from rest_framework.test import APIClient

from inkwell.tenancy import services
from inkwell.tenancy.models import ApiKey, IndustrySector, Plan, Role, RoleName, Sector, Site, SiteUserAccess, Subscription, User

pytestmark = pytest.mark.django_db

API = "/api/v1/auth"


@dataclass
class World:
    """A tenant on a big plan with one row of every tenancy resource to address by id."""

    tenant: object
    sector: Sector
    grant: SiteUserAccess
    api_key: ApiKey
    industry_sector: IndustrySector
    spare_industry_sector: IndustrySector

    def ids(self) -> dict:
        return {
            "site": self.tenant.site.pk,
            "sector": self.sector.pk,
            "user": self.tenant.editor.pk,
            "grant": self.grant.pk,
            "key": self.api_key.pk,
            "industry_sector": self.spare_industry_sector.pk,
            "admin": self.tenant.admin.pk,
        }


@pytest.fixture
def world(tenant) -> World:
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug="scale"))
    tenant.account.refresh_from_db()
    add_reviewer(tenant)
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.reviewer, site=tenant.site)
    industry_sector, spare = IndustrySector.objects.order_by("id")[:2]
    sector = services.sector_create(account=tenant.account, site=tenant.site, industry_sector=industry_sector)
    # The viewer may read the site, so a refused write is about the role, not a hidden site.
    grant = services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.viewer, site=tenant.site)
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.editor, site=tenant.site)
    api_key, _ = services.api_key_create(account=tenant.account, user=tenant.owner, name="existing")
    return World(tenant, sector, grant, api_key, industry_sector, spare)


def add_reviewer(tenant):
    """The tenant with a user of the reviewer role too (``tenant.reviewer``), granted no site."""
    tenant.reviewer = User.dangerously_unscoped.create_user(
        f"reviewer-{tenant.account.pk}@example.com", "correct-horse-1", account=tenant.account, role=Role.objects.get(name=RoleName.REVIEWER)
    )
    return tenant


def snapshot(account) -> dict:
    """Every tenancy row of the account, to prove a refused request changed nothing."""
    return {
        "account": list(type(account).objects.filter(pk=account.pk).values("name", "credit_ledger__balance")),
        "sites": list(Site.objects.for_account(account).values("id", "name", "domain", "time_zone", "is_active")),
        "sectors": list(Sector.objects.for_account(account).values("id", "site_id", "industry_sector_id", "name")),
        "users": list(User.objects.for_account(account).values("id", "email", "first_name", "last_name", "role_id", "is_active")),
        "grants": list(SiteUserAccess.objects.for_account(account).values("id", "user_id", "site_id")),
        "keys": list(ApiKey.objects.for_account(account).values("id", "name", "site_id")),
    }


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    body: dict | None = None
    success: int = 200

    def url(self, ids: dict) -> str:
        return API + self.path.format(**ids)

    def payload(self, ids: dict) -> dict | None:
        if self.body is None:
            return None
        return {
            key: int(value.format(**ids)) if isinstance(value, str) and value.startswith("{") else value for key, value in self.body.items()
        }


def call(client: APIClient, case: Case, ids: dict):
    return getattr(client, case.method.lower())(case.url(ids), case.payload(ids), format="json")


SITE_WRITES = {
    "create site": Case("POST", "/sites/", {"name": "New", "domain": "new.example.com"}, 201),
    "put site": Case("PUT", "/sites/{site}/", {"name": "Renamed", "domain": "renamed.example.com"}),
    "patch site": Case("PATCH", "/sites/{site}/", {"name": "Renamed"}),
    "delete site": Case("DELETE", "/sites/{site}/", success=204),
}
SECTOR_WRITES = {
    "create sector": Case("POST", "/sectors/", {"site_id": "{site}", "industry_sector_id": "{industry_sector}"}, 201),
    "put sector": Case("PUT", "/sectors/{sector}/", {"name": "Renamed"}),
    "patch sector": Case("PATCH", "/sectors/{sector}/", {"name": "Renamed"}),
    "delete sector": Case("DELETE", "/sectors/{sector}/", success=204),
}
USER_WRITES = {
    "create user": Case("POST", "/users/", {"email": "new-user@example.com", "password": "long-enough-1", "role": "editor"}, 201),
    "put user": Case("PUT", "/users/{user}/", {"first_name": "Renamed"}),
    "patch user": Case("PATCH", "/users/{user}/", {"last_name": "Renamed"}),
    "delete user": Case("DELETE", "/users/{user}/", success=204),
}
SITE_ACCESS = {
    "list site access": Case("GET", "/site-access/"),
    "read site access": Case("GET", "/site-access/{grant}/"),
    # The editor and viewer hold grants already; the admin has none, so a manager's grant succeeds.
    "grant site access": Case("POST", "/site-access/", {"user_id": "{admin}", "site_id": "{site}"}, 201),
    "revoke site access": Case("DELETE", "/site-access/{grant}/", success=204),
}
API_KEYS = {
    "list api keys": Case("GET", "/api-keys/"),
    "read api key": Case("GET", "/api-keys/{key}/"),
    "create api key": Case("POST", "/api-keys/", {"name": "new key"}, 201),
    "delete api key": Case("DELETE", "/api-keys/{key}/", success=204),
}
ACCOUNT_WRITES = {
    "put account": Case("PUT", "/account/", {"name": "Renamed account"}),
    "patch account": Case("PATCH", "/account/", {"name": "Renamed account"}),
}

VIEWER_FORBIDDEN = {
    **SITE_WRITES,
    **SECTOR_WRITES,
    **USER_WRITES,
    **{name: case for name, case in SITE_ACCESS.items() if case.method != "GET"},
    **{name: case for name, case in API_KEYS.items() if case.method != "GET"},
    **ACCOUNT_WRITES,
}
# Sites and sectors are tenancy data, not the planner/writer/... data editors may change.
EDITOR_FORBIDDEN = {
    **SITE_WRITES,
    **SECTOR_WRITES,
    **USER_WRITES,
    **SITE_ACCESS,
    **API_KEYS,
    **ACCOUNT_WRITES,
}
MANAGER_ALLOWED = {**SITE_WRITES, **SECTOR_WRITES, **USER_WRITES, **SITE_ACCESS, **API_KEYS, **ACCOUNT_WRITES}


def _matrix(role: str, cases: dict) -> list:
    return [pytest.param(role, case, id=f"{role}-{name}") for name, case in cases.items()]


# A reviewer comments on and approves content; of the tenancy resources it changes nothing.
REVIEWER_FORBIDDEN = {**VIEWER_FORBIDDEN, **EDITOR_FORBIDDEN}


@pytest.mark.parametrize(("role", "case"), _matrix("viewer", VIEWER_FORBIDDEN) + _matrix("editor", EDITOR_FORBIDDEN) + _matrix("reviewer", REVIEWER_FORBIDDEN))
def test_a_role_below_its_need_gets_permission_denied_and_changes_nothing(world, as_user, role, case):
    before = snapshot(world.tenant.account)

    response = call(as_user(world.tenant.user(role)), case, world.ids())

    assert response.status_code == 403, response.content
    body = response.json()
    assert body["success"] is False
    assert body["code"] == "permission_denied"
    assert body["error"] == "Permission denied"
    assert body["request_id"] == response["X-Request-ID"]
    assert snapshot(world.tenant.account) == before


@pytest.mark.parametrize(("role", "case"), _matrix("owner", MANAGER_ALLOWED) + _matrix("admin", MANAGER_ALLOWED))
def test_owners_and_admins_may_do_what_the_lower_roles_may_not(world, as_user, role, case):
    before = snapshot(world.tenant.account)

    response = call(as_user(world.tenant.user(role)), case, world.ids())

    assert response.status_code == case.success, response.content
    if case.method != "GET":
        assert snapshot(world.tenant.account) != before


READS = ["/sites/", "/sectors/", "/users/", "/groups/", "/plans/", "/industries/", "/account/", "/accounts/", "/subscriptions/", "/me/"]


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer", "reviewer"])
@pytest.mark.parametrize("path", READS)
def test_every_role_may_read_the_shared_resources(world, as_user, role, path):
    assert as_user(world.tenant.user(role)).get(API + path).status_code == 200


# Site visibility -------------------------------------------------------------------------------


@pytest.fixture
def two_sites(tenant, industry_sector):
    """The tenant's site plus a second one, each with a sector; nobody has grants yet."""
    second = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")
    first_sector = Sector.objects.create(account=tenant.account, site=tenant.site, industry_sector=industry_sector, name="first")
    second_sector = Sector.objects.create(account=tenant.account, site=second, industry_sector=industry_sector, name="second")
    return add_reviewer(tenant), second, first_sector, second_sector


def _listed_ids(client, path) -> list[int]:
    response = client.get(f"{API}{path}")
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


@pytest.mark.parametrize("role", ["editor", "viewer", "reviewer"])
def test_without_grants_editors_and_viewers_see_no_site(two_sites, as_user, role):
    tenant, second, first_sector, _ = two_sites
    client = as_user(tenant.user(role))

    assert _listed_ids(client, "/sites/") == []
    assert _listed_ids(client, "/sectors/") == []
    assert client.get(f"{API}/sites/{tenant.site.pk}/").status_code == 404
    assert client.get(f"{API}/sectors/{first_sector.pk}/").status_code == 404
    assert client.get(f"{API}/sites/{tenant.site.pk}/").json()["code"] == "not_found"


@pytest.mark.parametrize("granter", ["owner", "admin"])
@pytest.mark.parametrize("role", ["editor", "viewer", "reviewer"])
def test_a_grant_shows_editors_and_viewers_that_site_only(two_sites, as_user, role, granter):
    tenant, second, first_sector, second_sector = two_sites
    user = tenant.user(role)

    response = as_user(tenant.user(granter)).post(f"{API}/site-access/", {"user_id": user.pk, "site_id": second.pk}, format="json")
    assert response.status_code == 201, response.content

    client = as_user(user)
    assert _listed_ids(client, "/sites/") == [second.pk]
    assert _listed_ids(client, "/sectors/") == [second_sector.pk]
    assert client.get(f"{API}/sites/{second.pk}/").status_code == 200
    assert client.get(f"{API}/sectors/{second_sector.pk}/").status_code == 200
    assert client.get(f"{API}/sites/{tenant.site.pk}/").status_code == 404
    assert client.get(f"{API}/sectors/{first_sector.pk}/").status_code == 404
    # A filter on the hidden site just returns nothing.
    assert _listed_ids(client, f"/sectors/?site_id={tenant.site.pk}") == []


@pytest.mark.parametrize("role", ["editor", "viewer", "reviewer"])
def test_revoking_the_grant_hides_the_site_again(two_sites, as_user, role):
    tenant, second, _, _ = two_sites
    grant = services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.user(role), site=second)
    assert _listed_ids(as_user(tenant.user(role)), "/sites/") == [second.pk]

    assert as_user(tenant.owner).delete(f"{API}/site-access/{grant.pk}/").status_code == 204

    assert _listed_ids(as_user(tenant.user(role)), "/sites/") == []


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_owners_and_admins_see_every_site_of_their_account_only(two_sites, other_tenant, as_user, role):
    tenant, second, first_sector, second_sector = two_sites
    client = as_user(tenant.user(role))

    assert _listed_ids(client, "/sites/") == [tenant.site.pk, second.pk]
    assert _listed_ids(client, "/sectors/") == [first_sector.pk, second_sector.pk]
    assert client.get(f"{API}/sites/{second.pk}/").status_code == 200
    assert client.get(f"{API}/sites/{other_tenant.site.pk}/").status_code == 404


# Owner guards ---------------------------------------------------------------------------------


def test_an_admin_cannot_create_an_owner(tenant, as_user):
    _upgrade(tenant)
    response = as_user(tenant.admin).post(
        f"{API}/users/", {"email": "boss@example.com", "password": "long-enough-1", "role": "owner"}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert not User.dangerously_unscoped.filter(email="boss@example.com").exists()


def test_an_owner_can_create_another_owner(tenant, as_user):
    _upgrade(tenant)
    response = as_user(tenant.owner).post(
        f"{API}/users/", {"email": "boss@example.com", "password": "long-enough-1", "role": "owner"}, format="json"
    )

    assert response.status_code == 201, response.content
    assert User.objects.for_account(tenant.account).get(email="boss@example.com").role_name == RoleName.OWNER


OWNER_TOUCHES = {
    "rename": ("PATCH", {"first_name": "Renamed"}),
    "replace": ("PUT", {"first_name": "Renamed", "last_name": "Renamed"}),
    "demote": ("PATCH", {"role": "admin"}),
    "deactivate": ("PATCH", {"is_active": False}),
    "delete": ("DELETE", None),
}


@pytest.mark.parametrize(("method", "body"), OWNER_TOUCHES.values(), ids=OWNER_TOUCHES.keys())
def test_an_admin_cannot_change_deactivate_or_delete_an_owner(tenant, as_user, method, body):
    before = snapshot(tenant.account)

    response = getattr(as_user(tenant.admin), method.lower())(f"{API}/users/{tenant.owner.pk}/", body, format="json")

    assert response.status_code == 403, response.content
    assert response.json()["code"] == "permission_denied"
    assert snapshot(tenant.account) == before


def test_an_admin_cannot_promote_a_user_to_owner(tenant, as_user):
    response = as_user(tenant.admin).patch(f"{API}/users/{tenant.editor.pk}/", {"role": "owner"}, format="json")

    assert response.status_code == 403
    tenant.editor.refresh_from_db()
    assert tenant.editor.role_name == RoleName.EDITOR


@pytest.mark.parametrize(("method", "body"), OWNER_TOUCHES.values(), ids=OWNER_TOUCHES.keys())
def test_an_owner_can_change_deactivate_or_delete_another_owner(tenant, as_user, method, body):
    co_owner = _co_owner(tenant)

    response = getattr(as_user(tenant.owner), method.lower())(f"{API}/users/{co_owner.pk}/", body, format="json")

    assert response.status_code == (204 if method == "DELETE" else 200), response.content
    if method == "DELETE":
        assert not User.dangerously_unscoped.filter(pk=co_owner.pk).exists()
    else:
        co_owner.refresh_from_db()
        assert (co_owner.first_name, co_owner.role_name, co_owner.is_active) != ("", RoleName.OWNER, True)


LAST_OWNER_CHANGES = {
    "demote": ("PATCH", {"role": "admin"}, "role"),
    "deactivate": ("PATCH", {"is_active": False}, "is_active"),
    "delete": ("DELETE", None, "user"),
}


@pytest.mark.parametrize(("method", "body", "field"), LAST_OWNER_CHANGES.values(), ids=LAST_OWNER_CHANGES.keys())
def test_the_last_owner_cannot_be_demoted_deactivated_or_deleted(tenant, as_user, method, body, field):
    before = snapshot(tenant.account)

    response = getattr(as_user(tenant.owner), method.lower())(f"{API}/users/{tenant.owner.pk}/", body, format="json")

    assert response.status_code == 409, response.content
    assert response.json()["code"] == "conflict"
    assert field in response.json()["errors"]
    assert snapshot(tenant.account) == before


def test_an_owner_with_a_co_owner_may_step_down(tenant, as_user):
    _co_owner(tenant)

    response = as_user(tenant.owner).patch(f"{API}/users/{tenant.owner.pk}/", {"role": "admin"}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["data"]["role"] == "admin"


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_nobody_can_delete_or_deactivate_themselves(tenant, as_user, role):
    _co_owner(tenant)  # so that the owner case is about "themselves", not "the last owner"
    user = tenant.user(role)
    client = as_user(user)

    deleted = client.delete(f"{API}/users/{user.pk}/")
    deactivated = client.patch(f"{API}/users/{user.pk}/", {"is_active": False}, format="json")

    assert deleted.status_code == 409
    assert deleted.json()["errors"] == {"user": ["This user cannot be deleted"]}
    assert deactivated.status_code == 409
    assert deactivated.json()["errors"] == {"is_active": ["This user cannot be deactivated"]}
    user.refresh_from_db()
    assert user.is_active


# Site-bound API keys --------------------------------------------------------------------------


def _api_key_client(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"ApiKey {raw_key}")
    return client


def test_a_site_bound_api_key_only_sees_its_site(two_sites, other_tenant):
    tenant, second, first_sector, second_sector = two_sites
    _, raw_key = services.api_key_create(account=tenant.account, user=tenant.owner, name="bound", site=second)
    client = _api_key_client(raw_key)

    assert _listed_ids(client, "/sites/") == [second.pk]
    assert _listed_ids(client, "/sectors/") == [second_sector.pk]
    assert client.get(f"{API}/sites/{second.pk}/").status_code == 200
    assert client.get(f"{API}/sites/{tenant.site.pk}/").status_code == 404
    assert client.get(f"{API}/sectors/{first_sector.pk}/").status_code == 404
    assert client.get(f"{API}/sites/{other_tenant.site.pk}/").status_code == 404
    # A site-bound key changes no site records at all (api_key_may_write), its own or another.
    assert client.patch(f"{API}/sites/{tenant.site.pk}/", {"name": "x"}, format="json").status_code == 403
    assert client.patch(f"{API}/sites/{second.pk}/", {"name": "x"}, format="json").status_code == 403
    response = client.post(
        f"{API}/sectors/", {"site_id": tenant.site.pk, "industry_sector_id": first_sector.industry_sector_id}, format="json"
    )
    assert response.status_code == 403


def test_an_unbound_api_key_sees_what_its_creator_sees(two_sites):
    tenant, second, _, _ = two_sites
    _, owner_key = services.api_key_create(account=tenant.account, user=tenant.owner, name="owner")

    assert _listed_ids(_api_key_client(owner_key), "/sites/") == [tenant.site.pk, second.pk]


def test_an_api_key_acts_with_its_creators_role(two_sites):
    tenant, second, _, _ = two_sites
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.viewer, site=second)
    _, viewer_key = services.api_key_create(account=tenant.account, user=tenant.viewer, name="viewer")
    client = _api_key_client(viewer_key)

    assert _listed_ids(client, "/sites/") == [second.pk]
    response = client.patch(f"{API}/sites/{second.pk}/", {"name": "x"}, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


# Helpers ---------------------------------------------------------------------------------------


def _upgrade(tenant, plan="scale"):
    Subscription.objects.for_account(tenant.account).update(plan=Plan.objects.get(slug=plan))


def _co_owner(tenant) -> User:
    return User.dangerously_unscoped.create_user(
        f"co-owner-{tenant.account.pk}@example.com", "correct-horse-1", account=tenant.account, role=Role.objects.get(name=RoleName.OWNER)
    )
