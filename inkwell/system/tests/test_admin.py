"""Staff see every account's system settings in the admin, API keys only masked, and cannot edit
them there (the API validates every value)."""

import pytest

from inkwell.system import services
from inkwell.system.models import IntegrationSettings, ModuleSetting
from inkwell.tenancy.models import User

KEY = "sk-account-key-0123456789QzXq"
ADMIN = "/admin/system"

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    client.force_login(User.dangerously_unscoped.create_superuser("ops@example.com", "a long operator password"))
    return client


@pytest.fixture
def saved(tenant, other_tenant):
    services.integration_settings_save(
        account=tenant.account, integration_type="ai_provider", user=tenant.owner, values={"provider": "openai", "api_key": KEY}
    )
    services.modules_save(account=other_tenant.account, modules={"planner": False})
    return IntegrationSettings.objects.for_account(tenant.account).get()


def test_staff_see_every_accounts_settings_with_the_key_masked(staff, saved, tenant, other_tenant):
    changelist = staff.get(f"{ADMIN}/integrationsettings/").content.decode()
    assert "…QzXq" in changelist
    detail = staff.get(f"{ADMIN}/integrationsettings/{saved.pk}/change/").content.decode()
    assert "…QzXq" in detail
    for body in (changelist, detail):
        assert KEY not in body
    assert str(other_tenant.account) in staff.get(f"{ADMIN}/modulesetting/").content.decode()


@pytest.mark.parametrize("model", ["integrationsettings", "contentsettings", "promptoverride", "modulesetting"])
def test_settings_cannot_be_added_in_the_admin(staff, model):
    assert staff.get(f"{ADMIN}/{model}/").status_code == 200
    assert staff.get(f"{ADMIN}/{model}/add/").status_code == 403


def test_settings_cannot_be_changed_in_the_admin_but_can_be_deleted(staff, saved, tenant):
    response = staff.post(f"{ADMIN}/integrationsettings/{saved.pk}/change/", {"provider": "local", "base_url": "https://elsewhere.example.com"})
    assert response.status_code == 403
    assert IntegrationSettings.objects.for_account(tenant.account).get().provider == "openai"
    staff.post(f"{ADMIN}/integrationsettings/{saved.pk}/delete/", {"post": "yes"})
    assert not IntegrationSettings.objects.for_account(tenant.account).exists()
    assert ModuleSetting.dangerously_unscoped.count() == 1
