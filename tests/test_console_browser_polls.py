"""A job's live progress in a real browser, against gunicorn: while nothing changes, Chromium
revalidates the fragment it holds (htmx sees the kept one) and the server answers 304 without a
body; a change shows up
at the next poll, and a finished job stops the polling.

The job is a row with no worker behind it, moved by hand through ``manage.py shell`` as a
worker would move it (``update``, no ``save``).
"""

import re

import pytest

from tests import test_console_browser as part_one
from tests.live_server import gunicorn_server, manage, server_environment
from tests.test_console_browser import PASSWORD, TIMEOUT_MS, press, type_into

# The browser and its executable are part 1's fixtures, shared.
chromium_path, browser = part_one.chromium_path, part_one.browser

pytestmark = [pytest.mark.live_server_process, pytest.mark.browser]

EMAIL = "polls@example.com"
SETUP = f"""
from inkwell.jobs.models import Job, JobStatus
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Site

owner = tenancy.account_register(email="{EMAIL}", password="{PASSWORD}", account_name="Polls")
site = Site.objects.create(account=owner.account, name="Polls", domain="polls.example.com", slug="polls")
job = Job.objects.create(account=owner.account, site=site, kind="planner.auto_cluster", status=JobStatus.RUNNING, progress=10, progress_message="Clustering")
print(job.pk)
"""
MOVE = """
from inkwell.jobs.models import Job
Job.dangerously_unscoped.filter(pk={job_id}).update({fields})
"""


@pytest.fixture(scope="module")
def deployment():
    with server_environment(RATE_LIMIT_AUTH="1000") as env:
        job_id = int(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
        with gunicorn_server(env) as server:
            yield env, server, job_id


def test_an_unchanged_job_is_revalidated_with_304s_and_a_change_shows_at_the_next_poll(browser, deployment):
    env, server, job_id = deployment
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    polls: list[str] = []
    page.on("request", lambda request: polls.append(request.url) if request.headers.get("hx-request") and f"/app/jobs/{job_id}/" in request.url else None)

    page.goto(server.base_url + "/app/signin/")
    type_into(page.get_by_label("Email"), EMAIL)
    type_into(page.get_by_label("Password"), PASSWORD)
    press(page.get_by_role("button", name="Sign in"))
    page.wait_for_url(re.compile(r".*/app/(?!signin).*"))
    page.goto(server.base_url + f"/app/jobs/{job_id}/")
    page.get_by_text("Clustering", exact=True).wait_for()

    page.wait_for_timeout(3500)
    # Chromium names the ETag of the fragment it holds; the server's access log shows the answers.
    answers = re.findall(rf'"GET /app/jobs/{job_id}/ HTTP/1.1" (\d+) ', server.log())
    assert len(polls) >= 3 and answers[1:2] == ["200"] and answers[2:].count("304") >= 2, answers
    assert page.locator(f"#job-{job_id}").get_by_text("Clustering", exact=True).is_visible()  # the fragment the browser kept

    manage(env, "shell", "-c", MOVE.format(job_id=job_id, fields='progress=60, progress_message="Naming clusters"'))
    page.get_by_text("Naming clusters").wait_for(timeout=5000)
    assert page.get_by_role("progressbar").get_attribute("value") == "60"

    manage(env, "shell", "-c", MOVE.format(job_id=job_id, fields='status="succeeded", progress=100'))
    page.get_by_text("Done.").wait_for(timeout=5000)
    settled = len(polls)
    page.wait_for_timeout(2500)
    assert len(polls) == settled  # a finished job is not polled
    context.close()
