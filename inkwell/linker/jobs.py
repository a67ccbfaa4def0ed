"""The linker's background work: internal links for many articles of one site (``linker.batch_process``).

Each article is linked and saved in its own transaction, so the job's progress is real and a
failure leaves the articles done so far done. A run again after a worker died is harmless: the
linking is idempotent, the articles it reached already get no second link.
"""

from inkwell.jobs.services import JobContext, job_kind
from inkwell.linker.services import BATCH_PROCESS, process_content, site_index
from inkwell.writer.models import Content


@job_kind(name=BATCH_PROCESS)
def batch_process(ctx: JobContext) -> dict:
    job = ctx.job
    account = job.account
    content_ids = ctx.params["content_ids"]
    max_links = ctx.params["max_links"]
    not_found = list(ctx.params.get("not_found", []))
    index = site_index(account=account, site_id=job.site_id)
    contents = {content.pk: content for content in Content.objects.for_account(account).filter(site_id=job.site_id, pk__in=content_ids)}
    results = []
    for number, content_id in enumerate(content_ids):
        content = contents.get(content_id)
        if content is None:
            # Deleted (or moved to another site) after the job started.
            not_found.append(content_id)
            continue
        ctx.progress(100 * number // len(content_ids), f"Linking {content.title}"[:255])
        results.append(process_content(account=account, content=content, user=job.created_by, max_links=max_links, index=index))
    return {
        "processed": len(results),
        "links_added": sum(result["links_added"] for result in results),
        "results": results,
        "not_found": not_found,
    }
