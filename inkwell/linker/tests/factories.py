"""Articles for the linker's tests. The linker owns no model: the cross-account matrix covers the
content it reads through the writer's factories."""

from django.utils.text import slugify

from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, SiteStatus
from inkwell.writer.sanitize import visible_word_count
from inkwell.writer.tests.factories import make_content


def make_article(tenant, title: str, html: str = "", *, site: Site | None = None, focus_keyword: str = "", keywords=(), live: bool = True, **fields) -> Content:
    """An article of the tenant's site (or ``site``) with its slug made from the title; ``live``
    (the default): published on the site's CMS at ``live_url``, as the linker's targets must be."""
    fields.setdefault("slug", slugify(title))
    if live:
        fields.setdefault("site_status", SiteStatus.PUBLISHED)
        fields.setdefault("external_url", live_url(site or tenant.site, fields["slug"]))
    return make_content(
        tenant, site=site, title=title, html=html, focus_keyword=focus_keyword, keywords=list(keywords), word_count=visible_word_count(html), **fields
    )


def live_url(site: Site, slug: str) -> str:
    return f"https://{site.domain}/{slug}/"
