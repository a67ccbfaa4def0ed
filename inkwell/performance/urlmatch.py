"""Matching the pages Search Console reports to a site's articles by their live address.

Two addresses name the same page when they differ only in the scheme (http/https), a ``www.``
prefix, the case of the host, a trailing slash, a default port, a fragment, or tracking
parameters (``utm_*``, ``gclid``, ``fbclid``). Beside an article's current address, the addresses
it was published at before (its publishing records: an old slug that the CMS now redirects) and
WordPress's short link ``?p=<post id>`` lead to it.
"""

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

TRACKING = ("utm_", "gclid", "fbclid", "msclkid")


def normalise_url(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip().lower()
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    path = unquote(parts.path).rstrip("/") or ""
    query = [(name, value) for name, value in parse_qsl(parts.query, keep_blank_values=True) if not name.lower().startswith(TRACKING)]
    return f"{host}{port}{path}" + (f"?{urlencode(sorted(query))}" if query else "")


def short_link_post_id(url: str) -> str | None:
    """The post id of a WordPress short link (``https://example.com/?p=123``), else None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.path.strip("/"):
        return None
    values = dict(parse_qsl(parts.query))
    post_id = values.get("p") or values.get("page_id")
    return post_id if post_id and post_id.isdigit() else None


class PageMatcher:
    """Finds the article of a reported page among a site's articles."""

    def __init__(self, *, current: dict[str, int], former: dict[str, int], by_post_id: dict[str, int]):
        self._by_url = {normalise_url(url): content_id for url, content_id in former.items()}
        self._by_url.update({normalise_url(url): content_id for url, content_id in current.items()})
        self._by_post_id = by_post_id

    def match(self, page: str) -> int | None:
        found = self._by_url.get(normalise_url(page))
        if found is None:
            post_id = short_link_post_id(page)
            found = self._by_post_id.get(post_id) if post_id else None
        return found
