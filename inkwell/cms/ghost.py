"""The Ghost adapter: Ghost's Admin API (``/ghost/api/admin/``, 5.x) with an Admin API key.

Authentication: the key is ``<24 hex id>:<64 hex secret>`` (Ghost: Settings → Integrations → a
custom integration). Each request carries a fresh JWT signed HS256 with the hex-decoded secret,
``kid`` the key's id, ``aud`` ``/admin/`` and a lifetime of five minutes (Ghost refuses longer).

Safety, as in the WordPress adapter: every request's URL passes ``inkwell.netguard`` first and the
connection only goes to an address netguard allows; redirects are not followed; answers are read
up to ``MAX_ANSWER_BYTES`` within the timeout; every URL Ghost answers passes ``url_on_site``.

Ghost's shapes, mapped onto the interface:

- statuses: ``published`` → ``publish``, ``scheduled`` → ``future``, ``draft`` → ``draft``,
  ``sent`` (an email only, not on the site) → ``private``. A payload's ``publish`` goes as
  ``published``, anything else as ``draft``.
- terms: Ghost has tags only. ``terms("category")`` is empty, and ``ensure_term("category")``
  makes a tag: an article's categories go first among its tags, so its first category is the
  post's primary tag (Ghost's stand-in for a category). Internal tags (``#...``) are not listed.
- media: Ghost keeps an image by its URL; ``RemoteMedia.external_id`` is the URL's path.
- our reference lives in the post's ``codeinjection_foot`` as ``<!-- inkwell:ref:{reference} -->``
  (shown to nobody; Ghost's filter finds it), so ``find_post`` recognises a post an earlier
  attempt created.
- updates: Ghost refuses a ``PUT`` without the post's current ``updated_at`` (409): the adapter
  reads it first, and reads again once when the post changed in between.

Messages of the errors raised are safe to show: Ghost's own reason for a refusal is passed on
stripped of tags and cut to ``MESSAGE_LIMIT`` characters, never a body, a token or the key.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import logging
import re
import time
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

import jwt

from inkwell.cms.base import (
    CMSAuthFailed,
    CMSConflict,
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
    RemoteWebhook,
    SiteInfo,
    url_on_site,
)
from inkwell.cms.http import Answer, HttpCMSAdapter, site_root

logger = logging.getLogger("inkwell.cms")

PLATFORM = "ghost"
API_VERSION = "v5.0"
API_PATH = "/ghost/api/admin"
NOT_GHOST = "The address did not answer as a Ghost Admin API"
KEY_REFUSED = "Ghost refused the Admin API key"
KEY_MALFORMED = "The Admin API key is not of the form <24 hex digits>:<64 hex digits>"
MEDIA_OFF_SITE = "The CMS stored the file at an address outside its own site"
TOKEN_SECONDS = 300  # Ghost refuses a token that lives longer than five minutes
PAGE_SIZE = 100
MAX_PAGES = 1000
ADMIN_KEY = re.compile(r"([0-9a-f]{24}):([0-9a-f]{64})")
GHOST_ID = re.compile(r"[0-9a-f]{24}")
REFERENCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
SAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")
POST_FIELDS = "id,uuid,url,status,updated_at"
# Ghost's own limits on a post's fields (its schema answers 422 beyond them).
LIMITS = {"title": 255, "custom_excerpt": 300, "meta_title": 300, "meta_description": 500, "feature_image_alt": 191, "slug": 191}
STATUS_FROM_GHOST = {"published": "publish", "scheduled": "future", "draft": "draft", "sent": "private"}
# The events that change whether and where a post is live; Ghost signs each delivery.
WEBHOOK_EVENTS = ("post.published", "post.published.edited", "post.unpublished", "post.edited", "post.deleted")
WEBHOOK_NAME = "Inkwell"
SIGNATURE = re.compile(r"\s*sha256=([0-9a-fA-F]{64})\s*,\s*t=(\d{1,16})\s*")


def parse_admin_key(value: str) -> tuple[str, bytes]:
    """The key's id and its secret's bytes; ``ValueError`` when it is not ``<24 hex>:<64 hex>``."""
    match = ADMIN_KEY.fullmatch(value.strip().lower()) if isinstance(value, str) else None
    if match is None:
        raise ValueError(KEY_MALFORMED)
    return match.group(1), bytes.fromhex(match.group(2))


def admin_token(key: str, *, now: int | None = None) -> str:
    """The JWT Ghost's Admin API takes for ``key``: HS256, ``kid``, ``aud`` ``/admin/``, five minutes."""
    key_id, secret = parse_admin_key(key)
    issued = int(time.time()) if now is None else now
    return jwt.encode({"iat": issued, "exp": issued + TOKEN_SECONDS, "aud": "/admin/"}, secret, algorithm="HS256", headers={"kid": key_id})


def webhook_signature(*, secret: str, raw_body: bytes, timestamp_ms: str) -> str:
    """Ghost's ``X-Ghost-Signature`` hex digest (``WebhookTrigger.js`` of Ghost 5): the
    HMAC-SHA256 of the body followed by the timestamp in milliseconds, keyed with the secret."""
    return hmac.new(secret.encode(), raw_body + timestamp_ms.encode(), hashlib.sha256).hexdigest()


def parse_signature_header(value: str | None) -> tuple[str, str] | None:
    """``(hex digest, timestamp in ms)`` of ``sha256=<hex>, t=<ms>``, or None when malformed."""
    match = SIGNATURE.fullmatch(value or "")
    return (match.group(1).lower(), match.group(2)) if match else None


def webhook_post(payload: Any, *, site_url: str) -> tuple[str, str, RemotePost | None]:
    """What one of Ghost's post webhooks says: ``(event, post id, post)``, the post None when it
    is gone. Ghost sends ``{"post": {"current": {...}, "previous": {...}}}`` and no event name:
    a deleted post has an empty ``current`` and its id in ``previous``. ``ValueError`` (a safe
    message) when the body is not that."""
    post = payload.get("post") if isinstance(payload, dict) else None
    if not isinstance(post, dict):
        raise ValueError("Ghost sends the post as post.current and post.previous")
    current, previous = post.get("current") or {}, post.get("previous") or {}
    if not isinstance(current, dict) or not isinstance(previous, dict):
        raise ValueError("Ghost sends the post as post.current and post.previous")
    if not current:
        post_id = previous.get("id")
        if not isinstance(post_id, str) or not GHOST_ID.fullmatch(post_id):
            raise ValueError("A deleted post's id is missing from post.previous")
        return "post.deleted", post_id, None
    post_id, status = current.get("id"), current.get("status")
    if not isinstance(post_id, str) or not GHOST_ID.fullmatch(post_id) or not isinstance(status, str) or not status:
        raise ValueError("The post's id or status is missing from post.current")
    try:
        modified_at = _time(current.get("updated_at"))
    except ValueError:
        modified_at = None
    remote = RemotePost(external_id=post_id, url=url_on_site(current.get("url"), site_url=site_url), status=STATUS_FROM_GHOST.get(status, status)[:20], modified_at=modified_at)
    return "post.updated", post_id, remote


def marker(reference: str) -> str:
    if not REFERENCE.fullmatch(reference):
        raise ValueError("A post reference is 1 to 100 letters, digits, '.', '_' and '-'")
    return f"<!-- inkwell:ref:{reference} -->"


def _ghost_id(value: str) -> str:
    """A Ghost object id (24 hex digits). Ids reach the adapter from Ghost, so anything else is a
    programming error, not the CMS's."""
    if isinstance(value, str) and GHOST_ID.fullmatch(value):
        return value
    raise ValueError(f"Not a Ghost id: {value!r}")


def _cut(value: str, field: str) -> str:
    return value[: LIMITS[field]]


def _site_root(base_url: str) -> str:
    """The site's root: Ghost's admin address (``…/ghost``) is taken for it too."""
    return site_root(base_url).removesuffix("/ghost")


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class _Answer(Answer):
    not_json = NOT_GHOST

    def items(self, resource: str) -> list:
        data = self.json()
        items = data.get(resource) if isinstance(data, dict) else None
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise CMSError(NOT_GHOST, status=self.status)
        return items

    def one(self, resource: str) -> dict:
        items = self.items(resource)
        if not items:
            raise CMSError(NOT_GHOST, status=self.status)
        return items[0]

    def pages(self) -> int:
        data = self.json()
        try:
            pages = int(data["meta"]["pagination"]["pages"])
        except (KeyError, TypeError, ValueError):
            return 1
        if pages > MAX_PAGES:
            raise CMSError(f"The CMS lists more than {MAX_PAGES} pages of items, more than can be read")
        return pages

    def total(self) -> int:
        try:
            return int(self.json()["meta"]["pagination"]["total"])
        except (KeyError, TypeError, ValueError) as error:
            raise CMSError(NOT_GHOST, status=self.status) from error

    def ghost_error(self) -> tuple[str, str]:
        """Ghost's error ``type`` and its message (with the context, which says which field)."""
        data = self._parsed
        errors = data.get("errors") if isinstance(data, dict) else None
        if not isinstance(errors, list) or not errors or not isinstance(errors[0], dict):
            return "", ""
        first = errors[0]
        kind = first.get("type") if isinstance(first.get("type"), str) else ""
        parts = [part for part in (first.get("message"), first.get("context")) if isinstance(part, str) and part]
        return kind or "GhostError", " ".join(parts)


class GhostAdapter(HttpCMSAdapter):
    platform = PLATFORM
    webhook_signing = "ghost"
    registers_webhooks = True

    answer_class = _Answer

    def __init__(self, credentials: CMSCredentials, *, timeout: float, allow_private: bool):
        super().__init__(_site_root(credentials.base_url), timeout=timeout, allow_private=allow_private, headers={"Accept-Version": API_VERSION})
        self._key = credentials.app_password.strip()

    def _secrets(self) -> set[str]:
        return set(self._key.split(":"))

    # -- CMSAdapter ---------------------------------------------------------------------

    def current_user(self) -> RemoteUser:
        """An Admin API key is a custom integration, not a staff user: listing posts (which needs
        the key) proves it, and an integration may publish."""
        self._call("GET", "/posts/", params={"limit": 1, "fields": "id"}).json()
        key_id = self._key.split(":", 1)[0]
        return RemoteUser(external_id=key_id, name=f"the Admin API key {key_id[:6]}…", roles=["integration"], capabilities=["publish_posts"])

    def site_info(self) -> SiteInfo:
        data = self._call("GET", "/site/").json()
        site = data.get("site") if isinstance(data, dict) else None
        if not isinstance(site, dict):
            raise CMSError(NOT_GHOST)
        time_zone = "Etc/UTC"
        settings = self._call("GET", "/settings/", params={"group": "site"}, expect=(403,))
        if settings.status == 200:
            for item in settings.items("settings"):
                if item.get("key") == "timezone" and isinstance(item.get("value"), str) and item["value"]:
                    time_zone = item["value"]
        title, description = site.get("title"), site.get("description")
        return SiteInfo(
            name=title if isinstance(title, str) else "",
            description=description if isinstance(description, str) else "",
            url=url_on_site(site.get("url"), site_url=self._base_url).rstrip("/") or self._base_url,
            time_zone=time_zone,
        )

    def content_types(self) -> list[ContentType]:
        """Ghost has two: posts and pages (Inkwell publishes posts), both with tags."""
        return [ContentType(slug="post", name="Posts", rest_base="posts", taxonomies=["tag"]), ContentType(slug="page", name="Pages", rest_base="pages", taxonomies=["tag"])]

    def check_collection(self, content_type: str) -> CollectionCheck:
        bases = {"post": ("posts", "Posts"), "page": ("pages", "Pages")}
        if content_type not in bases:
            return CollectionCheck(content_type=content_type, ok=False, count=0, message=f'Ghost has no content type "{content_type}"')
        base, name = bases[content_type]
        try:
            answer = self._call("GET", f"/{base}/", params={"limit": 1, "fields": "id"})
        except (CMSAuthFailed, CMSForbidden) as error:
            return CollectionCheck(content_type=content_type, ok=False, count=0, message=error.message)
        count = answer.total()
        return CollectionCheck(content_type=content_type, ok=True, count=count, message=f"{name}: {count} found")

    def terms(self, taxonomy: str) -> list[RemoteTerm]:
        self._check_taxonomy(taxonomy)
        if taxonomy == "category":
            return []
        terms, page = [], 1
        while True:
            params = {"limit": PAGE_SIZE, "page": page, "order": "created_at asc", "fields": "id,name,slug", "filter": "visibility:public"}
            answer = self._call("GET", "/tags/", params=params)
            terms.extend(self._term(item) for item in answer.items("tags"))
            if page >= answer.pages():
                return terms
            page += 1

    def ensure_term(self, taxonomy: str, *, name: str, slug: str, parent_external_id: str = "") -> RemoteTerm:
        """The tag with this slug, made when missing. A category becomes a tag (Ghost has no
        categories, nor parents)."""
        self._check_taxonomy(taxonomy)
        if slug:
            answer = self._call("GET", f"/tags/slug/{quote(slug, safe='')}/", params={"fields": "id,name,slug"}, expect=(404,))
            if answer.status == 200:
                return self._term(answer.one("tags"), taxonomy="tag")
        body: dict[str, Any] = {"name": name[:191]}
        if slug:
            body["slug"] = slug[:191]
        return self._term(self._call("POST", "/tags/", json_body={"tags": [body]}).one("tags"), taxonomy="tag")

    def upload_media(self, *, filename: str, content_type: str, data: bytes, alt_text: str = "") -> RemoteMedia:
        """An image through ``/images/upload/`` (Ghost keeps no alt text with a file: it goes with
        the post, as ``feature_image_alt`` or in the figure)."""
        safe_name = (SAFE_FILENAME.sub("-", filename).strip("-.") or "upload")[-80:]
        files = {"file": (safe_name, data, content_type)}
        answer = self._call("POST", "/images/upload/", files=files, data={"purpose": "image", "ref": safe_name})
        url = url_on_site(answer.one("images").get("url"), site_url=self._base_url)
        if not url:
            raise CMSRejected(MEDIA_OFF_SITE)
        return RemoteMedia(external_id=urlsplit(url).path[:100], url=url)

    def image_html(self, *, url: str, alt: str) -> str:
        # Ghost's image card, which its HTML-to-Lexical conversion keeps as an image card.
        return f'<figure class="kg-card kg-image-card"><img src="{html.escape(url)}" class="kg-image" alt="{html.escape(alt)}" loading="lazy"></figure>'

    def find_post(self, reference: str) -> RemotePost | None:
        tag = marker(reference)
        # NQL's "contains" (~) on the field that carries the reference; the marker then decides
        # (a reference "ab" is contained in "abc").
        params = {"filter": f"codeinjection_foot:~'inkwell:ref:{reference} '", "fields": f"{POST_FIELDS},codeinjection_foot", "limit": PAGE_SIZE, "formats": "html"}
        for item in self._call("GET", "/posts/", params=params).items("posts"):
            if tag in (item.get("codeinjection_foot") or ""):
                return self._post(item)
        return None

    def create_post(self, payload: PostPayload) -> RemotePost:
        answer = self._call("POST", "/posts/", params={"source": "html"}, json_body={"posts": [self._post_body(payload)]})
        return self._post(answer.one("posts"))

    def update_post(self, external_id: str, payload: PostPayload) -> RemotePost:
        route = f"/posts/{_ghost_id(external_id)}/"
        body = self._post_body(payload)
        for attempt in (1, 2):
            current = self._call("GET", route, params={"fields": "id,updated_at"}).one("posts")
            answer = self._call("PUT", route, params={"source": "html"}, json_body={"posts": [{**body, "updated_at": current.get("updated_at")}]}, expect=(409,) if attempt == 1 else ())
            if answer.status != 409:
                return self._post(answer.one("posts"))
        raise CMSConflict()  # pragma: no cover - the second attempt raises on its own 409

    def get_post(self, external_id: str) -> RemotePost | None:
        answer = self._call("GET", f"/posts/{_ghost_id(external_id)}/", params={"fields": POST_FIELDS}, expect=(404,))
        return None if answer.status == 404 else self._post(answer.one("posts"))

    def posts(self, external_ids: list[str]) -> dict[str, RemotePost]:
        ids = sorted({_ghost_id(external_id) for external_id in external_ids})
        found: dict[str, RemotePost] = {}
        for start in range(0, len(ids), PAGE_SIZE):
            batch = ids[start : start + PAGE_SIZE]
            params = {"filter": f"id:[{','.join(batch)}]", "fields": POST_FIELDS, "limit": PAGE_SIZE}
            for item in self._call("GET", "/posts/", params=params).items("posts"):
                post = self._post(item)
                found[post.external_id] = post
        return found

    def register_webhooks(self, *, target_url: str, secret: str, replace: list[str]) -> list[RemoteWebhook]:
        """One webhook per event in ``WEBHOOK_EVENTS``, on the integration the key belongs to.
        The ones ``replace`` names go first (one already gone is no matter)."""
        for webhook_id in replace:
            if GHOST_ID.fullmatch(webhook_id or ""):
                self._call("DELETE", f"/webhooks/{webhook_id}/", expect=(404,))
        made: list[RemoteWebhook] = []
        try:
            for event in WEBHOOK_EVENTS:
                body = {"webhooks": [{"event": event, "target_url": target_url, "secret": secret, "name": f"{WEBHOOK_NAME} {event}"}]}
                item = self._call("POST", "/webhooks/", json_body=body).one("webhooks")
                made.append(RemoteWebhook(external_id=_ghost_id(item.get("id")), event=event))
        except (CMSError, ValueError) as error:
            # Half a set would deliver with a secret nobody keeps: the ones made go again.
            for webhook in made:
                try:
                    self._call("DELETE", f"/webhooks/{webhook.external_id}/", expect=(404,))
                except CMSError:
                    logger.warning("ghost webhook %s could not be removed after a failed setup", webhook.external_id)
            if isinstance(error, ValueError):
                raise CMSError(NOT_GHOST) from error
            raise
        return made

    # -- payloads -------------------------------------------------------------------------

    @staticmethod
    def _post_body(payload: PostPayload) -> dict[str, Any]:
        tags = list(dict.fromkeys([*payload.category_ids, *payload.tag_ids]))
        body: dict[str, Any] = {
            "title": _cut(payload.title, "title"),
            "html": payload.html,
            "custom_excerpt": _cut(payload.excerpt, "custom_excerpt") or None,
            "status": "published" if payload.status == "publish" else "draft",
            "tags": [{"id": _ghost_id(tag)} for tag in tags],
            "feature_image": payload.featured_media_url or None,
            "feature_image_alt": _cut(payload.featured_media_alt, "feature_image_alt") or None,
            "meta_title": _cut(payload.meta_title, "meta_title") or None,
            "meta_description": _cut(payload.meta_description, "meta_description") or None,
            "codeinjection_foot": marker(payload.reference),
        }
        if payload.slug:
            body["slug"] = _cut(payload.slug, "slug")
        return body

    def _post(self, data: dict) -> RemotePost:
        try:
            status = data["status"]
            return RemotePost(
                external_id=_ghost_id(data["id"]),
                url=url_on_site(data.get("url"), site_url=self._base_url),
                status=STATUS_FROM_GHOST.get(status, status),
                modified_at=_time(data.get("updated_at")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise CMSError(NOT_GHOST) from error

    @staticmethod
    def _term(data: dict, *, taxonomy: str = "tag") -> RemoteTerm:
        try:
            name, slug = data["name"], data["slug"]
            if not isinstance(name, str) or not isinstance(slug, str):
                raise TypeError
            return RemoteTerm(taxonomy=taxonomy, external_id=_ghost_id(data["id"]), name=name, slug=slug, parent_external_id="")
        except (KeyError, TypeError, ValueError) as error:
            raise CMSError(NOT_GHOST) from error

    @staticmethod
    def _check_taxonomy(taxonomy: str) -> None:
        if taxonomy not in ("category", "tag"):
            raise ValueError(f"Unknown taxonomy {taxonomy!r}; one of ['category', 'tag']")

    # -- transport ------------------------------------------------------------------------

    def _authorization(self) -> str:
        try:
            return f"Ghost {admin_token(self._key)}"
        except ValueError:
            raise CMSAuthFailed(KEY_MALFORMED) from None

    def _call(self, method: str, route: str, *, params: dict | None = None, json_body: Any = None, files: dict | None = None, data: dict | None = None, expect: tuple[int, ...] = ()) -> _Answer:
        """The answer to one Admin API request: a 2xx one, or an error Ghost itself gave with a
        status in ``expect``; anything else raises the matching ``CMSError``."""
        url = f"{self._base_url}{API_PATH}{route}"
        headers = {"Authorization": self._authorization()}
        answer = self._send(method, url, route, params=params, json=json_body, files=files, data=data, headers=headers)
        if 200 <= answer.status < 300:
            return answer
        if answer.status in expect and answer.ghost_error()[0]:
            return answer
        raise self._failure(answer, method, route)

    def _failure(self, answer: _Answer, method: str, route: str) -> CMSError:
        status = answer.status
        kind, message = answer.ghost_error()
        logger.warning("ghost %s %s answered %s %s", method, route, status, kind or "(no Ghost error)")
        reason = self._reason(message)
        if 300 <= status < 400:
            return CMSError(self._redirect_message(answer), status=status)
        if status == 401:
            return CMSAuthFailed(KEY_REFUSED, status=status)
        if status == 403:
            return CMSForbidden(reason or None, status=status)
        if status == 404:
            # A 404 that is not Ghost's own: the address has no Admin API there.
            return CMSNotFound(status=status) if kind else CMSError(NOT_GHOST, status=status)
        if status == 408:
            return CMSTimeout(status=status)
        if status == 409:
            return CMSConflict(status=status)
        if status == 429 or status >= 500:
            return CMSUnavailable(status=status)
        if 400 <= status < 500:
            return CMSRejected(reason or None, status=status)
        return CMSError(NOT_GHOST, status=status)
