"""Importing Search Console's Performance report (issue #37, contract section 12): files shaped
like the real exports (``exports/``: the UI's CSV files with their headers, percentages and
thousands separators, its ZIP with all seven tables, and the Search Analytics API's JSON), and
files of another shape, which are refused whole."""

import json
from datetime import date
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from inkwell.performance.formats import (
    ExportFormatError,
    parse_count,
    parse_ctr,
    parse_decimal,
    parse_upload,
)
from inkwell.performance.models import SearchMetric, SearchPerformanceImport
from inkwell.publishing.models import PublishingRecord, PublishStatus, PublishTrigger
from inkwell.writer.tests.factories import make_live_content

pytestmark = pytest.mark.django_db

EXPORTS = Path(__file__).resolve().parent / "exports"


def _file(name: str, data: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data if data is not None else (EXPORTS / name).read_bytes())


def _import(client, site, upload, start="2026-09-01", end="2026-09-30", **extra):
    url = reverse("site-search-performance-import", kwargs={"site_id": site.pk})
    return client.post(url, {"file": upload, "start_date": start, "end_date": end, **extra}, format="multipart")


@pytest.fixture
def articles(tenant):
    shoes = make_live_content(tenant, title="How to choose running shoes", url="https://blog.example.com/running-shoes/", external_id="301", focus_keyword="best running shoes")
    trail = make_live_content(tenant, title="Trail running for beginners", url="https://blog.example.com/trail-running/", external_id="302")
    short = make_live_content(tenant, title="Marathon taper", url="https://blog.example.com/marathon-taper/", external_id="303")
    return shoes, trail, short


def _rows(tenant, **filters):
    return SearchMetric.objects.for_account(tenant.account).filter(**filters)


# Numbers as the exports write them


def test_counts_read_with_or_without_thousands_separators():
    assert parse_count("1,234", what="Clicks") == 1234
    assert parse_count("1.234", what="Clicks") == 1234
    assert parse_count("1 234", what="Clicks") == 1234
    assert parse_count("12400", what="Clicks") == 12400
    with pytest.raises(ValueError):
        parse_count("12.5", what="Clicks")
    with pytest.raises(ValueError):
        parse_count("n/a", what="Clicks")


def test_ctr_is_a_percentage_and_position_a_decimal_in_either_locale():
    assert parse_ctr("4.55%") == 0.0455
    assert parse_ctr("4,55 %") == 0.0455
    assert parse_ctr("0%") == 0.0
    assert parse_decimal("7.34", what="Position") == 7.34
    assert parse_decimal("7,34", what="Position") == 7.34
    with pytest.raises(ValueError):
        parse_ctr("0.0455")


# The real shapes


def test_pages_csv_imports_every_row_and_matches_pages_to_articles_by_live_url(tenant, articles, as_user):
    shoes, trail, short = articles
    response = _import(as_user(tenant.owner), tenant.site, _file("Pages.csv"))
    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"imported": 4, "matched": 3, "unmatched": ["https://blog.example.com/not-ours/"]}
    row = _rows(tenant, content=shoes).get()
    assert (row.kind, row.clicks, row.impressions, row.ctr, row.position) == ("page", 1234, 12400, 0.0995, 7.34)
    assert (row.start_date, row.end_date) == (date(2026, 9, 1), date(2026, 9, 30))
    # http://www. and no trailing slash still name the trail article; ?p=303 is WordPress's short link.
    assert _rows(tenant, content=trail).get().clicks == 310
    assert _rows(tenant, content=short).get().clicks == 12
    assert _rows(tenant, content__isnull=True).get().page == "https://blog.example.com/not-ours/"


def test_a_page_at_an_articles_former_address_matches_it(tenant, as_user):
    renamed = make_live_content(tenant, url="https://blog.example.com/running-shoes-2026/", external_id="401")
    PublishingRecord.objects.create(
        account=tenant.account, site=tenant.site, content=renamed, platform="wordpress", trigger=PublishTrigger.MANUAL,
        status=PublishStatus.SUCCEEDED, external_url="https://blog.example.com/running-shoes/",
    )
    response = _import(as_user(tenant.owner), tenant.site, _file("Pages.csv"))
    assert response.json()["data"]["matched"] == 1
    assert _rows(tenant, content=renamed).get().clicks == 1234


def test_importing_the_same_period_again_replaces_it(tenant, articles, as_user):
    client = as_user(tenant.owner)
    _import(client, tenant.site, _file("Pages.csv"))
    changed = (EXPORTS / "Pages.csv").read_bytes().replace(b'"1,234"', b'"2,000"')
    response = _import(client, tenant.site, _file("Pages.csv", changed))
    assert response.json()["data"]["imported"] == 4
    assert _rows(tenant).count() == 4
    assert _rows(tenant, content=articles[0]).get().clicks == 2000
    assert SearchPerformanceImport.objects.for_account(tenant.account).count() == 1


def test_another_period_is_kept_beside_the_first(tenant, articles, as_user):
    client = as_user(tenant.owner)
    _import(client, tenant.site, _file("Pages.csv"))
    _import(client, tenant.site, _file("Pages.csv"), start="2026-08-01", end="2026-08-31")
    assert _rows(tenant, content=articles[0]).count() == 2


def test_the_zip_imports_pages_queries_and_dates_and_ignores_the_other_tables(tenant, articles, as_user):
    response = _import(as_user(tenant.owner), tenant.site, _file("performance-on-search-2026-09.zip"))
    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"imported": 4 + 3 + 30, "matched": 3, "unmatched": ["https://blog.example.com/not-ours/"]}
    kinds = {record.kind: record.imported for record in SearchPerformanceImport.objects.for_account(tenant.account)}
    assert kinds == {"page": 4, "query": 3, "date": 30}
    assert _rows(tenant, kind="date", day=date(2026, 9, 30)).get().clicks == 70
    # A query reported without its page belongs to the article whose focus keyword it is.
    assert _rows(tenant, kind="query", query="best running shoes").get().content == articles[0]
    assert not _rows(tenant, query="").filter(kind="query").exists()


def test_search_analytics_api_json_with_query_and_page_keys(tenant, articles, as_user):
    response = _import(as_user(tenant.owner), tenant.site, _file("searchanalytics-query-page.json"))
    assert response.status_code == 200, response.content
    assert response.json()["data"] == {"imported": 4, "matched": 3, "unmatched": ["https://blog.example.com/unknown/"]}
    row = _rows(tenant, query="trail running tips").get()
    assert (row.kind, row.content, row.clicks, row.ctr, row.position) == ("page+query", articles[1], 30, 0.0143, 12.6)


def test_api_json_keys_follow_the_dimensions_hint(tenant, articles, as_user):
    body = {"rows": [{"keys": ["https://blog.example.com/running-shoes/", "2026-09-03"], "clicks": 7, "impressions": 90, "ctr": 0.0778, "position": 6.5}]}
    response = _import(as_user(tenant.owner), tenant.site, _file("gsc.json", json.dumps(body).encode()), dimensions="page,date")
    assert response.status_code == 200, response.content
    row = _rows(tenant).get()
    assert (row.kind, row.day, row.content) == ("date+page", date(2026, 9, 3), articles[0])


def test_an_api_answer_without_rows_is_an_empty_period(tenant, as_user):
    response = _import(as_user(tenant.owner), tenant.site, _file("empty.json", b'{"responseAggregationType": "byProperty"}'))
    assert response.json()["data"] == {"imported": 0, "matched": 0, "unmatched": []}


# Files of another shape: a clear error, and nothing imported


def _refused(response, *needles):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "validation_error"
    message = " ".join(body["errors"]["file"] if "file" in body["errors"] else [text for messages in body["errors"].values() for text in messages])
    for needle in needles:
        assert needle in message, message
    return message


@pytest.mark.parametrize(
    ("name", "data", "needles"),
    [
        ("Countries.csv", None, ["Countries.csv", "Country,Clicks", "not a Search Console Performance table"]),
        ("Pages-bad-number.csv", None, ["line 3", "Impressions is not a whole number"]),
        ("mixed.zip", None, ["mixed.zip/Queries.csv", "line 3", "CTR is not a percentage"]),
        ("notes.csv", b"keyword,volume\nshoes,10\n", ["not a Search Console Performance table"]),
        ("empty.csv", b"", ["empty"]),
        ("short-row.csv", b"Top pages,Clicks,Impressions,CTR,Position\nhttps://blog.example.com/a/,1,2\n", ["line 2 has 3 fields"]),
        ("queries-as-pages.csv", b"Top pages,Clicks,Impressions,CTR,Position\nbest shoes,1,2,50%,3\n", ["not a web address"]),
        ("gsc.json", b'{"rows": [{"keys": ["a", "b", "c"], "clicks": 1, "impressions": 2, "ctr": 0.5, "position": 1}]}', ["3 keys"]),
        ("gsc.json", b'{"rows": [{"keys": ["q"], "clicks": 1, "impressions": 2, "ctr": 0.5, "position": 1}, {"keys": ["q", "https://x.example/"], "clicks": 1, "impressions": 2, "ctr": 0.5, "position": 1}]}', ["row 2 has 2 keys"]),
        ("gsc.json", b'{"rows": [{"keys": ["q"], "clicks": "1", "impressions": 2, "ctr": 0.5, "position": 1}]}', ["clicks is not a number"]),
        ("gsc.json", b'{"data": []}', ['no "rows" list']),
        ("gsc.json", b"{not json", ["not JSON"]),
        ("archive.zip", b"PK\x03\x04broken", ["not a ZIP archive"]),
        ("latin1.csv", "Top queries,Clicks,Impressions,CTR,Position\nzapatillas niño,1,2,50%,3\n".encode("latin-1"), ["not UTF-8"]),
    ],
)
def test_a_file_of_another_shape_is_refused_and_imports_nothing(tenant, articles, as_user, name, data, needles):
    client = as_user(tenant.owner)
    _import(client, tenant.site, _file("Pages.csv"), start="2026-08-01", end="2026-08-31")
    before = list(_rows(tenant).values_list("id", "clicks"))
    _refused(_import(client, tenant.site, _file(name, data)), *needles)
    assert list(_rows(tenant).values_list("id", "clicks")) == before
    assert SearchPerformanceImport.objects.for_account(tenant.account).count() == 1


def test_a_bad_zip_leaves_the_period_it_would_replace_as_it_was(tenant, articles, as_user):
    client = as_user(tenant.owner)
    _import(client, tenant.site, _file("Pages.csv"))
    before = list(_rows(tenant).values_list("id", "clicks"))
    _refused(_import(client, tenant.site, _file("mixed.zip")), "Queries.csv")
    assert list(_rows(tenant).values_list("id", "clicks")) == before


def test_a_day_outside_the_period_is_refused(tenant, as_user):
    _refused(_import(as_user(tenant.owner), tenant.site, _file("performance-on-search-2026-09.zip"), start="2026-09-02"), "2026-09-01 is outside the period")
    assert not _rows(tenant).exists()


def test_a_period_that_ends_before_it_starts_is_refused(tenant, as_user):
    response = _import(as_user(tenant.owner), tenant.site, _file("Pages.csv"), start="2026-09-30", end="2026-09-01")
    assert response.status_code == 400
    assert response.json()["errors"]["end_date"] == ["end_date must be on or after start_date"]


def test_the_file_and_the_dates_are_required(tenant, as_user):
    url = reverse("site-search-performance-import", kwargs={"site_id": tenant.site.pk})
    response = as_user(tenant.owner).post(url, {}, format="multipart")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"file", "start_date", "end_date"}


def test_an_upload_over_the_size_limit_is_refused_before_it_is_read(tenant, as_user, settings):
    settings.SEARCH_PERFORMANCE_MAX_UPLOAD_BYTES = 100
    response = _import(as_user(tenant.owner), tenant.site, _file("Pages.csv"))
    assert response.status_code == 413
    assert not _rows(tenant).exists()


def test_a_viewer_cannot_import(tenant, as_user):
    response = _import(as_user(tenant.viewer), tenant.site, _file("Pages.csv"))
    assert response.status_code == 403
    assert not _rows(tenant).exists()


def test_parse_upload_tells_the_formats_apart_by_content_not_name():
    tables = parse_upload(data=(EXPORTS / "performance-on-search-2026-09.zip").read_bytes(), filename="download")
    assert sorted(table.kind for table in tables) == ["date", "page", "query"]
    with pytest.raises(ExportFormatError):
        parse_upload(data=b"\x89PNG\r\n", filename="Pages.csv")


# The article's rows


def test_the_article_performance_answers_its_periods_queries_and_change(tenant, articles, as_user):
    client = as_user(tenant.owner)
    _import(client, tenant.site, _file("Pages.csv"), start="2026-08-01", end="2026-08-31")
    current = (EXPORTS / "Pages.csv").read_bytes().replace(b'"1,234"', b'"1,000"')
    _import(client, tenant.site, _file("Pages.csv", current))
    _import(client, tenant.site, _file("searchanalytics-query-page.json"))
    response = client.get(reverse("writer-content-performance", kwargs={"pk": articles[0].pk}))
    assert response.status_code == 200
    body = response.json()["data"]
    assert [(row["start_date"], row["clicks"]) for row in body["periods"]] == [("2026-08-01", 1234), ("2026-09-01", 1000)]
    assert body["change"]["clicks"] == -234
    assert body["change"]["clicks_pct"] == -19.0
    assert body["queries"][0]["query"] == "best running shoes"
    assert body["review"]["review_by"] is not None


def test_another_accounts_site_is_not_found_and_nothing_is_imported_there(tenant, other_tenant, as_user):
    make_live_content(other_tenant, url="https://blog.example.com/running-shoes/", external_id="301")
    attacker = as_user(tenant.owner)
    response = _import(attacker, other_tenant.site, _file("Pages.csv"))
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert not SearchMetric.objects.for_account(other_tenant.account).exists()
    assert attacker.get(reverse("site-search-performance", kwargs={"site_id": other_tenant.site.pk})).status_code == 404
