"""Search performance rows for the tests and for the cross-account matrix."""

from datetime import date

from inkwell.performance.models import SearchMetric, SearchPerformanceImport
from inkwell.writer.tests.factories import make_live_content


def make_metric(tenant, *, content=None, kind="page", start=date(2026, 9, 1), end=date(2026, 9, 30), site=None, **fields) -> SearchMetric:
    site = site or (content.site if content is not None else tenant.site)
    record, _ = SearchPerformanceImport.objects.for_account(tenant.account).get_or_create(account=tenant.account, site=site, start_date=start, end_date=end, kind=kind, defaults={"source": "csv"})
    fields.setdefault("page", content.external_url if content is not None else "")
    return SearchMetric.objects.create(account=tenant.account, site=site, search_import=record, content=content, kind=kind, start_date=start, end_date=end, **fields)


def _metric(tenant, marker: str) -> SearchMetric:
    content = make_live_content(tenant, title=marker, url=f"https://{marker}.example.com/p/", external_id=marker[-6:], focus_keyword=marker)
    make_metric(tenant, content=content, kind="page", clicks=40, impressions=900, position=9.0)
    return make_metric(tenant, content=content, kind="page+query", query=marker, clicks=4, impressions=500, position=11.0)


CROSS_ACCOUNT_FACTORIES = {SearchMetric: _metric}
