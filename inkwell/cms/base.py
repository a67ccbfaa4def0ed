"""The CMS adapter interface. Domains (integration, publishing) talk to a customer's CMS only
through an adapter built by ``inkwell.cms.build_adapter``; adapters import no domain code.

Every adapter method either returns its result or raises ``CMSError``. ``CMSError.message`` is
safe to show a user and to log: it never holds a password, an Authorization header or a raw
response body.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

MAX_URL_LENGTH = 500


class CMSError(Exception):
    """A CMS call that failed. ``retryable`` marks failures worth trying again later (timeouts,
    connection errors, 429 and 5xx answers); ``status`` is the CMS's HTTP status when it answered."""

    code = "cms_error"
    message = "The CMS returned an error"
    retryable = False

    def __init__(self, message: str | None = None, *, status: int | None = None):
        self.message = message or self.message
        self.status = status
        super().__init__(self.message)


class CMSUnreachable(CMSError):
    code = "cms_unreachable"
    message = "The CMS could not be reached"
    retryable = True


class CMSTimeout(CMSError):
    code = "cms_timeout"
    message = "The CMS did not answer in time"
    retryable = True


class CMSUnavailable(CMSError):
    code = "cms_unavailable"
    message = "The CMS is unavailable"
    retryable = True


class CMSAuthFailed(CMSError):
    code = "cms_auth_failed"
    message = "The CMS rejected the username or application password"


class CMSForbidden(CMSError):
    code = "cms_forbidden"
    message = "The CMS user may not do this"


class CMSNotFound(CMSError):
    code = "cms_not_found"
    message = "The CMS does not have this item"


class CMSConflict(CMSError):
    """The CMS refused a change because the item changed meanwhile (Ghost's 409
    UpdateCollisionError): reading it again and retrying succeeds."""

    code = "cms_conflict"
    message = "The post changed on the CMS while it was being updated"
    retryable = True


class CMSRejected(CMSError):
    """The CMS refused the request's content (a 400 with its own reason)."""

    code = "cms_rejected"
    message = "The CMS rejected the request"


class CMSAddressNotAllowed(CMSError):
    """The URL points at a private, loopback or link-local address and the operator does not allow those."""

    code = "cms_address_not_allowed"
    message = "The CMS address is not allowed"
    private_message = "The CMS address is private or loopback, which is not allowed unless the server sets CMS_ALLOW_PRIVATE_URLS=true"


def url_on_site(url: object, *, site_url: str) -> str:
    """``url`` when it is an http(s) URL on the CMS site's own host or a subdomain of it (where
    sites keep their media), else "". Every URL a CMS answers (a post's link, a media file, a
    canonical URL) goes through here before it is stored: the CMS is not trusted, and a
    ``javascript:`` link from it would run on Inkwell's origin when a member clicks it."""
    if not isinstance(url, str) or len(url) > MAX_URL_LENGTH or any(char.isspace() or ord(char) < 32 for char in url):
        return ""
    try:
        parts, site = urlsplit(url), urlsplit(site_url)
        host, site_host = (parts.hostname or "").rstrip("."), (site.hostname or "").rstrip(".")
        port = parts.port
    except ValueError:  # an unclosed IPv6 bracket, a port that is not a number
        return ""
    if parts.scheme not in ("http", "https") or not host or "@" in parts.netloc or port == 0:
        return ""
    site_host = site_host.removeprefix("www.")
    if host.removeprefix("www.") != site_host and not host.endswith(f".{site_host}"):
        return ""
    return url


@dataclass(frozen=True)
class CMSCredentials:
    """``app_password`` is the platform's secret: a WordPress application password (with
    ``username``), or a Ghost Admin API key ``<id>:<secret>`` (``username`` empty)."""

    base_url: str
    username: str
    app_password: str


@dataclass(frozen=True)
class RemoteUser:
    external_id: str
    name: str
    roles: list[str] = field(default_factory=list)
    capabilities: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SiteInfo:
    name: str
    description: str
    url: str
    time_zone: str


@dataclass(frozen=True)
class ContentType:
    slug: str
    name: str
    rest_base: str
    taxonomies: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CollectionCheck:
    content_type: str
    ok: bool
    count: int
    message: str


@dataclass(frozen=True)
class RemoteTerm:
    taxonomy: str  # "category" or "tag"
    external_id: str
    name: str
    slug: str
    parent_external_id: str  # "" for none


@dataclass(frozen=True)
class RemoteMedia:
    external_id: str
    url: str


@dataclass(frozen=True)
class RemotePost:
    external_id: str
    url: str
    status: str  # the CMS's own status: publish, future, draft, pending, private, trash
    modified_at: datetime | None


@dataclass(frozen=True)
class PostPayload:
    """What publishing sends. ``reference`` is an opaque token unique to our content; the adapter
    stores it with the post so that ``find_post`` can recognise a post an earlier attempt created
    (a crash between the CMS call and our commit must not make a second post)."""

    reference: str
    title: str
    html: str
    excerpt: str = ""
    slug: str = ""
    status: str = "publish"
    category_ids: list[str] = field(default_factory=list)
    tag_ids: list[str] = field(default_factory=list)
    featured_media_id: str = ""
    # The featured image's address and alt text, for a CMS that keeps an image by its URL (Ghost).
    featured_media_url: str = ""
    featured_media_alt: str = ""
    meta_title: str = ""
    meta_description: str = ""


@dataclass(frozen=True)
class RemoteWebhook:
    external_id: str
    event: str


class CMSAdapter(ABC):
    """One customer's CMS. Methods are synchronous, bounded by timeouts, and retry nothing: the
    caller (a job or the scheduler) decides about retries from ``CMSError.retryable``."""

    platform: str
    # How the CMS signs the webhooks it delivers: "inkwell" (Inkwell's own scheme, sent by the
    # Inkwell plugin: X-Inkwell-Signature) or "ghost" (Ghost's X-Ghost-Signature).
    webhook_signing: str = "inkwell"
    # Whether Inkwell makes the CMS's webhooks itself (``register_webhooks``) rather than a person
    # installing something on the CMS.
    registers_webhooks: bool = False

    @abstractmethod
    def current_user(self) -> RemoteUser:
        """Who the credentials log in as (verifies them)."""

    @abstractmethod
    def site_info(self) -> SiteInfo: ...

    @abstractmethod
    def content_types(self) -> list[ContentType]: ...

    @abstractmethod
    def check_collection(self, content_type: str) -> CollectionCheck:
        """Whether the credentials can list (and see the size of) one content type's collection."""

    @abstractmethod
    def terms(self, taxonomy: str) -> list[RemoteTerm]:
        """Every category (``taxonomy="category"``) or tag (``"tag"``), all pages."""

    @abstractmethod
    def ensure_term(self, taxonomy: str, *, name: str, slug: str, parent_external_id: str = "") -> RemoteTerm:
        """The term with this slug, created when the CMS does not have it yet."""

    @abstractmethod
    def upload_media(self, *, filename: str, content_type: str, data: bytes, alt_text: str = "") -> RemoteMedia: ...

    @abstractmethod
    def image_html(self, *, url: str, alt: str) -> str:
        """An uploaded image placed in an article's body, in the markup the CMS's editor knows.
        ``url`` and ``alt`` are plain text; the adapter escapes them."""

    def register_webhooks(self, *, target_url: str, secret: str, replace: list[str]) -> list[RemoteWebhook]:
        """Makes the CMS call ``target_url`` when a post changes, signed with ``secret``, after
        removing the webhooks ``replace`` names (ids an earlier call answered). A CMS whose
        webhooks are set up by hand (WordPress: a plugin) does not support it."""
        raise CMSError(f"{self.platform} webhooks are set up on the CMS itself, not through its API")

    @abstractmethod
    def find_post(self, reference: str) -> RemotePost | None:
        """The post that carries ``reference`` (any status but deleted), or None."""

    @abstractmethod
    def create_post(self, payload: PostPayload) -> RemotePost: ...

    @abstractmethod
    def update_post(self, external_id: str, payload: PostPayload) -> RemotePost: ...

    @abstractmethod
    def get_post(self, external_id: str) -> RemotePost | None:
        """The post, or None when the CMS no longer has it."""

    @abstractmethod
    def posts(self, external_ids: list[str]) -> dict[str, RemotePost]:
        """The posts among ``external_ids`` that still exist (trashed ones included), by id."""

    def close(self) -> None:  # noqa: B027  (optional: an adapter that keeps no connection has nothing to release)
        """Release the connections the adapter keeps open between calls."""

    def __enter__(self) -> "CMSAdapter":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
