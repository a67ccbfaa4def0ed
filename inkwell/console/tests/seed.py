"""A site full of planner, writer, publishing, automation and credit rows, for the console's query
budgets and its benchmark (bench/console_pages.py): ``rows`` of every list behind a console page, made in bulk."""

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from inkwell.automation.models import AutomationLog, AutomationRun, AutomationStageRun, RunStatus, StageStatus
from inkwell.billing.models import CreditTransaction, CreditUsage, OperationType, TransactionType
from inkwell.console.tests.seed_team import account_pages, seed_team
from inkwell.integration.models import ConnectionStatus, SiteIntegration, SyncRun, SyncStatus
from inkwell.jobs.models import Job, JobStatus
from inkwell.keywords.models import SeedKeyword
from inkwell.keywords.stats import refresh_library_stats
from inkwell.notifications.models import Notification
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.publishing.models import PublishingRecord, PublishStatus, PublishTrigger
from inkwell.tenancy.models import IndustrySector, Sector, Site, User
from inkwell.writer.models import (
    Brief,
    CommentMention,
    Content,
    ContentApproval,
    ContentComment,
    ContentRefresh,
    ContentRevision,
    ContentStatus,
    Image,
    ImageStatus,
    ReviewDecision,
    ReviewStep,
    SiteStatus,
    Task,
)
from inkwell.writer.services import review_link_create

BODY = "<h2>Why it matters</h2><p>{title} helps a team decide faster. Compare the options side by side.</p>" * 6


@dataclass(frozen=True)
class SeededSite:
    site: Site
    sector: Sector
    cluster: Cluster
    content: Content
    image: Image
    job: Job
    run: AutomationRun
    integration: SiteIntegration
    refresh: ContentRefresh
    task: Task


def seed_site(site: Site, owner: User, rows: int, *, industry_sector: IndustrySector | None = None) -> SeededSite:
    account = site.account
    industry_sector = industry_sector or IndustrySector.objects.exclude(pk__in=site.sectors.values("industry_sector_id")).order_by("id").first()
    sector = Sector.objects.create(account=account, site=site, industry_sector=industry_sector, name=industry_sector.name)
    seeds = SeedKeyword.objects.bulk_create(
        (
            SeedKeyword(keyword=f"seeded keyword {site.pk}-{n}", volume=10 * n + 10, difficulty=n % 101, country="US", industry_sector=industry_sector)
            for n in range(rows)
        ),
        batch_size=500,
    )
    refresh_library_stats([industry_sector.pk])
    clusters = Cluster.objects.bulk_create(Cluster(account=account, site=site, sector=sector, name=f"Cluster {n}") for n in range(rows))
    Keyword.objects.bulk_create(
        (
            Keyword(account=account, site=site, sector=sector, seed_keyword=seed, cluster=clusters[n % len(clusters)], keyword=seed.keyword, volume=seed.volume, difficulty=seed.difficulty)
            for n, seed in enumerate(seeds)
        ),
        batch_size=500,
    )
    ideas = ContentIdea.objects.bulk_create(
        (ContentIdea(account=account, site=site, sector=sector, cluster=clusters[n % len(clusters)], title=f"Idea {n}") for n in range(rows)), batch_size=500
    )
    tasks = Task.objects.bulk_create((Task(account=account, site=site, sector=sector, idea=ideas[n], title=f"Task {n}") for n in range(rows)), batch_size=500)
    # Every task has its brief, half of them approved (the queue shows each one's state).
    Brief.objects.bulk_create(
        (Brief(account=account, site=site, task=task, title=task.title, status="approved" if n % 2 else "ready", approved_by=owner if n % 2 else None) for n, task in enumerate(tasks)),
        batch_size=500,
    )
    contents = Content.objects.bulk_create(
        (Content(account=account, site=site, sector=sector, title=f"Article {n}", html=BODY.format(title=f"Article {n}"), word_count=120) for n in range(rows)),
        batch_size=500,
    )
    content = contents[0]
    ContentRevision.objects.bulk_create(
        (ContentRevision(account=account, content=content, title=f"Article 0 v{n}", html=BODY.format(title=f"v{n}"), status="draft", created_by=owner) for n in range(rows)),
        batch_size=500,
    )
    # Review together (#36): threads with replies and mentions, decisions and review links on the first article.
    threads = ContentComment.objects.bulk_create(
        ContentComment(account=account, content=content, body=f"Comment {n}", author=owner, author_name=owner.email, anchor_quote="Article" if n % 2 else "") for n in range(rows)
    )
    ContentComment.objects.bulk_create(
        ContentComment(account=account, content=content, parent=thread, body="Reply", author_name="Client") for thread in threads
    )
    CommentMention.objects.bulk_create(CommentMention(account=account, comment=thread, user=owner, notified_in_app=True) for thread in threads)
    ContentApproval.objects.bulk_create(
        ContentApproval(account=account, content=content, step=ReviewStep.CLIENT, decision=ReviewDecision.APPROVED, reviewer_name=f"Client {n}") for n in range(rows)
    )
    for _ in range(min(rows, 20)):
        review_link_create(account=account, content=content, user=owner)
    images = Image.objects.bulk_create(
        Image(account=account, site=site, content=content, position=n, prompt=f"Prompt {n}", alt_text=f"Image {n}", status=ImageStatus.GENERATED, width=1024, height=1024)
        for n in range(3)
    )
    Notification.objects.bulk_create(
        (Notification(account=account, notification_type="system_info", title=f"Notice {n}", message="Seeded") for n in range(rows)), batch_size=500
    )
    job = Job.objects.create(account=account, site=site, created_by=owner, kind="planner.auto_cluster", status=JobStatus.RUNNING, progress=40)
    run = seed_automation(site, owner, rows)
    seed_credits(account, rows)
    seed_team(site, owner, rows)
    integration = seed_publishing(site, contents)
    refresh = ContentRefresh.objects.create(account=account, site=site, content=content, title=content.title, html=content.html, reason="Striking distance", created_by=owner)
    return SeededSite(site=site, sector=sector, cluster=clusters[0], content=content, image=images[0], job=job, run=run, integration=integration, refresh=refresh, task=tasks[1])


def seed_automation(site: Site, owner: User, rows: int) -> AutomationRun:
    """``rows`` finished runs of the site, the newest running in stage 4 with its seven stages and
    ``rows`` log lines."""
    account = site.account
    AutomationRun.objects.bulk_create(
        (AutomationRun(account=account, site=site, created_by=owner, status=RunStatus.COMPLETED, current_stage=7, items_processed=n, credits_used=n, completed_at=timezone.now()) for n in range(rows)),
        batch_size=500,
    )
    run = AutomationRun.objects.create(account=account, site=site, created_by=owner, status=RunStatus.RUNNING, current_stage=4, budget=500, current_item={"item_type": "task", "item_id": 1, "label": "Task 1", "done": 2, "total": 5})
    AutomationStageRun.objects.bulk_create(
        AutomationStageRun(account=account, run=run, stage=number, status=StageStatus.COMPLETED if number < 4 else StageStatus.PENDING, processed=rows if number < 4 else 0, credits_used=number)
        for number in range(1, 8)
    )
    AutomationLog.objects.bulk_create(
        (AutomationLog(account=account, run=run, site=site, stage=1 + n % 4, event="item_processed", message=f"Processed item {n}") for n in range(rows)), batch_size=500
    )
    return run


def seed_credits(account, rows: int) -> None:
    """``rows`` charges spread over the last 30 days, and a transaction for each."""
    operations = [OperationType.CLUSTERING, OperationType.IDEA_GENERATION, OperationType.CONTENT_GENERATION, OperationType.IMAGE_GENERATION]
    usages = CreditUsage.objects.bulk_create(
        (CreditUsage(account=account, operation_type=operations[n % len(operations)], credits_used=1 + n % 5, prompt_tokens=100, completion_tokens=200) for n in range(rows)),
        batch_size=500,
    )
    now = timezone.now()
    for n, usage in enumerate(usages):
        usage.created_at = now - timedelta(days=n % 30, minutes=n)
    CreditUsage.objects.for_account(account).bulk_update(usages, ["created_at"], batch_size=500)
    CreditTransaction.objects.bulk_create(
        (CreditTransaction(account=account, transaction_type=TransactionType.USAGE, amount=-usage.credits_used, balance_after=10_000, usage=usage, description="Seeded charge") for usage in usages),
        batch_size=500,
    )


def seed_publishing(site: Site, contents: list[Content]) -> SiteIntegration:
    """The site's WordPress with ``len(contents)`` sync runs, and its articles on this month's
    calendar: a third scheduled, a third published, a third failed, each with its attempt."""
    account, now = site.account, timezone.now()
    integration = SiteIntegration.objects.create(
        account=account, site=site, base_url="https://blog.example.com", username="editor", app_password="app password", webhook_secret="secret",
        connection_status=ConnectionStatus.CONNECTED, structure={"content_types": [{"slug": "post", "name": "Posts", "rest_base": "posts", "taxonomies": ["category"]}]},
    )
    SyncRun.objects.bulk_create(
        (SyncRun(account=account, integration=integration, status=SyncStatus.FAILED if n % 5 == 0 else SyncStatus.SUCCEEDED, duration_ms=100 + n, error="Timed out" if n % 5 == 0 else "") for n in range(len(contents))),
        batch_size=500,
    )
    records = []
    for n, content in enumerate(contents):
        # Spread over the days around now, so this month's and this week's calendar both show them.
        at = now + timedelta(hours=(n % 240) - 120)
        state = (SiteStatus.SCHEDULED, SiteStatus.PUBLISHED, SiteStatus.FAILED)[n % 3]
        content.status = ContentStatus.PUBLISHED if state == SiteStatus.PUBLISHED else ContentStatus.APPROVED
        content.site_status, content.scheduled_publish_at = state, at
        content.published_at = at if state == SiteStatus.PUBLISHED else None
        content.external_url = f"https://blog.example.com/article-{n}/" if state == SiteStatus.PUBLISHED else ""
        if state != SiteStatus.SCHEDULED:
            failed = state == SiteStatus.FAILED
            records.append(
                PublishingRecord(
                    account=account, site=site, content=content, platform="wordpress", trigger=PublishTrigger.SCHEDULED,
                    status=PublishStatus.FAILED if failed else PublishStatus.SUCCEEDED, error="The CMS refused the post" if failed else "", error_code="cms_rejected" if failed else "",
                )
            )
    Content.objects.for_account(account).bulk_update(contents, ["status", "site_status", "scheduled_publish_at", "published_at", "external_url"], batch_size=500)
    PublishingRecord.objects.bulk_create(records, batch_size=500)
    return integration


def console_pages(seeded: SeededSite) -> dict[str, str]:
    """Every console page that reads, by URL name, at the path it has for the seeded site."""
    site_id = seeded.site.pk
    paths = {
        "site-new": "/app/sites/new/",
        "site-sectors": f"/app/sites/{site_id}/sectors/",
        "library": f"/app/sites/{site_id}/library/",
        "keywords": f"/app/sites/{site_id}/keywords/",
        "clusters": f"/app/sites/{site_id}/clusters/",
        "cluster": f"/app/clusters/{seeded.cluster.pk}/",
        "ideas": f"/app/sites/{site_id}/ideas/",
        "tasks": f"/app/sites/{site_id}/tasks/",
        "content-list": f"/app/sites/{site_id}/content/",
        "content": f"/app/content/{seeded.content.pk}/",
        "revisions": f"/app/content/{seeded.content.pk}/revisions/",
        "content-review": f"/app/content/{seeded.content.pk}/review/",
        "job": f"/app/jobs/{seeded.job.pk}/",
        "automation": f"/app/sites/{site_id}/automation/",
        "automation-runs": f"/app/sites/{site_id}/automation/runs/",
        "automation-run": f"/app/automation/runs/{seeded.run.pk}/",
        "credits": "/app/credits/",
        "credit-balance": "/app/credits/balance/",
        "notifications": "/app/notifications/",
        "bell": "/app/notifications/bell/",
        "notification-preferences": "/app/notifications/preferences/",
        **account_pages(seeded.site),
        "calendar": f"/app/sites/{site_id}/calendar/",
        "cms": f"/app/sites/{site_id}/cms/",
        "performance": f"/app/sites/{site_id}/performance/",
        "refresh": f"/app/refreshes/{seeded.refresh.pk}/",
        "site-voice": f"/app/sites/{site_id}/voice/",
        "brief": f"/app/tasks/{seeded.task.pk}/brief/",
    }
    return paths
