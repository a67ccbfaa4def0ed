"""services.site_access_grant and api_key_create."""

import hashlib

import pytest

from inkwell.api.exceptions import Conflict
from inkwell.tenancy import api_keys, services
from inkwell.tenancy.models import ApiKey, SiteUserAccess

pytestmark = pytest.mark.django_db


# Site access ----------------------------------------------------------------------------------


def test_a_grant_records_who_granted_it(tenant):
    grant = services.site_access_grant(account=tenant.account, actor=tenant.admin, user=tenant.editor, site=tenant.site)

    grant = SiteUserAccess.objects.for_account(tenant.account).get(pk=grant.pk)
    assert (grant.user, grant.site, grant.granted_by, grant.account) == (tenant.editor, tenant.site, tenant.admin, tenant.account)


def test_granting_the_same_site_twice_is_a_conflict(tenant):
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.viewer, site=tenant.site)

    with pytest.raises(Conflict) as raised:
        services.site_access_grant(account=tenant.account, actor=tenant.admin, user=tenant.viewer, site=tenant.site)

    assert raised.value.status_code == 409
    assert raised.value.errors == {"site_id": ["This user already has access to this site"]}
    grants = list(SiteUserAccess.objects.for_account(tenant.account).filter(user=tenant.viewer))
    assert len(grants) == 1
    assert grants[0].granted_by == tenant.owner


def test_the_same_site_may_be_granted_to_several_users(tenant):
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.viewer, site=tenant.site)
    services.site_access_grant(account=tenant.account, actor=tenant.owner, user=tenant.editor, site=tenant.site)

    assert SiteUserAccess.objects.for_account(tenant.account).filter(site=tenant.site).count() == 2


# API keys -------------------------------------------------------------------------------------


def test_api_key_create_returns_the_raw_key_once_and_stores_only_its_sha256(tenant):
    key, raw_key = services.api_key_create(account=tenant.account, user=tenant.admin, name="CMS", site=tenant.site)

    stored = ApiKey.objects.for_account(tenant.account).get(pk=key.pk)
    assert stored.key_hash == hashlib.sha256(raw_key.encode()).hexdigest()
    assert raw_key.startswith(f"{stored.prefix}.")
    assert len(raw_key) > len(stored.prefix) + 30
    assert (stored.name, stored.user, stored.site, stored.last_used_at) == ("CMS", tenant.admin, tenant.site, None)
    # The secret part is in no column of the row.
    secret = raw_key.partition(".")[2]
    row = ApiKey.objects.for_account(tenant.account).filter(pk=key.pk).values().get()
    assert not any(secret in str(value) for value in row.values())
    assert not hasattr(stored, "key")


def test_each_api_key_is_different(tenant):
    keys = [services.api_key_create(account=tenant.account, user=tenant.owner, name=f"k{n}") for n in range(3)]

    assert len({raw for _, raw in keys}) == 3
    assert len({key.prefix for key, _ in keys}) == 3


def test_an_account_wide_key_has_no_site(tenant):
    key, _ = services.api_key_create(account=tenant.account, user=tenant.owner, name="everything")

    assert ApiKey.objects.for_account(tenant.account).get(pk=key.pk).site is None


def test_the_raw_key_finds_its_row_and_nothing_else_does(tenant):
    key, raw_key = services.api_key_create(account=tenant.account, user=tenant.owner, name="CMS")
    prefix = raw_key.partition(".")[0]

    assert api_keys.find_active_key(raw_key) == key
    assert api_keys.find_active_key(f"{prefix}.wrong-secret") is None
    assert api_keys.find_active_key(prefix) is None
    assert api_keys.find_active_key(key.key_hash) is None


def test_a_deactivated_creator_disables_the_key(tenant):
    _, raw_key = services.api_key_create(account=tenant.account, user=tenant.editor, name="CMS")

    services.user_update(user=tenant.editor, actor=tenant.admin, is_active=False)

    assert api_keys.find_active_key(raw_key) is None
