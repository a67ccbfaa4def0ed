"""The WordPress adapter: the WordPress REST API (``wp/v2``) with an application password.

Addresses: ``{base_url}/wp-json/wp/v2/...``; a site without pretty permalinks answers that with
its theme's 404 page, and then ``{base_url}/?rest_route=/wp/v2/...``, which every WordPress
serves, is used for the rest of the adapter's life.

Safety: every request's URL passes ``inkwell.netguard`` first, and the connection itself only
goes to an address netguard allows (a name that resolves elsewhere a moment later gets nowhere).
Redirects are not followed: a redirect could lead anywhere, and would resend the credentials.
Answers are read up to ``MAX_ANSWER_BYTES``.

Our reference to a post lives in its content as a trailing HTML comment
``<!-- inkwell:ref:{reference} -->``: WordPress keeps comments through its HTML filter, shows
them to nobody, and its search finds them, so ``find_post`` can recognise a post an earlier
attempt created. SEO titles and descriptions go in ``meta`` under the keys of Yoast SEO and Rank
Math; WordPress ignores meta keys no plugin registered (checked against WordPress 6.1).

Messages of the errors raised are safe to show: WordPress's own reason for a refusal is passed on
stripped of tags and cut to ``MESSAGE_LIMIT`` characters, never a body, a header or the password.
"""

from __future__ import annotations

import html
import logging
import re
from datetime import UTC, datetime
from typing import Any

from inkwell.cms.base import (
    CMSAuthFailed,
    CMSCredentials,
    CMSError,
    CMSForbidden,
    CMSNotFound,
    CMSRejected,
    CMSTimeout,
    CMSUnavailable,
    CollectionCheck,
    ContentType,
    PostPayload,
    RemoteMedia,
    RemotePost,
    RemoteTerm,
    RemoteUser,
    SiteInfo,
    url_on_site,
)
from inkwell.cms.http import Answer, HttpCMSAdapter, site_root

logger = logging.getLogger("inkwell.cms")

PLATFORM = "wordpress"
NOT_WORDPRESS = "The address did not answer as a WordPress REST API"
MEDIA_OFF_SITE = "The CMS stored the file at an address outside its own site"
PAGE_SIZE = 100  # WordPress's maximum per_page
FIND_PAGE_SIZE = 10
# A listing that claims more pages than this is not read to the end (a CMS could claim any number).
MAX_PAGES = 1000
# Every status a post can have but deleted: ``status=any`` leaves out the trash.
POST_STATUSES = "publish,future,draft,pending,private,trash"
POST_FIELDS = "id,link,status,modified_gmt"
TERM_FIELDS = "id,name,slug,parent"
TAXONOMY_BASES = {"category": "categories", "tag": "tags"}
SEO_META_KEYS = {
    "title": ("_yoast_wpseo_title", "rank_math_title"),
    "description": ("_yoast_wpseo_metadesc", "rank_math_description"),
}
# WordPress answers a few refusals that no retry changes with a 500, a file type the site does
# not accept above all: those are rejections, not an unavailable CMS.
REJECTION_CODES_ON_500 = frozenset({"rest_upload_sideload_error", "rest_upload_unknown_error"})
# WordPress's post type keys (``sanitize_key``, at most 20 characters): nothing else reaches a URL.
CONTENT_TYPE_KEY = re.compile(r"[a-z0-9_-]{1,20}")
REFERENCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
MARKER = re.compile(r"\s*<!-- inkwell:ref:[A-Za-z0-9_.-]+ -->")
SAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")

PRETTY = "pretty"  # /wp-json/...
PLAIN = "plain"  # /?rest_route=...


def marker(reference: str) -> str:
    if not REFERENCE.fullmatch(reference):
        raise ValueError("A post reference is 1 to 100 letters, digits, '.', '_' and '-'")
    return f"<!-- inkwell:ref:{reference} -->"


class _Answer(Answer):
    not_json = NOT_WORDPRESS

    def wordpress_error(self) -> tuple[str, str, Any]:
        """WordPress's error ``code``, ``message`` and ``data``; empty when the body is none."""
        payload = self._parsed
        if not isinstance(payload, dict) or not isinstance(payload.get("code"), str):
            return "", "", None
        message = payload.get("message")
        return payload["code"], message if isinstance(message, str) else "", payload.get("data")

    def count(self, header: str) -> int:
        try:
            return int(self.headers.get(header, "0"))
        except ValueError as error:
            raise CMSError(NOT_WORDPRESS, status=self.status) from error


def _shape_error() -> CMSError:
    """An answer that is JSON but not of the shape WordPress gives."""
    return CMSError(NOT_WORDPRESS)


def _wp_id(value: str | int) -> int:
    """A WordPress object id as WordPress takes it. Ids reach the adapter from WordPress, so
    anything else is a programming error, not the CMS's."""
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    raise ValueError(f"Not a WordPress id: {value!r}")


def _gmt(value: Any) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def _text(value: Any) -> str:
    """A string WordPress keeps HTML-escaped (term, site and user names) as plain text."""
    return html.unescape(value) if isinstance(value, str) else ""


def _escaped(value: str) -> str:
    """Plain text as WordPress must receive it: it shows titles, excerpts, SEO fields, term names
    and alt texts as HTML, so ``&``, ``<`` and ``>`` go as entities and never become markup."""
    return html.escape(value, quote=False)


def _remote_post(data: Any, *, site_url: str) -> RemotePost:
    try:
        return RemotePost(
            external_id=str(_wp_id(data["id"])),
            url=url_on_site(data.get("link"), site_url=site_url),
            status=data["status"],
            modified_at=_gmt(data.get("modified_gmt")),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise _shape_error() from error


def _remote_term(taxonomy: str, data: Any) -> RemoteTerm:
    try:
        parent = data.get("parent") or 0
        return RemoteTerm(
            taxonomy=taxonomy,
            external_id=str(_wp_id(data["id"])),
            name=_text(data["name"]),
            slug=data["slug"],
            parent_external_id=str(_wp_id(parent)) if parent else "",
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise _shape_error() from error


def _time_zone(index: dict) -> str:
    """WordPress's own rule (``wp_timezone_string``): the zone's name when the site has one, else
    its fixed offset as ``±HH:MM``."""
    name = index.get("timezone_string")
    if isinstance(name, str) and name:
        return name
    offset = float(index.get("gmt_offset") or 0)
    minutes = round(abs(offset) * 60)
    return f"{'-' if offset < 0 else '+'}{minutes // 60:02d}:{minutes % 60:02d}"


class WordPressAdapter(HttpCMSAdapter):
    platform = PLATFORM

    answer_class = _Answer

    def __init__(self, credentials: CMSCredentials, *, timeout: float, allow_private: bool):
        super().__init__(
            site_root(credentials.base_url),
            timeout=timeout,
            allow_private=allow_private,
            headers={},
            auth=(credentials.username, credentials.app_password),
        )
        self._password = credentials.app_password
        self._mode: str | None = None  # PRETTY or PLAIN once a WordPress answer showed which works

    def _secrets(self) -> set[str]:
        return {self._password, self._password.replace(" ", "")}

    # -- CMSAdapter ---------------------------------------------------------------------

    def current_user(self) -> RemoteUser:
        data = self._call("GET", "/wp/v2/users/me", params={"context": "edit"}).json()
        try:
            capabilities = data.get("capabilities") or {}
            return RemoteUser(
                external_id=str(_wp_id(data["id"])),
                name=_text(data.get("name")),
                roles=list(data.get("roles") or []),
                capabilities=sorted(name for name, granted in capabilities.items() if granted),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise _shape_error() from error

    def site_info(self) -> SiteInfo:
        # The index lists every route too (hundreds of kilobytes): ask only for what is used.
        data = self._call("GET", "/", params={"_fields": "name,description,url,home,gmt_offset,timezone_string"}).json()
        try:
            return SiteInfo(
                name=_text(data.get("name")),
                description=_text(data.get("description")),
                url=url_on_site(data.get("home") or data.get("url"), site_url=self._base_url) or self._base_url,
                time_zone=_time_zone(data),
            )
        except (TypeError, ValueError, AttributeError) as error:
            raise _shape_error() from error

    def content_types(self) -> list[ContentType]:
        """The types content can be published as: those with a public view, media aside."""
        data = self._call("GET", "/wp/v2/types", params={"context": "edit"}).json()
        try:
            return [
                ContentType(slug=item["slug"], name=_text(item["name"]), rest_base=item["rest_base"], taxonomies=list(item.get("taxonomies") or []))
                for item in data.values()
                if item.get("viewable") and item["slug"] != "attachment" and item.get("rest_base")
            ]
        except (KeyError, TypeError, AttributeError) as error:
            raise _shape_error() from error

    def check_collection(self, content_type: str) -> CollectionCheck:
        unknown = CollectionCheck(content_type=content_type, ok=False, count=0, message=f'WordPress has no content type "{content_type}"')
        if not CONTENT_TYPE_KEY.fullmatch(content_type):
            return unknown
        try:
            answer = self._call("GET", f"/wp/v2/types/{content_type}", params={"context": "edit"}, expect=(404,))
            if answer.status == 404:
                return unknown
            data = answer.json()
            try:
                namespace = data.get("rest_namespace") or "wp/v2"
                rest_base = data["rest_base"]
                name = _text(data.get("name")) or content_type
            except (KeyError, TypeError, AttributeError) as error:
                raise _shape_error() from error
            listing = self._call("GET", f"/{namespace}/{rest_base}", params={"context": "edit", "per_page": 1, "_fields": "id"})
        except (CMSAuthFailed, CMSForbidden) as error:
            return CollectionCheck(content_type=content_type, ok=False, count=0, message=error.message)
        count = listing.count("X-WP-Total")
        return CollectionCheck(content_type=content_type, ok=True, count=count, message=f"{name}: {count} found")

    def terms(self, taxonomy: str) -> list[RemoteTerm]:
        route = f"/wp/v2/{self._taxonomy_base(taxonomy)}"
        terms: list[RemoteTerm] = []
        page = 1
        while True:
            # Ordered by id so that a term added meanwhile does not shift the pages.
            params = {"per_page": PAGE_SIZE, "page": page, "orderby": "id", "order": "asc", "_fields": TERM_FIELDS}
            answer = self._call("GET", route, params=params)
            terms.extend(_remote_term(taxonomy, item) for item in self._list(answer))
            if page >= self._pages(answer):
                return terms
            page += 1

    def ensure_term(self, taxonomy: str, *, name: str, slug: str, parent_external_id: str = "") -> RemoteTerm:
        route = f"/wp/v2/{self._taxonomy_base(taxonomy)}"
        if slug:
            found = self._list(self._call("GET", route, params={"slug": slug, "_fields": TERM_FIELDS}))
            if found:
                return _remote_term(taxonomy, found[0])
        body: dict[str, Any] = {"name": _escaped(name)}
        if slug:
            body["slug"] = slug
        if parent_external_id and taxonomy == "category":  # tags have no parents
            body["parent"] = _wp_id(parent_external_id)
        answer = self._call("POST", route, json_body=body, expect=(400,))
        if answer.status == 400:
            # WordPress refuses a second term of the same name (under the same parent) and names
            # the one it has: a term made meanwhile, or one whose slug differs from ours.
            code, _message, data = answer.wordpress_error()
            term_id = data.get("term_id") if code == "term_exists" and isinstance(data, dict) else None
            if not isinstance(term_id, int):
                raise self._failure(answer, "POST", route)
            return _remote_term(taxonomy, self._call("GET", f"{route}/{term_id}", params={"_fields": TERM_FIELDS}).json())
        return _remote_term(taxonomy, answer.json())

    def upload_media(self, *, filename: str, content_type: str, data: bytes, alt_text: str = "") -> RemoteMedia:
        # WordPress reads the file name from a plain ``filename=`` (no escapes, no ``filename*``).
        safe_name = SAFE_FILENAME.sub("-", filename).strip("-.") or "upload"
        headers = {"Content-Type": content_type, "Content-Disposition": f'attachment; filename="{safe_name}"'}
        # The alt text rides along in the query, which WordPress reads for a raw upload: one
        # request, so no image is ever left without its alt text.
        params = {"alt_text": _escaped(alt_text)} if alt_text else None
        payload = self._call("POST", "/wp/v2/media", params=params, content=data, headers=headers).json()
        try:
            media = RemoteMedia(external_id=str(_wp_id(payload["id"])), url=url_on_site(payload["source_url"], site_url=self._base_url))
        except (KeyError, TypeError, ValueError) as error:
            raise _shape_error() from error
        if not media.url:
            raise CMSRejected(MEDIA_OFF_SITE)
        return media

    def image_html(self, *, url: str, alt: str) -> str:
        # The block editor's own markup for an image block, which it opens without a "recover" prompt.
        return f'<figure class="wp-block-image"><img src="{html.escape(url)}" alt="{html.escape(alt)}"/></figure>'

    def find_post(self, reference: str) -> RemotePost | None:
        tag = marker(reference)
        page = 1
        while True:
            params = {
                "search": f"inkwell:ref:{reference}",
                "status": "any",
                "context": "edit",
                "per_page": FIND_PAGE_SIZE,
                "page": page,
                "orderby": "id",
                "order": "asc",
                "_fields": f"{POST_FIELDS},content",
            }
            answer = self._call("GET", "/wp/v2/posts", params=params)
            for item in self._list(answer):
                # The search matches a longer reference too ("ab" finds "abc"): the marker decides.
                try:
                    raw = item["content"]["raw"]
                except (KeyError, TypeError) as error:
                    raise _shape_error() from error
                if tag in raw:
                    return _remote_post(item, site_url=self._base_url)
            if page >= self._pages(answer):
                return None
            page += 1

    def create_post(self, payload: PostPayload) -> RemotePost:
        return _remote_post(self._call("POST", "/wp/v2/posts", params={"_fields": POST_FIELDS}, json_body=self._post_body(payload)).json(), site_url=self._base_url)

    def update_post(self, external_id: str, payload: PostPayload) -> RemotePost:
        route = f"/wp/v2/posts/{_wp_id(external_id)}"
        return _remote_post(self._call("POST", route, params={"_fields": POST_FIELDS}, json_body=self._post_body(payload)).json(), site_url=self._base_url)

    def get_post(self, external_id: str) -> RemotePost | None:
        route = f"/wp/v2/posts/{_wp_id(external_id)}"
        answer = self._call("GET", route, params={"context": "edit", "_fields": POST_FIELDS}, expect=(404,))
        return None if answer.status == 404 else _remote_post(answer.json(), site_url=self._base_url)

    def posts(self, external_ids: list[str]) -> dict[str, RemotePost]:
        ids = sorted({_wp_id(external_id) for external_id in external_ids})
        found: dict[str, RemotePost] = {}
        for start in range(0, len(ids), PAGE_SIZE):
            batch = ids[start : start + PAGE_SIZE]
            params = {
                "include": ",".join(map(str, batch)),
                "status": POST_STATUSES,
                "context": "edit",
                "per_page": PAGE_SIZE,
                "_fields": POST_FIELDS,
            }
            for item in self._list(self._call("GET", "/wp/v2/posts", params=params)):
                post = _remote_post(item, site_url=self._base_url)
                found[post.external_id] = post
        return found

    # -- payloads -------------------------------------------------------------------------

    @staticmethod
    def _post_body(payload: PostPayload) -> dict[str, Any]:
        tag = marker(payload.reference)
        body: dict[str, Any] = {
            "title": _escaped(payload.title),
            "content": f"{MARKER.sub('', payload.html).rstrip()}\n{tag}",
            "excerpt": _escaped(payload.excerpt),
            "status": payload.status,
            "categories": [_wp_id(term) for term in payload.category_ids],
            "tags": [_wp_id(term) for term in payload.tag_ids],
            "featured_media": _wp_id(payload.featured_media_id) if payload.featured_media_id else 0,
            "meta": {
                **{key: _escaped(payload.meta_title) for key in SEO_META_KEYS["title"]},
                **{key: _escaped(payload.meta_description) for key in SEO_META_KEYS["description"]},
            },
        }
        if payload.slug:
            body["slug"] = payload.slug
        return body

    @staticmethod
    def _taxonomy_base(taxonomy: str) -> str:
        try:
            return TAXONOMY_BASES[taxonomy]
        except KeyError:
            raise ValueError(f"Unknown taxonomy {taxonomy!r}; one of {sorted(TAXONOMY_BASES)}") from None

    @staticmethod
    def _pages(answer: _Answer) -> int:
        pages = answer.count("X-WP-TotalPages")
        if pages > MAX_PAGES:
            raise CMSError(f"The CMS lists more than {MAX_PAGES} pages of items, more than can be read")
        return pages

    @staticmethod
    def _list(answer: _Answer) -> list:
        data = answer.json()
        if not isinstance(data, list):
            raise CMSError(NOT_WORDPRESS, status=answer.status)
        return data

    # -- transport ------------------------------------------------------------------------

    def _url(self, mode: str, route: str, params: dict | None) -> tuple[str, dict]:
        if mode == PRETTY:
            return f"{self._base_url}/wp-json{route}", dict(params or {})
        return f"{self._base_url}/", {"rest_route": route, **(params or {})}

    def _call(self, method: str, route: str, *, params: dict | None = None, json_body: Any = None, content: bytes | None = None, headers: dict | None = None, expect: tuple[int, ...] = ()) -> _Answer:
        """The answer to one REST request: a 2xx one, or an error WordPress itself gave with a
        status in ``expect``; anything else raises the matching ``CMSError``."""
        modes = [self._mode] if self._mode else [PRETTY, PLAIN]
        for mode in modes:
            url, query = self._url(mode, route, params)
            answer = self._send(method, url, route, params=query, json=json_body, content=content, headers=headers)
            if self._mode is None:
                if mode == PRETTY and answer.status == 404 and not answer.is_json():
                    continue  # no pretty permalinks: the theme answered, not the REST API
                if answer.is_json():
                    self._mode = mode
            break
        if 200 <= answer.status < 300:
            return answer
        if answer.status in expect and answer.wordpress_error()[0]:
            return answer
        raise self._failure(answer, method, route)

    def _failure(self, answer: _Answer, method: str, route: str) -> CMSError:
        status = answer.status
        code, message, _data = answer.wordpress_error()
        logger.warning("wordpress %s %s answered %s %s", method, route, status, code or "(no WordPress error)")
        reason = self._reason(message)
        if 300 <= status < 400:
            return CMSError(self._redirect_message(answer), status=status)
        if status == 401:
            return CMSAuthFailed(status=status)
        if status == 403:
            return CMSForbidden(reason or None, status=status)
        if status == 404:
            # A 404 that is not WordPress's own: the address has no REST API there.
            return CMSNotFound(status=status) if code else CMSError(NOT_WORDPRESS, status=status)
        if status == 408:
            return CMSTimeout(status=status)
        if status == 429 or (status >= 500 and code not in REJECTION_CODES_ON_500):
            return CMSUnavailable(status=status)
        if 400 <= status < 600:
            return CMSRejected(reason or None, status=status)
        return CMSError(NOT_WORDPRESS, status=status)
