"""Reads of the linker: the articles of a site that links may point to."""

from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings

from inkwell.planner.models import Keyword, KeywordStatus
from inkwell.tenancy.models import Account, Site
from inkwell.writer.models import Content, SiteStatus, cms_slug

# Longer "keywords" are sentences, not phrases worth a link.
MAX_PHRASE_LENGTH = 100


def max_links_setting() -> int:
    return settings.LINKER_MAX_LINKS


@dataclass(frozen=True)
class Target:
    """An article links may point to: ``phrases`` in priority order (focus keyword, keywords,
    cluster keywords), ``url`` the link's address, ``known_urls`` its other addresses, any of which
    an existing link may use."""

    content_id: int
    url: str
    phrases: tuple[str, ...]
    known_urls: tuple[str, ...] = ()
    title: str = ""


def content_path(content_id: int, slug: str, title: str) -> str:
    """The site-relative path of an article not published yet: its slug, else one made from its
    title (as the CMS will make it), else its id."""
    return f"/{cms_slug(slug=slug, title=title, content_id=content_id)}/"


def _phrases(*groups) -> tuple[str, ...]:
    phrases = []
    for group in groups:
        for text in group:
            if isinstance(text, str) and text.strip() and len(text) <= MAX_PHRASE_LENGTH:
                phrases.append(text.strip())
    return tuple(phrases)


def link_targets(account: Account, site_id: int) -> list[Target]:
    """The articles of the site that are live on its CMS (of ``account`` only: the query is scoped
    to it), oldest first, each at its real address, with the phrases that link to it (three queries).

    An article not live yet is no target: a link to it would lead readers to a page the site does
    not have. It becomes one when it is published, so what would link to it is offered then."""
    domain = Site.objects.for_account(account).values_list("domain", flat=True).get(pk=site_id)
    rows = list(
        Content.objects.for_account(account)
        .filter(site_id=site_id, site_status=SiteStatus.PUBLISHED)
        .exclude(external_url="")
        .order_by("id")
        .values("id", "title", "slug", "focus_keyword", "keywords", "external_url", "task__cluster_id")
    )
    cluster_ids = {row["task__cluster_id"] for row in rows if row["task__cluster_id"]}
    cluster_keywords: dict[int, list[str]] = defaultdict(list)
    if cluster_ids:
        keywords = (
            Keyword.objects.for_account(account)
            .filter(site_id=site_id, cluster_id__in=cluster_ids)
            .exclude(status=KeywordStatus.ARCHIVED)
            .order_by("cluster_id", "-volume", "id")
            .values_list("cluster_id", "keyword")
        )
        for cluster_id, keyword in keywords:
            cluster_keywords[cluster_id].append(keyword)
    targets = []
    for row in rows:
        path = content_path(row["id"], row["slug"], row["title"])
        keywords = row["keywords"] if isinstance(row["keywords"], list) else []
        targets.append(
            Target(
                content_id=row["id"],
                url=row["external_url"],
                phrases=_phrases([row["focus_keyword"]], keywords, cluster_keywords.get(row["task__cluster_id"], ())),
                known_urls=(row["external_url"], path, f"https://{domain}{path}"),
                title=row["title"],
            )
        )
    return targets
