"""Writer rows for the tests and for the cross-account matrix (tests/test_cross_account_matrix.py).

The ``make_*`` helpers build rows of a tenant with sensible values; the matrix factories put the
marker into a text field, so that a leak of the row into any response shows.
"""

from django.utils import timezone

from inkwell.tenancy.models import IndustrySector, Sector, Site
from inkwell.writer import services
from inkwell.writer.models import Content, ContentApproval, ContentComment, ContentRefresh, ContentRevision, ReviewDecision, ReviewLink, ReviewStep, SiteStatus, Task, Taxonomy, TaxonomyType
from inkwell.writer.tests import image_factories


def make_sector(tenant, site: Site | None = None, name: str = "") -> Sector:
    """A new sector of ``site`` (the tenant's site by default), on an industry sector the site does not use yet."""
    site = site or tenant.site
    unused = IndustrySector.objects.exclude(pk__in=site.sectors.values("industry_sector_id")).order_by("id").first()
    return Sector.objects.create(account=tenant.account, site=site, industry_sector=unused, name=name or unused.name)


def site_sector(tenant, site: Site | None = None) -> Sector:
    """The site's first sector, made when it has none."""
    site = site or tenant.site
    return site.sectors.order_by("id").first() or make_sector(tenant, site)


def make_task(tenant, *, site: Site | None = None, sector: Sector | None = None, **fields) -> Task:
    site = site or tenant.site
    fields.setdefault("title", "Best running shoes for beginners")
    fields.setdefault("keywords", ["running shoes"])
    fields.setdefault("word_count", 600)
    return Task.objects.create(account=tenant.account, site=site, sector=sector or site_sector(tenant, site), **fields)


def make_content(tenant, *, site: Site | None = None, **fields) -> Content:
    fields.setdefault("title", "How to choose running shoes")
    fields.setdefault("html", "<h2>Fit</h2><p>Try shoes on in the evening.</p>")
    fields.setdefault("word_count", 7)
    return Content.objects.create(account=tenant.account, site=site or tenant.site, **fields)


def make_taxonomy(tenant, *, site: Site | None = None, taxonomy_type: str = TaxonomyType.CATEGORY, name: str = "Running", **fields) -> Taxonomy:
    fields.setdefault("slug", name.lower().replace(" ", "-"))
    return Taxonomy.objects.create(account=tenant.account, site=site or tenant.site, taxonomy_type=taxonomy_type, name=name, **fields)


def make_live_content(tenant, *, site: Site | None = None, url: str = "https://blog.example.com/running-shoes/", external_id: str = "101", **fields) -> Content:
    """A published article with its post on the CMS."""
    fields.setdefault("status", "published")
    fields.setdefault("published_at", timezone.now())
    return make_content(tenant, site=site, site_status=SiteStatus.PUBLISHED, external_url=url, external_id=external_id, **fields)


def make_refresh(tenant, *, content: Content | None = None, **fields) -> ContentRefresh:
    content = content or make_live_content(tenant)
    fields.setdefault("title", content.title)
    fields.setdefault("html", content.html)
    return ContentRefresh.objects.create(account=tenant.account, site=content.site, content=content, **fields)


def _refresh(tenant, marker: str) -> ContentRefresh:
    content = make_live_content(tenant, url=f"https://{marker}.example.com/", external_id=marker[-6:])
    return make_refresh(tenant, content=content, title=marker, html=f"<p>{marker}</p>", reason=marker)


def _task(tenant, marker: str) -> Task:
    return make_task(tenant, title=marker, description=marker, keywords=[marker])


def _content(tenant, marker: str) -> Content:
    return make_content(tenant, title=marker, html=f"<p>{marker}</p>", meta_title=marker[:60])


def _revision(tenant, marker: str) -> ContentRevision:
    content = make_content(tenant)
    return ContentRevision.objects.create(account=tenant.account, content=content, title=marker, html=f"<p>{marker}</p>", status=content.status)


def _taxonomy(tenant, marker: str) -> Taxonomy:
    return make_taxonomy(tenant, name=marker, slug=marker)


CROSS_ACCOUNT_FACTORIES = {Task: _task, Content: _content, ContentRevision: _revision, ContentRefresh: _refresh, Taxonomy: _taxonomy, **image_factories.CROSS_ACCOUNT_FACTORIES}


# Review together (#36)


def make_comment(tenant, *, content: Content | None = None, body: str = "Looks good", **fields):
    content = content or make_content(tenant)
    fields.setdefault("author", tenant.editor)
    fields.setdefault("author_name", fields["author"].email if fields["author"] else "Client")
    return ContentComment.objects.create(account=tenant.account, content=content, body=body, **fields)


def _comment(tenant, marker: str):
    return make_comment(tenant, body=marker, anchor_quote=marker)


def _review_link(tenant, marker: str):
    return services.review_link_create(account=tenant.account, content=make_content(tenant, title=marker), user=tenant.owner)


def _approval(tenant, marker: str):
    return ContentApproval.objects.create(
        account=tenant.account, content=make_content(tenant), step=ReviewStep.CLIENT, decision=ReviewDecision.APPROVED, reviewer_name=marker, note=marker
    )


CROSS_ACCOUNT_FACTORIES.update({ContentComment: _comment, ReviewLink: _review_link, ContentApproval: _approval})
