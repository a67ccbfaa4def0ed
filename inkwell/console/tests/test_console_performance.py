"""The Performance screen, the editor's performance panel and the refresh page (issue #37), through
the console's own views and the same services as the API."""

from datetime import date, timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from inkwell.performance.models import SearchMetric
from inkwell.performance.tests.factories import make_metric
from inkwell.tenancy.models import SiteUserAccess
from inkwell.writer.models import ContentRefresh, ContentStatus
from inkwell.writer.tests.factories import make_live_content

pytestmark = pytest.mark.django_db

EXPORTS = Path(__file__).resolve().parents[2] / "performance" / "tests" / "exports"
SEP = {"start": date(2026, 9, 1), "end": date(2026, 9, 30)}
AUG = {"start": date(2026, 8, 1), "end": date(2026, 8, 31)}


@pytest.fixture
def article(tenant):
    return make_live_content(
        tenant, title="How to choose running shoes", url="https://blog.example.com/running-shoes/", external_id="301",
        html="<h2>Fit</h2><p>Try shoes on in the evening.</p>", published_at=timezone.now() - timedelta(days=400),
    )


def test_the_performance_screen_shows_the_chart_data_and_every_list(tenant, article, console_client):
    make_metric(tenant, content=article, kind="page", clicks=300, impressions=6000, position=9.0, **AUG)
    make_metric(tenant, content=article, kind="page", clicks=100, impressions=5000, position=12.0, **SEP)
    make_metric(tenant, content=article, kind="page+query", query="trail shoes for winter", clicks=4, impressions=800, position=11.0, **SEP)
    response = console_client(tenant.owner).get(reverse("console:performance", kwargs={"site_id": tenant.site.pk}))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="performance-data"' in page and 'data-source="performance-data"' in page
    assert "trail shoes for winter" in page and "Add a section that answers" in page
    assert "Decaying articles" in page and "−65.6%" in page
    assert "Due for review" in page and "Mark reviewed" in page
    assert "<script>" not in page and " onclick=" not in page


def test_a_search_console_zip_imports_from_the_console(tenant, article, console_client):
    upload = SimpleUploadedFile("performance-on-search-2026-09.zip", (EXPORTS / "performance-on-search-2026-09.zip").read_bytes())
    response = console_client(tenant.owner).post(
        reverse("console:performance-import", kwargs={"site_id": tenant.site.pk}), {"file": upload, "start_date": "2026-09-01", "end_date": "2026-09-30"}
    )
    assert response.status_code == 302
    assert SearchMetric.objects.for_account(tenant.account).count() == 37
    page = console_client(tenant.owner).get(response["Location"]).content.decode()
    assert "https://blog.example.com/not-ours/" in page


def test_a_file_of_another_shape_is_refused_on_the_console_and_imports_nothing(tenant, article, console_client):
    upload = SimpleUploadedFile("Countries.csv", (EXPORTS / "Countries.csv").read_bytes())
    response = console_client(tenant.owner).post(
        reverse("console:performance-import", kwargs={"site_id": tenant.site.pk}), {"file": upload, "start_date": "2026-09-01", "end_date": "2026-09-30"}
    )
    assert response.status_code == 400
    assert "not a Search Console Performance table" in response.content.decode()
    assert not SearchMetric.objects.for_account(tenant.account).exists()


def test_a_viewer_sees_the_screen_but_cannot_import(tenant, article, console_client):
    client = console_client(tenant.owner)
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.viewer, site=tenant.site)
    viewer = console_client(tenant.viewer)
    assert viewer.get(reverse("console:performance", kwargs={"site_id": tenant.site.pk})).status_code == 200
    upload = SimpleUploadedFile("Pages.csv", (EXPORTS / "Pages.csv").read_bytes())
    response = viewer.post(reverse("console:performance-import", kwargs={"site_id": tenant.site.pk}), {"file": upload, "start_date": "2026-09-01", "end_date": "2026-09-30"})
    assert response.status_code == 403
    assert not SearchMetric.objects.for_account(tenant.account).exists()
    assert client.get(reverse("console:performance", kwargs={"site_id": tenant.site.pk})).status_code == 200


def test_an_opportunity_becomes_a_refresh_that_goes_through_review(tenant, article, console_client):
    client = console_client(tenant.owner)
    response = client.post(reverse("console:content-refresh", kwargs={"pk": article.pk}), {"reason": "Striking distance for “winter shoes”"})
    refresh = ContentRefresh.objects.for_account(tenant.account).get()
    assert response["Location"] == reverse("console:refresh", kwargs={"pk": refresh.pk})
    page = client.get(response["Location"]).content.decode()
    assert "Striking distance for “winter shoes”" in page and "Send to review" in page
    client.post(reverse("console:refresh", kwargs={"pk": refresh.pk}), {"title": "Running shoes for winter", "html": "<p>New.</p>", "meta_title": "", "meta_description": ""})
    client.post(reverse("console:refresh-status", kwargs={"pk": refresh.pk}), {"status": "review"})
    client.post(reverse("console:refresh-status", kwargs={"pk": refresh.pk}), {"status": "approved"})
    refresh.refresh_from_db()
    article.refresh_from_db()
    assert (refresh.status, refresh.title) == (ContentStatus.APPROVED, "Running shoes for winter")
    assert article.title == "How to choose running shoes"
    assert "Update the live post now" in client.get(reverse("console:refresh", kwargs={"pk": refresh.pk})).content.decode()


def test_the_editor_shows_the_articles_performance_and_review_date(tenant, article, console_client):
    make_metric(tenant, content=article, kind="page", clicks=300, impressions=6000, position=9.0, **AUG)
    make_metric(tenant, content=article, kind="page", clicks=150, impressions=5000, position=12.0, **SEP)
    make_metric(tenant, content=article, kind="page+query", query="winter running shoes", clicks=4, impressions=800, position=11.0, **SEP)
    page = console_client(tenant.owner).get(reverse("console:content", kwargs={"pk": article.pk})).content.decode()
    assert 'id="article-performance-data"' in page
    assert "winter running shoes" in page
    assert "(-50.0%)" in page
    assert "Review by" in page and "Start a refresh" in page


def test_marking_an_article_reviewed_from_the_console(tenant, article, console_client):
    client = console_client(tenant.owner)
    response = client.post(reverse("console:content-reviewed", kwargs={"pk": article.pk}))
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Marked reviewed" in page


def test_a_draft_refresh_is_written_with_ai_from_the_console(tenant, article, console_client, funded, eager_jobs):
    funded(10)
    client = console_client(tenant.owner)
    client.post(reverse("console:content-refresh", kwargs={"pk": article.pk}), {"reason": "Add a section on winter running shoes"})
    refresh = ContentRefresh.objects.for_account(tenant.account).get()
    assert "Write it with AI" in client.get(reverse("console:refresh", kwargs={"pk": refresh.pk})).content.decode()
    with eager_jobs():
        response = client.post(reverse("console:refresh-write", kwargs={"pk": refresh.pk}))
    assert response.status_code == 302
    refresh.refresh_from_db()
    article.refresh_from_db()
    assert refresh.html != article.html
    assert refresh.status == ContentStatus.DRAFT


def test_a_refresh_scheduled_outside_the_rules_is_refused_on_its_page_and_schedule_anyway_records_the_override(tenant, article, console_client):
    """Contract section 12 on the refresh page, as on the calendar: refused with the rule named, and
    "Schedule anyway" is an explicit override, recorded."""
    from inkwell.integration.tests.factories import make_integration
    from inkwell.publishing.models import ScheduleOverride
    from inkwell.writer.models import RefreshSendStatus
    from inkwell.writer.tests.factories import make_refresh
    from inkwell.writer.tests.test_content_schedule import _next, _site_rules

    make_integration(tenant)
    _site_rules(tenant)
    refresh = make_refresh(tenant, content=article, status=ContentStatus.APPROVED)
    saturday = _next(5, 11, 30)
    at = saturday.strftime("%Y-%m-%dT%H:%M")
    client = console_client(tenant.owner)
    url = reverse("console:refresh-send", kwargs={"pk": refresh.pk})

    refused = client.post(url, {"at": at})

    assert refused.status_code == 409
    page = refused.content.decode()
    assert "Outside the publishing rules: Saturday is not a publishing day of this site" in page
    assert "Schedule anyway" in page and 'name="override_rules" value="1"' in page and f'name="at" value="{at}"' in page
    assert 'id="refresh-at"' in page  # the refresh's page again, the time typed beside the message
    refresh.refresh_from_db()
    assert refresh.send_status == RefreshSendStatus.NOT_SENT

    anyway = client.post(url, {"at": at, "when": "at", "override_rules": "1"})

    assert anyway.status_code == 302
    refresh.refresh_from_db()
    assert (refresh.send_status, refresh.scheduled_at) == (RefreshSendStatus.SCHEDULED, saturday)
    [override] = ScheduleOverride.objects.for_account(tenant.account).filter(refresh=refresh)
    assert (override.rule, override.created_by) == ("Saturday is not a publishing day of this site", tenant.owner)
