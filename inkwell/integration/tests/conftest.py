import socket

import pytest

from inkwell.integration.tests.factories import make_integration, make_site


@pytest.fixture
def second_site(tenant):
    """Another site of the tenant, that the editor and the viewer are not granted."""
    return make_site(tenant, name="Second")


@pytest.fixture
def cms_integration(tenant, cms_server, allow_private_cms):
    """The tenant's site connected (untested) to the WordPress-faithful test server."""
    return make_integration(tenant, base_url=cms_server.url, username=cms_server.user, app_password=cms_server.app_password)


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
