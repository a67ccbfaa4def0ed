"""What every CMS adapter does the same way over HTTP, whatever the CMS's own API looks like.

- One client per adapter that never follows a redirect and connects only where ``netguard``
  allows (``guarded_transport`` checks the very address each connection goes to).
- Every answer is read whole, within ``MAX_ANSWER_BYTES`` and the adapter's timeout (a server that
  trickles bytes out must still finish within it), and its body is parsed once, when first asked.
- A request that gets no answer becomes the matching ``CMSError`` (refused address, timeout,
  unreachable); a CMS's own reason for a refusal is passed on as short plain text with the
  adapter's secrets masked; a redirect is named by its origin only (the rest could carry tokens).

Each adapter adds what is its CMS's own: its routes, its error bodies, its status mapping.
"""

from __future__ import annotations

import html
import json
import logging
import re
import time
from functools import cached_property
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx2

from inkwell import netguard
from inkwell.cms.base import CMSAdapter, CMSAddressNotAllowed, CMSError, CMSTimeout, CMSUnreachable

logger = logging.getLogger("inkwell.cms")

MESSAGE_LIMIT = 200
MAX_ANSWER_BYTES = 32 * 1024 * 1024
USER_AGENT = "Inkwell (+CMS integration)"
TAG = re.compile(r"<[^>]*>")


def site_root(base_url: str) -> str:
    """The site's address without a trailing slash, a query, a fragment or user info (which
    would travel in every URL, and into httpx2's request log)."""
    parts = urlsplit(base_url.strip())
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


class Answer:
    """A whole answer, read within the size limit; its body is parsed once, when first asked.
    ``not_json`` is the message of the error raised when a caller needs JSON and gets none."""

    _NOT_JSON = object()
    not_json = "The address did not answer as the CMS's API"

    def __init__(self, status: int, headers: httpx2.Headers, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    @cached_property
    def _parsed(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8-sig"))
        except ValueError:
            return self._NOT_JSON

    def is_json(self) -> bool:
        return self._parsed is not self._NOT_JSON

    def json(self) -> Any:
        if not self.is_json():
            raise CMSError(self.not_json, status=self.status)
        return self._parsed


class HttpCMSAdapter(CMSAdapter):
    """An adapter that talks HTTP to its CMS. Subclasses set ``answer_class`` and
    ``_secrets`` (what must never appear in a message) and build their requests on ``_send``."""

    answer_class: type[Answer] = Answer

    def __init__(self, base_url: str, *, timeout: float, allow_private: bool, headers: dict[str, str], auth: tuple[str, str] | None = None):
        self._base_url = base_url
        self._allow_private = allow_private
        self._timeout = timeout
        self._client = httpx2.Client(
            transport=netguard.guarded_transport(allow_private=allow_private),
            auth=auth,
            timeout=httpx2.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json", **headers},
        )

    def close(self) -> None:
        self._client.close()

    def _secrets(self) -> set[str]:
        return set()

    def _send(self, method: str, url: str, route: str, **kwargs) -> Answer:
        kwargs = {name: value for name, value in kwargs.items() if value is not None}
        try:
            netguard.check_url(url, allow_private=self._allow_private)
            with self._client.stream(method, url, **kwargs) as response:
                # The timeout bounds each wait for bytes; a server that trickles them out must
                # still finish the whole answer within it too.
                deadline = time.monotonic() + self._timeout
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_ANSWER_BYTES:
                        raise CMSError("The CMS answer is too large")
                    if time.monotonic() > deadline:
                        raise httpx2.ReadTimeout("The answer took too long", request=response.request)
                return self.answer_class(response.status_code, response.headers, bytes(body))
        except netguard.AddressNotAllowed as error:
            logger.warning("%s %s %s refused: %s", self.platform, method, route, error)
            raise CMSAddressNotAllowed(CMSAddressNotAllowed.private_message if error.private else None) from error
        except httpx2.TimeoutException as error:
            logger.warning("%s %s %s timed out (%s)", self.platform, method, route, type(error).__name__)
            raise CMSTimeout() from error
        except httpx2.TransportError as error:
            logger.warning("%s %s %s failed (%s)", self.platform, method, route, type(error).__name__)
            raise CMSUnreachable() from error
        except httpx2.HTTPError as error:
            logger.warning("%s %s %s failed (%s)", self.platform, method, route, type(error).__name__)
            raise CMSError() from error

    def _reason(self, message: str) -> str:
        """The CMS's reason as safe, short plain text, with none of the adapter's secrets in it."""
        text = " ".join(html.unescape(TAG.sub("", message)).split())
        for secret in self._secrets() - {""}:
            text = text.replace(secret, "***")
        return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1].rstrip() + "…"

    def _redirect_message(self, answer: Answer) -> str:
        try:
            target = urlsplit(urljoin(f"{self._base_url}/", answer.headers.get("Location", "")))
            scheme, host, port = target.scheme, target.hostname, target.port
        except ValueError:
            scheme, host, port = "", None, None
        if scheme in netguard.SCHEMES and host:
            # Where to, as an origin only: the rest of the URL could carry tokens.
            origin = f"{scheme}://{f'[{host}]' if ':' in host else host}" + (f":{port}" if port else "")
            return f"The CMS redirects to {origin}; redirects are not followed, so enter the address it redirects to"
        return "The CMS answered with a redirect, which is not followed"
