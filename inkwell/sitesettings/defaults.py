"""The one definition of a site's default settings (spec: Default settings; Publishing and
automation defaults).

``DEFAULT_SETTINGS`` is what ``GET /integration/settings/defaults/`` returns, word for word; a
site without saved settings, and a site after a reset, uses exactly these values
(``inkwell.sitesettings.selectors``). ``UNIFIED_ONLY_DEFAULTS`` holds the defaults of the fields
the unified settings have and the defaults endpoint does not show.

Stages: 1 keywords → clusters, 2 clusters → ideas, 3 ideas → tasks,
4 tasks → content, 5 content → image prompts, 6 image prompts → images, 7 review gate. A
``per_run_limit`` of 0 means no limit; ``budget_pct`` is the stage's share of a run's credit
budget (the seven add up to at most 100; the defaults use all of it). Delays are seconds.

The defaults of stages 3 to 7 (the spec fixes only stages 1 and 2) are sized so that a new account
on the free plan completes a run on its sign-up credits: three articles a run (stage 4's
``per_run_limit``). Stage 4's share brings the total to 100, so from stage 4 on every stage may
spend what the stages before it left: the split never cuts the articles, their prompts or their
images short, only clustering and ideas beyond their 15 and 10 percent.

Automation's frequencies (issue 7) are its own: ``hourly`` runs every hour of the scheduled days
at the minute of the scheduled time, ``daily`` every scheduled day, ``weekly`` the first
scheduled day of each week and ``monthly`` the first scheduled day of each month. The content
setting ``schedule_frequency`` (``inkwell.system.defaults.SCHEDULE_FREQUENCIES``) is unrelated.
"""

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
STAGE_NUMBERS = tuple(range(1, 8))
AUTOMATION_FREQUENCIES = ("hourly", "daily", "weekly", "monthly")
MAX_TOTAL_BUDGET_PCT = 100

DEFAULT_SETTINGS = {
    "automation": {"enabled": False, "frequency": "daily", "time": "02:00"},
    "stages": [
        {"number": 1, "enabled": True, "batch_size": 50, "per_run_limit": 0, "use_testing": False, "budget_pct": 15},
        {"number": 2, "enabled": True, "batch_size": 1, "per_run_limit": 0, "use_testing": False, "budget_pct": 10},
        {"number": 3, "enabled": True, "batch_size": 20, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
        {"number": 4, "enabled": True, "batch_size": 1, "per_run_limit": 3, "use_testing": False, "budget_pct": 75},
        {"number": 5, "enabled": True, "batch_size": 1, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
        {"number": 6, "enabled": True, "batch_size": 4, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
        {"number": 7, "enabled": True, "batch_size": 10, "per_run_limit": 0, "use_testing": False, "budget_pct": 0},
    ],
    "delays": {"within_stage": 3, "between_stage": 5},
    "publishing": {
        "auto_approval_enabled": False,
        "auto_publish_enabled": False,
        "daily_publish_limit": 3,
        "weekly_publish_limit": 15,
        "monthly_publish_limit": 50,
        "publish_days": ["mon", "tue", "wed", "thu", "fri"],
        "time_slots": ["09:00", "14:00", "18:00"],
    },
    "images": {"style": "photorealistic", "max_images": 4},
}

UNIFIED_ONLY_DEFAULTS = {
    # Automation runs every day unless the site narrows it; its stages take only the articles the
    # pipeline wrote unless the site opts into drafts made by hand (issue 30).
    "automation": {"scheduled_days": list(DAYS), "include_manual_drafts": False},
    # 0: a run places every item it made.
    "publishing": {"total_items_per_run": 0},
    # None: the account's own AI provider settings (inkwell.system) apply.
    "ai": {"testing_model_id": None, "live_model_id": None, "image_model_id": None},
    # Search performance (issue #37): an article is due for review this many months after it was
    # published or last reviewed; it is decaying when its clicks fell by at least
    # decay_threshold_pct against the previous period (from at least decay_min_clicks); a query
    # is within striking distance at positions striking_min_position..striking_max_position with
    # at least striking_min_impressions impressions.
    "performance": {
        "review_after_months": 12,
        "decay_threshold_pct": 30,
        "decay_min_clicks": 10,
        "striking_min_position": 8,
        "striking_max_position": 20,
        "striking_min_impressions": 50,
    },
    # The approval rules (#36, docs/content-workflow.md "Review together"): off until a site
    # turns them on, so that a site's workflow does not change under it.
    "review": {"four_eyes": False, "client_approval": False},
}
