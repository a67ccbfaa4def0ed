"""Every notification the domains raise, one function per occasion, grouped by event: each builds
its event's title, message, severity, action label and URL, and metadata here, from the facts its
caller passes (the domains above know their rows; this module knows how an event reads).

The action URLs are the console's addresses of what the event is about (its pages under
``/app/``), so a notification opened in the console, or read from the API, leads to its subject.
The console's URL names are not importable here (the console is the layer above): the paths are
spelled out, and a test resolves every builder's path to a console page.
"""

from inkwell.api.text import counted, was
from inkwell.notifications.models import Notification, NotificationType, Severity
from inkwell.notifications.services import Delivery, notify, notify_person
from inkwell.tenancy.models import Account, Site, User


CONSOLE = "/app"


def site_page_url(site_id, page: str) -> str:
    """A site's page in the console: ``keywords``, ``clusters``, ``ideas``, ``cms`` ..."""
    return f"{CONSOLE}/sites/{site_id}/{page}/"


def content_url(content_id) -> str:
    """The article's editor in the console."""
    return f"{CONSOLE}/content/{content_id}/"


BALANCE_URL = f"{CONSOLE}/credits/"


# Planner: clustering, ideas, keywords


def clustering_complete(*, account: Account, site: Site | None, site_id, keywords: int, clusters: int, credits: int, job_id: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_CLUSTER_COMPLETE,
        title="",
        message=f"{counted(keywords, 'keyword')} {was(keywords)} grouped into {counted(clusters, 'cluster')}.",
        severity=Severity.SUCCESS,
        action_label="View clusters",
        action_url=site_page_url(site_id, "clusters"),
        metadata={"count": clusters, "credits": credits, "job_id": job_id},
        site=site,
    )


def clustering_failed(*, account: Account, site: Site | None, site_id, keywords: int, reason: str, job_id: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_CLUSTER_FAILED,
        title="",
        message=f"Clustering {counted(keywords, 'keyword')} failed: {reason}. No credits were charged.",
        severity=Severity.ERROR,
        action_label="View keywords",
        action_url=site_page_url(site_id, "keywords"),
        metadata={"count": keywords, "credits": 0, "job_id": job_id},
        site=site,
    )


def ideas_complete(*, account: Account, site: Site | None, site_id, ideas: int, clusters: int, credits: int, job_id: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_IDEAS_COMPLETE,
        title="",
        message=f"{counted(ideas, 'idea')} {was(ideas)} generated from {counted(clusters, 'cluster')}.",
        severity=Severity.SUCCESS,
        action_label="View ideas",
        action_url=site_page_url(site_id, "ideas"),
        metadata={"count": ideas, "credits": credits, "job_id": job_id},
        site=site,
    )


def ideas_failed(*, account: Account, site: Site | None, site_id, clusters: int, reason: str, job_id: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_IDEAS_FAILED,
        title="",
        message=f"Generating ideas for {counted(clusters, 'cluster')} failed: {reason}. No credits were charged.",
        severity=Severity.ERROR,
        action_label="View clusters",
        action_url=site_page_url(site_id, "clusters"),
        metadata={"count": clusters, "credits": 0, "job_id": job_id},
        site=site,
    )


def keywords_imported(*, account: Account, site: Site, sector_id: int, sector_name: str, added: int, credits: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.KEYWORDS_IMPORTED,
        title="",
        message=f"{counted(added, 'keyword')} {was(added)} added to {site.name} ({sector_name})" + (f" for {counted(credits, 'credit')}." if credits else "."),
        severity=Severity.SUCCESS,
        action_label="View keywords",
        action_url=site_page_url(site.pk, "keywords") + f"?sector_id={sector_id}",
        metadata={"count": added, "credits": credits},
        site=site,
    )


# Writer: articles and images


def content_ready_for_review(*, account: Account, site: Site, content_id: int, content_title: str) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CONTENT_READY_REVIEW,
        title="",
        message=f'"{content_title}" is ready for review.',
        action_label="Review",
        action_url=content_url(content_id),
        metadata={"count": 1, "content_id": content_id},
        site=site,
    )


def content_due_for_review(*, account: Account, site: Site, content_id: int, content_title: str, review_by) -> Notification:
    """A live article's review-by date has come (issue #37): raised once per article and date. The
    contract's events (sections 10 and 11) are a closed list, so this is a ``content_ready_review``
    whose metadata says why (``reason``: ``review_due``)."""
    return notify(
        account=account,
        notification_type=NotificationType.CONTENT_READY_REVIEW,
        title="",
        message=f'"{content_title}" is due for review (review by {review_by.isoformat()}).',
        severity=Severity.WARNING,
        action_label="Review",
        action_url=content_url(content_id),
        metadata={"count": 1, "content_id": content_id, "reason": "review_due", "review_by": review_by.isoformat()},
        site=site,
    )


def comment_url(content_id, comment_id) -> str:
    """The comment on the content's review screen in the console."""
    return f"{CONSOLE}/content/{content_id}/review/#comment-{comment_id}"


def mentioned_in_comment(
    *, account: Account, site: Site, user: User, content_id: int, content_title: str, comment_id: int, author_name: str, excerpt: str, origin: str
) -> Delivery:
    """``user`` was @mentioned: in the app and by e-mail, as they chose; both link to the comment.
    ``origin``: the console's scheme and host for the e-mail's link (empty: a path only)."""
    url = comment_url(content_id, comment_id)
    return notify_person(
        account=account,
        user=user,
        notification_type=NotificationType.COMMENT_MENTION,
        email_subject=f'{author_name} mentioned you on "{content_title}"'[:200],
        email_body=f'{author_name} mentioned you in a comment on "{content_title}":\n\n{excerpt}\n\nOpen the comment: {origin}{url}\n',
        title=f"{author_name} mentioned you"[:200],
        message=f'On "{content_title}": {excerpt}',
        action_label="Open the comment",
        action_url=url,
        metadata={"content_id": content_id, "comment_id": comment_id},
        site=site,
    )


def review_decided(*, account: Account, site: Site, content_id: int, content_title: str, reviewer_name: str, decision: str, note: str) -> Notification:
    """Someone decided through a review link: the team hears who and what."""
    approved = decision == "approved"
    said = f' They wrote: "{note}"' if note else ""
    return notify(
        account=account,
        notification_type=NotificationType.REVIEW_DECISION,
        title=f"{reviewer_name} {'approved' if approved else 'requested changes'}"[:200],
        message=f'{reviewer_name} {"approved" if approved else "requested changes to"} "{content_title}" through a review link.{said}',
        severity=Severity.SUCCESS if approved else Severity.WARNING,
        action_label="Review",
        action_url=content_url(content_id),
        metadata={"content_id": content_id, "decision": decision},
        site=site,
    )


def content_written(*, account: Account, site: Site | None, content_id: int, content_title: str, word_count: int, credits: int, task_id) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_CONTENT_COMPLETE,
        title="",
        message=f'"{content_title}" is ready as a draft of {word_count} words.',
        severity=Severity.SUCCESS,
        action_label="Open draft",
        action_url=content_url(content_id),
        metadata={"count": 1, "credits": credits, "content_id": content_id, "task_id": task_id},
        site=site,
    )


def content_not_written(*, account: Account, site: Site | None, task_title: str | None, reason: str, task_id, job_id: int) -> Notification:
    subject = f'for "{task_title}" ' if task_title is not None else ""
    return notify(
        account=account,
        notification_type=NotificationType.AI_CONTENT_FAILED,
        title="",
        message=f"Content {subject}could not be written: {reason}",
        severity=Severity.ERROR,
        metadata={"count": 0, "credits": 0, "task_id": task_id, "job_id": job_id},
        site=site,
    )


def image_prompts_written(*, account: Account, site: Site, content_id: int, content_title: str, prompts: int, credits: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_PROMPTS_COMPLETE,
        title="Image prompts ready",
        message=f"{prompts} image prompt{'s' if prompts != 1 else ''} written for “{content_title}”.",
        severity=Severity.SUCCESS,
        action_label="View images",
        action_url=content_url(content_id),
        metadata={"count": prompts, "credits": credits, "content_id": content_id},
        site=site,
    )


def image_prompts_failed(*, account: Account, site: Site | None, content_id, images: int, reason: str) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_PROMPTS_FAILED,
        title="Image prompts failed",
        message=f"The image prompts could not be written: {reason}",
        severity=Severity.ERROR,
        action_url=content_url(content_id),
        metadata={"count": images, "credits": 0, "content_id": content_id},
        site=site,
    )


def images_generated(*, account: Account, site: Site, content_id: int, content_title: str, images: int, credits: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_IMAGES_COMPLETE,
        title="Images generated",
        message=f"{images} image{'s' if images != 1 else ''} generated for “{content_title}”.",
        severity=Severity.SUCCESS,
        action_label="View images",
        action_url=content_url(content_id),
        metadata={"count": images, "credits": credits, "content_id": content_id},
        site=site,
    )


def images_failed(*, account: Account, site: Site | None, content_id, images: int, reason: str) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_IMAGES_FAILED,
        title="Image generation failed",
        message=f"The images could not be generated: {reason}",
        severity=Severity.ERROR,
        action_url=content_url(content_id),
        metadata={"count": images, "credits": 0, "content_id": content_id},
        site=site,
    )


def image_regenerated(*, account: Account, site: Site, content_id: int, content_title: str, credits: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_IMAGES_COMPLETE,
        title="Image regenerated",
        message=f"A new image was generated for “{content_title}”.",
        severity=Severity.SUCCESS,
        action_label="View images",
        action_url=content_url(content_id),
        metadata={"count": 1, "credits": credits, "content_id": content_id},
        site=site,
    )


def image_not_regenerated(*, account: Account, site: Site | None, content_id, image_id: int, reason: str) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.AI_IMAGES_FAILED,
        title="Image regeneration failed",
        message=f"The image could not be regenerated: {reason}",
        severity=Severity.ERROR,
        action_url=content_url(content_id),
        metadata={"count": 1, "credits": 0, "content_id": content_id, "image_id": image_id},
        site=site,
    )


# Publishing


def content_published(*, account: Account, site: Site, content_id: int, content_title: str, where: str, external_id: str, url: str, record_id: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CONTENT_PUBLISHED,
        title="",
        message=f'"{content_title}" was {where} {site.name}.',
        severity=Severity.SUCCESS,
        action_label="View",
        action_url=content_url(content_id),
        metadata={"content_id": content_id, "external_id": external_id, "url": url, "record_id": record_id},
        site=site,
    )


def _content_publish_failed(*, account: Account, site: Site, content_id: int, message: str, severity: str, metadata: dict) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CONTENT_PUBLISH_FAILED,
        title="",
        message=message,
        severity=severity,
        action_label="Open",
        action_url=content_url(content_id),
        metadata={"content_id": content_id, **metadata},
        site=site,
    )


def content_not_published(*, account: Account, site: Site, content_id: int, content_title: str, attempts: int, reason: str, error_code: str, record_id: int) -> Notification:
    after = f" after {attempts} attempts" if attempts > 1 else ""
    return _content_publish_failed(
        account=account,
        site=site,
        content_id=content_id,
        message=f'"{content_title}" could not be published{after}: {reason}',
        severity=Severity.ERROR,
        metadata={"error_code": error_code, "record_id": record_id},
    )


def scheduled_content_not_approved(*, account: Account, site: Site, content_id: int, content_title: str, status: str) -> Notification:
    return _content_publish_failed(
        account=account,
        site=site,
        content_id=content_id,
        message=f'"{content_title}" was not published at its scheduled time: it is {status}, not approved. '
        "It was taken off the schedule; approve it and schedule it again.",
        severity=Severity.WARNING,
        metadata={"error_code": "not_approved"},
    )


def approved_content_not_scheduled(*, account: Account, site: Site, content_id: int, content_title: str, reason: str) -> Notification:
    return _content_publish_failed(
        account=account,
        site=site,
        content_id=content_id,
        message=f'"{content_title}" was approved but not scheduled: {reason}.',
        severity=Severity.WARNING,
        metadata={},
    )


# Integration


def cms_synced(*, account: Account, site: Site, integration_id: int, summary: str, checked: int, sync_run_id: int, job_id: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CMS_SYNC_SUCCESS,
        title="",
        message=f'"{site.name}" is in sync with its CMS: {summary}.',
        severity=Severity.SUCCESS,
        action_label="Open integration",
        action_url=site_page_url(site.pk, "cms"),
        metadata={"count": checked, "integration_id": integration_id, "sync_run_id": sync_run_id, "job_id": job_id},
        site=site,
    )


def cms_sync_failed(
    *, account: Account, site: Site | None, site_name: str, integration_id: int | None, reason: str, sync_run_id: int | None, job_id: int, requested_integration_id
) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CMS_SYNC_FAILED,
        title="",
        message=f'The sync of "{site_name}" with its CMS failed: {reason}',
        severity=Severity.ERROR,
        action_label="Open integration" if site else "",
        action_url=site_page_url(site.pk, "cms") if site else "",
        metadata={"count": 0, "integration_id": requested_integration_id, "sync_run_id": sync_run_id, "job_id": job_id},
        site=site,
    )


def webhook_endpoint_disabled(*, account: Account, endpoint_id: int, url: str, days: int, last_failure: str) -> Notification:
    """An outbound webhook endpoint whose deliveries failed for ``days`` days was switched off."""
    return notify(
        account=account,
        notification_type=NotificationType.WEBHOOK_ENDPOINT_DISABLED,
        title="",
        message=f"The webhook endpoint {url} was switched off: its deliveries have failed for {counted(days, 'day')} ({last_failure}). "
        "Fix the receiver, switch the endpoint on again and redeliver what failed.",
        severity=Severity.ERROR,
        action_label="Open webhook",
        action_url=f"{CONSOLE}/settings/webhooks/{endpoint_id}/",
        metadata={"endpoint_id": endpoint_id},
    )


def site_set_up(*, account: Account, site: Site) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.SITE_SETUP_COMPLETE,
        title="",
        message=f'"{site.name}" is set up: it has a sector and a working CMS connection.',
        severity=Severity.SUCCESS,
        action_label="Pick keywords",
        action_url=site_page_url(site.pk, "library"),
        metadata={"count": 1, "site_id": site.pk},
        site=site,
    )


# Credits


def credits_depleted(*, account: Account) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CREDITS_DEPLETED,
        title="You are out of credits",
        message="Your credit balance reached 0. AI operations are paused until credits are added or your plan renews.",
        severity=Severity.ERROR,
        action_label="View balance",
        action_url=BALANCE_URL,
        metadata={"credits": 0},
    )


def credits_low(*, account: Account, balance: int, percent, monthly_credits: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CREDITS_LOW,
        title="Credits are running low",
        message=f"{counted(balance, 'credit')} left, less than {percent}% of your plan's {counted(monthly_credits, 'monthly credit')}.",
        severity=Severity.WARNING,
        action_label="View balance",
        action_url=BALANCE_URL,
        metadata={"credits": balance},
    )


def scheduled_run_short_of_credits(*, account: Account, site: Site, estimated_credits: int, balance: int) -> Notification:
    return notify(
        account=account,
        notification_type=NotificationType.CREDITS_LOW,
        title="Scheduled automation run skipped",
        message=(
            f"The scheduled automation run of {site.name} did not start: it needs an estimated "
            f"{estimated_credits} credits and the balance is {balance}."
        ),
        severity=Severity.WARNING,
        action_label="View balance",
        action_url=BALANCE_URL,
        metadata={"credits": estimated_credits},
        site=site,
    )


# Automation


def automation_run_ended(
    *, account: Account, site: Site, event: str, severity: str, run_id: int, status: str, outcome: str, items: int, credits: int, failed: int = 0
) -> Notification:
    return notify(
        account=account,
        notification_type=event,
        title="Automation run ended",
        message=f"{outcome}. {counted(items, 'item')} {was(items)} processed for {counted(credits, 'credit')}.",
        severity=severity,
        action_label="View run",
        action_url=f"{CONSOLE}/automation/runs/{run_id}/",
        # ``failed``: the items the run left failed (contract section 12: the failure count in metadata).
        metadata={"count": items, "credits": credits, "run_id": run_id, "status": status, "failed": failed},
        site=site,
    )
