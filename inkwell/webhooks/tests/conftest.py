import pytest

from inkwell.webhooks.tests.receiver import webhook_receiver


@pytest.fixture
def loopback_allowed(settings):
    """Webhook URLs on loopback pass the address guard (as with CMS_ALLOW_PRIVATE_URLS=true)."""
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}
    return settings


@pytest.fixture
def fast_webhooks(settings):
    """A one-second timeout, so that a receiver that times out costs the test one second."""
    settings.INKWELL_WEBHOOKS = {**settings.INKWELL_WEBHOOKS, "TIMEOUT_SECONDS": 1}
    return settings


@pytest.fixture
def receiver(loopback_allowed):
    with webhook_receiver() as state:
        yield state
