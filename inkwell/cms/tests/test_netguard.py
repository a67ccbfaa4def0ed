"""``inkwell.netguard``: which addresses an account's URL may reach."""

from __future__ import annotations

import ipaddress
import socket

import httpx2
import pytest

from inkwell import netguard
from inkwell.netguard import AddressNotAllowed, check_url


@pytest.fixture
def resolver(monkeypatch):
    """``resolver({"name": ["address", ...]})``: what host names resolve to, without DNS."""

    def install(table: dict[str, list[str]]):
        def getaddrinfo(host, port, *args, **kwargs):
            try:
                addresses = [str(ipaddress.ip_address(host))]  # a literal, as the real resolver
            except ValueError:
                if host not in table:
                    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
                addresses = table[host]
            return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port or 0)) for a in addresses]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    return install


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",  # cloud metadata: link-local
        "http://[fe80::1]/",
        "http://224.0.0.1/",  # multicast
        "http://0.0.0.0:8000/",  # unspecified: the local machine
        "http://[::]/",
        "http://240.0.0.1/",  # reserved
        "http://[::ffff:169.254.169.254]/",  # IPv4-mapped link-local
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    ],
)
def test_link_local_multicast_unspecified_and_reserved_addresses_are_always_refused(url):
    with pytest.raises(AddressNotAllowed):
        check_url(url, allow_private=True)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://[::1]/",
        "http://10.1.2.3/",
        "http://172.16.0.5/",
        "https://192.168.1.10/blog",
        "http://[fd12:3456::1]/",
        "http://100.64.0.1/",  # carrier-grade NAT: not global
        "http://[::ffff:127.0.0.1]/",
    ],
)
def test_private_and_loopback_addresses_are_refused_unless_allowed(url):
    with pytest.raises(AddressNotAllowed):
        check_url(url, allow_private=False)
    check_url(url, allow_private=True)


@pytest.mark.parametrize("url", ["https://93.184.216.34/", "http://[2606:4700::1]:8080/wp", "https://8.8.8.8"])
def test_public_addresses_are_allowed(url):
    check_url(url, allow_private=False)


@pytest.mark.parametrize("url", ["ftp://93.184.216.34/", "file:///etc/passwd", "gopher://example.com/", "javascript:alert(1)", "//example.com/", "http:///path", "http://exa mple.com/", "http://[::1/"])
def test_only_well_formed_http_and_https_urls_pass(url):
    with pytest.raises(AddressNotAllowed):
        check_url(url, allow_private=True)


def test_a_name_is_judged_by_every_address_it_resolves_to(resolver):
    resolver({"public.example.com": ["93.184.216.34"], "mixed.example.com": ["93.184.216.34", "10.0.0.7"], "meta.example.com": ["169.254.169.254"]})
    check_url("https://public.example.com/", allow_private=False)
    with pytest.raises(AddressNotAllowed):
        check_url("https://mixed.example.com/", allow_private=False)
    check_url("https://mixed.example.com/", allow_private=True)
    with pytest.raises(AddressNotAllowed):
        check_url("https://meta.example.com/", allow_private=True)


def test_a_name_that_does_not_resolve_passes_since_nothing_can_reach_it(resolver):
    resolver({})
    check_url("https://nowhere.invalid/", allow_private=False)
    assert netguard.resolve("nowhere.invalid") == []


def test_resolve_reads_literals_and_drops_repeats(resolver):
    resolver({"twice.example.com": ["93.184.216.34", "93.184.216.34", "2606:4700::1"]})
    assert netguard.resolve("[fe80::1%eth0]") == [ipaddress.ip_address("fe80::1")]
    assert netguard.resolve("10.0.0.1") == [ipaddress.ip_address("10.0.0.1")]
    assert netguard.resolve("twice.example.com") == [ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("2606:4700::1")]


def test_the_guarded_transport_checks_the_address_it_connects_to(cms_server):
    """The URL may have been checked when the name resolved elsewhere: the connection decides."""
    with httpx2.Client(transport=netguard.guarded_transport(allow_private=False)) as client, pytest.raises(AddressNotAllowed):
        client.get(f"{cms_server.url}/wp-json/")
    with httpx2.Client(transport=netguard.guarded_transport(allow_private=True)) as client:
        assert client.get(f"{cms_server.url}/wp-json/").status_code == 200
    assert len(cms_server.requests) == 1


def test_the_guarded_transport_connects_to_the_address_it_checked(cms_server, resolver):
    port = cms_server.url.rsplit(":", 1)[1]
    resolver({"cms.example.test": ["127.0.0.1"]})
    with httpx2.Client(transport=netguard.guarded_transport(allow_private=True)) as client:
        response = client.get(f"http://cms.example.test:{port}/wp-json/")
    assert response.json()["name"] == cms_server.site_name
