"""Reads of the optimizer: an article's search-readiness score, its metrics and concrete suggestions.

The score wraps the AI engine's content analysis (``inkwell.ai.analysis.analyze``: length,
readability, keyword density and placement, meta lengths, heading structure, paragraph length;
0..100) with what only a site-aware reading knows:

| part | points |
|---|---|
| the content analysis' score x 0.8 | 80 |
| words against the target (the task's word count, else the account's default article length): 90 % or more full, proportional below | 8 |
| internal links (relative, or to the site's domain or its CMS's host, ``www.`` ignored): 2 or more 6, one 3 | 6 |
| external links (http or https, to another host): at least one | 2 |
| images (in the body, or generated for the content): at least one | 2 |
| alt text: the share of those images that have one (none when there is no image) | 2 |

Fragment links (``#...``), ``mailto:`` and ``tel:`` are neither internal nor external. The score is
rounded down and always 0..100.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

from inkwell.ai.analysis import analyze
from inkwell.api.text import counted, has
from inkwell.integration.models import SiteIntegration
from inkwell.system.selectors import content_settings
from inkwell.tenancy.models import Account, Site
from inkwell.writer.models import Content, Image, ImageStatus

ANALYSIS_WEIGHT = 0.8
LENGTH_POINTS = 8
LENGTH_FULL_SHARE = 0.9
INTERNAL_LINK_POINTS = 6
INTERNAL_LINKS_WANTED = 2
EXTERNAL_LINK_POINTS = 2
IMAGE_POINTS = 2
ALT_TEXT_POINTS = 2


@dataclass(frozen=True)
class SiteContext:
    """What the score needs beyond the article's own fields."""

    target_word_count: int
    site_hosts: frozenset[str]
    # The alt text of each image generated for the content ("" when it has none).
    generated_image_alts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Report:
    score: int
    metrics: dict
    suggestions: list[str] = field(default_factory=list)


class _LinksAndImages(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.image_alts: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.hrefs.append(values["href"])
        elif tag == "img":
            self.image_alts.append(values.get("alt") or "")

    handle_startendtag = handle_starttag


def _host(value: str) -> str:
    return value.lower().removeprefix("www.")


def link_kind(href: str, site_hosts: Iterable[str]) -> str | None:
    """"internal", "external", or None for a link that leads to no page (fragment, mailto:, tel:)."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    try:
        parts = urlsplit(href)
        host = _host(parts.hostname or "")
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme and scheme not in ("http", "https"):
        return None
    if not scheme and not parts.netloc:
        return "internal"
    return "internal" if host in site_hosts else "external"


def report(*, html: str, title: str, meta_title: str, meta_description: str, focus_keyword: str, context: SiteContext) -> Report:
    """The score, metrics and suggestions of an article (see the module docstring)."""
    analysis = analyze(html=html, title=title, meta_title=meta_title, meta_description=meta_description, focus_keyword=focus_keyword)
    parser = _LinksAndImages()
    parser.feed(html or "")
    parser.close()
    kinds = [link_kind(href, context.site_hosts) for href in parser.hrefs]
    internal, external = kinds.count("internal"), kinds.count("external")
    alts = [*parser.image_alts, *context.generated_image_alts]
    without_alt = sum(1 for alt in alts if not alt.strip())
    suggestions = list(analysis.issues)

    target = context.target_word_count
    share = analysis.word_count / target if target > 0 else 1.0
    length_points = LENGTH_POINTS if share >= LENGTH_FULL_SHARE else LENGTH_POINTS * share / LENGTH_FULL_SHARE
    if share < LENGTH_FULL_SHARE:
        suggestions.append(
            f"The text has {counted(analysis.word_count, 'word')} against a target of {target}; add about {counted(target - analysis.word_count, 'word')}"
        )
    internal_points = INTERNAL_LINK_POINTS * min(internal, INTERNAL_LINKS_WANTED) / INTERNAL_LINKS_WANTED
    if internal < INTERNAL_LINKS_WANTED:
        suggestions.append(
            f"The text has {internal} internal link{'' if internal == 1 else 's'}; link at least {INTERNAL_LINKS_WANTED} related articles of this site (the linker can add them)"
        )
    external_points = EXTERNAL_LINK_POINTS if external else 0
    if not external:
        suggestions.append("The text has no external links; cite at least one authoritative source")
    image_points = IMAGE_POINTS if alts else 0
    alt_points = ALT_TEXT_POINTS * (len(alts) - without_alt) / len(alts) if alts else 0
    if not alts:
        suggestions.append("The article has no images; add at least one, with alt text")
    elif without_alt:
        suggestions.append(f"{without_alt} of {counted(len(alts), 'image')} {has(without_alt)} no alt text; describe each image in its alt text")

    score = ANALYSIS_WEIGHT * analysis.score + length_points + internal_points + external_points + image_points + alt_points
    metrics = {
        "word_count": analysis.word_count,
        "target_word_count": target,
        "focus_keyword": " ".join(focus_keyword.split()),
        "keyword_in_title": analysis.keyword_in_title,
        "keyword_in_first_paragraph": analysis.keyword_in_first_paragraph,
        "keyword_in_headings": analysis.keyword_in_headings,
        "keyword_in_meta_description": analysis.keyword_in_meta_description,
        "keyword_density": analysis.keyword_density,
        "headings": analysis.headings,
        "readability": analysis.readability,
        "meta_title_length": analysis.meta_title_length,
        "meta_description_length": analysis.meta_description_length,
        "internal_links": internal,
        "external_links": external,
        "images": len(alts),
        "images_without_alt": without_alt,
        "text_analysis_score": analysis.score,
    }
    return Report(score=max(0, min(100, math.floor(score + 1e-9))), metrics=metrics, suggestions=suggestions)


def site_hosts(account: Account, site_id: int) -> frozenset[str]:
    """The hosts whose links are internal to the site: its domain, and its CMS's host."""
    domain = Site.objects.for_account(account).values_list("domain", flat=True).get(pk=site_id)
    integration_urls = SiteIntegration.objects.for_account(account).filter(site_id=site_id).values_list("base_url", flat=True)
    hosts = {_host(domain)}
    for url in integration_urls:
        try:
            hostname = urlsplit(url).hostname
        except ValueError:
            continue
        if hostname:
            hosts.add(_host(hostname))
    return frozenset(hosts)


def site_context(account: Account, content: Content) -> SiteContext:
    """The target length, the site's hosts and the content's generated images (four queries)."""
    target = content.task.word_count if content.task_id else content_settings(account, "content_generation")["default_article_length"]
    alts = Image.objects.for_account(account).filter(content=content, status=ImageStatus.GENERATED).order_by("position", "id").values_list("alt_text", flat=True)
    return SiteContext(target_word_count=target, site_hosts=site_hosts(account, content.site_id), generated_image_alts=tuple(alts))


def content_report(content: Content, context: SiteContext, **changes) -> Report:
    """The report of ``content``, or of it with ``changes`` (html, title, meta_title, meta_description, focus_keyword)."""
    fields = {name: changes.get(name, getattr(content, name)) for name in ("html", "title", "meta_title", "meta_description", "focus_keyword")}
    return report(**fields, context=context)


def analyze_content(account: Account, content: Content) -> dict:
    """``POST /optimizer/analyze/``: the content's score, metrics and suggestions."""
    result = content_report(content, site_context(account, content))
    return {"content_id": content.pk, "score": result.score, "metrics": result.metrics, "suggestions": result.suggestions}
