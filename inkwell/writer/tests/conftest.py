import uuid

import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY
from inkwell.billing import services as billing
from inkwell.billing.models import CreditLedger
from inkwell.tenancy.models import Site, SiteUserAccess
from inkwell.writer.tests.factories import make_sector, site_sector


@pytest.fixture(autouse=True)
def offline_ai(settings):
    """The operator's AI settings the writer tests start from: the offline local providers."""
    settings.INKWELL_AI = {**settings.INKWELL_AI, "PROVIDER": "local", "BASE_URL": "", "API_KEY": "", "IMAGE_PROVIDER": "local", "MAX_RETRIES": 0}


@pytest.fixture
def sector(tenant):
    return site_sector(tenant)


@pytest.fixture
def second_site(tenant):
    """Another site of the tenant, with a sector, that the editor and the viewer are not granted."""
    site = Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")
    make_sector(tenant, site)
    return site


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
        balance = CreditLedger.objects.for_account(tenant.account).get().balance
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


@pytest.fixture
def local_memory_cache(settings):
    """Rate-limit counters in local memory, so that a query count is the endpoint's own (the
    embedded profile keeps them in a database table)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"writer-{uuid.uuid4().hex}"}}
