"""POST /optimizer/refresh_with_ai/ (issue #37): a draft refresh of a live article written with the
account's AI provider from its opportunity, saved into the refresh only; the live article and its
post do not change."""

import pytest

from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.jobs.models import Job
from inkwell.writer.models import ContentStatus
from inkwell.writer.tests.factories import make_live_content, make_refresh

pytestmark = pytest.mark.django_db

URL = "/api/v1/optimizer/refresh_with_ai/"
WEAK_HTML = "<p>We run on the hill each day.</p><h2>Fit</h2><p>Good trail shoes grip the rock.</p>"


def test_a_draft_refresh_is_written_with_ai_and_the_live_article_stays_as_it_was(tenant, funded, as_user, eager_jobs):
    funded(10)
    article = make_live_content(tenant, title="Trail Shoes for Hill Runs", html=WEAK_HTML, focus_keyword="trail shoes", meta_description="Hills.")
    refresh = make_refresh(tenant, content=article, reason="Striking distance for “trail shoes for hills”: Add a heading on “trail shoes for hills”")
    with eager_jobs():
        response = as_user(tenant.owner).post(URL, {"refresh_id": refresh.pk}, format="json")
    assert response.status_code == 202, response.content
    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    assert (job.kind, job.status, job.result["saved"], job.result["credits_used"]) == ("optimizer.refresh_with_ai", "succeeded", True, 2)
    refresh.refresh_from_db()
    article.refresh_from_db()
    assert refresh.html != WEAK_HTML and refresh.status == ContentStatus.DRAFT
    assert article.html == WEAK_HTML and article.meta_description == "Hills."
    assert balance_of(tenant.account) == 8
    assert_ledger_consistent(tenant.account)


def test_only_a_draft_refresh_is_written_with_ai(tenant, funded, as_user):
    funded(10)
    refresh = make_refresh(tenant, status=ContentStatus.APPROVED)
    response = as_user(tenant.owner).post(URL, {"refresh_id": refresh.pk}, format="json")
    assert response.status_code == 409
    assert not Job.objects.for_account(tenant.account).exists()
    assert balance_of(tenant.account) == 10


def test_another_accounts_refresh_is_refused(tenant, other_tenant, funded, as_user):
    funded(10)
    refresh = make_refresh(other_tenant)
    response = as_user(tenant.owner).post(URL, {"refresh_id": refresh.pk}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["refresh_id"] == ["Refresh must belong to your account"]
