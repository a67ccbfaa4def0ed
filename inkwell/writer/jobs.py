"""The writer's background work: an article written from a task (``writer.generate_content``)."""

from django.db import transaction
from django.utils import timezone

from inkwell.ai.types import ArticleBrief
from inkwell.billing.models import ReservationStatus
from inkwell.billing.selectors import job_reservation
from inkwell.billing.services import settle
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.services import JobContext, JobFailed, job_kind
from inkwell.notifications.models import NotificationType, Severity
from inkwell.notifications.services import notify
from inkwell.system.selectors import ai_client, content_settings
from inkwell.writer import images  # noqa: F401  (registers the image job kinds; see below)
from inkwell.writer.models import Content, Task, TaskStatus
from inkwell.writer.services import GENERATE_CONTENT, content_create

TASK_GONE = "The task was deleted before its content was written"
# The jobs app imports each app's ``jobs`` module in every process, workers included; the image job
# kinds live in ``images`` with the rest of the image code, so the import above registers them too.


def _result(content: Content, credits: int) -> dict:
    return {"content_id": content.pk, "task_id": content.task_id, "word_count": content.word_count, "credits_used": credits}


def content_generation_ended(job: Job) -> None:
    """A failed job leaves its task ``failed`` and raises ``ai_content_failed``; a cancelled one
    puts the task back in the queue. Also runs when the job's worker died."""
    tasks = Task.objects.for_account(job.account_id).filter(pk=job.params.get("task_id"))
    if job.status == JobStatus.CANCELLED:
        tasks.filter(status=TaskStatus.GENERATING).update(status=TaskStatus.QUEUED, updated_at=timezone.now())
        return
    tasks.filter(status=TaskStatus.GENERATING).update(status=TaskStatus.FAILED, updated_at=timezone.now())
    task = tasks.only("title").first()
    reason = (job.error or {}).get("message") or "The article could not be written"
    subject = f'for "{task.title}" ' if task else ""
    notify(
        account=job.account,
        notification_type=NotificationType.AI_CONTENT_FAILED,
        title="",
        message=f"Content {subject}could not be written: {reason}",
        severity=Severity.ERROR,
        metadata={"count": 0, "credits": 0, "task_id": job.params.get("task_id"), "job_id": job.pk},
        site=job.site,
    )


@job_kind(name=GENERATE_CONTENT, on_failure=content_generation_ended)
def generate_content(ctx: JobContext) -> dict:
    """Writes the task's article with the account's AI provider and saves it as a ``draft``
    Content, in one transaction with the task's completion, the charge and ``ai_content_complete``.

    The brief is the task (title, keywords, length, tone, structure, outline, description) with
    the account's content generation settings (FAQ, testing model). AI errors propagate: the
    runner retries transient ones and records the others.
    """
    job = ctx.job
    account = job.account
    task_id = ctx.params["task_id"]
    reservation = job_reservation(job)
    if reservation is not None and reservation.status == ReservationStatus.SETTLED:
        # An earlier attempt of this job committed its draft and its charge, then lost its worker.
        content = Content.objects.for_account(account).filter(task_id=task_id).order_by("-created_at", "-id").first()
        if content is not None:
            return _result(content, reservation.amount)
    task = Task.objects.for_account(account).filter(pk=task_id).first()
    if task is None:
        raise JobFailed(TASK_GONE, code="task_missing")

    settings = content_settings(account, "content_generation")
    brief = ArticleBrief(
        title=task.title,
        keywords=list(task.keywords),
        word_count=task.word_count,
        tone=task.tone,
        structure=task.content_structure,
        include_faq=settings["include_faq"],
        description=task.description,
        outline=list(task.outline),
    )
    ctx.progress(10, "Writing the article")
    written = ai_client(account, live=False if settings["use_testing_model"] else None).write_article(brief)
    draft, usage = written.value, written.usage
    ctx.progress(90, "Saving the draft")

    with transaction.atomic():
        task = Task.objects.for_account(account).select_for_update(of=("self",)).select_related("site", "sector").filter(pk=task_id).first()
        if task is None:
            raise JobFailed(TASK_GONE, code="task_missing")
        content = content_create(
            account=account,
            site=task.site,
            sector=task.sector,
            task=task,
            title=(draft.title or task.title)[:300],
            html=draft.html,
            meta_title=draft.meta_title[:60],
            meta_description=draft.meta_description[:160],
            focus_keyword=draft.focus_keyword[:255],
            keywords=list(task.keywords) or ([draft.focus_keyword] if draft.focus_keyword else []),
        )
        task.status = TaskStatus.COMPLETED
        task.save(update_fields=["status", "updated_at"])
        credits = 0
        if reservation is not None:
            settle(reservation=reservation, model=usage.model, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)
            credits = reservation.amount
        notify(
            account=account,
            notification_type=NotificationType.AI_CONTENT_COMPLETE,
            title="",
            message=f'"{content.title}" is ready as a draft of {content.word_count} words.',
            severity=Severity.SUCCESS,
            action_label="Open draft",
            action_url=f"/writer/content/{content.pk}",
            metadata={"count": 1, "credits": credits, "content_id": content.pk, "task_id": task_id},
            site=job.site,
        )
    return _result(content, credits)
