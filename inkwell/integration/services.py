"""Writes of the integration domain: a site's CMS integration and its credentials, connection
tests, the structure read from the CMS, syncs, and what the CMS's webhooks change.

The CMS is reached only through ``inkwell.cms`` adapters. A CMS that is down, slow or refuses
the credentials is a result to report (``CMSError``: a safe code and message), never a crash.
"""

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone
from rest_framework.exceptions import ParseError, PermissionDenied, ValidationError

from inkwell.api import parsers
from inkwell.api.exceptions import ApiError, Conflict, StateConflict
from inkwell.api.filters import MAX_ID
from inkwell.cms import build_adapter, ghost, platforms_where
from inkwell.cms.base import CMSAdapter, CMSCredentials, CMSError, RemotePost, RemoteTerm, url_on_site
from inkwell.integration.models import (
    ACTIVE_SYNC_STATUSES,
    ConnectionStatus,
    Platform,
    SiteIntegration,
    SiteSetup,
    SyncRun,
    SyncStatus,
    WebhookDelivery,
)
from inkwell.jobs.models import Job
from inkwell.jobs.services import start_job
from inkwell.notifications import events
from inkwell.tenancy.models import Account, ApiKey, Sector, Site, User
from inkwell.tenancy.serializers import REQUIRED, SITE_NOT_YOURS
from inkwell.tenancy.services import api_key_create
from inkwell.writer.models import Content, Taxonomy, TaxonomyType
from inkwell.writer.sanitize import plain_text

SYNC = "integration.sync"
ALREADY_INTEGRATED = "This site already has a {platform} integration"
NO_INTEGRATION = "This site has no CMS integration"
INTEGRATION_INACTIVE = "This integration is not active"
SYNC_ACTIVE = "A sync of this integration is queued or running already"
KEY_OF_ANOTHER_SITE = "This API key belongs to another site"
# Changing any of these makes the last connection test say nothing about the integration.
CREDENTIAL_FIELDS = ("base_url", "username", "app_password")
# Posts asked of the CMS per request while reconciling.
POST_BATCH = 100
WEBHOOK_SIGNATURE_PREFIX = "sha256="
TIMESTAMP_HEADER = "X-Inkwell-Timestamp"
SIGNATURE_HEADER = "X-Inkwell-Signature"
INVALID_SIGNATURE = "Invalid signature"
STALE_TIMESTAMP = "The timestamp is missing or outside the allowed window"


def new_webhook_secret() -> str:
    return secrets.token_urlsafe(32)


def adapter_for(*, integration: SiteIntegration) -> CMSAdapter:
    credentials = CMSCredentials(base_url=integration.base_url, username=integration.username, app_password=integration.app_password)
    return build_adapter(integration.platform, credentials)


def _integrations(account):
    return SiteIntegration.objects.for_account(account)


# Integrations and their credentials


@transaction.atomic
def integration_create(
    *, account: Account, site: Site, platform: str, base_url: str, username: str, app_password: str, is_active: bool = True
) -> SiteIntegration:
    """A new integration, untested, with a fresh webhook secret (readable on the returned object
    only: the API shows it once). One per site and platform (409)."""
    if _integrations(account).filter(site=site, platform=platform).exists():
        raise Conflict({"site_id": [ALREADY_INTEGRATED.format(platform=Platform(platform).label)]})
    return SiteIntegration.objects.create(
        account=account,
        site=site,
        platform=platform,
        base_url=base_url,
        username=username,
        app_password=app_password,
        webhook_secret=new_webhook_secret(),
        is_active=is_active,
    )


@transaction.atomic
def integration_update(*, integration: SiteIntegration, **fields) -> SiteIntegration:
    """Changes the fields given (``base_url``, ``username``, ``app_password``, ``is_active``). New
    credentials are untested until the next connection test."""
    credentials_changed = any(name in fields and fields[name] != getattr(integration, name) for name in CREDENTIAL_FIELDS)
    for name, value in fields.items():
        setattr(integration, name, value)
    if credentials_changed:
        integration.connection_status = ConnectionStatus.UNTESTED
        integration.connection_message = ""
    integration.save()
    return integration


def integration_delete(*, integration: SiteIntegration) -> None:
    integration.delete()


def rotate_webhook_secret(*, integration: SiteIntegration) -> str:
    """A new webhook secret; the old one stops working at once. Returned once, as at creation."""
    integration.webhook_secret = new_webhook_secret()
    integration.save(update_fields=["webhook_secret", "updated_at"])
    return integration.webhook_secret


WEBHOOK_KEY_NAME = "WordPress webhook of {site}"


@transaction.atomic
def webhook_setup(*, integration: SiteIntegration, user: User) -> dict:
    """Everything WordPress needs to sign its deliveries, made at once and shown once: a new
    webhook secret (the old one stops working) and an API key bound to the integration's site."""
    secret = rotate_webhook_secret(integration=integration)
    key, raw_key = api_key_create(account=integration.account, user=user, name=WEBHOOK_KEY_NAME.format(site=integration.site.name)[:100], site=integration.site)
    return {"webhook_secret": secret, "api_key": raw_key, "api_key_prefix": key.prefix}


# Connection tests and structure


def _user_facts(user) -> dict:
    return {"id": user.external_id, "name": user.name, "roles": list(user.roles), "can_publish": "publish_posts" in user.capabilities}


def check_connection(*, integration: SiteIntegration) -> dict:
    """Logs in to the CMS with the stored credentials and reads the site's name; records the
    outcome on the integration and answers it, whether it worked or not. A first success on a
    site that has a sector completes the site's setup."""
    started = time.monotonic()
    user = site = error = None
    try:
        adapter = adapter_for(integration=integration)
        user = adapter.current_user()
        site = adapter.site_info()
    except CMSError as exc:
        error = exc
    elapsed_ms = round((time.monotonic() - started) * 1000)
    connected = error is None
    facts = _user_facts(user) if connected else None
    if connected:
        message = f'Connected to "{site.name}" as {user.name}' + ("" if facts["can_publish"] else ", who may not publish posts")
    else:
        message = error.message
    now = timezone.now()
    fields = {
        "connection_status": ConnectionStatus.CONNECTED if connected else ConnectionStatus.FAILED,
        "connection_message": message[:300],
        "last_tested_at": now,
        "updated_at": now,
    }
    if connected:
        fields["remote_site_name"] = site.name[:200]
    with transaction.atomic():
        _integrations(integration.account_id).filter(pk=integration.pk).update(**fields)
        if connected:
            complete_site_setup(account_id=integration.account_id, site_id=integration.site_id)
    for name, value in fields.items():
        setattr(integration, name, value)
    return {
        "connected": connected,
        "message": message,
        "user": facts,
        "site_name": site.name if connected else "",
        "elapsed_ms": elapsed_ms,
        "error_code": None if connected else error.code,
    }


def check_collection(*, integration: SiteIntegration, content_type: str) -> dict:
    """Whether the credentials can list one content type's collection, and its size."""
    try:
        check = asdict(adapter_for(integration=integration).check_collection(content_type))
    except CMSError as exc:
        return {"content_type": content_type, "ok": False, "count": 0, "message": exc.message, "error_code": exc.code}
    return {**check, "error_code": None}


def _stored_structure(integration: SiteIntegration) -> dict:
    return {
        "site": integration.structure.get("site"),
        "content_types": integration.structure.get("content_types", []),
        "structure_updated_at": integration.structure_updated_at,
    }


def update_structure(*, integration: SiteIntegration) -> dict:
    """Reads the site's facts and content types from the CMS now and stores them. When the CMS
    cannot be read, the stored structure stays and the answer says why (``updated`` false)."""
    try:
        adapter = adapter_for(integration=integration)
        site = adapter.site_info()
        content_types = adapter.content_types()
    except CMSError as exc:
        return {**_stored_structure(integration), "updated": False, "message": exc.message, "error_code": exc.code}
    integration.structure = {"site": asdict(site), "content_types": [asdict(content_type) for content_type in content_types]}
    integration.structure_updated_at = timezone.now()
    integration.remote_site_name = site.name[:200]
    integration.save(update_fields=["structure", "structure_updated_at", "remote_site_name", "updated_at"])
    message = f'Read {len(content_types)} content types of "{site.name}"'
    return {**_stored_structure(integration), "updated": True, "message": message, "error_code": None}


def content_types(*, integration: SiteIntegration) -> dict:
    """The content types stored by the last structure update; read from the CMS the first time."""
    if integration.structure_updated_at is None:
        result = update_structure(integration=integration)
        return {key: result[key] for key in ("content_types", "structure_updated_at", "message", "error_code")}
    return {"content_types": integration.structure.get("content_types", []), "structure_updated_at": integration.structure_updated_at, "message": "", "error_code": None}


# Site setup


def complete_site_setup(*, account_id: int, site_id: int) -> bool:
    """Raises ``site_setup_complete`` when the site has a sector and a CMS integration whose
    connection test succeeded, the first time that is so (True then).

    Called by whichever comes second: a successful connection check or a new sector. The site row
    is locked while deciding, and the ``SiteSetup`` row remembers the decision, so that two
    requests racing raise it once and a later test or sector never again.
    """
    with transaction.atomic():
        site = Site.objects.for_account(account_id).select_for_update().filter(pk=site_id).first()
        if site is None or SiteSetup.objects.for_account(account_id).filter(site=site).exists():
            return False
        if not Sector.objects.for_account(account_id).filter(site=site).exists():
            return False
        if not _integrations(account_id).filter(site=site, connection_status=ConnectionStatus.CONNECTED).exists():
            return False
        SiteSetup.objects.create(account_id=account_id, site=site)
        events.site_set_up(account=site.account, site=site)
    return True


# Remote state of our content

# Sent with ``content`` (as read, with its account, site status, external id and URL, and publish
# time) and ``remote`` (the CMS's ``RemotePost``; None: the post is gone) whenever a sync or a
# webhook reads the content's post. Publishing owns a content's publishing status: its receiver
# applies what the CMS reports and answers True when it changed the content.
remote_post_read = Signal()


def report_remote_post(*, content: Content, remote: RemotePost | None) -> bool:
    """Tells publishing what the CMS holds of the content's post; True when that changed the
    content (the instance then carries the change). The one way a sync and a webhook reach our
    content's publishing status."""
    return any(changed for _receiver, changed in remote_post_read.send(sender=Content, content=content, remote=remote))


# Sync


def start_sync(*, account: Account, integration: SiteIntegration, user: User | None) -> Job:
    """Starts the ``integration.sync`` job: 409 when the integration is inactive or a sync of it
    is queued or running already."""
    if not integration.is_active:
        raise StateConflict({"is_active": [INTEGRATION_INACTIVE]})
    with transaction.atomic():
        claimed = (
            _integrations(account)
            .filter(pk=integration.pk)
            .exclude(sync_status__in=ACTIVE_SYNC_STATUSES)
            .update(sync_status=SyncStatus.QUEUED, updated_at=timezone.now())
        )
        if not claimed:
            raise StateConflict({"sync_status": [SYNC_ACTIVE]})
        job = start_job(account=account, kind=SYNC, params={"integration_id": integration.pk}, site=integration.site, user=user)
        SyncRun.objects.create(account=account, integration=integration, job=job, status=SyncStatus.QUEUED)
        _integrations(account).filter(pk=integration.pk).update(sync_job=job)
    return job


def start_site_sync(*, account: Account, site: Site, user: User | None) -> Job:
    """``start_sync`` of the site's integration (409 when it has none)."""
    integration = _integrations(account).select_related("site").filter(site=site).order_by("id").first()
    if integration is None:
        raise StateConflict({"site_id": [NO_INTEGRATION]})
    return start_sync(account=account, integration=integration, user=user)


def import_terms(*, integration: SiteIntegration, taxonomy_type: str, terms: list[RemoteTerm]) -> dict:
    """Brings the CMS's categories or tags into the site's taxonomies.

    A term matches the taxonomy with its external id, else the one with its slug (unless that one
    belongs to another term the CMS still has); matched ones take the CMS's name, slug and parent,
    the others are created. Local taxonomies the CMS does not have stay. The slug is unique per
    site and type, so a slug that some local taxonomy held when the sync began is never given to
    another one: a renamed term keeps its old slug, and a new term whose slug is taken is
    ``skipped``, until a later sync finds the slug free.
    """
    account_id, site_id = integration.account_id, integration.site_id
    local = list(Taxonomy.objects.for_account(account_id).filter(site_id=site_id, taxonomy_type=taxonomy_type))
    by_external_id = {row.external_id: row for row in local if row.external_id}
    by_slug = {row.slug: row for row in local}
    taken_slugs = set(by_slug)
    remote_ids = {term.external_id for term in terms}
    matched: dict[str, Taxonomy] = {}
    claimed: set[int] = set()
    to_create, changed = [], {}
    # Terms known by their id first, so that a slug match never takes a row that one of them owns.
    for term in sorted(terms, key=lambda term: term.external_id not in by_external_id):
        slug, name = term.slug[:200], plain_text(term.name)[:200]
        row = by_external_id.get(term.external_id)
        if row is None:
            candidate = by_slug.get(slug)
            if candidate is not None and id(candidate) not in claimed and candidate.external_id not in remote_ids - {""}:
                row = candidate
        if row is None:
            if slug in taken_slugs:
                continue
            row = Taxonomy(account_id=account_id, site_id=site_id, taxonomy_type=taxonomy_type, name=name, slug=slug, external_id=term.external_id)
            taken_slugs.add(slug)
            to_create.append(row)
        else:
            before = (row.name, row.slug, row.external_id)
            row.name, row.external_id = name, term.external_id
            if slug not in taken_slugs:
                row.slug = slug
                taken_slugs.add(slug)
            if (row.name, row.slug, row.external_id) != before:
                changed[id(row)] = row
        claimed.add(id(row))
        matched[term.external_id] = row
    with transaction.atomic():
        Taxonomy.objects.bulk_create(to_create)
        for term in terms:
            row = matched.get(term.external_id)
            if row is None:
                continue
            parent = matched.get(term.parent_external_id) if term.parent_external_id else None
            if row.parent_id != (parent.pk if parent else None):
                row.parent = parent
                changed[id(row)] = row
        Taxonomy.objects.for_account(account_id).bulk_update(list(changed.values()), ["name", "slug", "external_id", "parent"])
    created = len(to_create)
    updated = len({key for key in changed} - {id(row) for row in to_create})
    return {"created": created, "updated": updated, "unchanged": len(matched) - created - updated, "skipped": len(terms) - len(matched)}


def reconcile_contents(*, integration: SiteIntegration, adapter: CMSAdapter, progress: Callable[[int], None] | None = None) -> dict:
    """Checks every content of the site that has a post on the CMS against that post, in batches
    of ``POST_BATCH``, and reports each post to publishing (``report_remote_post``)."""
    linked = Content.objects.for_account(integration.account_id).filter(site_id=integration.site_id).exclude(external_id="")
    content_ids = list(linked.order_by("pk").values_list("pk", flat=True))
    counts = {"checked": 0, "changed": 0, "gone": 0}
    for start in range(0, len(content_ids), POST_BATCH):
        batch = list(linked.filter(pk__in=content_ids[start : start + POST_BATCH]).only("account_id", "site_status", "external_id", "external_url", "published_at"))
        remote = adapter.posts(sorted({content.external_id for content in batch}))
        for content in batch:
            post = remote.get(content.external_id)
            counts["gone"] += post is None
            counts["changed"] += report_remote_post(content=content, remote=post)
        counts["checked"] += len(batch)
        if progress is not None:
            progress(counts["checked"] * 100 // len(content_ids))
    return counts


def sync_integration(*, integration: SiteIntegration, adapter: CMSAdapter, progress: Callable[[int, str], None]) -> dict:
    """One sync: categories (with their parents) and tags into taxonomies, the content types into
    the integration's structure, and the published state of our content reconciled. Every step
    can run again safely, so a retried sync finishes what a failed one began."""
    progress(5, "Reading categories")
    categories = import_terms(integration=integration, taxonomy_type=TaxonomyType.CATEGORY, terms=adapter.terms("category"))
    progress(25, "Reading tags")
    tags = import_terms(integration=integration, taxonomy_type=TaxonomyType.TAG, terms=adapter.terms("tag"))
    progress(45, "Reading content types")
    types = adapter.content_types()
    structure = {**integration.structure, "content_types": [asdict(content_type) for content_type in types]}
    _integrations(integration.account_id).filter(pk=integration.pk).update(structure=structure, structure_updated_at=timezone.now())
    progress(50, "Checking published content")
    contents = reconcile_contents(integration=integration, adapter=adapter, progress=lambda percent: progress(50 + percent * 45 // 100, "Checking published content"))
    return {"categories": categories, "tags": tags, "content_types": len(types), "contents": contents}


# Webhook


class WebhookRefused(ApiError):
    """The delivery could not prove it comes from the integration's CMS (401)."""

    status_code = 401
    code = "authentication_required"


@dataclass(frozen=True)
class WebhookDeliveryIn:
    integration: SiteIntegration
    signature: str
    payload: dict


def _webhook_timestamp(value: str | None) -> str:
    now = int(time.time())
    tolerance = settings.INKWELL_CMS["WEBHOOK_TOLERANCE_SECONDS"]
    # Unix seconds have 10 digits until the year 2286: a longer value is refused before int()
    # (which refuses over 4,300 digits with an error of its own).
    if not value or len(value) > 12 or not value.isascii() or not value.isdigit() or abs(now - int(value)) > tolerance:
        raise WebhookRefused({TIMESTAMP_HEADER: [STALE_TIMESTAMP]})
    return value


def _webhook_payload(raw_body: bytes) -> dict:
    payload = parsers.loads(raw_body)
    if not isinstance(payload, dict):
        raise ParseError("The body must be a JSON object")
    return payload


def _webhook_site_id(key: ApiKey, payload: dict) -> int:
    site_id = payload.get("site_id")
    if site_id is not None and (isinstance(site_id, bool) or not isinstance(site_id, int) or not 1 <= site_id <= MAX_ID):
        raise ValidationError({"site_id": [SITE_NOT_YOURS]})
    if key.site_id is not None:
        if site_id is not None and site_id != key.site_id:
            raise PermissionDenied(KEY_OF_ANOTHER_SITE)
        return key.site_id
    if site_id is None:
        raise ValidationError({"site_id": [REQUIRED]})
    if not Site.objects.for_account(key.account_id).filter(pk=site_id).exists():
        raise ValidationError({"site_id": [SITE_NOT_YOURS]})
    return site_id


def signature_of(*, secret: str, timestamp: str, raw_body: bytes) -> str:
    """The hex HMAC-SHA256 the CMS sends as ``X-Inkwell-Signature: sha256=<hex>``."""
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + raw_body, hashlib.sha256).hexdigest()


def authenticate_webhook(*, key: ApiKey, timestamp: str | None, signature: str | None, raw_body: bytes) -> WebhookDeliveryIn:
    """The integration a delivery is for, once it proved to come from that integration's CMS.

    The signature is verified before the body is read: an unsigned body is never parsed. In
    order: the timestamp must be within ``WEBHOOK_TOLERANCE_SECONDS`` of now (401); the key's site
    (or, for an account-wide key, one of the account's sites) must have an integration whose CMS
    signs with Inkwell's scheme (WordPress, with the plugin)
    (409); the signature must be the HMAC-SHA256 of ``"{timestamp}." + body`` with the webhook
    secret of one of those integrations (401); the body JSON (400); an account-wide key's
    ``site_id`` must be the key's account's (400), a site-bound key's its own site (403), and the
    site's integration the one whose secret signed (401).
    """
    timestamp = _webhook_timestamp(timestamp)
    candidates = _integrations(key.account_id).select_related("site").filter(platform__in=platforms_where(webhook_signing="inkwell"))
    if key.site_id is not None:
        candidates = candidates.filter(site_id=key.site_id)
    candidates = list(candidates)
    if not candidates:
        raise StateConflict({"site_id": [NO_INTEGRATION]})
    given = (signature or "").strip().lower()
    signed_by = None
    if given.startswith(WEBHOOK_SIGNATURE_PREFIX):
        given = given.removeprefix(WEBHOOK_SIGNATURE_PREFIX)
        for candidate in candidates:
            expected = signature_of(secret=candidate.webhook_secret, timestamp=timestamp, raw_body=raw_body) if candidate.webhook_secret else ""
            if expected and hmac.compare_digest(given.encode(), expected.encode()):
                signed_by = candidate
    if signed_by is None:
        raise WebhookRefused({SIGNATURE_HEADER: [INVALID_SIGNATURE]})
    payload = _webhook_payload(raw_body)
    site_id = _webhook_site_id(key, payload)
    if site_id != signed_by.site_id:
        if not any(candidate.site_id == site_id for candidate in candidates):
            raise StateConflict({"site_id": [NO_INTEGRATION]})
        raise WebhookRefused({SIGNATURE_HEADER: [INVALID_SIGNATURE]})
    return WebhookDeliveryIn(integration=signed_by, signature=given, payload=payload)


def receive_webhook(*, integration: SiteIntegration, signature: str, event: str, post: dict, **_) -> dict:
    """Applies one authenticated delivery to the content whose post it names, once: a delivery
    with a signature seen before changes nothing (``duplicate``); a post we do not know, or an
    integration that is not active, is acknowledged and ignored."""
    if not integration.is_active:
        return {"ignored": True}
    external_id = str(post["id"])
    with transaction.atomic():
        try:
            with transaction.atomic():
                delivery = WebhookDelivery.objects.create(
                    account_id=integration.account_id, integration=integration, signature=signature, event=event, external_id=external_id[:100], outcome="received"
                )
        except IntegrityError:
            return {"duplicate": True}
        content = (
            Content.objects.for_account(integration.account_id)
            .select_for_update()
            .filter(site_id=integration.site_id, external_id=external_id)
            .order_by("pk")
            .first()
        )
        if content is None:
            delivery.outcome = "ignored"
            delivery.save(update_fields=["outcome"])
            return {"ignored": True}
        if event == "post.deleted":
            remote = None
        else:
            status = "trash" if event == "post.trashed" else post["status"]
            link = url_on_site(post.get("link"), site_url=integration.base_url)
            remote = RemotePost(external_id=external_id, url=link, status=status, modified_at=post.get("modified_gmt"))
        applied = report_remote_post(content=content, remote=remote)
        delivery.outcome = "applied" if applied else "unchanged"
        delivery.save(update_fields=["outcome"])
    return {"applied": applied, "content_id": content.pk, "site_status": content.site_status, "external_url": content.external_url}


# Ghost's webhooks

GHOST_SIGNATURE_HEADER = "X-Ghost-Signature"
NOT_GHOST_INTEGRATION = "Only a Ghost integration's webhooks are made through its API; WordPress's come from the Inkwell plugin"


def ghost_webhooks_setup(*, integration: SiteIntegration, target_url: str) -> dict:
    """Makes Ghost call ``target_url`` (this integration's Ghost webhook endpoint) when a post is
    published, edited, unpublished or deleted, each delivery signed with a new webhook secret that
    Inkwell keeps and nobody has to copy. The webhooks made before are removed first. When Ghost
    refuses, nothing changes here and the answer says why (``registered`` false)."""
    if integration.platform not in platforms_where(registers_webhooks=True):
        raise StateConflict({"platform": [NOT_GHOST_INTEGRATION]})
    secret = new_webhook_secret()
    # Ghost allows one webhook per event and address: a query of its own makes each setup's address
    # new, so a setup never collides with webhooks an earlier one made and lost track of.
    target_url = f"{target_url}?setup={secrets.token_hex(4)}"
    try:
        with adapter_for(integration=integration) as adapter:
            made = adapter.register_webhooks(target_url=target_url, secret=secret, replace=list(integration.remote_webhook_ids or []))
    except CMSError as exc:
        return {"registered": False, "events": [], "target_url": target_url, "message": exc.message, "error_code": exc.code}
    integration.webhook_secret = secret
    integration.remote_webhook_ids = [webhook.external_id for webhook in made]
    integration.save(update_fields=["webhook_secret", "remote_webhook_ids", "updated_at"])
    events_made = [webhook.event for webhook in made]
    return {"registered": True, "events": events_made, "target_url": target_url, "message": f"Ghost calls Inkwell on {len(events_made)} post events", "error_code": None}


def _ghost_refused(message: str = INVALID_SIGNATURE) -> WebhookRefused:
    return WebhookRefused({GHOST_SIGNATURE_HEADER: [message]})


@dataclass(frozen=True)
class GhostDeliveryIn:
    integration: SiteIntegration
    signature: str
    event: str
    post: dict


def authenticate_ghost_webhook(*, integration_id: int, signature: str | None, raw_body: bytes) -> GhostDeliveryIn:
    """One delivery of Ghost's webhook, once it proved to come from the Ghost of the integration
    the URL names; ``receive_webhook`` then applies it.

    Ghost signs ``X-Ghost-Signature: sha256=<hex>, t=<ms>``, the HMAC-SHA256 of the raw body
    followed by the timestamp, with the webhook secret Inkwell gave it. Checked before the body is
    read, in order: the header's shape and a timestamp within ``WEBHOOK_TOLERANCE_SECONDS`` of now,
    then the signature with the secret of the Ghost integration the URL names. Any of these
    failing is the same 401, an unknown integration included (the answer tells nothing about
    which integrations exist). Then the body: what Ghost sends of the post (400 when it is none).
    """
    parsed = ghost.parse_signature_header(signature)
    if parsed is None:
        raise _ghost_refused()
    digest, timestamp_ms = parsed
    tolerance = settings.INKWELL_CMS["WEBHOOK_TOLERANCE_SECONDS"]
    if abs(time.time() - int(timestamp_ms) / 1000) > tolerance:
        raise _ghost_refused(STALE_TIMESTAMP)
    integration = None
    if 1 <= integration_id <= MAX_ID:
        integration = SiteIntegration.dangerously_unscoped.select_related("account").filter(pk=integration_id, platform__in=platforms_where(webhook_signing="ghost")).first()
    expected = ghost.webhook_signature(secret=integration.webhook_secret, raw_body=raw_body, timestamp_ms=timestamp_ms) if integration and integration.webhook_secret else ""
    if not expected or not hmac.compare_digest(digest.encode(), expected.encode()):
        raise _ghost_refused()
    try:
        event, external_id, remote = ghost.webhook_post(_webhook_payload(raw_body), site_url=integration.base_url)
    except ValueError as error:
        raise ValidationError({"post": [str(error)]}) from None
    post = {"id": external_id}
    if remote is not None:
        post.update(status=remote.status, link=remote.url, modified_gmt=remote.modified_at)
    return GhostDeliveryIn(integration=integration, signature=digest, event=event, post=post)


def purge_webhook_deliveries(*, older_than: timedelta) -> int:
    """Forgets deliveries older than ``older_than``: a replay of one would be refused for its
    timestamp anyway."""
    deleted, _ = WebhookDelivery.dangerously_unscoped.filter(received_at__lt=timezone.now() - older_than).delete()
    return deleted
