"""Reads of search performance (issue #37): an article's rows and queries, a site's totals, and
the opportunities found in them: striking-distance queries, decaying articles, cannibalization
and articles due for review.

A period is one imported ``start_date``..``end_date``. The *current* period of a site is the
newest one with page rows; the *previous* one is the newest that ends before the current starts.
"""

import calendar
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.html import strip_tags

from inkwell.performance.models import (
    ArticleReview,
    SearchMetric,
    SearchPerformanceImport,
)
from inkwell.sitesettings.selectors import effective_settings
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, SiteStatus

PAGE = "page"
QUERY = "query"
PAGE_QUERY = "page+query"
DATE = "date"
MAX_LISTED = 50
INTERNAL_LINK_SOURCES = 3


@dataclass(frozen=True)
class Period:
    start: date
    end: date

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


def _metrics(site: Site):
    return SearchMetric.objects.for_account(site.account_id).filter(site=site)


def periods(*, site: Site, kinds=(PAGE, PAGE_QUERY)) -> list[Period]:
    """The site's imported periods with page rows, newest first."""
    rows = SearchPerformanceImport.objects.for_account(site.account_id).filter(site=site, kind__in=kinds).values_list("start_date", "end_date").distinct()
    return sorted({Period(start, end) for start, end in rows}, key=lambda period: (period.end, period.start), reverse=True)


def current_and_previous(*, site: Site, kinds=(PAGE, PAGE_QUERY)) -> tuple[Period | None, Period | None]:
    found = periods(site=site, kinds=kinds)
    if not found:
        return None, None
    current = found[0]
    previous = next((period for period in found[1:] if period.end < current.start), None)
    return current, previous


def _totals(rows) -> dict:
    """Clicks, impressions, CTR and an impression-weighted position of ``rows``."""
    clicks = impressions = 0
    weighted = 0.0
    for row in rows:
        clicks += row["clicks"]
        impressions += row["impressions"]
        weighted += row["position"] * row["impressions"]
    return {
        "clicks": clicks,
        "impressions": impressions,
        "ctr": round(clicks / impressions, 4) if impressions else 0.0,
        "position": round(weighted / impressions, 2) if impressions else None,
    }


def _change(current: dict | None, previous: dict | None) -> dict | None:
    if current is None or previous is None:
        return None
    return {
        "clicks": current["clicks"] - previous["clicks"],
        "clicks_pct": round((current["clicks"] - previous["clicks"]) * 100 / previous["clicks"], 1) if previous["clicks"] else None,
        "impressions": current["impressions"] - previous["impressions"],
        "position": round(current["position"] - previous["position"], 2) if current["position"] is not None and previous["position"] is not None else None,
    }


def _page_kind_rows(site: Site):
    """Each article's rows by period: from the page breakdown where a period has one, else from
    the query-on-page breakdown of that period."""
    rows = _metrics(site).filter(kind__in=(PAGE, PAGE_QUERY), content__isnull=False).values("content_id", "kind", "start_date", "end_date", "clicks", "impressions", "position")
    by_period = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_period[(row["content_id"], Period(row["start_date"], row["end_date"]))][row["kind"]].append(row)
    return {key: kinds.get(PAGE) or kinds.get(PAGE_QUERY) for key, kinds in by_period.items()}


def article_periods(*, content: Content) -> list[dict]:
    """The article's clicks, impressions, CTR and position per period, oldest first."""
    rows = _metrics(content.site).filter(content=content, kind__in=(PAGE, PAGE_QUERY)).values("kind", "start_date", "end_date", "clicks", "impressions", "position")
    by_period = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_period[Period(row["start_date"], row["end_date"])][row["kind"]].append(row)
    return [
        {"start_date": period.start, "end_date": period.end, **_totals(kinds.get(PAGE) or kinds.get(PAGE_QUERY))}
        for period, kinds in sorted(by_period.items(), key=lambda item: (item[0].end, item[0].start))
    ]


def article_queries(*, content: Content, period: Period | None = None) -> list[dict]:
    """The queries the article was found for in the period (its newest by default), most
    impressions first."""
    rows = _metrics(content.site).filter(content=content, kind__in=(PAGE_QUERY, QUERY))
    if period is None:
        newest = rows.order_by("-end_date", "-start_date").values("start_date", "end_date").first()
        if newest is None:
            return []
        period = Period(newest["start_date"], newest["end_date"])
    rows = rows.filter(start_date=period.start, end_date=period.end).order_by("-impressions", "query")
    return list(rows.values("query", "clicks", "impressions", "ctr", "position")[:MAX_LISTED])


def article_performance(*, content: Content) -> dict:
    """``GET /writer/content/{id}/performance/``: the article's rows per period, its queries, and
    its change against the previous period."""
    history = article_periods(content=content)
    current = history[-1] if history else None
    previous = None
    if current is not None:
        previous = next((row for row in reversed(history[:-1]) if row["end_date"] < current["start_date"]), None)
    return {
        "content_id": content.pk,
        "url": content.external_url,
        "periods": history,
        "current": current,
        "previous": previous,
        "change": _change(current, previous),
        "queries": article_queries(content=content),
        "review": review_of(content=content),
    }


# The site's totals


def site_totals(*, site: Site) -> dict:
    """The site's clicks and impressions by day (``Dates.csv`` or the API's ``date`` rows; a day
    imported in two periods counts once, from the newer import), and totals per period."""
    days = {}
    for row in _metrics(site).filter(kind=DATE).order_by("search_import__updated_at", "id").values("day", "clicks", "impressions", "ctr", "position"):
        days[row["day"]] = row
    by_period = (
        _metrics(site)
        .filter(kind=PAGE)
        .values("start_date", "end_date")
        .annotate(clicks=Sum("clicks"), impressions=Sum("impressions"))
        .order_by("end_date", "start_date")
    )
    return {
        "days": [{"day": day, "clicks": row["clicks"], "impressions": row["impressions"], "ctr": row["ctr"], "position": row["position"]} for day, row in sorted(days.items())],
        "periods": list(by_period),
    }


# Opportunities


def _headings(html: str) -> list[str]:
    return [strip_tags(text).strip().lower() for text in re.findall(r"<h[2-4][^>]*>(.*?)</h[2-4]>", html or "", flags=re.IGNORECASE | re.DOTALL)]


def _text(html: str) -> str:
    """The visible words of ``html``, each tag a space (``<h2>Fit</h2><p>Wide`` is two words)."""
    return strip_tags(re.sub(r"<[^>]+>", lambda tag: f" {tag.group(0)} ", html or ""))


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"\w+", text.lower()) if len(word) > 2}


@dataclass
class Opportunity:
    kind: str
    query: str
    content_id: int
    content_title: str
    clicks: int
    impressions: int
    position: float
    action: str
    link_from: list[dict] = field(default_factory=list)
    competitors: list[dict] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return f"{self.kind.replace('_', ' ').capitalize()} for “{self.query}”: {self.action}"[:500]


def _live_articles(site: Site) -> dict[int, Content]:
    live = Content.objects.for_account(site.account_id).filter(site=site, site_status=SiteStatus.PUBLISHED).only("id", "title", "html", "external_url", "focus_keyword")
    return {content.pk: content for content in live}


def _link_sources(query: str, target: Content, live: dict[int, Content]) -> list[dict]:
    """Live articles of the site that speak of the query's words and do not link to the target yet."""
    words = _words(query)
    found = []
    for content in live.values():
        if content.pk == target.pk or (target.external_url and target.external_url.rstrip("/") in (content.html or "")):
            continue
        shared = words & _words(_text(content.html) + " " + content.title)
        if words and len(shared) * 2 >= len(words):
            found.append((len(shared), content))
    found.sort(key=lambda item: (-item[0], item[1].pk))
    return [{"id": content.pk, "title": content.title} for _, content in found[:INTERNAL_LINK_SOURCES]]


def striking_distance(*, site: Site) -> list[Opportunity]:
    """Queries of the current period at positions about 8 to 20 with real impressions (the site's
    settings), with the live article they belong to and what to do: a section when the article
    does not speak of the query, a heading when its words are in the text but no heading, internal
    links from named live articles when it has both."""
    settings = effective_settings(site=site).performance
    current, _ = current_and_previous(site=site, kinds=(PAGE_QUERY, QUERY))
    if current is None:
        return []
    live = _live_articles(site)
    rows = (
        _metrics(site)
        .filter(kind__in=(PAGE_QUERY, QUERY), start_date=current.start, end_date=current.end, content__isnull=False)
        .filter(position__gte=settings.striking_min_position, position__lte=settings.striking_max_position, impressions__gte=settings.striking_min_impressions)
        .order_by("-impressions", "position", "id")
        .values("query", "content_id", "clicks", "impressions", "position")[: MAX_LISTED * 2]
    )
    found, seen = [], set()
    for row in rows:
        content = live.get(row["content_id"])
        if content is None or (row["query"], content.pk) in seen:
            continue
        seen.add((row["query"], content.pk))
        words = _words(row["query"])
        text_words = _words(_text(content.html))
        heading_words = set().union(*(_words(heading) for heading in _headings(content.html))) if content.html else set()
        link_from = []
        if not words <= text_words:
            action = f"Add a section that answers “{row['query']}”"
        elif not words <= heading_words:
            action = f"Add a heading on “{row['query']}”"
        else:
            link_from = _link_sources(row["query"], content, live)
            names = ", ".join(f"“{source['title']}”" for source in link_from)
            action = f"Add internal links to it from {names}" if link_from else "Add internal links to it from related live articles"
        found.append(
            Opportunity(
                kind="striking_distance",
                query=row["query"],
                content_id=content.pk,
                content_title=content.title,
                clicks=row["clicks"],
                impressions=row["impressions"],
                position=row["position"],
                action=action,
                link_from=link_from,
            )
        )
        if len(found) >= MAX_LISTED:
            break
    return found


def decaying_articles(*, site: Site) -> list[dict]:
    """Live articles whose clicks in the current period fell against the previous period by at
    least the site's ``decay_threshold_pct``, from at least ``decay_min_clicks``. Periods of
    different lengths are compared per day."""
    settings = effective_settings(site=site).performance
    current, previous = current_and_previous(site=site)
    if current is None or previous is None:
        return []
    by_key = _page_kind_rows(site)
    live = _live_articles(site)
    found = []
    for content_id, content in live.items():
        before = by_key.get((content_id, previous))
        if not before:
            continue
        now_rows = by_key.get((content_id, current)) or []
        was, now = _totals(before), _totals(now_rows)
        if was["clicks"] < settings.decay_min_clicks:
            continue
        was_rate, now_rate = was["clicks"] / previous.days, now["clicks"] / current.days
        drop_pct = round((was_rate - now_rate) * 100 / was_rate, 1)
        if drop_pct >= settings.decay_threshold_pct:
            found.append({"content_id": content_id, "title": content.title, "clicks": now["clicks"], "previous_clicks": was["clicks"], "drop_pct": drop_pct})
    found.sort(key=lambda item: (-item["drop_pct"], item["content_id"]))
    return found[:MAX_LISTED]


def cannibalization(*, site: Site) -> list[dict]:
    """Queries of the current period for which two or more of the site's live articles were shown
    (the query-on-page breakdown), each with at least a tenth of the query's impressions: real
    competition, beside the planning-time guard (``planner.overlaps``)."""
    current, _ = current_and_previous(site=site, kinds=(PAGE_QUERY,))
    if current is None:
        return []
    live = _live_articles(site)
    rows = _metrics(site).filter(kind=PAGE_QUERY, start_date=current.start, end_date=current.end, content__isnull=False).values("query", "content_id", "clicks", "impressions", "position")
    by_query = defaultdict(dict)
    for row in rows:
        if row["content_id"] in live:
            pages = by_query[row["query"]]
            seen = pages.get(row["content_id"])
            if seen is None or row["impressions"] > seen["impressions"]:
                pages[row["content_id"]] = row
    found = []
    for query, pages in by_query.items():
        total = sum(row["impressions"] for row in pages.values())
        competing = [row for row in pages.values() if total and row["impressions"] * 10 >= total]
        if len(competing) < 2:
            continue
        competing.sort(key=lambda row: (-row["clicks"], -row["impressions"], row["content_id"]))
        found.append(
            {
                "query": query,
                "impressions": total,
                "articles": [
                    {"content_id": row["content_id"], "title": live[row["content_id"]].title, "clicks": row["clicks"], "impressions": row["impressions"], "position": row["position"]}
                    for row in competing
                ],
            }
        )
    found.sort(key=lambda item: (-item["impressions"], item["query"]))
    return found[:MAX_LISTED]


# Review-by dates


def add_months(day: date, months: int) -> date:
    month_index = day.month - 1 + months
    year, month = day.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def review_by_date(*, published_at, reviewed_at, review_by: date | None, months: int) -> date | None:
    """An article's own review-by date, else ``months`` after its last review or its publication."""
    if review_by is not None:
        return review_by
    since = reviewed_at or published_at
    if since is None:
        return None
    return add_months(since.astimezone(UTC).date() if isinstance(since, datetime) else since, months)


def review_of(*, content: Content) -> dict:
    review = ArticleReview.objects.for_account(content.account_id).filter(content=content).first()
    months = effective_settings(site=content.site).performance.review_after_months
    return {
        "review_by": review_by_date(
            published_at=content.published_at, reviewed_at=review.reviewed_at if review else None, review_by=review.review_by if review else None, months=months
        ),
        "reviewed_at": review.reviewed_at if review else None,
    }


def due_for_review(*, site: Site, today: date | None = None) -> list[dict]:
    """The site's live articles whose review-by date has come, the longest overdue first."""
    today = today or timezone.now().astimezone(UTC).date()
    months = effective_settings(site=site).performance.review_after_months
    reviews = {review.content_id: review for review in ArticleReview.objects.for_account(site.account_id).filter(site=site)}
    live = Content.objects.for_account(site.account_id).filter(site=site, site_status=SiteStatus.PUBLISHED).filter(Q(published_at__isnull=False))
    due = []
    for content in live.only("id", "title", "published_at", "external_url"):
        review = reviews.get(content.pk)
        review_by = review_by_date(
            published_at=content.published_at, reviewed_at=review.reviewed_at if review else None, review_by=review.review_by if review else None, months=months
        )
        if review_by is not None and review_by <= today:
            due.append({"content_id": content.pk, "title": content.title, "review_by": review_by, "reminded_for": review.reminded_for if review else None})
    due.sort(key=lambda item: (item["review_by"], item["content_id"]))
    return due
