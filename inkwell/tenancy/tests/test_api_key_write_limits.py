"""What a machine credential may change (inkwell.tenancy.permissions.api_key_may_write)."""

import pytest
from rest_framework.test import APIClient

from inkwell.api.exceptions import PlanLimitReached
from inkwell.tenancy import services
from inkwell.tenancy.models import ApiKey, IndustrySector, Sector, Site, User


def key_client(raw_key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"ApiKey {raw_key}")
    return client


@pytest.fixture
def second_site(big_tenant):
    return services.site_create(account=big_tenant.account, name="Second", domain="second.example.com")


@pytest.fixture
def site_key(big_tenant):
    _, raw_key = services.api_key_create(account=big_tenant.account, user=big_tenant.owner, name="cms", site=big_tenant.site)
    return key_client(raw_key)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/v1/auth/api-keys/", {"name": "escape"}),
        ("post", "/api/v1/auth/users/", {"email": "new-owner@example.com", "password": "long-enough", "role": "owner"}),
        ("post", "/api/v1/auth/sites/", {"name": "More", "domain": "more.example.com"}),
        ("put", "/api/v1/auth/account/", {"name": "Taken over"}),
        ("post", "/api/v1/auth/logout/", {}),
        ("post", "/api/v1/auth/password/change/", {"old_password": "correct-horse-1", "new_password": "another-one-1"}),
    ],
)
def test_a_site_bound_key_cannot_change_account_level_data(site_key, big_tenant, method, path, body):
    before = (ApiKey.objects.for_account(big_tenant.account).count(), User.objects.for_account(big_tenant.account).count())
    response = getattr(site_key, method)(path, body, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert (ApiKey.objects.for_account(big_tenant.account).count(), User.objects.for_account(big_tenant.account).count()) == before
    big_tenant.account.refresh_from_db()
    assert big_tenant.account.name == "Account a"


@pytest.mark.django_db
def test_a_site_bound_key_cannot_rename_its_own_site(site_key, big_tenant):
    response = site_key.patch(f"/api/v1/auth/sites/{big_tenant.site.pk}/", {"name": "Renamed"}, format="json")
    assert response.status_code == 403
    assert Site.objects.for_account(big_tenant.account).get(pk=big_tenant.site.pk).name == big_tenant.site.name


@pytest.mark.django_db
def test_a_site_bound_key_writes_rows_of_its_site_but_not_of_another(site_key, big_tenant, second_site):
    industry_sector = IndustrySector.objects.first()
    own = site_key.post("/api/v1/auth/sectors/", {"site_id": big_tenant.site.pk, "industry_sector_id": industry_sector.pk}, format="json")
    other = site_key.post("/api/v1/auth/sectors/", {"site_id": second_site.pk, "industry_sector_id": industry_sector.pk}, format="json")
    assert own.status_code == 201
    assert other.status_code == 403
    assert list(Sector.objects.for_account(big_tenant.account).values_list("site_id", flat=True)) == [big_tenant.site.pk]


@pytest.mark.django_db
def test_no_api_key_may_change_its_creators_password(big_tenant):
    _, raw_key = services.api_key_create(account=big_tenant.account, user=big_tenant.owner, name="unbound")
    response = key_client(raw_key).post(
        "/api/v1/auth/password/change/", {"old_password": "correct-horse-1", "new_password": "another-one-1"}, format="json"
    )
    assert response.status_code == 403
    big_tenant.owner.refresh_from_db()
    assert big_tenant.owner.check_password("correct-horse-1")


@pytest.mark.django_db
def test_an_unbound_key_manages_the_account_with_its_creators_role(big_tenant):
    _, raw_key = services.api_key_create(account=big_tenant.account, user=big_tenant.admin, name="ops")
    response = key_client(raw_key).post("/api/v1/auth/sites/", {"name": "More", "domain": "more.example.com"}, format="json")
    assert response.status_code == 201


@pytest.mark.django_db
def test_reactivating_a_user_respects_the_plan_user_limit(tenant):
    # The free plan allows 2 active users; the tenant has four, so none can come back once out.
    services.user_update(user=tenant.viewer, actor=tenant.owner, is_active=False)
    with pytest.raises(PlanLimitReached):
        services.user_update(user=tenant.viewer, actor=tenant.owner, is_active=True)
    tenant.viewer.refresh_from_db()
    assert tenant.viewer.is_active is False
