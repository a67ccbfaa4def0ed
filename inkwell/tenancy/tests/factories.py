"""Objects of one account for the cross-account matrix (tests/test_cross_account_matrix.py).

Every domain app that owns account-scoped models lists a factory per model in
``CROSS_ACCOUNT_FACTORIES``; the matrix finds this module by its name. A factory receives the
account under attack and a unique marker, and puts the marker into a text field so that a
leak of the object into any response body can be seen.
"""

from inkwell.tenancy import services
from inkwell.tenancy.models import Account, ApiKey, IndustrySector, Role, RoleName, Sector, Site, SiteUserAccess, Subscription, User


def _user(tenant, marker: str) -> User:
    return User.dangerously_unscoped.create_user(
        f"{marker}@example.com", "correct-horse-1", account=tenant.account, role=Role.objects.get(name=RoleName.EDITOR)
    )


def _sector(tenant, marker: str) -> Sector:
    unused = IndustrySector.objects.exclude(pk__in=tenant.site.sectors.values("industry_sector_id")).first()
    return Sector.objects.create(account=tenant.account, site=tenant.site, industry_sector=unused, name=marker)


def _site_access(tenant, marker: str) -> SiteUserAccess:
    return SiteUserAccess.objects.create(account=tenant.account, user=_user(tenant, marker), site=tenant.site)


def _api_key(tenant, marker: str) -> ApiKey:
    key, _ = services.api_key_create(account=tenant.account, user=tenant.owner, name=marker)
    return key


def _site(tenant, marker: str) -> Site:
    tenant.site.name = marker
    tenant.site.save(update_fields=["name"])
    return tenant.site


def _account(tenant, marker: str) -> Account:
    tenant.account.name = marker
    tenant.account.save(update_fields=["name"])
    return tenant.account


def _subscription(tenant, marker: str) -> Subscription:
    _account(tenant, marker)
    return tenant.account.subscription


CROSS_ACCOUNT_FACTORIES = {
    Account: _account,
    Subscription: _subscription,
    User: _user,
    Site: _site,
    Sector: _sector,
    SiteUserAccess: _site_access,
    ApiKey: _api_key,
}
