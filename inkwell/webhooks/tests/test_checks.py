from django.test import override_settings

from inkwell.webhooks.checks import STALE_TOO_SHORT, stale_claims_outlast_a_living_send


def _with(settings, *, stale: int, timeout: float):
    return override_settings(INKWELL_WEBHOOKS={**settings.INKWELL_WEBHOOKS, "STALE_SECONDS": stale, "TIMEOUT_SECONDS": timeout})


def test_a_stale_window_within_twice_the_timeout_is_a_configuration_error(settings):
    with _with(settings, stale=20, timeout=10):
        (error,) = stale_claims_outlast_a_living_send()
    assert error.id == STALE_TOO_SHORT
    assert error.msg == "WEBHOOK_STALE_SECONDS (20) must be more than twice WEBHOOK_TIMEOUT_SECONDS (10)"


def test_the_default_stale_window_outlasts_a_living_send(settings):
    assert stale_claims_outlast_a_living_send() == []
    with _with(settings, stale=21, timeout=10):
        assert stale_claims_outlast_a_living_send() == []
