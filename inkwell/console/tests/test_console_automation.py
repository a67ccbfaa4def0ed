"""The automation screen through the console's pages: the configuration form round-trips what the
automation services accept and shows their errors on the fields, the estimate sits beside the
balance, a refused start (402) says what it needs and what shrinks it, and a run is followed,
paused, resumed and cancelled from its page."""

import json
import re

import pytest

from inkwell.automation import selectors
from inkwell.automation.models import AutomationRun
from inkwell.automation.tests.pipeline_data import add_keywords, automation_settings, fund, quick_settings, uncut_shares
from inkwell.console.views.automation import form_values
from inkwell.jobs.services import execute
from inkwell.sitesettings.selectors import automation_config

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def site(big_tenant):
    add_keywords(big_tenant, 12)
    quick_settings(big_tenant)
    fund(big_tenant.account, 5000)
    automation_settings(big_tenant.site, stages=uncut_shares())
    return big_tenant


def form_post(config: dict) -> dict:
    """What a browser posts for a configuration: the form's values, checkboxes only when checked."""
    post = {}
    for name, value in form_values(config).items():
        if value is True:
            post[name] = "on"
        elif value is False or value is None or name == "next_run_at":
            continue
        else:
            post[name] = value
    return post


def page_of(site) -> str:
    return f"/app/sites/{site.site.pk}/automation/"


def test_the_form_shows_the_saved_configuration_and_posting_it_back_changes_nothing(site, console_client):
    client = console_client(site.owner)
    before = automation_config(site=site.site)
    page = client.get(page_of(site)).content.decode()
    assert f'name="stage_3_batch_size" value="{before["stage_3_batch_size"]}"' in page
    assert 'name="stage_configs.0.budget_pct" value="100"' in page
    response = client.post(page_of(site), form_post(before))
    assert response.status_code == 302 and response.headers["Location"].endswith("?saved=1")
    assert automation_config(site=site.site) == before


def test_a_changed_form_is_saved_as_the_automation_services_store_it(site, console_client):
    client = console_client(site.owner)
    post = form_post(automation_config(site=site.site))
    post.update({"enabled": "on", "frequency": "weekly", "scheduled_days": ["tue", "mon"], "scheduled_time": "06:30", "stage_2_batch_size": "4"})
    post.update({"max_ideas_per_run": "9", "within_stage_delay": "2", "stage_configs.4.use_testing": "on"})
    post.pop("stage_6_enabled")
    assert client.post(page_of(site), post).status_code == 302
    config = automation_config(site=site.site)
    assert (config["enabled"], config["frequency"], config["scheduled_days"], config["scheduled_time"]) == (True, "weekly", ["mon", "tue"], "06:30:00")
    assert (config["stage_2_batch_size"], config["max_ideas_per_run"], config["within_stage_delay"], config["stage_6_enabled"]) == (4, 9, 2, False)
    assert config["stage_configs"][4]["use_testing"] is True and config["next_run_at"] is not None
    page = client.get(page_of(site) + "?saved=1").content.decode()
    assert "The configuration is saved" in page and "Next run:" in page


def test_field_errors_are_shown_beside_their_fields_and_the_values_kept(site, console_client):
    client = console_client(site.owner)
    before = automation_config(site=site.site)
    post = form_post(before) | {"stage_2_batch_size": "0", "max_content_per_run": "lots", "scheduled_days": []}
    response = client.post(page_of(site), post)
    assert response.status_code == 400
    page = response.content.decode()
    for name, message in (("stage_2_batch_size", "greater than or equal to 1"), ("max_content_per_run", "valid integer"), ("scheduled_days", "Choose at least one day")):
        assert re.search(rf'name="{re.escape(name)}".*?{message}', page, re.S), name
    assert 'value="lots"' in page
    assert automation_config(site=site.site) == before


def test_budget_shares_over_100_are_refused_with_the_services_message(site, console_client):
    client = console_client(site.owner)
    post = form_post(automation_config(site=site.site)) | {"stage_configs.1.budget_pct": "30"}
    response = client.post(page_of(site), post)
    assert response.status_code == 422
    assert "The stages&#x27; budget_pct add up to 130; they may add up to at most 100" in response.content.decode()
    assert automation_config(site=site.site)["stage_configs"][1]["budget_pct"] == 0


def test_the_estimate_is_shown_beside_the_balance(site, console_client):
    quote = selectors.estimate(site.site)
    page = console_client(site.owner).get(page_of(site)).content.decode()
    assert f'<strong id="estimate-credits">{quote["estimated_credits"]}</strong>' in page
    assert '<strong id="estimate-balance">5000</strong>' in page
    assert "Run now" in page


def test_a_run_the_balance_cannot_cover_is_refused_with_what_it_needs_and_the_limits_that_shrink_it(site, console_client):
    fund(site.account, 3)
    needed = selectors.estimate(site.site)["estimated_credits"]
    response = console_client(site.owner).post(f"/app/sites/{site.site.pk}/automation/run/")
    assert response.status_code == 402
    page = response.content.decode()
    assert f"This run needs <strong>{needed}</strong> credits; you have <strong>3</strong> available." in page
    assert 'href="#id_max_keywords_per_run"' in page and 'href="#id_max_content_per_run"' in page
    assert not AutomationRun.objects.for_account(site.account).exists()


def test_run_now_opens_the_run_which_is_paused_resumed_and_completed_from_its_page(site, console_client):
    client = console_client(site.owner)
    response = client.post(f"/app/sites/{site.site.pk}/automation/run/")
    run = AutomationRun.objects.for_account(site.account).get()
    assert response.headers["Location"] == f"/app/automation/runs/{run.pk}/"
    page = client.get(f"/app/automation/runs/{run.pk}/").content.decode()
    assert page.count('<th scope="row">') == 7 and "Pause" in page and "Queued" in page

    assert client.post(f"/app/automation/runs/{run.pk}/pause/").status_code == 302
    run.refresh_from_db()
    assert run.status == "paused"
    assert "Resume" in client.get(f"/app/automation/runs/{run.pk}/").content.decode()
    assert client.post(f"/app/automation/runs/{run.pk}/resume/").status_code == 302
    run.refresh_from_db()
    assert run.status == "queued"
    execute(job_id=run.job_id, heartbeat=False)

    run.refresh_from_db()
    assert run.status == "completed" and run.items_processed > 0
    page = client.get(f"/app/automation/runs/{run.pk}/").content.decode()
    assert "Completed" in page and "Pause" not in page and f"{run.credits_used} <span" in page
    log = "".join(client.get(f"/app/automation/runs/{run.pk}/?page={number}").content.decode() for number in range(1, 6))
    assert "Run paused" in log and "Run resumed" in log and "Run completed" in log
    history = client.get(f"/app/sites/{site.site.pk}/automation/runs/").content.decode()
    assert f'href="/app/automation/runs/{run.pk}/"' in history


def test_a_control_in_the_wrong_state_is_refused_with_the_services_reason(site, console_client):
    client = console_client(site.owner)
    client.post(f"/app/sites/{site.site.pk}/automation/run/")
    run = AutomationRun.objects.for_account(site.account).get()
    response = client.post(f"/app/automation/runs/{run.pk}/resume/", HTTP_HX_REQUEST="true")
    assert response.status_code == 409 and response.headers["HX-Retarget"] == "#flash"
    assert "Only a paused automation run can be resumed" in response.content.decode()
    assert client.post(f"/app/automation/runs/{run.pk}/cancel/").status_code == 302
    run.refresh_from_db()
    assert run.status == "cancelled"


def test_the_live_view_polls_while_active_and_reloads_the_page_when_the_status_changes(site, console_client):
    client = console_client(site.owner)
    client.post(f"/app/sites/{site.site.pk}/automation/run/")
    run = AutomationRun.objects.for_account(site.account).get()
    url = f"/app/automation/runs/{run.pk}/"
    fragment = client.get(url + "?shown=queued", HTTP_HX_REQUEST="true")
    assert fragment.content.decode().startswith('<div id="run-live"') and 'hx-trigger="every 1s"' in fragment.content.decode()
    client.post(f"/app/automation/runs/{run.pk}/pause/")
    changed = client.get(url + "?shown=queued", HTTP_HX_REQUEST="true")
    assert changed.headers["HX-Refresh"] == "true"


def test_the_log_is_filtered_by_level(site, console_client):
    client = console_client(site.owner)
    client.post(f"/app/sites/{site.site.pk}/automation/run/")
    run = AutomationRun.objects.for_account(site.account).get()
    client.post(f"/app/automation/runs/{run.pk}/cancel/")
    warnings = client.get(f"/app/automation/runs/{run.pk}/?level=warning").content.decode()
    assert "Run cancelled" in warnings and "Run started" not in warnings
    assert "Run started" in client.get(f"/app/automation/runs/{run.pk}/").content.decode()


def test_a_viewer_reads_the_configuration_without_a_form_to_change_it(site, console_client, granted):
    page = console_client(site.viewer).get(page_of(site)).content.decode()
    assert "<fieldset disabled>" in page and "Save the configuration" not in page and "Run now" not in page
    assert json.dumps(automation_config(site=site.site)["stage_1_batch_size"]) in page


def test_the_runs_page_lists_every_run_when_the_status_is_unknown(site, console_client):
    client = console_client(site.owner)
    client.post(f"/app/sites/{site.site.pk}/automation/run/")
    run = AutomationRun.objects.for_account(site.account).get()
    for status in ("asleep", run.status):
        response = client.get(f"/app/sites/{site.site.pk}/automation/runs/", {"status": status})
        assert response.status_code == 200
        assert f"/app/automation/runs/{run.pk}/" in response.content.decode()


def test_a_run_completed_with_errors_shows_amber_with_its_failed_items_and_their_reasons(site, console_client, monkeypatch):
    """Contract section 12 on the run's page (issue 30, case 2): the status is "Completed with
    errors" in the amber badge, and each failed item is listed with its reason; the bell's
    notification is a warning."""
    from inkwell.ai.errors import AIError
    from inkwell.notifications.models import Notification
    from inkwell.planner import jobs as planner_jobs

    real_client = planner_jobs.ai_client

    def client_refusing_clustering(account, **kwargs):
        ai = real_client(account, **kwargs)

        def refuse(keywords, sector=""):
            raise AIError("The provider refused to cluster")

        ai.cluster_keywords = refuse
        return ai

    monkeypatch.setattr(planner_jobs, "ai_client", client_refusing_clustering)
    client = console_client(site.owner)
    client.post(f"/app/sites/{site.site.pk}/automation/run/")
    run = AutomationRun.objects.for_account(site.account).get()
    execute(job_id=run.job_id, heartbeat=False)

    page = client.get(f"/app/automation/runs/{run.pk}/").content.decode()

    assert '<span class="badge badge--completed_with_errors">Completed with errors</span>' in page
    failures = page[page.index('id="run-failures"') : page.index("</ul>", page.index('id="run-failures"'))]
    assert "notice--warning" in page and "12 items failed" in failures
    assert failures.count("<li>") == 12 and failures.count("The provider refused to cluster") == 12
    notification = Notification.objects.for_account(site.account).get(notification_type="automation_run_completed")
    assert notification.severity == "warning" and notification.metadata["failed"] == 12
    bell = client.get("/app/notifications/").content.decode()
    assert "note__dot--warning" in bell
