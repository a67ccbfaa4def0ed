"""Articles for the linker's tests. The linker owns no model: the cross-account matrix covers the
content it reads through the writer's factories."""

from django.utils.text import slugify

from inkwell.tenancy.models import Site
from inkwell.writer.models import Content
from inkwell.writer.sanitize import visible_word_count
from inkwell.writer.tests.factories import make_content


def make_article(tenant, title: str, html: str = "", *, site: Site | None = None, focus_keyword: str = "", keywords=(), **fields) -> Content:
    """An article of the tenant's site (or ``site``) with its slug made from the title."""
    fields.setdefault("slug", slugify(title))
    return make_content(
        tenant, site=site, title=title, html=html, focus_keyword=focus_keyword, keywords=list(keywords), word_count=visible_word_count(html), **fields
    )
