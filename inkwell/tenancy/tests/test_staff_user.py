import pytest
from django.core.management import call_command

from inkwell.tenancy.models import User


@pytest.fixture
def staff_user(db, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_EMAIL", "ops@example.com")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a long operator password")
    call_command("createsuperuser", "--noinput", verbosity=0)
    return User.dangerously_unscoped.get(email="ops@example.com")


def test_createsuperuser_noinput_makes_a_staff_user_from_the_environment(staff_user):
    assert staff_user.is_staff and staff_user.is_superuser
    assert staff_user.check_password("a long operator password")
    assert staff_user.account_id is None


def test_staff_user_sees_every_accounts_sites_in_the_admin(staff_user, client, tenant, other_tenant):
    client.force_login(staff_user)
    response = client.get("/admin/tenancy/site/")
    assert response.status_code == 200
    body = response.content.decode()
    assert tenant.site.name in body and other_tenant.site.name in body


def test_staff_user_without_an_account_is_refused_by_tenant_endpoints(staff_user, as_user):
    response = as_user(staff_user).get("/api/v1/auth/sites/")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
