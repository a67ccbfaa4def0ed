"""/metrics: who may read it, its format, and that each event is counted where it happens."""

import socket
from datetime import timedelta

import pytest
import requests
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from inkwell.api.exceptions import CMSPublishFailed
from inkwell.automation import services as automation
from inkwell.automation.models import AutomationRun
from inkwell.automation.tests.pipeline_data import add_keywords, automation_settings, fund, quick_settings, uncut_shares
from inkwell.billing import services as billing
from inkwell.jobs.models import Job
from inkwell.jobs.services import execute, start_job, sweep_stale_jobs
from inkwell.observability.metrics import record_job_started
from inkwell.observability.worker import serve_worker_metrics
from inkwell.publishing.services import publish_now
from inkwell.publishing.tests.helpers import connect, ready_content
from tests.job_handlers import ECHO_KIND, FAIL_KIND, SLEEP_KIND

pytestmark = pytest.mark.django_db

TOKEN = "metrics-token-for-tests"
# Every label any Inkwell metric has: none of them can carry an account's data.
ALLOWED_LABELS = {"route", "method", "status", "kind", "reason", "operation", "outcome", "queue"}


@pytest.fixture
def metrics_token(settings):
    settings.METRICS_TOKEN = TOKEN
    return TOKEN


def scrape(client) -> str:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def value(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_metrics_do_not_exist_while_no_token_is_set(client, settings):
    settings.METRICS_TOKEN = ""
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", f"Basic {TOKEN}", "Bearer "])
def test_metrics_are_refused_without_the_token(client, metrics_token, header):
    response = client.get("/metrics", **({"HTTP_AUTHORIZATION": header} if header else {}))
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_required"
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert b"inkwell_" not in response.content


def test_a_request_is_counted_by_its_route_name_never_by_its_path(client, metrics_token, tenant, as_user):
    content_path = f"/api/v1/writer/content/{987654}/"
    before = value("inkwell_http_requests_total", route="writer-content-detail", method="GET", status="404")
    assert as_user(tenant.owner).get(content_path).status_code == 404

    assert value("inkwell_http_requests_total", route="writer-content-detail", method="GET", status="404") == before + 1
    text = scrape(client)
    # Only the labels matter: a sample's value (a start time, a size) may happen to hold the digits.
    labels = [line[line.index("{") : line.rindex("}") + 1] for line in text.splitlines() if "{" in line and not line.startswith("#")]
    assert labels and not any("987654" in label for label in labels)
    assert 'inkwell_http_request_duration_seconds_bucket{le="0.005",method="GET",route="writer-content-detail",status="404"}' in text


def test_no_label_of_any_metric_can_carry_account_data(client, metrics_token, tenant, as_user, eager_jobs):
    with eager_jobs():
        start_job(account=tenant.account, kind=ECHO_KIND, site=tenant.site)
    as_user(tenant.owner).get("/api/v1/billing/balance/")
    families = [family for family in text_string_to_metric_families(scrape(client)) if family.name.startswith("inkwell_")]
    assert families
    labels = {name for family in families for sample in family.samples for name in sample.labels if name != "le"}
    assert labels <= ALLOWED_LABELS
    text = scrape(client)
    assert tenant.owner.email not in text and tenant.site.domain not in text


def test_jobs_are_counted_as_they_start_succeed_and_fail_with_their_durations(tenant, eager_jobs):
    started, succeeded = value("inkwell_jobs_started_total", kind=ECHO_KIND), value("inkwell_jobs_succeeded_total", kind=ECHO_KIND)
    failed = value("inkwell_jobs_failed_total", kind=FAIL_KIND, status="failed")
    durations = value("inkwell_job_duration_seconds_count", kind=ECHO_KIND, status="succeeded")
    with eager_jobs():
        start_job(account=tenant.account, kind=ECHO_KIND)
        start_job(account=tenant.account, kind=FAIL_KIND)

    assert value("inkwell_jobs_started_total", kind=ECHO_KIND) == started + 1
    assert value("inkwell_jobs_succeeded_total", kind=ECHO_KIND) == succeeded + 1
    assert value("inkwell_jobs_failed_total", kind=FAIL_KIND, status="failed") == failed + 1
    assert value("inkwell_job_duration_seconds_count", kind=ECHO_KIND, status="succeeded") == durations + 1


def test_a_job_whose_worker_died_is_counted_as_retried(tenant):
    job = start_job(account=tenant.account, kind=SLEEP_KIND, params={"seconds": 0})
    stale = timezone.now() - timedelta(hours=1)
    Job.objects.for_account(tenant.account).filter(pk=job.pk).update(status="running", attempts=1, started_at=stale, heartbeat_at=stale)
    before = value("inkwell_jobs_retried_total", kind=SLEEP_KIND, reason="worker_lost")

    assert sweep_stale_jobs()["requeued"] == 1

    assert value("inkwell_jobs_retried_total", kind=SLEEP_KIND, reason="worker_lost") == before + 1
    execute(job_id=job.pk, heartbeat=False)
    job.refresh_from_db()
    assert job.status == "succeeded"


def test_credits_are_counted_by_operation_once_the_charge_commits(tenant, django_capture_on_commit_callbacks):
    before = value("inkwell_credits_spent_total", operation="linking")
    with django_capture_on_commit_callbacks(execute=True):
        billing.spend(account=tenant.account, operation_type="linking", amount=3)
    assert value("inkwell_credits_spent_total", operation="linking") == before + 3


def test_a_refused_charge_counts_no_credits(tenant, django_capture_on_commit_callbacks):
    before = value("inkwell_credits_spent_total", operation="linking")
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Exception, match="Insufficient"):
        billing.spend(account=tenant.account, operation_type="linking", amount=10**9)
    assert value("inkwell_credits_spent_total", operation="linking") == before


def test_queued_jobs_are_the_queue_depth_read_at_scrape_time(client, metrics_token, tenant):
    for _ in range(3):
        Job.objects.create(account=tenant.account, kind=ECHO_KIND)
    families = {family.name: family for family in text_string_to_metric_families(scrape(client))}
    queued = [sample.value for sample in families["inkwell_jobs"].samples if sample.labels == {"kind": ECHO_KIND, "status": "queued"}]
    assert queued == [3.0]
    assert "inkwell_queue_depth" in families


def test_publish_attempts_are_counted_by_outcome(tenant, cms_server, settings, django_capture_on_commit_callbacks):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True, "PUBLISH_MAX_ATTEMPTS": 2}
    connect(tenant, cms_server)
    published, retrying = value("inkwell_publish_attempts_total", outcome="published"), value("inkwell_publish_attempts_total", outcome="retrying")
    cms_server.fail_next(1, status=503)
    with django_capture_on_commit_callbacks(execute=True):
        # The refused attempt answers 502 and goes back on the schedule for its retry.
        with pytest.raises(CMSPublishFailed):
            publish_now(content=ready_content(tenant, images=False), user=tenant.owner)
        assert publish_now(content=ready_content(tenant, title="Another", images=False), user=tenant.owner).published

    assert value("inkwell_publish_attempts_total", outcome="retrying") == retrying + 1
    assert value("inkwell_publish_attempts_total", outcome="published") == published + 1


def test_automation_runs_are_counted_as_they_enter_each_status(big_tenant, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = tmp_path / "media"
    add_keywords(big_tenant, 5)
    quick_settings(big_tenant)
    fund(big_tenant.account, 5000)
    automation_settings(big_tenant.site, stages=uncut_shares())
    before = {status: value("inkwell_automation_run_transitions_total", status=status) for status in ("queued", "paused", "cancelled")}
    with django_capture_on_commit_callbacks(execute=True):
        automation.start_run(site=big_tenant.site, user=big_tenant.owner)
        automation.pause_run(site=big_tenant.site)
        automation.cancel_run(site=big_tenant.site)

    assert {status: value("inkwell_automation_run_transitions_total", status=status) - before[status] for status in before} == {"queued": 1, "paused": 1, "cancelled": 1}
    assert AutomationRun.objects.for_account(big_tenant.account).get().status == "cancelled"


def test_a_worker_serves_its_metrics_on_its_own_address():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    record_job_started("test.worker-endpoint")
    server = serve_worker_metrics(f"127.0.0.1:{port}")
    try:
        text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    finally:
        server.shutdown()
        server.server_close()
    assert 'inkwell_jobs_started_total{kind="test.worker-endpoint"}' in text
