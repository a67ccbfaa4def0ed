"""The writer's background work: an article written from a task (``writer.generate_content``),
and the images of a content (``writer.generate_images``, ``writer.regenerate_image``; started by
``inkwell.writer.services``).

``writer.generate_images`` creates the images as ``pending`` rows when it is started (so the job
knows exactly which rows are its own), then extracts one prompt per image from the article, then
generates the images at once, within the shared limit of provider calls in flight
(``inkwell.ai.limits``), and stores each through Django's storage API as it arrives, its row still
``pending``: a retried attempt makes only the images still missing, so the provider is paid once
for each. ``writer.regenerate_image``
replaces one image's file, keeping the old one until the new one is saved.

The job has two phases, prompts and images; the endpoints run both in one job (``Phase.ALL``).
Automation runs them as separate stages with the same handler: ``Phase.PROMPTS`` creates the rows
and writes their prompts, leaving them ``pending``; ``Phase.IMAGES``
(``start_prompted_image_generation``) makes the images of pending rows that have a prompt.

Which image is featured: the first image of a request is ``featured`` when the request asks for
``image_type=featured``, or when it names no type and the content has no featured image yet
(generated or being generated); every other image is ``in_article``. A new featured image demotes
the content's earlier one to ``in_article`` once it is generated, so a content has one featured
image.

Credits: prompt extraction and the images (those of the job's phases) are reserved up front.
The extraction is charged as soon as its prompts are saved (``ai_prompts_complete``); the images
when they are all saved (``ai_images_complete``), for as many as were made. A failed or cancelled
job frees what was not charged, turns its images that have a prompt ``failed`` (``regenerate``
can retry them; the files kept as they arrived go, uncharged), removes those that never got one,
and deletes every file it wrote.

Files are named after the job and the image with a keyed hash (``image-<id>-<hash>.<ext>``): a
retried attempt or the failure handler finds what an earlier attempt wrote without a record of
it, and nobody can guess another account's file names. A deleted image takes its file with it.
"""

import threading
from concurrent.futures import ThreadPoolExecutor, as_completed

from django.conf import settings as django_settings
from django.core.files.base import ContentFile
from django.db import connection, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from inkwell.ai.types import ArticleBrief, GeneratedImage, TokenUsage
from inkwell.billing.models import ReservationStatus
from inkwell.billing.selectors import job_credits, job_reservation
from inkwell.billing.services import cost_of, settle, settle_job
from inkwell.jobs.models import Job, JobStatus
from inkwell.jobs.services import JobContext, JobFailed, job_kind
from inkwell.notifications import events
from inkwell.system.selectors import ai_client, content_settings
from inkwell.writer.quality import article_brief_parts, site_voice
from inkwell.writer.models import Content, Image, ImageStatus, ImageType, Task, TaskStatus, image_upload_to
from inkwell.writer.sanitize import plain_text
from inkwell.writer.selectors import IMAGE_GENERATION, PROMPT_EXTRACTION, article_of, image_settings
from inkwell.writer.services import GENERATE_CONTENT, GENERATE_IMAGES, REGENERATE_IMAGE, Phase, content_create

TASK_GONE = "The task was deleted before its content was written"


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
    events.content_not_written(
        account=job.account, site=job.site, task_title=task.title if task else None, reason=reason, task_id=job.params.get("task_id"), job_id=job.pk
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
    # The task's approved brief, when it has one, and the site's voice (issue 35).
    fields = {
        "title": task.title,
        "keywords": list(task.keywords),
        "word_count": task.word_count,
        "tone": task.tone,
        "structure": task.content_structure,
        "include_faq": settings["include_faq"],
        "description": task.description,
        "outline": list(task.outline),
    }
    fields.update(article_brief_parts(task_id=task.pk, account_id=account.pk))
    brief = ArticleBrief(**fields, voice=site_voice(site=task.site))
    ctx.progress(10, "Writing the article")
    written = ai_client(account, live=False if settings["use_testing_model"] else None, site=task.site).write_article(brief)
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
        events.content_written(
            account=account,
            site=job.site,
            content_id=content.pk,
            content_title=content.title,
            word_count=content.word_count,
            credits=credits,
            task_id=task_id,
        )
    return _result(content, credits)


# Images: the generation and regeneration jobs, and their files


# The formats the image providers return (the openai provider reads the format from the bytes).
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}


def _file_names(job_id: int, image: Image) -> list[str]:
    """Every storage name job ``job_id`` may have written for ``image`` (one per format)."""
    # The salt is the one these names were first made with; files already stored are found by it.
    digest = salted_hmac("inkwell.writer.images.file", f"{job_id}:{image.pk}").hexdigest()[:20]
    return [image_upload_to(image, f"image-{image.pk}-{digest}.{extension}") for extension in EXTENSIONS.values()]


def _store(job: Job, image: Image, generated: GeneratedImage) -> None:
    """Writes the image's file under this job's name for it and sets the instance's file fields
    (the row is saved later, with the others)."""
    extension = EXTENSIONS.get(generated.mime_type)
    if extension is None:
        raise JobFailed("The image provider returned an image format that is not supported", code="invalid_provider_output")
    name = next(name for name in _file_names(job.pk, image) if name.endswith(f".{extension}"))
    storage = image.file.storage
    # A crashed earlier attempt may have left this very file; the storage would pick another name.
    storage.delete(name)
    image.file.save(name.rsplit("/", 1)[-1], ContentFile(generated.data), save=False)
    image.width, image.height, image.mime_type = generated.width, generated.height, generated.mime_type


def _delete_job_files(job: Job, image_ids: list[int], *, keep: set[str]) -> None:
    """Deletes what ``job`` wrote for these images, except files a row still points at."""
    storage = Image._meta.get_field("file").storage
    for image_id in image_ids:
        # Built without the row, which may be gone; the names depend only on ids.
        for name in _file_names(job.pk, Image(pk=image_id, account_id=job.account_id, site_id=job.site_id)):
            if name not in keep:
                storage.delete(name)


def _total_usage(usages: list[TokenUsage]) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=sum(usage.prompt_tokens for usage in usages),
        completion_tokens=sum(usage.completion_tokens for usage in usages),
        model=next((usage.model for usage in usages if usage.model), ""),
    )


def _job_images(job: Job) -> list[Image]:
    return list(
        Image.objects.for_account(job.account_id)
        .filter(pk__in=job.params.get("image_ids", []))
        .select_related("content", "site")
        .order_by("position", "id")
    )


def _generation_result(content_id: int, images: list[Image], credits: int) -> dict:
    return {"content_id": content_id, "image_ids": [image.pk for image in images], "count": len(images), "credits_used": credits}


def _save_prompts(ctx: JobContext, images: list[Image], drafts: list, usage: TokenUsage) -> tuple[list[Image], int]:
    """Gives the images their prompts (those the provider gave no prompt for are removed), charges
    the extraction and raises ``ai_prompts_complete``, in one transaction. The images kept and the
    credits charged."""
    job, content = ctx.job, images[0].content
    drafts = [draft for draft in drafts if draft.prompt.strip()][: len(images)]
    if not drafts:
        raise JobFailed("The AI provider returned no image prompts", code="invalid_provider_output")
    kept, surplus = images[: len(drafts)], images[len(drafts) :]
    now = timezone.now()
    with transaction.atomic():
        for image, draft in zip(kept, drafts, strict=True):
            image.prompt, image.alt_text = draft.prompt.strip(), plain_text(draft.alt_text)[:300]
            Image.objects.for_account(job.account_id).filter(pk=image.pk, status=ImageStatus.PENDING).update(
                prompt=image.prompt, alt_text=image.alt_text, updated_at=now
            )
        if surplus:
            Image.objects.for_account(job.account_id).filter(pk__in=[image.pk for image in surplus]).delete()
        credits = settle_job(job=job, operation_type=PROMPT_EXTRACTION, amount=cost_of(operation_type=PROMPT_EXTRACTION, units=1), usage=usage)
        events.image_prompts_written(
            account=job.account, site=images[0].site, content_id=content.pk, content_title=content.title, prompts=len(kept), credits=credits
        )
    return kept, credits


def _save_images(ctx: JobContext, images: list[Image], usages: list[TokenUsage]) -> dict:
    """Marks the generated images saved, demotes an earlier featured image, charges the images and
    raises ``ai_images_complete``, in one transaction."""
    job, content = ctx.job, images[0].content
    now = timezone.now()
    rows = Image.objects.for_account(job.account_id)
    saved, lost = [], []
    with transaction.atomic():
        for image in images:
            updated = rows.filter(pk=image.pk, status=ImageStatus.PENDING).update(
                file=image.file.name,
                width=image.width,
                height=image.height,
                mime_type=image.mime_type,
                status=ImageStatus.GENERATED,
                updated_at=now,
            )
            (saved if updated else lost).append(image)
        if not saved:
            raise JobFailed("The content was deleted while its images were being generated", code="not_found")
        if any(image.image_type == ImageType.FEATURED for image in saved):
            rows.filter(content_id=content.pk, image_type=ImageType.FEATURED).exclude(pk__in=[image.pk for image in saved]).update(
                image_type=ImageType.IN_ARTICLE, updated_at=now
            )
        credits = settle_job(job=job, operation_type=IMAGE_GENERATION, amount=cost_of(operation_type=IMAGE_GENERATION, units=len(saved)), usage=_total_usage(usages))
        events.images_generated(
            account=job.account, site=images[0].site, content_id=content.pk, content_title=content.title, images=len(saved), credits=credits
        )
    # Rows deleted while the images were being made went with their content; so do their files.
    for image in lost:
        image.file.storage.delete(image.file.name)
    return _generation_result(content.pk, saved, credits)


def _made_earlier(job: Job, image: Image) -> bool:
    """Whether an earlier attempt of ``job`` saved this image's file (the row names it)."""
    return bool(image.file.name) and image.file.name in _file_names(job.pk, image) and image.file.storage.exists(image.file.name)


def _keep(ctx: JobContext, image: Image, generated: GeneratedImage) -> None:
    """Stores an image as soon as it arrives and names its file on the row, which stays
    ``pending`` (uncharged) until ``_save_images``: a retried attempt finds it there."""
    _store(ctx.job, image, generated)
    Image.objects.for_account(ctx.job.account_id).filter(pk=image.pk, status=ImageStatus.PENDING).update(
        file=image.file.name, width=image.width, height=image.height, mime_type=image.mime_type, updated_at=timezone.now()
    )


def _make_images(ctx: JobContext, client, images: list[Image], config: dict) -> list[TokenUsage]:
    """Makes the images no earlier attempt made, at once within the shared limit of provider calls
    in flight (``inkwell.ai.limits``), each kept as it arrives. An image that fails does not stop
    the others; the first failure is raised once every call has ended, so that a retry pays only
    for what is missing. The token usage of the images this attempt made."""
    missing = [image for image in images if not _made_earlier(ctx.job, image)]
    usages: list[TokenUsage] = []
    if not missing:
        return usages
    ctx.progress(10, f"Generating {len(missing)} of {len(images)} images" if len(missing) < len(images) else f"Generating {len(images)} images")

    def make(image: Image):
        try:
            return client.generate_image(image.prompt, size=config["size"], style=config["style"])
        finally:
            if threading.current_thread() is not caller:
                connection.close()  # a pool thread's own connection (the shared limit's store)

    caller = threading.current_thread()
    # Inside the caller's transaction (an eager job in a test) other threads' connections could
    # not see its rows: the images are then made one after another in this thread.
    workers = 1 if connection.in_atomic_block else min(len(missing), django_settings.INKWELL_AI.get("MAX_CONCURRENCY", 8))
    failures: list[Exception] = []
    done = len(images) - len(missing)
    if workers == 1:
        for image in missing:
            done = _record_outcome(ctx, *_outcome(make, image), usages, failures, done, len(images))
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"job-{ctx.job.pk}-image") as pool:
            futures = {pool.submit(make, image): image for image in missing}
            try:
                for future in as_completed(futures):
                    error = future.exception()
                    done = _record_outcome(ctx, futures[future], None if error else future.result(), error, usages, failures, done, len(images))
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
    if failures:
        raise failures[0]
    return usages


def _outcome(make, image: Image):
    try:
        return image, make(image), None
    except Exception as error:  # noqa: BLE001 (raised once every image was tried)
        return image, None, error


def _record_outcome(ctx: JobContext, image: Image, result, error, usages: list, failures: list, done: int, total: int) -> int:
    if error is not None:
        failures.append(error)
        return done
    _keep(ctx, image, result.value)
    usages.append(result.usage)
    ctx.progress(10 + 85 * (done + 1) // total, f"Generated image {done + 1} of {total}")
    return done + 1


def _generation_failed(job: Job) -> None:
    """Nothing half-made stays: images with a prompt become ``failed``, those without are removed,
    and every file the job wrote is deleted. The failure is notified (a cancellation is not)."""
    image_ids = job.params.get("image_ids", [])
    rows = Image.objects.for_account(job.account_id).filter(pk__in=image_ids)
    images = list(rows)
    without_prompt = [image.pk for image in images if image.status == ImageStatus.PENDING and not image.prompt]
    with transaction.atomic():
        rows.filter(pk__in=without_prompt).delete()
        # The images kept as they arrived were never charged: a failed job leaves none of them.
        rows.filter(status=ImageStatus.PENDING).exclude(pk__in=without_prompt).update(
            status=ImageStatus.FAILED, file="", width=0, height=0, mime_type="", updated_at=timezone.now()
        )
    _delete_job_files(job, image_ids, keep={image.file.name for image in images if image.file.name and image.status != ImageStatus.PENDING})
    if job.status != JobStatus.FAILED:
        return
    reason = (job.error or {}).get("message", "")
    content_id = job.params.get("content_id")
    if without_prompt:
        events.image_prompts_failed(account=job.account, site=job.site, content_id=content_id, images=len(without_prompt), reason=reason)
    if job.params.get("phase") == Phase.PROMPTS:
        return
    events.images_failed(account=job.account, site=job.site, content_id=content_id, images=len(image_ids), reason=reason)


@job_kind(name=GENERATE_IMAGES, on_failure=_generation_failed)
def generate_images(ctx: JobContext) -> dict:
    images = _job_images(ctx.job)
    if not images:
        raise JobFailed("The content was deleted before its images were generated", code="not_found")
    phase = ctx.params.get("phase", Phase.ALL)
    pending = [image for image in images if image.status == ImageStatus.PENDING]
    if phase == Phase.IMAGES:
        pending = [image for image in pending if image.prompt]
    unprompted = [image for image in pending if not image.prompt]
    if not pending or (phase == Phase.PROMPTS and not unprompted):
        # An earlier attempt saved everything and stopped before it could report it.
        return _generation_result(images[0].content_id, images, 0)
    account, content = ctx.job.account, pending[0].content
    config = image_settings(account)
    client = ai_client(account, live=False if ctx.params.get("use_testing") else None, site=content.site)

    if unprompted:
        ctx.progress(5, "Writing image prompts")
        extraction = client.extract_image_prompts(article_of(content), count=len(pending), style=config["style"])
        pending, _ = _save_prompts(ctx, pending, extraction.value, extraction.usage)
        if phase == Phase.PROMPTS:
            return _generation_result(content.pk, pending, job_credits(ctx.job))

    usages = _make_images(ctx, client, pending, config)
    ctx.progress(95, "Saving images")
    saved = _save_images(ctx, pending, usages)
    # What the job reports is what it was charged: its prompt step as well as its images.
    return {**saved, "credits_used": job_credits(ctx.job)}


def _regeneration_result(image: Image, credits: int) -> dict:
    return {"image_id": image.pk, "content_id": image.content_id, "count": 1, "credits_used": credits}


def _regeneration_failed(job: Job) -> None:
    """The image keeps its file and state; the file the job wrote is deleted. Notified unless cancelled."""
    image_id = job.params["image_id"]
    current = Image.objects.for_account(job.account_id).filter(pk=image_id).values_list("file", flat=True).first()
    _delete_job_files(job, [image_id], keep={current} if current else set())
    if job.status != JobStatus.FAILED:
        return
    events.image_not_regenerated(
        account=job.account, site=job.site, content_id=job.params.get("content_id"), image_id=image_id, reason=(job.error or {}).get("message", "")
    )


@job_kind(name=REGENERATE_IMAGE, on_failure=_regeneration_failed)
def regenerate_image(ctx: JobContext) -> dict:
    job = ctx.job
    rows = Image.objects.for_account(job.account_id)
    image = rows.select_related("content", "site").filter(pk=job.params["image_id"]).first()
    if image is None:
        raise JobFailed("The image was deleted before it could be regenerated", code="not_found")
    if image.file.name in _file_names(job.pk, image):
        # An earlier attempt saved the new file and stopped before it could report it.
        return _regeneration_result(image, 0)
    config = image_settings(job.account)
    ctx.progress(10, "Generating the image")
    result = ai_client(job.account, site=image.site).generate_image(job.params["prompt"], size=config["size"], style=config["style"])
    _store(job, image, result.value)
    ctx.progress(95, "Saving the image")
    new_name, storage = image.file.name, image.file.storage
    with transaction.atomic():
        # Locked, so that of two regenerations of one image each deletes the file it replaced.
        current = rows.select_for_update().filter(pk=image.pk).values_list("file", flat=True).first()
        if current is not None:
            rows.filter(pk=image.pk).update(
                file=new_name,
                prompt=job.params["prompt"],
                width=image.width,
                height=image.height,
                mime_type=image.mime_type,
                status=ImageStatus.GENERATED,
                updated_at=timezone.now(),
            )
            credits = settle_job(job=job, operation_type=IMAGE_GENERATION, amount=cost_of(operation_type=IMAGE_GENERATION, units=1), usage=result.usage)
            events.image_regenerated(
                account=job.account, site=image.site, content_id=image.content_id, content_title=image.content.title, credits=credits
            )
            if current and current != new_name:
                transaction.on_commit(lambda: storage.delete(current))
    if current is None:
        storage.delete(new_name)
        raise JobFailed("The image was deleted while it was being regenerated", code="not_found")
    return _regeneration_result(image, credits)
