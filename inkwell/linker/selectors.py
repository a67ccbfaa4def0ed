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
    """Every article of the site (of ``account`` only: the query is scoped to it), published ones
    first, then oldest first, with the phrases that link to it (three queries)."""
    domain = Site.objects.for_account(account).values_list("domain", flat=True).get(pk=site_id)
    rows = list(
        Content.objects.for_account(account)
        .filter(site_id=site_id)
        .values("id", "title", "slug", "focus_keyword", "keywords", "site_status", "external_url", "task__cluster_id")
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
    # Published articles first: of two articles sharing a phrase, the one readers can reach gets it.
    rows.sort(key=lambda row: (not (row["site_status"] == SiteStatus.PUBLISHED and row["external_url"]), row["id"]))
    for row in rows:
        path = content_path(row["id"], row["slug"], row["title"])
        published = row["site_status"] == SiteStatus.PUBLISHED and row["external_url"]
        url = row["external_url"] if published else path
        keywords = row["keywords"] if isinstance(row["keywords"], list) else []
        targets.append(
            Target(
                content_id=row["id"],
                url=url,
                phrases=_phrases([row["focus_keyword"]], keywords, cluster_keywords.get(row["task__cluster_id"], ())),
                known_urls=tuple(url for url in (row["external_url"], path, f"https://{domain}{path}") if url),
                title=row["title"],
            )
        )
    return targets
