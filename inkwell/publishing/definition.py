"""A site's public definition: what anyone may know about a site, its sectors, its categories and
tags, and its published articles. Nothing unpublished, nothing about the account.

Deployments are its versions: ``deploy`` stores a new one when the definition changed, and the
public endpoint serves the newest (from the cache, then from that row).
"""

import hashlib
import json

from django.conf import settings
from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Lower

from inkwell.publishing.models import Deployment
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, ContentStatus, SiteStatus, Taxonomy, TaxonomyType

ARTICLE_FIELDS = ("id", "title", "slug", "external_url", "excerpt", "meta_title", "meta_description", "published_at", "sector_id")


def _published(site: Site):
    return Content.objects.for_account(site.account_id).filter(site=site, site_status=SiteStatus.PUBLISHED, status=ContentStatus.PUBLISHED)


def build_definition(site: Site) -> dict:
    """The definition as it is now: five queries whatever the size of the site."""
    taxonomies = list(Taxonomy.objects.for_account(site.account_id).filter(site=site).order_by("taxonomy_type", "name", "id").values("id", "taxonomy_type", "name", "slug", "parent_id"))
    slug_of = {taxonomy["id"]: taxonomy["slug"] for taxonomy in taxonomies}
    type_of = {taxonomy["id"]: taxonomy["taxonomy_type"] for taxonomy in taxonomies}
    articles = list(_published(site).order_by("-published_at", "-id").values(*ARTICLE_FIELDS))
    filed: dict[int, dict[str, list[str]]] = {article["id"]: {"categories": [], "tags": []} for article in articles}
    links = Content.taxonomies.through.objects.filter(content_id__in=_published(site).values("pk")).order_by("taxonomy_id").values_list("content_id", "taxonomy_id")
    for content_id, taxonomy_id in links:
        if taxonomy_id in slug_of and content_id in filed:
            filed[content_id]["categories" if type_of[taxonomy_id] == TaxonomyType.CATEGORY else "tags"].append(slug_of[taxonomy_id])
    return {
        "site": {"name": site.name, "slug": site.slug, "domain": site.domain, "url": site.url, "time_zone": site.time_zone},
        "sectors": list(site.sectors.order_by("id").values("id", "name", "industry_sector_id", industry_sector_name=F("industry_sector__name"))),
        "categories": [
            {"id": t["id"], "name": t["name"], "slug": t["slug"], "parent_id": t["parent_id"]} for t in taxonomies if t["taxonomy_type"] == TaxonomyType.CATEGORY
        ],
        "tags": [{"id": t["id"], "name": t["name"], "slug": t["slug"]} for t in taxonomies if t["taxonomy_type"] == TaxonomyType.TAG],
        "articles": [
            {
                "id": article["id"],
                "title": article["title"],
                "slug": article["slug"],
                "url": article["external_url"],
                "excerpt": article["excerpt"],
                "meta_title": article["meta_title"],
                "meta_description": article["meta_description"],
                "published_at": article["published_at"],
                "sector_id": article["sector_id"],
                **filed[article["id"]],
            }
            for article in articles
        ],
    }


def _checksum(definition: dict) -> str:
    return hashlib.sha256(json.dumps(definition, cls=DjangoJSONEncoder, sort_keys=True).encode()).hexdigest()


def deploy(site: Site) -> Deployment | None:
    """A new version of the site's definition, or None when it did not change (or another process
    stored the same version a moment earlier)."""
    definition = build_definition(site)
    checksum = _checksum(definition)
    latest = Deployment.objects.for_account(site.account_id).filter(site=site).order_by("-version").first()
    if latest is not None and latest.checksum == checksum:
        return None
    try:
        with transaction.atomic():
            deployment = Deployment.objects.create(
                account_id=site.account_id,
                site=site,
                version=(latest.version if latest else 0) + 1,
                checksum=checksum,
                article_count=len(definition["articles"]),
                definition=json.loads(json.dumps(definition, cls=DjangoJSONEncoder)),
            )
    except IntegrityError:
        return None
    cache.delete(_cache_key(site.pk))
    return deployment


def sites_to_deploy() -> list[Site]:
    """Sites whose content changed since their newest deployment, and sites with published content
    that never had one."""
    last_deployed = Subquery(Deployment.dangerously_unscoped.filter(site=OuterRef("pk")).order_by("-version").values("created_at")[:1])
    # Content that was never published cannot change the definition, however often it is edited.
    changed_since = Content.dangerously_unscoped.filter(site=OuterRef("pk"), updated_at__gt=OuterRef("last_deployed_at"), published_at__isnull=False)
    published = Content.dangerously_unscoped.filter(site=OuterRef("pk"), site_status=SiteStatus.PUBLISHED)
    sites = Site.dangerously_unscoped.annotate(last_deployed_at=last_deployed).annotate(has_published=Exists(published), changed=Exists(changed_since))
    return list(sites.filter(Q(last_deployed_at__isnull=True, has_published=True) | Q(changed=True)).order_by("id"))


def deploy_changed_sites() -> int:
    return sum(1 for site in sites_to_deploy() if deploy(site) is not None)


def cache_seconds() -> int:
    return settings.INKWELL_CMS["SITE_DEFINITION_CACHE_SECONDS"]


def _cache_key(site_id: int) -> str:
    return f"publishing:site-definition:{site_id}"


def find_public_site(*, slug: str = "", domain: str = "") -> Site | None:
    """An active site of an account with an active plan, by slug or domain (any case)."""
    sites = Site.dangerously_unscoped.filter(is_active=True, account__subscription__status__in=["active", "trialing"])
    if slug:
        return sites.filter(slug=slug).first()
    return sites.annotate(domain_lower=Lower("domain")).filter(domain_lower=domain.lower()).order_by("id").first()


def public_definition(site: Site) -> dict:
    """The newest deployed definition with its version; a site never deployed gets the current
    one (version null). Cached for SITE_DEFINITION_CACHE_SECONDS and dropped on a new deployment."""
    key = _cache_key(site.pk)
    answer = cache.get(key)
    if answer is None:
        latest = Deployment.objects.for_account(site.account_id).filter(site=site).order_by("-version").first()
        if latest is not None:
            answer = {**latest.definition, "version": latest.version, "deployed_at": latest.created_at}
        else:
            answer = {**build_definition(site), "version": None, "deployed_at": None}
        answer = json.loads(json.dumps(answer, cls=DjangoJSONEncoder))
        cache.set(key, answer, cache_seconds())
    return answer

