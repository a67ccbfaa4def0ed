import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY
from inkwell.billing import services as billing
from inkwell.billing.tests.ledger import balance_of
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


@pytest.fixture
def funded(tenant):
    """``funded(n)``: the tenant's account holding exactly ``n`` credits."""

    def fund(credits: int):
        balance = balance_of(tenant.account)
        if credits > balance:
            billing.grant(tenant.account, credits - balance, description="test funds")
        elif credits < balance:
            billing.spend(tenant.account, "linking", balance - credits, description="test drain")
        return tenant.account

    return fund


@pytest.fixture
def openai_provider(settings, openai_server):
    """The operator's text provider is the OpenAI-compatible test server."""
    settings.INKWELL_AI = {**settings.INKWELL_AI, "PROVIDER": "openai", "BASE_URL": openai_server.base_url, "API_KEY": TEST_API_KEY, "TIMEOUT_SECONDS": 5}
    return openai_server
