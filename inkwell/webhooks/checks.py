"""System checks of the outbound webhook settings."""

from django.conf import settings
from django.core.checks import Error, register

STALE_TOO_SHORT = "webhooks.E001"


@register()
def stale_claims_outlast_a_living_send(app_configs=None, **kwargs) -> list[Error]:
    """The sweep takes a claim for lost after WEBHOOK_STALE_SECONDS. A living send ends within
    WEBHOOK_TIMEOUT_SECONDS, but on a loaded machine the claim also waits for the database and the
    connection around it: a stale window shorter than twice the timeout would send a slow message
    twice."""
    options = settings.INKWELL_WEBHOOKS
    if options["STALE_SECONDS"] > 2 * options["TIMEOUT_SECONDS"]:
        return []
    return [
        Error(
            f"WEBHOOK_STALE_SECONDS ({options['STALE_SECONDS']}) must be more than twice WEBHOOK_TIMEOUT_SECONDS ({options['TIMEOUT_SECONDS']:g})",
            hint="A delivery still being sent would be taken for lost and sent again.",
            id=STALE_TOO_SHORT,
        )
    ]
