"""Writes of search performance (issue #37): importing Search Console's Performance report, and
turning an opportunity into a refresh of the article."""

from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from inkwell.notifications import events
from inkwell.performance import selectors
from inkwell.performance.formats import ExportFormatError, ParsedTable, parse_upload
from inkwell.performance.models import (
    ArticleReview,
    SearchImportSource,
    SearchMetric,
    SearchPerformanceImport,
)
from inkwell.performance.urlmatch import PageMatcher
from inkwell.publishing.models import PublishingRecord, PublishStatus
from inkwell.tenancy.models import Account, Site, User
from inkwell.writer import services as writer_services
from inkwell.writer.models import Content, ContentRefresh, SiteStatus

MAX_UNMATCHED_LISTED = 200
BAD_PERIOD = "end_date must be on or after start_date"
DAY_OUTSIDE = "{source}: the day {day} is outside the period {start}..{end}"


@dataclass(frozen=True)
class ImportOutcome:
    imported: int
    matched: int
    unmatched: list[str]
    imports: list[SearchPerformanceImport]


def page_matcher(*, site: Site) -> PageMatcher:
    """The site's articles by address: current ones, former ones (publishing records) and post ids."""
    contents = Content.objects.for_account(site.account_id).filter(site=site).exclude(external_url="")
    current = dict(contents.values_list("external_url", "pk"))
    records = PublishingRecord.objects.for_account(site.account_id).filter(site=site, status=PublishStatus.SUCCEEDED).exclude(external_url="")
    former = dict(records.order_by("created_at").values_list("external_url", "content_id"))
    by_post_id = dict(Content.objects.for_account(site.account_id).filter(site=site).exclude(external_id="").values_list("external_id", "pk"))
    return PageMatcher(current=current, former=former, by_post_id=by_post_id)


def _keyword_owners(site: Site) -> dict[str, int]:
    """A query reported without its page belongs to the live article whose focus keyword it is."""
    live = Content.objects.for_account(site.account_id).filter(site=site, site_status=SiteStatus.PUBLISHED).exclude(focus_keyword="")
    # The newest article wins a keyword two of them share.
    return {keyword.strip().lower(): pk for keyword, pk in live.order_by("published_at", "id").values_list("focus_keyword", "pk")}


def _source(data: bytes) -> str:
    if data.startswith(b"PK"):
        return SearchImportSource.ZIP
    return SearchImportSource.API_JSON if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") else SearchImportSource.CSV


def _check_days(table: ParsedTable, start: date, end: date) -> None:
    for row in table.rows:
        if row.day is not None and not start <= row.day <= end:
            raise ValidationError({"file": [DAY_OUTSIDE.format(source=table.source, day=row.day, start=start, end=end)]})


@transaction.atomic
def search_performance_import(
    *, account: Account, site: Site, data: bytes, filename: str, start_date: date, end_date: date, dimensions: str = "", user: User | None
) -> ImportOutcome:
    """Imports one Search Console export (``formats``) for the site and period. Each breakdown it
    holds replaces the rows that breakdown had for the same period (idempotent per period). A
    file of another shape, or a day outside the period, is a 400 and nothing is imported: the
    whole file is one transaction."""
    if end_date < start_date:
        raise ValidationError({"end_date": [BAD_PERIOD]})
    try:
        tables = parse_upload(data=data, filename=filename, dimensions=dimensions or None)
    except ExportFormatError as error:
        raise ValidationError({"file": [str(error)]}) from None
    kinds = [table.kind for table in tables]
    if len(set(kinds)) != len(kinds):
        raise ValidationError({"file": ["The file holds the same table twice"]})
    for table in tables:
        _check_days(table, start_date, end_date)
    matcher = page_matcher(site=site)
    owners = _keyword_owners(site)
    source = _source(data)
    imported, matched, unmatched, imports = 0, 0, [], []
    for table in tables:
        record, _ = SearchPerformanceImport.objects.for_account(account).update_or_create(
            account=account,
            site=site,
            start_date=start_date,
            end_date=end_date,
            kind=table.kind,
            defaults={"source": source, "filename": filename[:200], "created_by": user},
        )
        SearchMetric.objects.for_account(account).filter(search_import=record).delete()
        rows, table_unmatched, table_matched = [], [], 0
        for row in table.rows:
            content_id = None
            if row.page:
                content_id = matcher.match(row.page)
                if content_id is None:
                    table_unmatched.append(row.page)
                else:
                    table_matched += 1
            elif row.query:
                content_id = owners.get(row.query.strip().lower())
            rows.append(
                SearchMetric(
                    account=account,
                    site=site,
                    search_import=record,
                    content_id=content_id,
                    kind=table.kind,
                    start_date=start_date,
                    end_date=end_date,
                    page=row.page,
                    query=row.query,
                    day=row.day,
                    clicks=row.clicks,
                    impressions=row.impressions,
                    ctr=row.ctr,
                    position=row.position,
                )
            )
        SearchMetric.objects.bulk_create(rows, batch_size=2000)
        distinct_unmatched = list(dict.fromkeys(table_unmatched))
        record.imported, record.matched, record.unmatched = len(rows), table_matched, distinct_unmatched[:MAX_UNMATCHED_LISTED]
        record.save(update_fields=["imported", "matched", "unmatched", "updated_at"])
        imported += len(rows)
        matched += table_matched
        unmatched += distinct_unmatched
        imports.append(record)
    return ImportOutcome(imported=imported, matched=matched, unmatched=list(dict.fromkeys(unmatched))[:MAX_UNMATCHED_LISTED], imports=imports)


def refresh_from_opportunity(*, account: Account, content: Content, reason: str, user: User | None) -> ContentRefresh:
    """An opportunity becomes work: a draft refresh of its article that says what to do, which
    goes through review and approval and out as an update of the live post."""
    return writer_services.refresh_create(account=account, content=content, user=user, reason=reason)


@transaction.atomic
def article_reviewed(*, account: Account, content: Content, review_by: date | None = None) -> ArticleReview:
    """Marks the article reviewed now: its next review falls the site's period later (or on
    ``review_by`` when given)."""
    review, _ = ArticleReview.objects.for_account(account).update_or_create(
        account=account, content=content, defaults={"site_id": content.site_id, "reviewed_at": timezone.now(), "review_by": review_by}
    )
    return review


@transaction.atomic
def review_by_set(*, account: Account, content: Content, review_by: date | None) -> ArticleReview:
    """Sets (or with None clears) the article's own review-by date."""
    review, _ = ArticleReview.objects.for_account(account).update_or_create(account=account, content=content, defaults={"site_id": content.site_id, "review_by": review_by})
    return review


def remind_due_reviews(*, today: date | None = None) -> int:
    """Raises ``content_due_for_review`` for every live article whose review-by date has come,
    once per article and date (``ArticleReview.reminded_for``, set by a conditional update, so a
    second beat in the same minute raises nothing). Returns how many were raised."""
    sites = Site.dangerously_unscoped.filter(pk__in=Content.dangerously_unscoped.filter(site_status=SiteStatus.PUBLISHED).values("site_id")).select_related("account")
    raised = 0
    for site in sites:
        for item in selectors.due_for_review(site=site, today=today):
            if item["reminded_for"] == item["review_by"]:
                continue
            with transaction.atomic():
                review, _ = ArticleReview.objects.for_account(site.account_id).get_or_create(account_id=site.account_id, content_id=item["content_id"], defaults={"site": site})
                claimed = ArticleReview.objects.for_account(site.account_id).filter(pk=review.pk).exclude(reminded_for=item["review_by"]).update(reminded_for=item["review_by"])
                if not claimed:
                    continue
                events.content_due_for_review(account=site.account, site=site, content_id=item["content_id"], content_title=item["title"], review_by=item["review_by"])
                raised += 1
    return raised
