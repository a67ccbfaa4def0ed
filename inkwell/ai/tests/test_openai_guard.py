"""The openai provider's calls pass the CMS's address guard (``inkwell.netguard``): the address is
checked before a call and on every connection, and no redirect is followed."""

import socket

import pytest

from inkwell import settings as configured
from inkwell.ai.errors import ProviderUnavailable
from inkwell.ai.providers import default_image_config, default_text_config
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.openai import ADDRESS_NOT_ALLOWED, OpenAITextProvider
from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour
from inkwell.ai.tests.test_openai_transport import closed_port_url
from inkwell.ai.types import KeywordInput

KEYWORDS = [KeywordInput(1, "tomato seeds"), KeywordInput(2, "rose pruning")]


def provider(base_url: str, *, allow_private: bool) -> OpenAITextProvider:
    return OpenAITextProvider(
        ProviderConfig(provider="openai", base_url=base_url, api_key=TEST_API_KEY, model="gpt-4o-mini", max_retries=2, timeout_seconds=5, allow_private=allow_private)
    )


def test_private_endpoints_are_refused_unless_the_operator_allows_them(settings):
    assert configured.INKWELL_AI["ALLOW_PRIVATE_ENDPOINTS"] is False
    assert (default_text_config().allow_private, default_image_config().allow_private) == (False, False)
    settings.INKWELL_AI = {**settings.INKWELL_AI, "ALLOW_PRIVATE_ENDPOINTS": True}
    assert (default_text_config().allow_private, default_image_config().allow_private) == (True, True)


def test_a_loopback_endpoint_is_refused_before_any_connection(openai_server):
    with pytest.raises(ProviderUnavailable) as raised:
        provider(openai_server.base_url, allow_private=False).cluster_keywords(KEYWORDS, prompt="Cluster")

    assert raised.value.message == ADDRESS_NOT_ALLOWED
    assert openai_server.requests == []


@pytest.mark.parametrize("address", ["169.254.169.254", "[fe80::1]", "[::ffff:169.254.169.254]"])
def test_a_link_local_endpoint_is_refused_even_with_private_endpoints_allowed(address):
    with pytest.raises(ProviderUnavailable) as raised:
        provider(f"http://{address}/v1", allow_private=True).cluster_keywords(KEYWORDS, prompt="Cluster")

    assert raised.value.message == ADDRESS_NOT_ALLOWED


def test_a_name_that_resolves_to_loopback_after_the_check_gets_no_connection(openai_server, monkeypatch):
    """DNS rebinding: the check sees a public address, the connection would go to loopback."""
    port = openai_server.base_url.rsplit(":", 1)[1].split("/", 1)[0]
    real_getaddrinfo = socket.getaddrinfo
    lookups = []

    def getaddrinfo(host, port_number, *args, **kwargs):
        if host != "llm.rebind.test":
            return real_getaddrinfo(host, port_number, *args, **kwargs)
        lookups.append(host)
        address = "93.184.216.34" if len(lookups) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port_number or 0))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    with pytest.raises(ProviderUnavailable) as raised:
        provider(f"http://llm.rebind.test:{port}/v1", allow_private=False).cluster_keywords(KEYWORDS, prompt="Cluster")

    assert raised.value.message == ADDRESS_NOT_ALLOWED
    assert len(lookups) == 2  # the check, then the connection, which was refused (not retried)
    assert openai_server.requests == []


def test_a_redirect_is_not_followed(openai_server):
    openai_server.script("chat", [Behaviour.redirect(f"{openai_server.base_url}/chat/completions")])

    with pytest.raises(ProviderUnavailable) as raised:
        provider(openai_server.base_url, allow_private=True).cluster_keywords(KEYWORDS, prompt="Cluster")

    assert raised.value.message == "The AI provider returned an error (HTTP 307)"
    assert len(openai_server.requests_to("chat")) == 1


def test_the_key_test_says_a_private_address_is_refused_before_connecting(openai_server):
    """Open port or closed, the answer is the same, and no connection was made: the key test
    cannot be used to scan this server's network."""
    open_port = provider(openai_server.base_url, allow_private=False).test_key()
    closed_port = provider(closed_port_url(), allow_private=False).test_key()

    assert (open_port.valid, open_port.detail) == (closed_port.valid, closed_port.detail) == (False, ADDRESS_NOT_ALLOWED)
    assert openai_server.requests == []
