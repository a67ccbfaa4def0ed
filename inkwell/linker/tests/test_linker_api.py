"""POST /linker/process/ and /linker/batch_process/: answers, roles, tenancy, module switch, no credits."""

from unittest.mock import ANY

import pytest

from inkwell.api.tests import assert_error
from inkwell.billing.models import CreditUsage
from inkwell.billing.tests.ledger import balance_of
from inkwell.jobs.models import Job
from inkwell.linker.tests.factories import make_article, live_url
from inkwell.system.services import modules_save
from inkwell.writer.models import Content, ContentRevision

pytestmark = pytest.mark.django_db

PROCESS = "/api/v1/linker/process/"
BATCH = "/api/v1/linker/batch_process/"
CONTENT_NOT_YOURS = {"content_id": ["Content must belong to your account"]}


@pytest.fixture
def shoes(tenant):
    return make_article(tenant, "Trail running shoes", focus_keyword="trail running shoes")


@pytest.fixture
def source(tenant):
    return make_article(tenant, "Race day", "<p>Good trail running shoes matter.</p>")


def test_process_answers_the_links_it_added(tenant, shoes, source, as_user):
    response = as_user(tenant.owner).post(PROCESS, {"content_id": source.pk}, format="json")

    assert response.status_code == 200, response.content
    assert response.json() == {
        "success": True,
        "data": {
            "content_id": source.pk,
            "links_added": 1,
            "links": [{"anchor_text": "trail running shoes", "target_content_id": shoes.pk, "url": live_url(tenant.site, "trail-running-shoes")}],
        },
    }
    source.refresh_from_db()
    assert f'<a href="{live_url(tenant.site, "trail-running-shoes")}">trail running shoes</a>' in source.html
    assert response["X-RateLimit-Limit"] == "100"


def test_max_links_in_the_request_limits_the_links(tenant, source, as_user):
    make_article(tenant, "Shoes", focus_keyword="trail running shoes")
    make_article(tenant, "Matter", focus_keyword="matter")
    client = as_user(tenant.owner)

    assert client.post(PROCESS, {"content_id": source.pk, "max_links": 1}, format="json").json()["data"]["links_added"] == 1
    for invalid in (0, 51, "many"):
        response = client.post(PROCESS, {"content_id": source.pk, "max_links": invalid}, format="json")
        assert_error(response, 400, "validation_error", errors={"max_links": [ANY]})


def test_linking_spends_no_credits(tenant, shoes, source, as_user):
    before = balance_of(tenant.account)

    as_user(tenant.owner).post(PROCESS, {"content_id": source.pk}, format="json")

    assert balance_of(tenant.account) == before
    assert not CreditUsage.objects.for_account(tenant.account).exists()


def test_another_accounts_content_is_refused_and_left_alone(tenant, other_tenant, as_user):
    make_article(other_tenant, "Their shoes", focus_keyword="trail running shoes")
    theirs = make_article(other_tenant, "Their race", "<p>Good trail running shoes matter.</p>")

    response = as_user(tenant.owner).post(PROCESS, {"content_id": theirs.pk}, format="json")

    assert_error(response, 400, "validation_error", errors=CONTENT_NOT_YOURS)
    theirs.refresh_from_db()
    assert "<a " not in theirs.html


def test_viewers_may_not_link(granted, shoes, source, as_user):
    assert_error(as_user(granted.viewer).post(PROCESS, {"content_id": source.pk}, format="json"), 403, "permission_denied")
    assert_error(as_user(granted.viewer).post(BATCH, {"content_ids": [source.pk]}, format="json"), 403, "permission_denied")
    assert not ContentRevision.objects.for_account(granted.account).exists()


def test_editors_link_content_of_their_sites_only(granted, shoes, source, second_site, as_user):
    elsewhere = make_article(granted, "Elsewhere", "<p>Trail running shoes.</p>", site=second_site)
    client = as_user(granted.editor)

    assert client.post(PROCESS, {"content_id": source.pk}, format="json").status_code == 200
    assert_error(client.post(PROCESS, {"content_id": elsewhere.pk}, format="json"), 403, "permission_denied")


def test_a_switched_off_linker_module_refuses(tenant, source, as_user):
    modules_save(account=tenant.account, modules={"linker": False})

    assert_error(as_user(tenant.owner).post(PROCESS, {"content_id": source.pk}, format="json"), 403, "module_disabled")


def test_a_batch_of_fifty_articles_links_each_to_its_neighbours(tenant, other_tenant, as_user, eager_jobs):
    articles = [
        make_article(tenant, f"Topic {n}", f"<p>Compare topic{n + 1} here.</p><p>Then read about topic{n + 2}.</p>", focus_keyword=f"topic{n}")
        for n in range(50)
    ]
    theirs = make_article(other_tenant, "Theirs", "<p>topic1</p>")
    client = as_user(tenant.owner)
    ids = [article.pk for article in articles]

    with eager_jobs():
        response = client.post(BATCH, {"content_ids": [*ids, theirs.pk]}, format="json")

    assert response.status_code == 202, response.content
    job = client.get(f"/api/v1/jobs/{response.json()['data']['job_id']}/").json()["data"]
    assert (job["kind"], job["status"]) == ("linker.batch_process", "succeeded")
    result = job["result"]
    assert (result["processed"], result["links_added"], result["not_found"]) == (50, 48 + 49, [theirs.pk])
    by_id = {item["content_id"]: [link["target_content_id"] for link in item["links"]] for item in result["results"]}
    assert by_id[ids[0]] == [ids[1], ids[2]]
    assert by_id[ids[48]] == [ids[49]]
    assert by_id[ids[49]] == []
    html = dict(Content.objects.for_account(tenant.account).values_list("pk", "html"))
    assert html[ids[10]] == f'<p>Compare <a href="{live_url(tenant.site, "topic-11")}">topic11</a> here.</p><p>Then read about <a href="{live_url(tenant.site, "topic-12")}">topic12</a>.</p>'

    with eager_jobs():
        again = client.post(BATCH, {"content_ids": ids}, format="json")

    assert Job.objects.for_account(tenant.account).get(pk=again.json()["data"]["job_id"]).result["links_added"] == 0
    assert dict(Content.objects.for_account(tenant.account).values_list("pk", "html")) == html


def test_a_batch_must_name_content_of_one_site(tenant, second_site, source, as_user):
    elsewhere = make_article(tenant, "Elsewhere", site=second_site)

    response = as_user(tenant.owner).post(BATCH, {"content_ids": [source.pk, elsewhere.pk]}, format="json")

    assert_error(response, 400, "validation_error", errors={"content_ids": ["All content must belong to the same site"]})
    assert not Job.objects.for_account(tenant.account).exists()


def test_a_batch_naming_none_of_the_callers_content_is_refused(tenant, other_tenant, as_user):
    theirs = make_article(other_tenant, "Theirs")

    response = as_user(tenant.owner).post(BATCH, {"content_ids": [theirs.pk]}, format="json")

    assert_error(response, 400, "validation_error", errors={"content_ids": ["None of these ids names your content"]})


def test_an_editors_batch_reports_content_of_other_sites_as_not_found(granted, source, second_site, as_user, eager_jobs):
    elsewhere = make_article(granted, "Elsewhere", site=second_site)

    with eager_jobs():
        response = as_user(granted.editor).post(BATCH, {"content_ids": [source.pk, elsewhere.pk]}, format="json")

    job = Job.objects.for_account(granted.account).get(pk=response.json()["data"]["job_id"])
    assert (job.result["processed"], job.result["not_found"]) == (1, [elsewhere.pk])
    assert as_user(granted.editor).get(f"/api/v1/jobs/{job.pk}/").status_code == 200


def test_a_batch_needs_ids(tenant, as_user):
    client = as_user(tenant.owner)

    assert_error(client.post(BATCH, {"content_ids": []}, format="json"), 400, "validation_error", errors={"content_ids": ["Send at least one id"]})
    assert_error(client.post(BATCH, {}, format="json"), 400, "validation_error", errors={"content_ids": ["This field is required"]})


def test_an_article_deleted_before_the_batch_reached_it_is_reported_as_not_found(tenant, shoes, source, as_user, eager_jobs):
    gone = make_article(tenant, "Gone", "<p>Trail running shoes.</p>")

    with eager_jobs():
        response = as_user(tenant.owner).post(BATCH, {"content_ids": [gone.pk, source.pk]}, format="json")
        Content.objects.for_account(tenant.account).filter(pk=gone.pk).delete()

    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    assert (job.status, job.result["processed"], job.result["not_found"]) == ("succeeded", 1, [gone.pk])
