"""Log lines: each request's response line with its request id and account, the job or run a
line concerns, and the JSON-lines format."""

import json
import logging
import sys

import pytest

from inkwell.api.logging import JsonFormatter, RequestIdFilter, bind
from inkwell.jobs.models import Job
from inkwell.jobs.services import execute

pytestmark = pytest.mark.django_db


@pytest.fixture
def log_lines(caplog):
    """The records as the console handler stamps them (the project's filter on the capture handler)."""
    caplog.handler.addFilter(RequestIdFilter())
    caplog.set_level(logging.INFO)
    return caplog


def test_each_request_has_a_response_line_with_its_request_id_route_status_and_account(tenant, as_user, log_lines):
    response = as_user(tenant.owner).get("/api/v1/billing/balance/")

    [line] = [record for record in log_lines.records if record.name == "inkwell.request"]
    assert line.request_id == response["X-Request-ID"]
    assert (line.event, line.method, line.route, line.status) == ("response", "GET", "billing-balance", 200)
    assert line.account_id == tenant.account.pk
    assert line.duration_ms >= 0


def test_an_anonymous_request_has_a_response_line_without_an_account(client, log_lines):
    response = client.get("/api/v1/billing/balance/")

    [line] = [record for record in log_lines.records if record.name == "inkwell.request"]
    assert (line.request_id, line.status, line.account_id) == (response["X-Request-ID"], 401, None)


def test_lines_written_while_a_job_runs_carry_its_job_and_account(tenant, log_lines):
    # A kind no handler is registered for: the engine logs an error while it runs the job.
    job = Job.objects.create(account=tenant.account, kind="test.no-such-kind")
    execute(job_id=job.pk, heartbeat=False)
    logging.getLogger("inkwell.jobs").info("after the job")

    [inside] = [record for record in log_lines.records if "no handler is registered" in record.getMessage()]
    [after] = [record for record in log_lines.records if record.getMessage() == "after the job"]
    assert (inside.job_id, inside.account_id) == (job.pk, tenant.account.pk)
    assert (after.job_id, after.account_id) == (None, None)


def test_the_json_format_is_one_object_per_line_with_the_ids_and_no_traceback():
    formatter, stamp = JsonFormatter(), RequestIdFilter()
    try:
        raise ValueError("secret detail in an exception")
    except ValueError:
        record = logging.LogRecord("inkwell.jobs", logging.ERROR, __file__, 1, "job %s failed", (7,), exc_info=sys.exc_info())
    with bind(account_id=3, job_id=7, run_id=11):
        stamp.filter(record)
    text = formatter.format(record)

    assert "\n" not in text
    line = json.loads(text)
    assert line["message"] == "job 7 failed" and line["level"] == "ERROR" and line["logger"] == "inkwell.jobs"
    assert (line["request_id"], line["account_id"], line["job_id"], line["run_id"]) == ("-", 3, 7, 11)
    assert line["error_type"] == "ValueError" and line["error_at"].startswith("test_logging.py:")
    assert "secret detail" not in text and "Traceback" not in text


def test_extra_fields_of_a_line_are_kept_in_json():
    record = logging.LogRecord("inkwell.request", logging.INFO, __file__, 1, "GET x 200", (), None)
    record.status, record.route = 200, "healthz"
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert (line["status"], line["route"]) == (200, "healthz")
    assert "account_id" not in line
