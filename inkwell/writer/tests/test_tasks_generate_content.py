"""POST /writer/tasks/{id}/generate_content/: the job, the draft it writes, its credits and notifications."""

import re

import pytest

from inkwell.ai.tests.openai_server import Behaviour
from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditReservation, CreditUsage, ReservationStatus
from inkwell.billing.services import cost_of
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.jobs.models import Job, JobStatus
from inkwell.notifications.models import Notification
from inkwell.writer.models import Content, ContentStatus, Task, TaskStatus
from inkwell.writer.sanitize import visible_word_count
from inkwell.writer.tests.factories import make_task

pytestmark = pytest.mark.django_db


def generate(client, task, **headers):
    return client.post(f"/api/v1/writer/tasks/{task.pk}/generate_content/", format="json", headers=headers)


def notifications(account, event: str) -> list[Notification]:
    return list(Notification.objects.for_account(account).filter(notification_type=event))


def test_generation_writes_a_draft_of_the_requested_length(tenant, funded, as_user, eager_jobs):
    funded(100)
    task = make_task(tenant, title="Trail running for beginners", keywords=["trail running", "trail shoes"], word_count=1200, tone="friendly")
    client = as_user(tenant.owner)

    with eager_jobs():
        response = generate(client, task)

    assert response.status_code == 202, response.content
    job_id = response.json()["data"]["job_id"]
    assert response.json()["data"] == {"job_id": job_id, "status": "queued"}
    job = client.get(f"/api/v1/jobs/{job_id}/").json()["data"]
    assert (job["kind"], job["status"]) == ("writer.generate_content", "succeeded")
    content = Content.objects.for_account(tenant.account).get(task=task)
    assert job["result"] == {"content_id": content.pk, "task_id": task.pk, "word_count": content.word_count, "credits_used": 12}
    assert content.status == ContentStatus.DRAFT
    assert (content.site_id, content.sector_id) == (task.site_id, task.sector_id)
    assert content.title and content.html.startswith("<")
    assert 0 < len(content.meta_title) <= 60 and 0 < len(content.meta_description) <= 160
    assert content.focus_keyword == "trail running"
    assert content.keywords == ["trail running", "trail shoes"]
    assert content.word_count == visible_word_count(content.html)
    assert abs(content.word_count - 1200) <= 1200 * 0.05
    task.refresh_from_db()
    assert task.status == TaskStatus.COMPLETED
    assert client.get(f"/api/v1/writer/tasks/{task.pk}/").json()["data"]["content_id"] == content.pk


def test_the_brief_follows_the_task_and_the_content_settings(tenant, funded, as_user, eager_jobs):
    funded(100)
    client = as_user(tenant.owner)
    client.post("/api/v1/system/settings/content/content_generation/save/", {"include_faq": False}, format="json")
    task = make_task(tenant, outline=["Gear you need", "Where to run"], word_count=500)

    with eager_jobs():
        generate(client, task)

    headings = re.findall(r"<h2[^>]*>(.*?)</h2>", Content.objects.for_account(tenant.account).get(task=task).html)
    assert headings[:2] == ["Gear you need", "Where to run"]
    assert "Frequently Asked Questions" not in headings


def test_generation_charges_its_cost_once_with_a_usage_record(tenant, funded, as_user, eager_jobs):
    account = funded(100)
    task = make_task(tenant, word_count=1500)

    with eager_jobs():
        generate(as_user(tenant.owner), task)

    assert cost_of(operation_type="content_generation", units=1500) == 15
    assert balance_of(account) == 85
    usage = CreditUsage.objects.for_account(account).get(operation_type="content_generation")
    assert (usage.credits_used, usage.site_id) == (15, tenant.site.pk)
    assert CreditReservation.objects.for_account(account).get().status == ReservationStatus.SETTLED
    assert_ledger_consistent(account)


def test_a_finished_draft_raises_ai_content_complete(tenant, funded, as_user, eager_jobs):
    funded(100)
    task = make_task(tenant, word_count=800)

    with eager_jobs():
        generate(as_user(tenant.owner), task)

    content = Content.objects.for_account(tenant.account).get(task=task)
    [notice] = notifications(tenant.account, "ai_content_complete")
    assert notice.site_id == tenant.site.pk
    assert notice.action_url == f"/app/content/{content.pk}/"
    assert notice.metadata == {"count": 1, "credits": 8, "content_id": content.pk, "task_id": task.pk}
    assert content.title in notice.message


def test_too_few_credits_is_402_and_changes_nothing(tenant, funded, as_user, eager_jobs):
    account = funded(14)
    task = make_task(tenant, word_count=1500)

    with eager_jobs():
        response = generate(as_user(tenant.owner), task)

    assert_error(response, 402, "insufficient_credits", error="Insufficient credits", errors={"credits": ["Insufficient credits"]})
    task.refresh_from_db()
    assert task.status == TaskStatus.QUEUED
    assert not Job.objects.for_account(account).exists()
    assert not CreditReservation.objects.for_account(account).exists()
    assert not Content.objects.for_account(account).exists()
    assert balance_of(account) == 14
    assert not Notification.objects.for_account(account).filter(notification_type__startswith="ai_").exists()


def test_a_task_already_generating_is_a_state_conflict(tenant, funded, as_user):
    account = funded(100)
    task = make_task(tenant, word_count=1000)
    client = as_user(tenant.owner)

    assert generate(client, task).status_code == 202
    second = generate(client, task)

    assert_error(second, 409, "state_conflict", errors={"status": ["Content for this task is being generated already"]})
    assert Job.objects.for_account(account).count() == 1
    assert balance_of(account) - CreditReservation.objects.for_account(account).get().amount == 90


def test_a_completed_or_failed_task_may_be_generated_again(tenant, funded, as_user, eager_jobs):
    funded(100)
    task = make_task(tenant, word_count=300, status=TaskStatus.FAILED)
    client = as_user(tenant.owner)

    with eager_jobs():
        assert generate(client, task).status_code == 202
    with eager_jobs():
        assert generate(client, task).status_code == 202

    assert Content.objects.for_account(tenant.account).filter(task=task).count() == 2


def test_the_same_idempotency_key_starts_one_job(tenant, funded, as_user):
    account = funded(100)
    task = make_task(tenant, word_count=1000)
    client = as_user(tenant.owner)

    first = generate(client, task, **{"Idempotency-Key": "generate-once"})
    again = generate(client, task, **{"Idempotency-Key": "generate-once"})

    assert first.status_code == again.status_code == 202
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Job.objects.for_account(account).count() == 1


def test_a_provider_failure_fails_the_task_frees_the_credits_and_notifies(tenant, funded, as_user, eager_jobs, openai_provider):
    account = funded(100)
    task = make_task(tenant, word_count=1000)
    openai_provider.script("chat", [Behaviour.status(401)])

    with eager_jobs():
        response = generate(as_user(tenant.owner), task)

    job = Job.objects.for_account(account).get(pk=response.json()["data"]["job_id"])
    assert job.status == JobStatus.FAILED
    task.refresh_from_db()
    assert task.status == TaskStatus.FAILED
    assert not Content.objects.for_account(account).exists()
    assert balance_of(account) == 100
    assert CreditReservation.objects.for_account(account).get().status == ReservationStatus.RELEASED
    [notice] = notifications(account, "ai_content_failed")
    assert notice.severity == "error"
    assert task.title in notice.message and job.error["message"] in notice.message
    assert not notifications(account, "ai_content_complete")
    assert_ledger_consistent(account)


def test_the_openai_provider_writes_the_draft_and_its_tokens_are_recorded(tenant, funded, as_user, eager_jobs, openai_provider):
    account = funded(100)
    task = make_task(tenant, title="Composting at home", keywords=["composting"], word_count=700)

    with eager_jobs():
        generate(as_user(tenant.owner), task)

    content = Content.objects.for_account(account).get(task=task)
    assert content.status == ContentStatus.DRAFT
    assert content.word_count == visible_word_count(content.html) > 0
    assert len(openai_provider.requests_to("chat")) == 1
    usage = CreditUsage.objects.for_account(account).get(operation_type="content_generation")
    assert usage.credits_used == 7
    assert usage.model == "gpt-4o"
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0


def test_a_script_in_the_providers_article_is_removed(tenant, funded, as_user, eager_jobs, openai_provider):
    funded(100)
    task = make_task(tenant, title="Composting at home", keywords=["composting"], word_count=300)
    article = {
        "title": "Composting at home", "meta_title": "Composting at home", "meta_description": "How to compost at home.",
        "focus_keyword": "composting", "outline": ["Start"],
        "html": '<h2 onclick="steal()">Start</h2><p>Compost <a href="javascript:steal()">now</a>.</p><script>steal()</script><img src="x.png" onerror="steal()">',
        "faq": [],
    }
    openai_provider.script("chat", [Behaviour.content(article)])

    with eager_jobs():
        generate(as_user(tenant.owner), task)

    html = Content.objects.for_account(tenant.account).get(task=task).html
    assert "steal" not in html
    assert html == '<h2>Start</h2><p>Compost <a>now</a>.</p><img src="x.png">'


def test_editors_generate_for_their_sites_and_viewers_may_not(granted, funded, as_user):
    funded(100)
    task = make_task(granted, word_count=500)

    assert_error(generate(as_user(granted.viewer), task), 403, "permission_denied")
    assert generate(as_user(granted.editor), task).status_code == 202
    assert Task.objects.for_account(granted.account).get(pk=task.pk).status == TaskStatus.GENERATING
