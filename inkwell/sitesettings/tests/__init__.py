

def publish_any_time(site) -> None:
    """Publishing rules that let any time through: every day, one slot the whole day, no limits.
    For tests whose subject is not the rules (a schedule outside them is a 409, contract section 12)."""
    from inkwell.sitesettings.services import unified_settings_update

    unified_settings_update(
        site=site,
        changes={
            "publishing_settings": {
                "publish_days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"],
                "publish_time_slots": [{"start": "00:00", "end": "23:59"}],
                "daily_publish_limit": 0,
                "weekly_publish_limit": 0,
                "monthly_publish_limit": 0,
            }
        },
    )
