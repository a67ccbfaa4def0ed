"""The tenancy reads the console's team screens and the API's user answers share."""

import pytest

from inkwell.tenancy import selectors, services
from inkwell.tenancy.models import SiteUserAccess

pytestmark = pytest.mark.django_db


def test_account_members_are_the_accounts_people_only_with_their_site_grants(tenant, other_tenant):
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.editor, site=tenant.site)
    members = {user.email: user for user in selectors.account_members(tenant.account)}
    assert set(members) == {tenant.owner.email, tenant.admin.email, tenant.editor.email, tenant.viewer.email}
    assert [access.site_id for access in members[tenant.editor.email].site_access.all()] == [tenant.site.pk]
    with pytest.raises(type(tenant.owner).DoesNotExist):
        selectors.account_user(tenant.account, other_tenant.owner.pk)


def test_account_api_keys_are_the_accounts_keys_newest_first(tenant, other_tenant):
    older, _ = services.api_key_create(account=tenant.account, user=tenant.owner, name="older")
    newer, _ = services.api_key_create(account=tenant.account, user=tenant.admin, name="newer", site=tenant.site)
    services.api_key_create(account=other_tenant.account, user=other_tenant.owner, name="theirs")
    assert list(selectors.account_api_keys(tenant.account)) == [newer, older]
