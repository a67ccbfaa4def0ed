"""A database that is down for a moment (a restart, a failover) answers a 503 envelope with
Retry-After, on DRF views and plain Django views alike: no traceback, no internal detail."""

import pytest
from django.test import Client

from inkwell.api.tests.urls_for_tests import PREFIX, SECRET_CRASH_TEXT

TEST_URLS = "inkwell.api.tests.urls_for_tests"

pytestmark = [pytest.mark.urls(TEST_URLS), pytest.mark.django_db]


@pytest.mark.parametrize("view", ["database-down", "plain-database-down"])
def test_a_database_outage_answers_503_with_the_envelope_and_retry_after(view):
    response = Client(raise_request_exception=False).get(f"{PREFIX}{view}/")

    assert response.status_code == 503
    body = response.json()
    assert body == {"success": False, "error": "Service temporarily unavailable", "code": "service_unavailable", "request_id": response["X-Request-ID"]}
    assert response["Retry-After"] == "5"
    text = response.content.decode()
    assert SECRET_CRASH_TEXT not in text and "Traceback" not in text and "OperationalError" not in text


def test_an_unexpected_error_is_still_a_500():
    assert Client(raise_request_exception=False).get(f"{PREFIX}crash/").status_code == 500
