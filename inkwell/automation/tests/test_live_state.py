"""``run_live_state``: what a run's live part shows, for the caller's own runs only."""

import pytest

from inkwell.automation.models import RunStatus, StageStatus
from inkwell.automation.selectors import run_live_state
from inkwell.automation.tests.factories import make_log, make_run, make_stage

pytestmark = pytest.mark.django_db


def test_the_state_has_a_row_per_stage_in_stage_order_with_the_newest_log_line(tenant):
    run = make_run(tenant, status=RunStatus.RUNNING)
    make_stage(run, 2, status=StageStatus.RUNNING)
    make_stage(run, 1)
    newest = make_log(run)
    state = run_live_state(account_id=tenant.account.pk, site_ids=None, run_id=run.pk)
    assert [row[8] for row in state] == [1, 2]
    assert {row[-1] for row in state} == {newest.pk}


def test_a_run_before_its_first_stage_has_one_row(tenant):
    run = make_run(tenant, status=RunStatus.QUEUED)
    assert len(run_live_state(account_id=tenant.account.pk, site_ids=None, run_id=run.pk)) == 1


def test_another_accounts_run_or_a_site_not_granted_has_no_state(tenant, other_tenant):
    run = make_run(tenant, status=RunStatus.RUNNING)
    assert run_live_state(account_id=other_tenant.account.pk, site_ids=None, run_id=run.pk) is None
    assert run_live_state(account_id=tenant.account.pk, site_ids=frozenset(), run_id=run.pk) is None
