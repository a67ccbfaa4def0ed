"""An in-memory WordPress for tests: the part of the WordPress REST API the adapter uses, on a real
socket on 127.0.0.1, with the shapes, statuses, headers and error bodies of WordPress 6.1.

The same adapter tests run against it and against a real WordPress (``test_wordpress_adapter``),
which keeps the two in step. What it serves:

- the REST index (``/wp-json/`` and ``/?rest_route=/``; ``pretty_permalinks=False`` answers
  ``/wp-json/...`` with the theme's 404 page, as WordPress does without pretty permalinks);
- ``users/me``, ``types``, ``types/{type}``; ``categories`` and ``tags`` (list, get, create with
  WordPress's ``term_exists`` rules); ``media`` (raw upload with Content-Disposition, get,
  update) and the uploaded files; ``posts`` (create, update, get, trash and delete, list with
  ``search``, ``status``, ``include``, ``per_page``/``page``, ``orderby``/``order``);
- ``context=view|edit``, ``_fields``, ``X-WP-Total``/``X-WP-TotalPages``, ``Location``.

Application passwords are checked as WordPress checks them (spaces ignored); wrong credentials
count as no credentials, so WordPress's 401 bodies for anonymous requests come back.

For assertions and failures::

    with WordPressTestServer() as server:
        server.fail_next(2, status=503)          # the next two requests fail
        server.fail_next(1, status=None, delay=3) # the next one answers after 3 s
        ...
        assert server.count("POST", "/wp/v2/posts") == 1
        assert server.posts[0]["status"] == "publish"

It is a real server, so other processes (a scheduler started by a test) can use it too.
"""

from __future__ import annotations

import base64
import html
import itertools
import json
import math
import re
import secrets
import string
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.loopback import LoopbackServer

TEST_USER = "admin"
ALPHANUMERIC = string.ascii_letters + string.digits
POST_STATUSES = ("publish", "future", "draft", "pending", "private")
ANY_STATUSES = POST_STATUSES  # ``status=any``: everything but the trash
PRETTY_LINK_STATUSES = ("publish", "private")
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S"
UNCATEGORIZED_ID = 1
# Extensions WordPress accepts by default (a subset of ``get_allowed_mime_types``), and the first
# bytes of the image types, which WordPress checks.
MIME_TYPES = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
    "pdf": "application/pdf",
    "txt": "text/plain",
}
IMAGE_SIGNATURES = {
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
ADMIN_CAPABILITIES = (
    "switch_themes edit_themes activate_plugins edit_plugins edit_users edit_files manage_options moderate_comments "
    "manage_categories manage_links upload_files import unfiltered_html edit_posts edit_others_posts edit_published_posts "
    "publish_posts edit_pages read level_10 level_9 level_8 level_7 level_6 level_5 level_4 level_3 level_2 level_1 level_0 "
    "edit_others_pages edit_published_pages publish_pages delete_pages delete_others_pages delete_published_pages delete_posts "
    "delete_others_posts delete_published_posts delete_private_posts edit_private_posts read_private_posts delete_private_pages "
    "edit_private_pages read_private_pages delete_users create_users unfiltered_upload edit_dashboard update_plugins "
    "delete_plugins install_plugins update_themes install_themes update_core list_users remove_users promote_users "
    "edit_theme_options delete_themes export administrator"
).split()
CRITICAL_ERROR = (
    '<p>There has been a critical error on this website.</p><p><a href="https://wordpress.org/documentation/article/'
    'faq-troubleshooting/">Learn more about troubleshooting WordPress.</a></p>'
)
NOT_LOGGED_IN = "You are not currently logged in."
CANNOT_EDIT_TYPE = "Sorry, you are not allowed to edit posts in this post type."
NO_ROUTE = "No route was found matching the URL and request method."


def sanitize_title(title: str) -> str:
    """WordPress's ``sanitize_title`` for plain titles: tags and accents off, lower case, dashes."""
    text = unicodedata.normalize("NFKD", re.sub(r"<[^>]*>", "", html.unescape(title))).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-z0-9 _-]", "", text.lower().replace("/", "-"))
    return re.sub(r"-+", "-", re.sub(r"\s+", "-", text)).strip("-")


def sanitize_term_name(name: str) -> str:
    """Term names as WordPress stores them: tags stripped, ``&`` escaped unless it already starts
    an entity (``_wp_specialchars`` without double encoding)."""
    return re.sub(r"&(?!(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#x[0-9A-Fa-f]+);)", "&amp;", re.sub(r"<[^>]*>", "", name).strip())


def _now() -> str:
    return datetime.now(UTC).strftime(DATE_FORMAT)


class _WPError(Exception):
    """A WordPress REST error: ``{"code", "message", "data": {"status", ...}}``."""

    def __init__(self, status: int, code: str, message: str, *, data: dict | None = None, data_null: bool = False, extra: dict | None = None):
        super().__init__(message)
        self.status = status
        self.body: dict[str, Any] = {"code": code, "message": message, "data": None if data_null else {"status": status, **(data or {})}}
        self.body.update(extra or {})


def _invalid_param(name: str, message: str, code: str = "rest_invalid_param_value") -> _WPError:
    return _WPError(
        400,
        "rest_invalid_param",
        f"Invalid parameter(s): {name}",
        data={"params": {name: message}, "details": {name: {"code": code, "message": message, "data": None}}},
    )


@dataclass
class _Failure:
    status: int | None
    delay: float
    method: str | None
    route: str | None
    location: str
    message: str


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    route: str  # the REST route ("/wp/v2/posts/12"); "" for a request outside the REST API
    query: dict[str, str]
    authenticated: bool
    body: Any  # parsed JSON, the byte count of a raw upload, or None
    received_at: float = field(default_factory=time.monotonic)


class WordPressTestServer(LoopbackServer):
    def __init__(self, *, user: str = TEST_USER, app_password: str | None = None, pretty_permalinks: bool = True, site_name: str = "Inkwell Test Site", timezone_string: str = "", gmt_offset: float = 0):
        super().__init__()
        self.user = user
        # WordPress shows an application password as six groups of four letters and digits.
        self.app_password = app_password or " ".join("".join(secrets.choice(ALPHANUMERIC) for _ in range(4)) for _ in range(6))
        self.pretty_permalinks = pretty_permalinks
        self.site_name = site_name
        self.timezone_string = timezone_string
        self.gmt_offset = gmt_offset
        # A compromised site or plugin answers addresses of its choosing: set these to have every
        # post's ``link`` and every upload's ``source_url`` be that string.
        self.hostile_post_link: str | None = None
        self.hostile_media_url: str | None = None
        self.requests: list[RecordedRequest] = []
        self._counts: Counter[tuple[str, str]] = Counter()
        self._failures: list[_Failure] = []
        self._outage: tuple[float, _Failure] | None = None
        self._lock = threading.RLock()
        # WordPress numbers posts and attachments in one sequence (wp_posts) and every taxonomy's
        # terms in another (wp_terms).
        self._post_ids = itertools.count(1)
        self._term_ids = itertools.count(UNCATEGORIZED_ID + 1)
        self._posts: dict[int, dict] = {}
        self._media: dict[int, dict] = {}
        self._files: dict[str, bytes] = {}
        self._terms: dict[str, dict[int, dict]] = {"category": {}, "post_tag": {}}
        self._terms["category"][UNCATEGORIZED_ID] = {"id": UNCATEGORIZED_ID, "name": "Uncategorized", "slug": "uncategorized", "parent": 0, "description": ""}

    @property
    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    @property
    def url(self) -> str:
        return self.origin

    # -- assertions and failures -----------------------------------------------------------

    def count(self, method: str, route: str) -> int:
        """Requests received for this method and REST route (injected failures included)."""
        with self._lock:
            return self._counts[(method.upper(), route)]

    def fail_next(self, n: int = 1, *, status: int | None = 503, delay: float = 0.0, method: str | None = None, route: str | None = None, location: str = "https://example.com/", message: str = "") -> None:
        """The next ``n`` requests (those of ``method``/``route`` when given) wait ``delay``
        seconds, then answer ``status`` as WordPress or the server in front of it would: a 3xx
        redirects to ``location``, a 4xx is a WordPress error (with ``message`` when given), a
        500 WordPress's critical error, any other 5xx and 429 an HTML page. ``status=None``
        answers normally after the delay."""
        with self._lock:
            self._failures.extend(_Failure(status, delay, method and method.upper(), route, location, message) for _ in range(n))

    @property
    def posts(self) -> list[dict]:
        """Every post but deleted ones, as WordPress answers them with ``context=edit``."""
        with self._lock:
            return [self._post_json(post, "edit") for post in sorted(self._posts.values(), key=lambda p: p["id"])]

    @property
    def terms(self) -> dict[str, list[dict]]:
        with self._lock:
            return {taxonomy: [self._term_json(taxonomy, term) for term in terms.values()] for taxonomy, terms in self._terms.items()}

    @property
    def media(self) -> list[dict]:
        with self._lock:
            return [self._media_json(item, "edit") for item in self._media.values()]

    def fail_for(self, seconds: float, *, status: int | None = 503, delay: float = 0.0) -> None:
        """An outage: every request of the next ``seconds`` fails as ``fail_next`` describes."""
        with self._lock:
            self._outage = (time.monotonic() + seconds, _Failure(status, delay, None, None, "https://example.com/", ""))

    def _take_failure(self, method: str, route: str) -> _Failure | None:
        with self._lock:
            if self._outage is not None and time.monotonic() < self._outage[0]:
                return self._outage[1]
            for index, failure in enumerate(self._failures):
                if failure.method in (None, method) and failure.route in (None, route):
                    return self._failures.pop(index)
        return None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)
            if request.route:
                self._counts[(request.method, request.route)] += 1

    # -- JSON shapes -----------------------------------------------------------------------

    def _links(self, route: str, **extra: list[dict]) -> dict:
        base = f"{self.url}/wp-json"
        return {"self": [{"href": f"{base}{route}"}], **extra, "curies": [{"name": "wp", "href": "https://api.w.org/{rel}", "templated": True}]}

    def _index(self) -> dict:
        routes = ["/", "/wp/v2", "/wp/v2/posts", "/wp/v2/posts/(?P<id>[\\d]+)", "/wp/v2/media", "/wp/v2/media/(?P<id>[\\d]+)", "/wp/v2/categories", "/wp/v2/tags", "/wp/v2/types", "/wp/v2/users/me"]
        return {
            "name": html.escape(self.site_name, quote=False),
            "description": "",
            "url": self.url,
            "home": self.url,
            "gmt_offset": f"{self.gmt_offset:g}",
            "timezone_string": self.timezone_string,
            "namespaces": ["oembed/1.0", "wp/v2", "wp-site-health/v1", "wp-block-editor/v1"],
            "authentication": {"application-passwords": {"endpoints": {"authorization": f"{self.url}/wp-admin/authorize-application.php"}}},
            "routes": {route: {"namespace": "" if route == "/" else "wp/v2", "methods": ["GET"], "_links": {"self": [{"href": f"{self.url}/wp-json{route}"}]}} for route in routes},
            "_links": {"help": [{"href": "https://developer.wordpress.org/rest-api/"}]},
        }

    def _user(self, context: str) -> dict:
        data = {
            "id": 1,
            "name": self.user,
            "url": self.url,
            "description": "",
            "link": f"{self.url}/author/{self.user}/",
            "slug": self.user,
            "avatar_urls": {size: f"https://secure.gravatar.com/avatar/?s={size}&d=mm&r=g" for size in ("24", "48", "96")},
            "meta": [],
            "_links": self._links("/wp/v2/users/1", collection=[{"href": f"{self.url}/wp-json/wp/v2/users"}]),
        }
        if context == "edit":
            data.update(
                username=self.user,
                first_name="",
                last_name="",
                email=f"{self.user}@example.test",
                locale="en_US",
                nickname=self.user,
                roles=["administrator"],
                registered_date="2026-01-01T00:00:00+00:00",
                capabilities={capability: True for capability in ADMIN_CAPABILITIES},
                extra_capabilities={"administrator": True},
            )
        return data

    def _types(self) -> dict[str, dict]:
        def kind(slug, name, rest_base, *, taxonomies=(), viewable=True, hierarchical=False):
            return {
                "slug": slug,
                "name": name,
                "description": "",
                "hierarchical": hierarchical,
                "has_archive": False,
                "icon": None,
                "taxonomies": list(taxonomies),
                "rest_base": rest_base,
                "rest_namespace": "wp/v2",
                "capabilities": {"edit_posts": "edit_posts", "publish_posts": "publish_posts", "read": "read"},
                "labels": {"name": name, "singular_name": name.rstrip("s")},
                "supports": {"title": True, "editor": True},
                "viewable": viewable,
                "visibility": {"show_in_nav_menus": viewable, "show_ui": True},
            }

        return {
            "post": kind("post", "Posts", "posts", taxonomies=("category", "post_tag")),
            "page": kind("page", "Pages", "pages", hierarchical=True),
            "attachment": kind("attachment", "Media", "media"),
            "nav_menu_item": kind("nav_menu_item", "Navigation Menu Items", "menu-items", taxonomies=("nav_menu",), viewable=False),
            "wp_block": kind("wp_block", "Reusable blocks", "blocks", viewable=False),
            "wp_template": kind("wp_template", "Templates", "templates", viewable=False),
            "wp_template_part": kind("wp_template_part", "Template Parts", "template-parts", viewable=False),
            "wp_navigation": kind("wp_navigation", "Navigation Menus", "navigation", viewable=False),
        }

    def _type_json(self, data: dict, context: str) -> dict:
        view_fields = ("description", "hierarchical", "has_archive", "name", "slug", "icon", "taxonomies", "rest_base", "rest_namespace")
        shown = dict(data) if context == "edit" else {key: data[key] for key in view_fields}
        shown["_links"] = {"collection": [{"href": f"{self.url}/wp-json/wp/v2/types"}], "wp:items": [{"href": f"{self.url}/wp-json/wp/v2/{data['rest_base']}"}]}
        return shown

    def _term_json(self, taxonomy: str, term: dict) -> dict:
        base = "categories" if taxonomy == "category" else "tags"
        prefix = "category" if taxonomy == "category" else "tag"
        data = {
            "id": term["id"],
            "count": sum(1 for post in self._posts.values() if term["id"] in post[base] and post["status"] == "publish"),
            "description": term["description"],
            "link": f"{self.url}/{prefix}/{term['slug']}/",
            "name": term["name"],
            "slug": term["slug"],
            "taxonomy": taxonomy,
        }
        if taxonomy == "category":
            data["parent"] = term["parent"]
        data["meta"] = []
        data["_links"] = self._links(f"/wp/v2/{base}/{term['id']}", collection=[{"href": f"{self.url}/wp-json/wp/v2/{base}"}])
        return data

    def _post_link(self, post: dict) -> str:
        if self.hostile_post_link is not None:
            return self.hostile_post_link
        return f"{self.url}/{post['slug']}/" if post["status"] in PRETTY_LINK_STATUSES and post["slug"] else f"{self.url}/?p={post['id']}"

    def _post_json(self, post: dict, context: str) -> dict:
        edit = context == "edit"

        def text(raw: str, rendered: str, **more) -> dict:
            return {**({"raw": raw} if edit else {}), "rendered": rendered, **more}

        data = {
            "id": post["id"],
            "date": post["date"],
            "date_gmt": post["date"],
            "guid": text(f"{self.url}/?p={post['id']}", f"{self.url}/?p={post['id']}"),
            "modified": post["modified"],
            "modified_gmt": post["modified"],
            **({"password": ""} if edit else {}),
            "slug": post["slug"],
            "status": post["status"],
            "type": "post",
            "link": self._post_link(post),
            "title": text(post["title"], post["title"]),
            "content": text(post["content"], _autop(post["content"]), protected=False, block_version=0),
            "excerpt": text(post["excerpt"], _autop(post["excerpt"] or re.sub(r"<[^>]*>", "", post["content"])[:275]), protected=False),
            "author": 1,
            "featured_media": post["featured_media"],
            "comment_status": "open",
            "ping_status": "open",
            "sticky": False,
            "template": "",
            "format": "standard",
            "meta": [],
            "categories": list(post["categories"]),
            "tags": list(post["tags"]),
        }
        if edit:
            data["permalink_template"] = f"{self.url}/%postname%/"
            data["generated_slug"] = post["slug"] or sanitize_title(post["title"])
        data["_links"] = self._links(f"/wp/v2/posts/{post['id']}", collection=[{"href": f"{self.url}/wp-json/wp/v2/posts"}])
        return data

    def _media_json(self, item: dict, context: str) -> dict:
        edit = context == "edit"
        return {
            "id": item["id"],
            "date": item["date"],
            "date_gmt": item["date"],
            "guid": {**({"raw": item["source_url"]} if edit else {}), "rendered": item["source_url"]},
            "modified": item["date"],
            "modified_gmt": item["date"],
            "slug": item["slug"],
            "status": "inherit",
            "type": "attachment",
            "link": f"{self.url}/{item['slug']}/",
            "title": {**({"raw": item["title"]} if edit else {}), "rendered": item["title"]},
            "author": 1,
            "comment_status": "open",
            "ping_status": "closed",
            "template": "",
            "meta": [],
            "description": {**({"raw": ""} if edit else {}), "rendered": ""},
            "caption": {**({"raw": ""} if edit else {}), "rendered": ""},
            "alt_text": item["alt_text"],
            "media_type": "image" if item["mime_type"].startswith("image/") else "file",
            "mime_type": item["mime_type"],
            "media_details": {"filesize": len(self._files[item["path"]]), "sizes": {}},
            "post": None,
            "source_url": item["source_url"] if self.hostile_media_url is None else self.hostile_media_url,
            "_links": self._links(f"/wp/v2/media/{item['id']}", collection=[{"href": f"{self.url}/wp-json/wp/v2/media"}]),
        }


def _autop(text: str) -> str:
    """Roughly WordPress's ``wpautop``: blocks of text on their own lines become paragraphs."""
    blocks = [block.strip() for block in re.split(r"\n\s*\n|\n", text) if block.strip()]
    return "".join(block + "\n" if re.match(r"<(p|h[1-6]|ul|ol|div|figure|blockquote|table)\b", block) else f"<p>{block}</p>\n" for block in blocks)


class _Stop(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    app: WordPressTestServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm on, the second waits for the
    # client's delayed ACK (40 ms a request).
    disable_nagle_algorithm = True
    server_version = "Apache"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: tests assert on ``server.requests`` and ``server.count`` instead."""

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # -- plumbing ------------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        raw = self._read_body()
        route = ""
        if "rest_route" in query:
            route = query.pop("rest_route") or "/"
        elif parts.path.startswith("/wp-json") and self.app.pretty_permalinks:
            route = parts.path[len("/wp-json") :] or "/"
        authenticated = self._authenticated()
        try:
            body = self._parse_body(raw)
        except ValueError:
            body = None
            error = _WPError(400, "rest_invalid_json", "Invalid JSON body passed.", data={"json_error_code": 4, "json_error_message": "Syntax error"})
        else:
            error = None
        self.app._record(RecordedRequest(method, route, query, authenticated, len(raw) if isinstance(body, bytes) else body))
        try:
            if error is not None and route:
                raise error
            failure = self.app._take_failure(method, route)
            if failure is not None:
                if failure.delay and self.app._stopping.wait(failure.delay):
                    raise _Stop
                if failure.status is not None:
                    self._send_failure(failure)
                    return
            if not route:
                self._serve_page(parts.path)
                return
            status, payload, headers = _Api(self.app, self, authenticated).handle(method, route, query, body)
            if "_fields" in query and status < 300:
                payload = _filter_fields(payload, query["_fields"])
            self._send_json(status, payload, headers)
        except _WPError as error:
            self._send_json(error.status, error.body)
        except (_Stop, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _parse_body(self, raw: bytes) -> Any:
        if not raw:
            return None
        if (self.headers.get("Content-Type") or "").startswith("application/json"):
            return json.loads(raw)
        return raw

    def _authenticated(self) -> bool:
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Basic "):
            return False
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return False
        # WordPress ignores everything but letters and digits in an application password.
        return user == self.app.user and re.sub(r"[^A-Za-z0-9]", "", password) == re.sub(r"[^A-Za-z0-9]", "", self.app.app_password)

    def _headers(self, status: int, content_type: str, length: int, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        self.send_header("X-Powered-By", "PHP/8.2")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _send_json(self, status: int, payload: Any, headers: dict | None = None) -> None:
        # WordPress escapes slashes, as PHP's json_encode does.
        data = json.dumps(payload, separators=(",", ":")).replace("/", "\\/").encode()
        extra = {
            "X-Robots-Tag": "noindex",
            "Link": f'<{self.app.url}/wp-json/>; rel="https://api.w.org/"',
            "X-Content-Type-Options": "nosniff",
            "Access-Control-Expose-Headers": "X-WP-Total, X-WP-TotalPages, Link",
            "Access-Control-Allow-Headers": "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type",
            **(headers or {}),
        }
        self._headers(status, "application/json; charset=UTF-8", len(data), extra)
        self.wfile.write(data)

    def _send_html(self, status: int, text: str, headers: dict | None = None) -> None:
        data = f"<!DOCTYPE html>\n<html lang=\"en-US\"><head><title>{html.escape(self.app.site_name)}</title></head><body>{text}</body></html>".encode()
        self._headers(status, "text/html; charset=UTF-8", len(data), headers)
        self.wfile.write(data)

    def _send_failure(self, failure: _Failure) -> None:
        status = failure.status
        if 300 <= status < 400:
            self._headers(status, "text/html; charset=UTF-8", 0, {"Location": failure.location})
        elif status == 500:
            # A PHP fatal error under the REST API: WordPress's own JSON body.
            self._send_json(500, {"code": "internal_server_error", "message": CRITICAL_ERROR, "data": {"status": 500}, "additional_errors": []})
        elif status >= 500 or status == 429:
            # Maintenance mode, or the proxy in front: an HTML page.
            self._send_html(status, "<h1>Briefly unavailable for scheduled maintenance. Check back in a minute.</h1>", {"Retry-After": "600"})
        else:
            code = {400: "rest_invalid_param", 401: "rest_not_logged_in", 403: "rest_forbidden", 404: "rest_no_route"}.get(status, "rest_error")
            self._send_json(status, {"code": code, "message": failure.message or "Sorry, you are not allowed to do that.", "data": {"status": status}})

    def _serve_page(self, path: str) -> None:
        """The site outside the REST API: uploaded files, post permalinks, the theme's 404."""
        data = self.app._files.get(path)
        if data is not None:
            mime = MIME_TYPES.get(path.rsplit(".", 1)[-1].lower(), "application/octet-stream")
            self._headers(200, mime, len(data))
            self.wfile.write(data)
            return
        slug = path.strip("/")
        with self.app._lock:
            post = next((p for p in self.app._posts.values() if slug and p["slug"] == slug and p["status"] == "publish"), None)
        if path == "/" or post is not None:
            self._send_html(200, f"<h1>{html.escape(post['title'] if post else self.app.site_name)}</h1>{post['content'] if post else ''}")
        else:
            self._send_html(404, "<h1>Page not found</h1>")


def _filter_fields(payload: Any, fields: str) -> Any:
    """WordPress's ``_fields``: only the named top-level fields (``a.b`` for nested ones);
    ``_links`` stays."""
    wanted = [name.strip() for name in fields.split(",") if name.strip()]

    def pick(item: Any) -> Any:
        if not isinstance(item, dict):
            return item
        result: dict = {}
        for name in wanted:
            head, _, rest = name.partition(".")
            if head not in item:
                continue
            if rest and isinstance(item[head], dict):
                result.setdefault(head, {})
                if rest in item[head]:
                    result[head][rest] = item[head][rest]
            else:
                result[head] = item[head]
        if "_links" in item:
            result["_links"] = item["_links"]
        return result

    return [pick(item) for item in payload] if isinstance(payload, list) else pick(payload)


def _int_list(name: str, value: Any) -> list[int]:
    items = value if isinstance(value, list) else [part for part in str(value).split(",") if part.strip()]
    result = []
    for index, item in enumerate(items):
        if isinstance(item, bool) or not (isinstance(item, int) or (isinstance(item, str) and item.strip().isdigit())):
            raise _invalid_param(name, f"{name}[{index}] is not of type integer.", "rest_invalid_type")
        result.append(int(item))
    return result


def _page_params(query: dict) -> tuple[int, int]:
    try:
        per_page = int(query.get("per_page", 10))
    except ValueError:
        raise _invalid_param("per_page", "per_page is not of type integer.", "rest_invalid_type") from None
    if not 1 <= per_page <= 100:
        raise _invalid_param("per_page", "per_page must be between 1 (inclusive) and 100 (inclusive)", "rest_out_of_bounds")
    try:
        page = int(query.get("page", 1))
    except ValueError:
        raise _invalid_param("page", "page is not of type integer.", "rest_invalid_type") from None
    if page < 1:
        raise _invalid_param("page", "page must be greater than or equal to 1", "rest_out_of_bounds")
    return per_page, page


def _search_terms(search: str) -> list[str]:
    """``WP_Query::parse_search``: words (or quoted phrases), single letters and dashes dropped."""
    matches = [match.group(0).strip('"') for match in re.finditer(r'".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+', search)]
    terms = [term for term in matches if term and not re.fullmatch(r"[a-z-]", term, re.IGNORECASE)]
    return terms if terms and len(terms) <= 9 else [search]


def _matches_search(post: dict, terms: list[str]) -> bool:
    haystacks = (post["title"].lower(), post["excerpt"].lower(), post["content"].lower())
    for term in terms:
        exclude = term.startswith("-") and len(term) > 1
        needle = (term[1:] if exclude else term).lower()
        found = any(needle in haystack for haystack in haystacks)
        if found == exclude:
            return False
    return True


class _Api:
    """One REST request against the server's state."""

    def __init__(self, app: WordPressTestServer, handler: _Handler, authenticated: bool):
        self.app = app
        self.handler = handler
        self.authenticated = authenticated

    def handle(self, method: str, route: str, query: dict, body: Any) -> tuple[int, Any, dict]:
        route = route.rstrip("/") or "/"
        table = [
            ("GET", r"/", self.index),
            ("GET", r"/wp/v2/users/me", self.users_me),
            ("GET", r"/wp/v2/types", self.types),
            ("GET", r"/wp/v2/types/(?P<slug>[\w-]+)", self.type_),
            ("GET", r"/wp/v2/(?P<base>categories|tags)", self.list_terms),
            ("POST", r"/wp/v2/(?P<base>categories|tags)", self.create_term),
            ("GET", r"/wp/v2/(?P<base>categories|tags)/(?P<id>\d+)", self.get_term),
            ("POST", r"/wp/v2/media", self.create_media),
            ("GET", r"/wp/v2/media/(?P<id>\d+)", self.get_media),
            ("POST", r"/wp/v2/media/(?P<id>\d+)", self.update_media),
            ("GET", r"/wp/v2/posts", self.list_posts),
            ("POST", r"/wp/v2/posts", self.create_post),
            ("GET", r"/wp/v2/posts/(?P<id>\d+)", self.get_post),
            ("POST", r"/wp/v2/posts/(?P<id>\d+)", self.update_post),
            ("PUT", r"/wp/v2/posts/(?P<id>\d+)", self.update_post),
            ("PATCH", r"/wp/v2/posts/(?P<id>\d+)", self.update_post),
            ("DELETE", r"/wp/v2/posts/(?P<id>\d+)", self.delete_post),
        ]
        for verb, pattern, view in table:
            match = re.fullmatch(pattern, route)
            if match and verb == method:
                context = query.get("context", "view")
                if context not in ("view", "embed", "edit"):
                    raise _invalid_param("context", "context is not one of view, embed, and edit.", "rest_not_in_enum")
                with self.app._lock:
                    return view(query=query, body=body if body is not None else {}, context=context, **match.groupdict())
        raise _WPError(404, "rest_no_route", NO_ROUTE)

    @staticmethod
    def ok(payload: Any, status: int = 200, **headers: str) -> tuple[int, Any, dict]:
        return status, payload, {key.replace("_", "-"): value for key, value in headers.items()}

    def require_login(self, code: str, message: str) -> None:
        if not self.authenticated:
            raise _WPError(401, code, message)

    def fields(self, body: Any, query: dict) -> dict:
        """A request's parameters: the JSON body over the query string, as WordPress merges them."""
        return {**query, **(body if isinstance(body, dict) else {})}

    # -- index, user, types -----------------------------------------------------------------

    def index(self, query, body, context):
        return self.ok(self.app._index())

    def users_me(self, query, body, context):
        self.require_login("rest_not_logged_in", NOT_LOGGED_IN)
        return self.ok(self.app._user(context))

    def types(self, query, body, context):
        if context == "edit":
            self.require_login("rest_cannot_view", CANNOT_EDIT_TYPE)
        return self.ok({slug: self.app._type_json(data, context) for slug, data in self.app._types().items()})

    def type_(self, query, body, context, slug):
        data = self.app._types().get(slug)
        if data is None:
            raise _WPError(404, "rest_type_invalid", "Invalid post type.")
        if context == "edit":
            self.require_login("rest_forbidden_context", CANNOT_EDIT_TYPE)
        return self.ok(self.app._type_json(data, context))

    # -- terms ----------------------------------------------------------------------------

    @staticmethod
    def taxonomy(base: str) -> str:
        return "category" if base == "categories" else "post_tag"

    def list_terms(self, query, body, context, base):
        taxonomy = self.taxonomy(base)
        per_page, page = _page_params(query)
        terms = list(self.app._terms[taxonomy].values())
        if "slug" in query:
            slugs = [slug.strip() for slug in query["slug"].split(",")]
            terms = [term for term in terms if term["slug"] in slugs]
        if "include" in query:
            ids = _int_list("include", query["include"])
            terms = [term for term in terms if term["id"] in ids]
        if "search" in query:
            terms = [term for term in terms if query["search"].lower() in term["name"].lower() or query["search"].lower() in term["slug"]]
        orderby = query.get("orderby", "name")
        key = {"id": lambda t: t["id"], "slug": lambda t: t["slug"], "name": lambda t: t["name"].lower()}.get(orderby)
        if key is None:
            raise _invalid_param("orderby", "orderby is not one of id, include, name, slug, include_slugs, term_group, description, and count.", "rest_not_in_enum")
        terms.sort(key=key, reverse=query.get("order", "asc") == "desc")
        total = len(terms)
        pages = math.ceil(total / per_page)
        chosen = terms[(page - 1) * per_page : page * per_page]
        return self.ok([self.app._term_json(taxonomy, term) for term in chosen], X_WP_Total=str(total), X_WP_TotalPages=str(pages))

    def get_term(self, query, body, context, base, id):
        term = self.app._terms[self.taxonomy(base)].get(int(id))
        if term is None:
            raise _WPError(404, "rest_term_invalid", "Term does not exist.")
        return self.ok(self.app._term_json(self.taxonomy(base), term))

    def create_term(self, query, body, context, base):
        taxonomy = self.taxonomy(base)
        self.require_login("rest_cannot_create", "Sorry, you are not allowed to create terms in this taxonomy.")
        params = self.fields(body, query)
        if "name" not in params:
            raise _WPError(400, "rest_missing_callback_param", "Missing parameter(s): name", data={"params": ["name"]})
        hierarchical = taxonomy == "category"
        parent = int(params.get("parent") or 0)
        if parent and not hierarchical:
            raise _WPError(400, "rest_taxonomy_not_hierarchical", "Cannot set parent term, taxonomy is not hierarchical.")
        terms = self.app._terms[taxonomy]
        if parent and parent not in terms:
            raise _WPError(400, "rest_term_invalid", "Parent term does not exist.")
        name = sanitize_term_name(str(params["name"]))
        if not name:
            raise _WPError(500, "empty_term_name", "A name is required for this term.", data_null=True)
        slug_provided = bool(params.get("slug"))
        slug = sanitize_title(str(params["slug"])) if slug_provided else sanitize_title(name)
        # wp_insert_term: a term of the same name (any case) under the same parent is the same
        # term, unless the request names a slug of its own that no term has.
        name_match = next((t for t in terms.values() if t["parent"] == parent and t["name"].lower() == name.lower()), None)
        slug_match = next((t for t in terms.values() if t["slug"] == slug), None)
        if name_match and (not slug_provided or name_match["slug"] == slug or slug_match):
            existing = name_match
            if hierarchical:
                siblings = [t for t in terms.values() if t["parent"] == parent]
                if (not slug_provided or name_match["slug"] == slug) and name in [t["name"] for t in siblings]:
                    existing = name_match
                elif slug_match and slug in [t["slug"] for t in siblings]:
                    existing = slug_match
                else:
                    existing = None
            if existing is not None:
                message = "A term with the name provided already exists " + ("with this parent." if hierarchical else "in this taxonomy.")
                raise _WPError(400, "term_exists", message, data={"term_id": existing["id"]}, extra={"additional_data": [existing["id"], existing["id"]]})
        slug = self.unique(slug, {t["slug"] for t in terms.values()})
        term = {"id": next(self.app._term_ids), "name": name, "slug": slug, "parent": parent, "description": str(params.get("description") or "")}
        terms[term["id"]] = term
        return self.ok(self.app._term_json(taxonomy, term), 201, Location=f"{self.app.url}/wp-json/wp/v2/{base}/{term['id']}")

    @staticmethod
    def unique(slug: str, taken: set[str]) -> str:
        if slug not in taken:
            return slug
        return next(f"{slug}-{n}" for n in itertools.count(2) if f"{slug}-{n}" not in taken)

    # -- media ----------------------------------------------------------------------------

    def create_media(self, query, body, context):
        self.require_login("rest_cannot_create", "Sorry, you are not allowed to create posts as this user.")
        if not isinstance(body, bytes) or not body:
            raise _WPError(400, "rest_upload_no_data", "No data supplied.")
        disposition = self.handler.headers.get("Content-Disposition")
        if not disposition:
            raise _WPError(400, "rest_upload_no_content_disposition", "No Content-Disposition supplied.")
        match = re.search(r";\s*filename=([^;]+)", disposition)
        filename = match.group(1).strip().strip('"') if match else ""
        if not filename:
            raise _WPError(400, "rest_upload_invalid_disposition", "Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename=\"image.png\"` or similar.")
        stem, _, extension = filename.rpartition(".")
        mime = MIME_TYPES.get(extension.lower())
        signatures = IMAGE_SIGNATURES.get(mime or "", ())
        if mime is None or (signatures and not body.startswith(signatures)):
            raise _WPError(500, "rest_upload_sideload_error", "Sorry, you are not allowed to upload this file type.")
        stem = sanitize_title(stem) or "upload"
        month = datetime.now(UTC).strftime("%Y/%m")
        taken = {item["path"] for item in self.app._media.values()}
        path = f"/wp-content/uploads/{month}/{stem}.{extension.lower()}"
        copy = itertools.count(1)
        while path in taken:
            path = f"/wp-content/uploads/{month}/{stem}-{next(copy)}.{extension.lower()}"
        item_id = next(self.app._post_ids)
        item = {
            "id": item_id,
            "date": _now(),
            "title": stem,
            "slug": self.unique(stem, {m["slug"] for m in self.app._media.values()} | {p["slug"] for p in self.app._posts.values()}),
            "alt_text": re.sub(r"<[^>]*>", "", str(query.get("alt_text", ""))).strip(),
            "mime_type": mime,
            "path": path,
            "source_url": f"{self.app.url}{path}",
        }
        self.app._files[path] = body
        self.app._media[item_id] = item
        return self.ok(self.app._media_json(item, "edit"), 201, Location=f"{self.app.url}/wp-json/wp/v2/media/{item_id}", X_WP_Upload_Attachment_ID=str(item_id))

    def media_item(self, id) -> dict:
        item = self.app._media.get(int(id))
        if item is None:
            raise _WPError(404, "rest_post_invalid_id", "Invalid post ID.")
        return item

    def get_media(self, query, body, context, id):
        item = self.media_item(id)
        if context == "edit":
            self.require_login("rest_forbidden_context", "Sorry, you are not allowed to edit this post.")
        return self.ok(self.app._media_json(item, context))

    def update_media(self, query, body, context, id):
        item = self.media_item(id)
        self.require_login("rest_cannot_edit", "Sorry, you are not allowed to edit this post.")
        params = self.fields(body, query)
        if "alt_text" in params:
            item["alt_text"] = str(params["alt_text"])
        return self.ok(self.app._media_json(item, "edit"))

    # -- posts ----------------------------------------------------------------------------

    def post(self, id) -> dict:
        post = self.app._posts.get(int(id))
        if post is None:
            raise _WPError(404, "rest_post_invalid_id", "Invalid post ID.")
        return post

    def list_posts(self, query, body, context):
        if context == "edit":
            self.require_login("rest_forbidden_context", CANNOT_EDIT_TYPE)
        statuses = [status.strip() for status in query.get("status", "publish").split(",") if status.strip()]
        for status in statuses:
            if status not in (*POST_STATUSES, "trash", "any"):
                raise _invalid_param("status", "status[0] is not one of publish, future, draft, pending, private, trash, auto-draft, inherit, request-pending, request-confirmed, request-failed, request-completed, and any.", "rest_not_in_enum")
            if status != "publish" and not self.authenticated:
                raise _WPError(400, "rest_invalid_param", "Invalid parameter(s): status", data={"params": {"status": "Status is forbidden."}, "details": {"status": {"code": "rest_forbidden_status", "message": "Status is forbidden.", "data": {"status": 401}}}})
        wanted = set(ANY_STATUSES) if "any" in statuses else set()
        wanted |= {status for status in statuses if status != "any"}
        per_page, page = _page_params(query)
        posts = [post for post in self.app._posts.values() if post["status"] in wanted]
        if "include" in query:
            ids = _int_list("include", query["include"])
            posts = [post for post in posts if post["id"] in ids]
        if query.get("search"):
            terms = _search_terms(query["search"])
            posts = [post for post in posts if _matches_search(post, terms)]
        orderby = query.get("orderby", "date")
        keys = {
            "id": lambda p: p["id"],
            "date": lambda p: (p["date"], p["id"]),
            "modified": lambda p: (p["modified"], p["id"]),
            "title": lambda p: p["title"].lower(),
            "slug": lambda p: p["slug"],
            "relevance": lambda p: (p["date"], p["id"]),
            "include": lambda p: _int_list("include", query.get("include", "")).index(p["id"]),
        }
        if orderby not in keys:
            raise _invalid_param("orderby", "orderby is not one of author, date, id, include, modified, parent, relevance, slug, include_slugs, and title.", "rest_not_in_enum")
        posts.sort(key=keys[orderby], reverse=query.get("order", "desc") == "desc")
        total = len(posts)
        pages = math.ceil(total / per_page)
        if page > pages and total > 0:
            raise _WPError(400, "rest_post_invalid_page_number", "The page number requested is larger than the number of pages available.")
        chosen = posts[(page - 1) * per_page : page * per_page]
        return self.ok([self.app._post_json(post, context) for post in chosen], X_WP_Total=str(total), X_WP_TotalPages=str(pages))

    def get_post(self, query, body, context, id):
        post = self.post(id)
        if context == "edit" or post["status"] != "publish":
            self.require_login("rest_forbidden_context" if context == "edit" else "rest_forbidden", "Sorry, you are not allowed to edit this post." if context == "edit" else "Sorry, you are not allowed to do that.")
        return self.ok(self.app._post_json(post, context))

    def create_post(self, query, body, context):
        self.require_login("rest_cannot_create", "Sorry, you are not allowed to create posts as this user.")
        params = self.fields(body, query)
        changes = self.validate(params)
        now = _now()
        # A post's date floats (follows "now") until it is published or given a date.
        post = {"id": next(self.app._post_ids), "title": "", "content": "", "excerpt": "", "slug": "", "status": "draft", "categories": [UNCATEGORIZED_ID], "tags": [], "featured_media": 0, "date": now, "floating": True, "modified": now, "desired_slug": ""}
        self.apply(post, params, changes)
        self.app._posts[post["id"]] = post
        return self.ok(self.app._post_json(post, "edit"), 201, Location=f"{self.app.url}/wp-json/wp/v2/posts/{post['id']}")

    def update_post(self, query, body, context, id):
        post = self.post(id)
        self.require_login("rest_cannot_edit", "Sorry, you are not allowed to edit this post.")
        params = self.fields(body, query)
        self.apply(post, params, self.validate(params))
        post["modified"] = _now()
        return self.ok(self.app._post_json(post, "edit"))

    def delete_post(self, query, body, context, id):
        post = self.post(id)
        self.require_login("rest_cannot_delete", "Sorry, you are not allowed to delete this post.")
        if query.get("force") in ("true", "1"):
            previous = self.app._post_json(post, "edit")
            del self.app._posts[post["id"]]
            return self.ok({"deleted": True, "previous": previous})
        if post["status"] == "trash":
            raise _WPError(410, "rest_already_trashed", "The post has already been trashed.")
        post["desired_slug"] = post["slug"]
        post["slug"] = f"{post['slug']}__trashed" if post["slug"] else ""
        post["status"] = "trash"
        post["modified"] = _now()
        return self.ok(self.app._post_json(post, "edit"))

    def validate(self, params: dict) -> dict[str, Any]:
        """The changes a request asks for; WordPress refuses the whole request on a bad one."""
        if "status" in params and params["status"] not in POST_STATUSES:
            raise _invalid_param("status", "status is not one of publish, future, draft, pending, and private.", "rest_not_in_enum")
        changes: dict[str, Any] = {}
        for name in ("categories", "tags"):
            if name in params:
                taxonomy = "category" if name == "categories" else "post_tag"
                # Ids of terms that do not exist are dropped, not refused.
                changes[name] = [term for term in _int_list(name, params[name]) if term in self.app._terms[taxonomy]]
        if "featured_media" in params:
            value = params["featured_media"]
            if isinstance(value, bool) or not isinstance(value, int):
                raise _invalid_param("featured_media", "featured_media is not of type integer.", "rest_invalid_type")
            changes["featured_media"] = value
        # Meta keys no plugin registered are ignored, as WordPress ignores them; meta itself
        # must be an object.
        if "meta" in params and not isinstance(params["meta"], dict):
            raise _invalid_param("meta", "meta is not of type object.", "rest_invalid_type")
        for name in ("title", "content", "excerpt"):
            if name in params:
                value = params[name]
                changes[name] = value.get("raw", "") if isinstance(value, dict) else str(value)
        if "slug" in params:
            changes["slug"] = sanitize_title(str(params["slug"]))
        if params.get("date_gmt"):
            try:
                changes["date"] = datetime.fromisoformat(str(params["date_gmt"])).strftime(DATE_FORMAT)
            except ValueError:
                raise _invalid_param("date_gmt", "Invalid date.", "rest_invalid_date") from None
            changes["floating"] = False
        return changes

    def apply(self, post: dict, params: dict, changes: dict[str, Any]) -> None:
        post.update(changes)
        if "status" in params:
            if post["status"] == "trash" and post["desired_slug"]:
                post["slug"] = post["desired_slug"]  # untrashed: the slug it had comes back
            post["status"] = params["status"]
        if post["status"] == "future" and post["date"] <= _now():
            post["status"] = "publish"  # a date in the past publishes at once
        if post["status"] in ("publish", "future", "private"):
            if post["floating"]:
                post["date"], post["floating"] = _now(), False
            taken = {p["slug"] for p in self.app._posts.values() if p["id"] != post["id"]}
            post["slug"] = self.unique(post["slug"] or sanitize_title(post["title"]) or str(post["id"]), taken)


@contextmanager
def running_cms_server(**options: Any) -> Iterator[WordPressTestServer]:
    """A running server outside pytest (``WordPressTestServer`` options)."""
    with WordPressTestServer(**options) as server:
        yield server


@pytest.fixture
def cms_server() -> Iterator[WordPressTestServer]:
    """A running in-memory WordPress; ``cms_server.url``, ``.user`` and ``.app_password``."""
    with running_cms_server() as server:
        yield server
