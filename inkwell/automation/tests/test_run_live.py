"""``run_live``: a run's live part as it shows it, for the caller's own runs only."""

import pytest

from inkwell.automation.models import AutomationRun, RunStatus, StageStatus
from inkwell.automation.selectors import LIVE_RUN_FIELDS, LIVE_STAGE_FIELDS, run_live
from inkwell.automation.tests.factories import make_log, make_run, make_stage

pytestmark = pytest.mark.django_db


def test_the_run_and_its_stages_have_the_values_the_orm_gives_with_the_newest_log_line_in_the_state(tenant):
    run = make_run(tenant, status=RunStatus.RUNNING, current_item={"item_id": 3, "label": "garden"}, budget=12)
    make_stage(run, 2, status=StageStatus.RUNNING, processed=4)
    make_stage(run, 1)
    newest = make_log(run)
    live = run_live(account_id=tenant.account.pk, site_ids=None, run_id=run.pk)
    loaded = AutomationRun.objects.for_account(tenant.account).get(pk=run.pk)
    assert [getattr(live.run, name) for name in LIVE_RUN_FIELDS] == [getattr(loaded, name) for name in LIVE_RUN_FIELDS]
    assert live.run.site_id == run.site_id and live.run.current_item == {"item_id": 3, "label": "garden"}
    stages = loaded.stages.order_by("stage")
    assert [[getattr(stage, name) for name in LIVE_STAGE_FIELDS] for stage in live.stages] == [[getattr(stage, name) for name in LIVE_STAGE_FIELDS] for stage in stages]
    assert {row[-1] for row in live.state} == {newest.pk}


def test_a_run_before_its_first_stage_has_no_stages_and_one_row_of_state(tenant):
    live = run_live(account_id=tenant.account.pk, site_ids=None, run_id=make_run(tenant, status=RunStatus.QUEUED).pk)
    assert live.stages == [] and len(live.state) == 1


def test_another_accounts_run_or_a_site_not_granted_is_none(tenant, other_tenant):
    run = make_run(tenant, status=RunStatus.RUNNING)
    assert run_live(account_id=other_tenant.account.pk, site_ids=None, run_id=run.pk) is None
    assert run_live(account_id=tenant.account.pk, site_ids=frozenset(), run_id=run.pk) is None
