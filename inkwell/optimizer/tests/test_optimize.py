"""POST /optimizer/optimize/ and /optimizer/batch_optimize/: the jobs, their providers, credits, roles and tenancy."""

import json

import pytest

from inkwell.ai.optimization import SUGGESTIONS_HEADER
from inkwell.ai.tests.openai_server import Behaviour
from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditReservation, CreditUsage, ReservationStatus
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.jobs.models import Job, JobStatus
from inkwell.optimizer.selectors import analyze_content
from inkwell.optimizer.services import Outcome, apply_proposal, optimizer_client, propose
from inkwell.system.services import modules_save
from inkwell.writer.models import Content, ContentRevision
from inkwell.writer.services import content_update

pytestmark = pytest.mark.django_db

OPTIMIZE = "/api/v1/optimizer/optimize/"
BATCH = "/api/v1/optimizer/batch_optimize/"
# The focus keyword is in neither the first paragraph, a subheading nor a meta field, which are short.
WEAK_HTML = (
    "<p>We run on the hill each day and it is fun.</p><h2>Fit</h2><p>Good trail shoes grip the rock when we run on the hill.</p>"
    "<h2>Care</h2><p>Clean them after each run on the hill.</p>"
)


def weak_article(tenant, *, site=None, title: str = "Trail Shoes for Hill Runs") -> Content:
    return Content.objects.create(
        account=tenant.account,
        site=site or tenant.site,
        title=title,
        html=WEAK_HTML,
        meta_title="Hill runs",
        meta_description="A note on running up hills.",
        focus_keyword="trail shoes",
        word_count=30,
    )


def revisions(content) -> list[ContentRevision]:
    return list(ContentRevision.objects.for_account(content.account_id).filter(content=content))


def job_of(tenant, response) -> Job:
    assert response.status_code == 202, response.content
    return Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])


def test_optimizing_with_the_local_provider_raises_the_score_and_keeps_a_revision(tenant, funded, as_user, eager_jobs):
    funded(10)
    content = weak_article(tenant)
    before = analyze_content(tenant.account, content)["score"]
    client = as_user(tenant.owner)

    with eager_jobs():
        response = client.post(OPTIMIZE, {"content_id": content.pk}, format="json")

    assert response.json()["data"]["status"] == "queued"
    assert response["X-RateLimit-Limit"] == "60"
    job = client.get(f"/api/v1/jobs/{response.json()['data']['job_id']}/").json()["data"]
    assert (job["kind"], job["status"]) == ("optimizer.optimize", "succeeded")
    result = job["result"]
    assert (result["content_id"], result["outcome"], result["score_before"], result["credits_used"]) == (content.pk, "optimized", before, 2)
    assert result["score_after"] > result["score_before"]
    assert "Added the focus keyword to the first paragraph" in result["changes"]
    assert "The focus keyword is not in the first paragraph" in result["suggestions"]
    content.refresh_from_db()
    assert content.html != WEAK_HTML and "trail shoes" in content.meta_description.lower()
    assert analyze_content(tenant.account, content)["score"] == result["score_after"]
    [revision] = revisions(content)
    assert (revision.html, revision.created_by_id) == (WEAK_HTML, tenant.owner.pk)
    assert balance_of(tenant.account) == 8
    assert CreditUsage.objects.for_account(tenant.account).get(operation_type="optimization").credits_used == 2
    assert_ledger_consistent(tenant.account)


def test_optimizing_with_the_openai_compatible_provider_sends_the_suggestions_and_raises_the_score(tenant, funded, openai_provider, as_user, eager_jobs):
    funded(10)
    content = weak_article(tenant)

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(OPTIMIZE, {"content_id": content.pk}, format="json"))

    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.result["outcome"] == "optimized"
    assert job.result["score_after"] > job.result["score_before"]
    assert job.result["changes"] == ["Added the focus keyword to the meta description", "Added a summary paragraph with the focus keyword at the start"]
    [request] = openai_provider.requests_to("chat")
    user_message = request.body["messages"][1]["content"]
    assert SUGGESTIONS_HEADER in user_message
    assert "- The focus keyword is not in the first paragraph" in user_message
    assert json.loads(user_message.rsplit("\n", 1)[-1])["html"] == WEAK_HTML
    content.refresh_from_db()
    assert content.html.startswith("<p>In short: trail shoes works best with a plan")
    assert content.meta_description == "Trail shoes: A note on running up hills."
    assert balance_of(tenant.account) == 8


def test_a_proposal_that_scores_lower_is_not_saved_nor_charged(tenant, funded, openai_provider, as_user, eager_jobs):
    funded(10)
    content = weak_article(tenant)
    worse = {"title": content.title, "meta_title": "Hill", "meta_description": "Hills.", "focus_keyword": "trail shoes", "outline": [], "html": "<p>Short.</p>", "faq": [], "changes": ["Cut it"]}
    openai_provider.script("chat", [Behaviour.content(worse)])

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(OPTIMIZE, {"content_id": content.pk}, format="json"))

    job.refresh_from_db()
    assert (job.status, job.result["outcome"], job.result["credits_used"], job.result["changes"]) == (JobStatus.SUCCEEDED, "not_improved", 0, [])
    assert job.result["score_after"] < job.result["score_before"]
    content.refresh_from_db()
    assert (content.html, revisions(content)) == (WEAK_HTML, [])
    assert balance_of(tenant.account) == 10
    assert_ledger_consistent(tenant.account)


def test_an_article_edited_while_the_provider_worked_is_not_overwritten(tenant, funded):
    content = weak_article(tenant)
    proposal = propose(client=optimizer_client(account=tenant.account), account=tenant.account, content=content)
    content_update(account=tenant.account, content=content, user=tenant.editor, html="<p>Rewritten by hand about trail shoes.</p>")

    item = apply_proposal(account=tenant.account, proposal=proposal, user=tenant.owner)

    assert item["outcome"] == Outcome.CONTENT_CHANGED
    content.refresh_from_db()
    assert content.html == "<p>Rewritten by hand about trail shoes.</p>"
    assert len(revisions(content)) == 1


def test_short_credits_refuse_at_once_and_nothing_happens(tenant, funded, as_user):
    funded(1)
    content = weak_article(tenant)

    response = as_user(tenant.owner).post(OPTIMIZE, {"content_id": content.pk}, format="json")

    assert_error(response, 402, "insufficient_credits", error="Insufficient credits", errors={"credits": ["Insufficient credits"]})
    assert not Job.objects.for_account(tenant.account).exists()
    content.refresh_from_db()
    assert content.html == WEAK_HTML
    assert balance_of(tenant.account) == 1


def test_a_provider_failure_fails_the_job_and_costs_nothing(tenant, funded, openai_provider, as_user, eager_jobs):
    funded(10)
    content = weak_article(tenant)
    openai_provider.script("chat", [Behaviour.status(401)])

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(OPTIMIZE, {"content_id": content.pk}, format="json"))

    job.refresh_from_db()
    assert (job.status, job.error["code"]) == (JobStatus.FAILED, "provider_auth_failed")
    assert CreditReservation.objects.for_account(tenant.account).get().status == ReservationStatus.RELEASED
    assert balance_of(tenant.account) == 10
    content.refresh_from_db()
    assert content.html == WEAK_HTML
    assert_ledger_consistent(tenant.account)


def test_the_same_idempotency_key_starts_one_job(tenant, funded, as_user):
    funded(10)
    content = weak_article(tenant)
    client = as_user(tenant.owner)

    first = client.post(OPTIMIZE, {"content_id": content.pk}, format="json", headers={"Idempotency-Key": "optimize-1"})
    second = client.post(OPTIMIZE, {"content_id": content.pk}, format="json", headers={"Idempotency-Key": "optimize-1"})

    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert Job.objects.for_account(tenant.account).count() == 1
    assert balance_of(tenant.account) - CreditReservation.objects.for_account(tenant.account).get().amount == 8


def test_a_batch_holds_credits_for_every_article_and_charges_the_ones_saved(tenant, other_tenant, funded, as_user, eager_jobs):
    funded(6)
    articles = [weak_article(tenant, title=f"Trail Shoes {n}") for n in range(3)]
    theirs = weak_article(other_tenant)
    ids = [article.pk for article in articles]

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(BATCH, {"content_ids": [*ids, theirs.pk]}, format="json"))

    job.refresh_from_db()
    assert (job.kind, job.status) == ("optimizer.batch_optimize", JobStatus.SUCCEEDED)
    assert (job.result["optimized"], job.result["credits_used"], job.result["not_found"], job.result["failed"]) == (3, 6, [theirs.pk], [])
    assert [item["content_id"] for item in job.result["results"]] == ids
    assert all(item["score_after"] > item["score_before"] for item in job.result["results"])
    assert balance_of(tenant.account) == 0
    theirs.refresh_from_db()
    assert theirs.html == WEAK_HTML
    assert_ledger_consistent(tenant.account)


def test_a_batch_the_balance_cannot_cover_is_refused_whole(tenant, funded, as_user):
    funded(5)
    ids = [weak_article(tenant, title=f"Trail Shoes {n}").pk for n in range(3)]

    assert_error(as_user(tenant.owner).post(BATCH, {"content_ids": ids}, format="json"), 402, "insufficient_credits", error="Insufficient credits", errors={"credits": ["Insufficient credits"]})
    assert not Job.objects.for_account(tenant.account).exists()


def test_an_article_the_provider_fails_on_is_reported_and_the_others_go_on(tenant, funded, openai_provider, as_user, eager_jobs):
    funded(10)
    first, second = weak_article(tenant, title="First trail shoes"), weak_article(tenant, title="Second trail shoes")
    openai_provider.script("chat", [Behaviour.status(401)])

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(BATCH, {"content_ids": [first.pk, second.pk]}, format="json"))

    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.result["failed"] == [{"content_id": first.pk, "error": "The AI provider rejected the API key"}]
    assert [(item["content_id"], item["outcome"]) for item in job.result["results"]] == [(second.pk, "optimized")]
    assert (job.result["credits_used"], balance_of(tenant.account)) == (2, 8)


def test_a_batch_where_every_article_fails_fails(tenant, funded, openai_provider, as_user, eager_jobs):
    funded(10)
    ids = [weak_article(tenant, title=f"Trail Shoes {n}").pk for n in range(2)]
    openai_provider.script("chat", [Behaviour.status(401), Behaviour.status(401)])

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(BATCH, {"content_ids": ids}, format="json"))

    job.refresh_from_db()
    assert (job.status, job.error["code"]) == (JobStatus.FAILED, "provider_auth_failed")
    assert balance_of(tenant.account) == 10


def test_viewers_may_not_optimize_and_editors_only_on_their_sites(granted, funded, second_site, as_user):
    funded(10)
    own, elsewhere = weak_article(granted), weak_article(granted, site=second_site)

    assert_error(as_user(granted.viewer).post(OPTIMIZE, {"content_id": own.pk}, format="json"), 403, "permission_denied")
    assert_error(as_user(granted.viewer).post(BATCH, {"content_ids": [own.pk]}, format="json"), 403, "permission_denied")
    assert_error(as_user(granted.editor).post(OPTIMIZE, {"content_id": elsewhere.pk}, format="json"), 403, "permission_denied")
    assert as_user(granted.editor).post(OPTIMIZE, {"content_id": own.pk}, format="json").status_code == 202


def test_another_accounts_content_is_refused(tenant, other_tenant, funded, as_user):
    funded(10)
    theirs = weak_article(other_tenant)
    client = as_user(tenant.owner)

    assert_error(client.post(OPTIMIZE, {"content_id": theirs.pk}, format="json"), 400, "validation_error", errors={"content_id": ["Content must belong to your account"]})
    assert_error(client.post(BATCH, {"content_ids": [theirs.pk]}, format="json"), 400, "validation_error", errors={"content_ids": ["None of these ids names your content"]})
    assert not Job.objects.for_account(tenant.account).exists()


def test_a_switched_off_optimizer_module_refuses_optimization(tenant, funded, as_user):
    funded(10)
    modules_save(account=tenant.account, modules={"optimizer": False})

    assert_error(as_user(tenant.owner).post(OPTIMIZE, {"content_id": weak_article(tenant).pk}, format="json"), 403, "module_disabled")


def test_an_article_without_a_focus_keyword_gets_the_one_the_provider_chose(tenant, funded, as_user, eager_jobs):
    funded(10)
    content = weak_article(tenant)
    Content.objects.for_account(tenant.account).filter(pk=content.pk).update(focus_keyword="")

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(OPTIMIZE, {"content_id": content.pk}, format="json"))

    job.refresh_from_db()
    assert job.result["outcome"] == "optimized"
    content.refresh_from_db()
    assert content.focus_keyword == "trail shoes hill"
    assert 'Set the focus keyword to "trail shoes hill", taken from the title' in job.result["changes"]


def test_content_deleted_before_the_job_ran_fails_it_and_costs_nothing(tenant, funded, as_user, eager_jobs):
    funded(10)
    content = weak_article(tenant)

    with eager_jobs():
        job = job_of(tenant, as_user(tenant.owner).post(OPTIMIZE, {"content_id": content.pk}, format="json"))
        Content.objects.for_account(tenant.account).filter(pk=content.pk).delete()

    job.refresh_from_db()
    assert (job.status, job.error) == (JobStatus.FAILED, {"code": "content_missing", "message": "The content was deleted before it was optimized"})
    assert balance_of(tenant.account) == 10
