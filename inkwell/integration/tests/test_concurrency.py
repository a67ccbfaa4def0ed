"""Races the integration must win (PostgreSQL: real parallel transactions): one effect per
webhook delivery, one sync at a time, one site setup notification."""

import threading

import pytest
from django.db import connection

from inkwell.api.exceptions import StateConflict
from inkwell.integration import services
from inkwell.integration.models import ConnectionStatus, SyncRun, WebhookDelivery
from inkwell.integration.tests.factories import make_integration
from inkwell.jobs import services as jobs
from inkwell.jobs.models import Job
from inkwell.notifications.models import Notification
from inkwell.writer.models import SiteStatus
from inkwell.writer.tests.factories import make_content, make_sector

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]
RACERS = 8


def race(action) -> list:
    """Runs ``action()`` in RACERS threads released at once; what each returned or raised."""
    barrier = threading.Barrier(RACERS)
    outcomes: list = []

    def run() -> None:
        try:
            barrier.wait()
            outcomes.append(action())
        except Exception as exc:  # noqa: BLE001  (the outcome under test)
            outcomes.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_one_delivery_sent_many_times_at_once_has_one_effect(make_tenant):
    tenant = make_tenant("webhook-race")
    integration = make_integration(tenant)
    make_content(tenant, site_status=SiteStatus.PUBLISHED, external_id="42")

    outcomes = race(lambda: services.receive_webhook(integration=integration, signature="f" * 64, event="post.updated", post={"id": "42", "status": "draft"}))

    assert sorted(outcome.get("applied", False) for outcome in outcomes) == [False] * (RACERS - 1) + [True]
    assert sum(outcome == {"duplicate": True} for outcome in outcomes) == RACERS - 1
    assert WebhookDelivery.objects.for_account(tenant.account).count() == 1


def test_syncs_started_at_once_start_one_job(make_tenant, monkeypatch):
    tenant = make_tenant("sync-race")
    integration = make_integration(tenant)
    monkeypatch.setattr(jobs, "enqueue", lambda job_id, countdown=None: None)

    outcomes = race(lambda: services.start_sync(account=tenant.account, integration=integration, user=tenant.owner))

    assert sum(isinstance(outcome, Job) for outcome in outcomes) == 1
    assert sum(isinstance(outcome, StateConflict) for outcome in outcomes) == RACERS - 1
    assert Job.objects.for_account(tenant.account).count() == SyncRun.objects.for_account(tenant.account).count() == 1


def test_a_site_setup_completed_from_many_requests_at_once_is_announced_once(make_tenant):
    tenant = make_tenant("setup-race")
    make_sector(tenant)
    make_integration(tenant, connection_status=ConnectionStatus.CONNECTED)

    outcomes = race(lambda: services.complete_site_setup(account_id=tenant.account.pk, site_id=tenant.site.pk))

    assert sorted(outcomes) == [False] * (RACERS - 1) + [True]
    assert Notification.objects.for_account(tenant.account).filter(notification_type="site_setup_complete").count() == 1
