"""Outbound requests to addresses that accounts choose (a CMS, an AI provider endpoint) must not
reach this server's own surroundings: no server-side request forgery.

The rules, for every address a host name resolves to:

- never a link-local (cloud metadata services live at 169.254.169.254), multicast, unspecified
  (``0.0.0.0`` reaches the local machine) or reserved address;
- a loopback, private-network or other non-global address (``10/8``, ``127/8``, ``100.64/10``,
  ``fc00::/7``, ...) only where the operator allows it (a CMS or a model server on the same
  machine or LAN, and the tests).

IPv6 addresses that carry an IPv4 address (``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4
``2002::/16``) are judged by that IPv4 address.

``check_url`` checks a URL before a request. A name can resolve differently a moment later (DNS
rebinding), so ``guarded_transport`` also checks, for the connections an httpx2 client opens, the
very address it connects to.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

import httpcore2
import httpx2

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

SCHEMES = ("http", "https")
NAT64_PREFIX = ipaddress.ip_network("64:ff9b::/96")


INVALID_URL = "Enter an http or https URL"
URL_WITH_USER_INFO = "A URL may not carry a user name or password"
INVALID_PORT = "Enter a port between 1 and 65535"


class AddressNotAllowed(ValueError):
    """The URL is not an http(s) URL, or its host is (or resolves to) an address not allowed.
    ``private``: refused only because it is private or loopback, which the operator may allow."""

    def __init__(self, message: str, *, private: bool = False):
        super().__init__(message)
        self.private = private


class InvalidURL(ValueError):
    """A URL an account may not give: its ``message`` is the field error to show."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


def check_url_shape(url: str) -> None:
    """Raise ``InvalidURL`` unless ``url`` is an http(s) URL with a host, no whitespace, no user
    information (it would travel in every request, and into the other side's logs) and, if it
    names one, a port from 1 to 65535."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # e.g. an unclosed IPv6 bracket
        raise InvalidURL(INVALID_URL) from None
    if parts.scheme not in SCHEMES or not host or any(char.isspace() for char in url):
        raise InvalidURL(INVALID_URL)
    if "@" in parts.netloc:
        raise InvalidURL(URL_WITH_USER_INFO)
    try:
        port = parts.port
    except ValueError:  # not a number, or above 65535
        raise InvalidURL(INVALID_PORT) from None
    if port == 0:
        raise InvalidURL(INVALID_PORT)


def _effective(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 address stands for, when it embeds one."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in NAT64_PREFIX:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if address.sixtofour is not None:
            return address.sixtofour
    return address


def resolve(host: str) -> list[IPAddress]:
    """The addresses ``host`` stands for, in resolver order without repeats: the address itself
    for an IP literal (brackets and an IPv6 zone allowed); an empty list when the name does not
    resolve from here (then no connection can be made to it either)."""
    literal = host.strip("[]").split("%", 1)[0]
    try:
        return [ipaddress.ip_address(literal)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def check_address(address: IPAddress, *, allow_private: bool) -> None:
    effective = _effective(address)
    # Loopback first: Python counts ::1 as reserved (it lies in ::/8).
    if not effective.is_loopback and (effective.is_link_local or effective.is_multicast or effective.is_unspecified or effective.is_reserved):
        raise AddressNotAllowed(f"The address {address} is not allowed")
    private = effective.is_private or effective.is_loopback or not effective.is_global
    if private and not allow_private:
        raise AddressNotAllowed(f"The private or loopback address {address} is not allowed", private=True)


def check_addresses(addresses: Iterable[IPAddress], *, allow_private: bool) -> None:
    for address in addresses:
        check_address(address, allow_private=allow_private)


def check_url(url: str, *, allow_private: bool) -> None:
    """Raise ``AddressNotAllowed`` unless ``url`` is an http(s) URL whose host is, or resolves
    only to, allowed addresses. A name that does not resolve passes: no request can reach it."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as error:
        raise AddressNotAllowed("The URL is not valid") from error
    if parts.scheme not in SCHEMES or not host or any(char.isspace() for char in url):
        raise AddressNotAllowed("Only http and https URLs are allowed")
    check_addresses(resolve(host), allow_private=allow_private)


class GuardedBackend(httpcore2.NetworkBackend):
    """Connects only to addresses ``check_address`` allows, and to the very address it checked."""

    def __init__(self, *, allow_private: bool, backend: httpcore2.NetworkBackend | None = None):
        self.allow_private = allow_private
        self._backend = backend or httpcore2.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        addresses = resolve(host)
        if not addresses:
            raise httpcore2.ConnectError(f"The host {host} does not resolve")
        check_addresses(addresses, allow_private=self.allow_private)
        error: Exception | None = None
        for address in addresses:
            try:
                return self._backend.connect_tcp(str(address), port, timeout=timeout, local_address=local_address, socket_options=socket_options)
            except httpcore2.ConnectError as failure:
                error = failure
        raise error

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise AddressNotAllowed("Unix sockets are not allowed")

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _GuardedTransport(httpx2.HTTPTransport):
    """httpx2's own transport, but for its connection pool's network backend, which the
    transport does not let a caller choose: ``handle_request`` and ``close`` use ``_pool``."""

    def __init__(self, *, allow_private: bool, limits: httpx2.Limits):
        self._pool = httpcore2.ConnectionPool(
            ssl_context=httpx2.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedBackend(allow_private=allow_private),
        )


def guarded_transport(*, allow_private: bool, limits: httpx2.Limits | None = None) -> httpx2.HTTPTransport:
    """An httpx2 transport that opens connections only to allowed addresses; a refused address
    raises ``AddressNotAllowed`` out of the client's request. Give the client ``trust_env=False``
    too: a proxy from the environment would be the address checked, not the destination (a
    client with its own transport uses no environment proxy anyway)."""
    return _GuardedTransport(allow_private=allow_private, limits=limits or httpx2.Limits(max_connections=10, max_keepalive_connections=5))
