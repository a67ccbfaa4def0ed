import pytest

from inkwell.tenancy.models import Site, SiteUserAccess


@pytest.fixture
def second_site(tenant):
    """Another site of the tenant, which the editor and the viewer are not granted."""
    return Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")


@pytest.fixture
def granted(tenant):
    """The editor and the viewer may work on the tenant's site."""
    for user in (tenant.editor, tenant.viewer):
        SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return tenant
