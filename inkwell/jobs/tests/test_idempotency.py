"""Idempotency-Key on endpoints that start AI work: the same key from the same account answers
the first answer and charges once."""

import threading
from datetime import timedelta
from unittest.mock import ANY

import pytest
from django.db import connection
from django.utils import timezone

from inkwell.api.idempotency import fingerprint
from inkwell.api.models import IdempotencyRecord
from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditReservation
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.jobs.models import Job
from inkwell.jobs.tests.urls_for_tests import START_PATH

pytestmark = [pytest.mark.django_db, pytest.mark.urls("inkwell.jobs.tests.urls_for_tests")]


def _start(client, words=1500, key="key-0001"):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(START_PATH, {"words": words}, format="json", **headers)


def test_starting_work_answers_202_with_the_job_to_follow(tenant, as_user):
    response = _start(as_user(tenant.owner), key=None)
    assert response.status_code == 202
    job = Job.objects.for_account(tenant.account).get()
    assert response.json() == {"success": True, "data": {"job_id": job.pk, "status": "queued"}}
    assert balance_of(tenant.account) == 100
    assert CreditReservation.objects.for_account(tenant.account).get().amount == 15


def test_the_same_key_replays_the_first_answer_and_charges_once(tenant, as_user):
    client = as_user(tenant.owner)
    first = _start(client)
    second = _start(client)
    assert second.status_code == 202
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert Job.objects.for_account(tenant.account).count() == 1
    assert CreditReservation.objects.for_account(tenant.account).count() == 1
    assert_ledger_consistent(tenant.account)


def test_without_a_key_every_request_is_new_work(tenant, as_user):
    client = as_user(tenant.owner)
    _start(client, key=None)
    _start(client, key=None)
    assert Job.objects.for_account(tenant.account).count() == 2


def test_a_key_reused_for_a_different_request_is_a_conflict(tenant, as_user):
    client = as_user(tenant.owner)
    _start(client, words=1500)
    response = _start(client, words=300)
    assert_error(response, 409, "conflict", errors={"Idempotency-Key": ["This Idempotency-Key was already used for a different request"]})
    assert Job.objects.for_account(tenant.account).count() == 1


def test_keys_belong_to_their_account(tenant, other_tenant, as_user):
    _start(as_user(tenant.owner))
    response = _start(as_user(other_tenant.owner))
    assert response.status_code == 202
    assert "Idempotent-Replayed" not in response
    assert Job.objects.for_account(other_tenant.account).count() == 1


def test_a_failed_request_keeps_no_answer_so_the_key_can_be_retried(tenant, as_user):
    client = as_user(tenant.owner)
    refused = _start(client, words=20_000)  # 200 credits: more than the 100 the account has
    assert_error(refused, 402, "insufficient_credits", error="Insufficient credits", errors={"credits": ["Insufficient credits"]})
    assert not IdempotencyRecord.objects.exists()
    invalid = _start(client, words=0, key="key-0002")
    assert_error(invalid, 400, "validation_error", errors={"words": ANY})
    assert _start(client, words=20_000, key="key-0001").status_code == 402
    assert _start(client, words=500, key="key-0001").status_code == 202


@pytest.mark.parametrize("key", ["", "has space", "x" * 256, "naïve"])
def test_a_malformed_key_is_a_400(tenant, as_user, key):
    response = as_user(tenant.owner).post(START_PATH, {"words": 10}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert_error(response, 400, "validation_error", errors={"Idempotency-Key": ["Idempotency-Key must be 1 to 255 printable characters without spaces"]})
    assert not Job.objects.for_account(tenant.account).exists()


def test_a_request_sent_again_while_the_first_runs_is_a_conflict(tenant, as_user):
    IdempotencyRecord.objects.create(
        account_id=tenant.account.pk, key="key-0001", method="POST", path=START_PATH, fingerprint=fingerprint("POST", START_PATH, {"words": 1500})
    )
    response = _start(as_user(tenant.owner))
    assert_error(response, 409, "conflict", errors={"Idempotency-Key": ["A request with this Idempotency-Key is still being processed"]})
    assert not Job.objects.for_account(tenant.account).exists()


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_one_key_start_one_job(tenant, as_user):
    outcomes = []
    barrier = threading.Barrier(8)

    def send():
        try:
            barrier.wait()
            outcomes.append(_start(as_user(tenant.owner)).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Job.objects.for_account(tenant.account).count() == 1
    assert CreditReservation.objects.for_account(tenant.account).count() == 1
    assert set(outcomes) <= {202, 409} and outcomes.count(202) >= 1


def test_a_key_older_than_its_ttl_starts_new_work(tenant, as_user):
    client = as_user(tenant.owner)
    _start(client)
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    response = _start(client)
    assert response.status_code == 202
    assert "Idempotent-Replayed" not in response
    assert Job.objects.for_account(tenant.account).count() == 2
