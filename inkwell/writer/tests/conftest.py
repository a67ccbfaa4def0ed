import uuid

import pytest

from inkwell.writer.tests.factories import site_sector


@pytest.fixture(autouse=True)
def offline_ai(settings):
    """The operator's AI settings the writer tests start from: the offline local providers."""
    settings.INKWELL_AI = {**settings.INKWELL_AI, "PROVIDER": "local", "BASE_URL": "", "API_KEY": "", "IMAGE_PROVIDER": "local", "MAX_RETRIES": 0}


@pytest.fixture
def sector(tenant):
    return site_sector(tenant)


@pytest.fixture
def local_memory_cache(settings):
    """Rate-limit counters in local memory, so that a query count is the endpoint's own (the
    embedded profile keeps them in a database table)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": f"writer-{uuid.uuid4().hex}"}}
