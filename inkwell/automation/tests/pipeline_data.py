"""A site ready for automation, for the engine, estimate and control tests: a sector, library
keywords on several topics added to its workflow, credits, and settings that keep a run quick
(zero delays, short articles, one small image per article, budget shares that cut no stage)."""

from django.db.models import Sum

from inkwell.automation.models import AutomationRun
from inkwell.billing import services as billing
from inkwell.billing.models import CreditLedger, CreditUsage
from inkwell.keywords.models import SeedKeyword
from inkwell.planner.models import Keyword
from inkwell.sitesettings.services import unified_settings_update
from inkwell.system import services as system
from inkwell.tenancy.models import IndustrySector, Sector

TOPICS = {
    "running shoes": ["best", "cheap", "trail", "womens", "mens", "wide", "cushioned", "lightweight", "waterproof", "beginner"],
    "espresso machine": ["best", "cheap", "home", "manual", "automatic", "compact", "commercial", "dual boiler", "beginner", "quiet"],
    "dog training": ["puppy", "leash", "crate", "clicker", "potty", "obedience", "agility", "recall", "barking", "online"],
    "solar panels": ["rooftop", "portable", "cost of", "best", "efficiency of", "home", "off grid", "installing", "used", "monocrystalline"],
    "sourdough bread": ["easy", "whole wheat", "rye", "overnight", "starter for", "discard", "sandwich", "no knead", "gluten free", "quick"],
}
SUFFIXES = ["", " review", " guide", " tips", " near me"]


def keyword_texts(count: int) -> list[str]:
    texts = [f"{modifier} {topic}{suffix}".strip() for suffix in SUFFIXES for topic, modifiers in TOPICS.items() for modifier in modifiers]
    if count > len(texts):
        raise ValueError(f"at most {len(texts)} keywords")
    return texts[:count]


def add_keywords(tenant, count: int) -> Sector:
    """``count`` keywords in the workflow of the tenant's site (a new sector of it)."""
    industry_sector = IndustrySector.objects.exclude(pk__in=tenant.site.sectors.values("industry_sector_id")).order_by("id").first()
    sector = Sector.objects.create(account=tenant.account, site=tenant.site, industry_sector=industry_sector, name="Automation sector")
    texts = keyword_texts(count)
    # The library is shared by every account: another tenant's test may have added these already.
    known = set(SeedKeyword.objects.filter(industry_sector=industry_sector, keyword__in=texts).values_list("keyword", flat=True))
    SeedKeyword.objects.bulk_create(
        SeedKeyword(keyword=text, volume=1000 - index, difficulty=index % 101, industry_sector=industry_sector)
        for index, text in enumerate(texts)
        if text not in known
    )
    seeds = SeedKeyword.objects.filter(industry_sector=industry_sector, keyword__in=texts).order_by("-volume", "id")
    Keyword.objects.bulk_create(
        Keyword(account=tenant.account, site=tenant.site, sector=sector, seed_keyword=seed, keyword=seed.keyword, volume=seed.volume, difficulty=seed.difficulty)
        for seed in seeds
    )
    return sector


def quick_settings(tenant, *, article_length: int = 300, images_per_article: int = 1, image_size: str = "256x256") -> None:
    """Short articles and small images: the local provider makes them in milliseconds."""
    system.content_settings_save(
        account=tenant.account, key="content_generation", user=tenant.owner, values={"default_article_length": article_length, "images_per_article": images_per_article}
    )
    system.integration_settings_save(account=tenant.account, integration_type="image_generation", user=tenant.owner, values={"size": image_size})


def automation_settings(site, *, within_stage: int = 0, between_stage: int = 0, stages: dict[int, dict] | None = None, publishing: dict | None = None) -> None:
    """Delays (seconds) and stage settings (``{number: {field: value}}``, stage_configs names).
    Stage 4 writes every task's article unless ``stages`` limits it (the default's three a run
    is for a new account's first run, see ``test_estimate``)."""
    stages = {4: {"max_per_run": 0}} | (stages or {})
    stages[4] = {"max_per_run": 0} | stages[4]
    changes = {
        "automation_config": {"within_stage_delay": within_stage, "between_stage_delay": between_stage},
        "stage_configs": [{"stage": number, **fields} for number, fields in stages.items()],
    }
    if publishing:
        changes["publishing_settings"] = publishing
    unified_settings_update(site=site, changes=changes)


def uncut_shares() -> dict[int, dict]:
    """Budget shares under which no stage is ever cut: stage 1's share is the whole budget, and a
    stage may spend what the stages before it left (``inkwell.automation.engine``)."""
    return {number: {"budget_pct": 100 if number == 1 else 0} for number in range(1, 8)}


def fund(account, credits: int) -> None:
    """The account holds exactly ``credits``."""
    balance = CreditLedger.objects.for_account(account).get().balance
    if credits > balance:
        billing.grant(account=account, amount=credits - balance, description="test funds")
    elif credits < balance:
        billing.spend(account=account, operation_type="linking", amount=balance - credits, description="test drain")


def credits_charged_since(account, usage_id: int) -> int:
    return CreditUsage.objects.for_account(account).filter(pk__gt=usage_id).aggregate(total=Sum("credits_used"))["total"] or 0


def charged_by_jobs(account) -> int:
    """Every credit a job charged (``fund`` charges nothing to a job)."""
    return CreditUsage.objects.for_account(account).filter(job__isnull=False).aggregate(total=Sum("credits_used"))["total"] or 0


def last_usage_id(account) -> int:
    return CreditUsage.objects.for_account(account).order_by("-id").values_list("id", flat=True).first() or 0


def run_of(account, run_id: int) -> AutomationRun:
    return AutomationRun.objects.for_account(account).get(pk=run_id)
