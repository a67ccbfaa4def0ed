"""One way screens learn that a job changed something (issue 30, case 1): the job fragment raises
``jobchange`` when the job starts and when a poll finds it ended, and the fragments that show its
subject (the task cards, keyword rows, clusters, the header's credits, the bell) are marked to fetch
themselves again; a paid action is not offered while a job works on the same subject."""

import json

import pytest

from inkwell.jobs.models import Job, JobStatus
from inkwell.planner.services import AUTO_CLUSTER_JOB
from inkwell.planner.tests.factories import make_keyword

pytestmark = pytest.mark.django_db


def test_the_poll_that_finds_the_job_ended_raises_jobchange_and_a_running_one_does_not(console_client, big_tenant):
    client = console_client(big_tenant.owner)
    job = Job.objects.create(account=big_tenant.account, site=big_tenant.site, kind=AUTO_CLUSTER_JOB, status=JobStatus.RUNNING, progress=40)

    running = client.get(f"/app/jobs/{job.pk}/", HTTP_HX_REQUEST="true")
    assert "HX-Trigger" not in running

    Job.objects.for_account(big_tenant.account).filter(pk=job.pk).update(status=JobStatus.SUCCEEDED, progress=100)
    ended = client.get(f"/app/jobs/{job.pk}/", HTTP_HX_REQUEST="true")

    assert json.loads(ended["HX-Trigger"]) == {"jobchange": {"job_id": job.pk, "kind": AUTO_CLUSTER_JOB, "status": "succeeded"}}


def test_the_fragments_that_show_a_jobs_subject_listen_for_it(console_client, big_tenant):
    client = console_client(big_tenant.owner)
    site = big_tenant.site
    make_keyword(big_tenant)
    for path in (f"/app/sites/{site.pk}/tasks/", f"/app/sites/{site.pk}/keywords/", f"/app/sites/{site.pk}/clusters/"):
        page = client.get(path).content.decode()
        assert '<div id="results" data-refresh-on-job>' in page, path
        assert 'data-refresh-on-job="/app/credits/balance/"' in page and 'hx-trigger="every 60s, jobchange from:body"' in page


def test_the_header_credits_are_a_fragment_of_their_own(console_client, big_tenant, funded):
    funded(72)
    balance = console_client(big_tenant.owner).get("/app/credits/balance/", HTTP_HX_REQUEST="true").content.decode()
    assert '<strong id="credit-balance">72</strong>' in balance and 'id="credits"' in balance


def test_clustering_is_not_offered_again_while_the_sites_keywords_are_being_clustered(console_client, big_tenant):
    """Issue 30, case 1: the Keywords screen offered "Cluster 13 with AI" again."""
    client = console_client(big_tenant.owner)
    make_keyword(big_tenant)
    path = f"/app/sites/{big_tenant.site.pk}/keywords/"
    assert "Cluster 1 with AI" in client.get(path).content.decode()
    job = Job.objects.create(account=big_tenant.account, site=big_tenant.site, kind=AUTO_CLUSTER_JOB, status=JobStatus.RUNNING)

    page = client.get(path).content.decode()

    assert "Cluster 1 with AI" not in page and "Clustering with AI…" in page and f"/app/jobs/{job.pk}/" in page
