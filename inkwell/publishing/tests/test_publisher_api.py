"""The publisher endpoints through their URLs: publish now, publish status, records, deployments,
and the writer's publish_to_cms; with the roles and tenancy rules."""

import pytest

from inkwell.publishing import definition
from inkwell.publishing.models import PublishingRecord
from inkwell.publishing.tests.helpers import connect, ready_content
from inkwell.tenancy.models import SiteUserAccess
from inkwell.writer.models import Content, SiteStatus

pytestmark = pytest.mark.django_db

PUBLISH = "/api/v1/publisher/publish/"
STATUS = "/api/v1/publisher/publish/status/"
RECORDS = "/api/v1/publisher/records/"
DEPLOYMENTS = "/api/v1/publisher/deployments/"


@pytest.fixture(autouse=True)
def private_cms_allowed(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True}


def test_publish_answers_where_the_content_stands_with_its_record(tenant, as_user, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False)

    response = as_user(tenant.owner).post(PUBLISH, {"content_id": content.pk}, format="json")

    assert response.status_code == 200
    data = response.json()["data"]
    post = cms_server.posts[0]
    assert data["content_id"] == content.pk and data["site_status"] == "published" and data["status"] == "published"
    assert data["external_id"] == str(post["id"]) and data["external_url"] == post["link"]
    assert data["next_retry_at"] is None
    assert data["last_record"]["status"] == "succeeded" and data["last_record"]["trigger"] == "manual"


def test_the_writers_publish_to_cms_publishes_the_same_way(tenant, as_user, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False)

    response = as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/publish_to_cms/")

    assert response.status_code == 200
    assert response.json()["data"]["site_status"] == "published"
    assert len(cms_server.posts) == 1


def test_a_failed_attempt_answers_502_with_the_cms_cause_its_reason_and_the_retry_plan(tenant, as_user, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False)
    cms_server.fail_next(5, status=503)
    client = as_user(tenant.owner)

    response = client.post(PUBLISH, {"content_id": content.pk}, format="json")

    assert response.status_code == 502
    body = response.json()
    assert body["success"] is False and body["code"] == "cms_unavailable" and body["error"] == "The CMS is unavailable"
    data = client.get(STATUS, {"content_id": content.pk}).json()["data"]
    assert data["site_status"] == "scheduled" and body["errors"]["next_retry_at"] == [data["next_retry_at"]] == [data["scheduled_publish_at"]]
    assert body["errors"]["attempts_left"] == ["4"]
    assert data["last_record"]["status"] == "failed" and data["last_record"]["error_code"] == "cms_unavailable"
    content.refresh_from_db()
    assert content.site_status == SiteStatus.SCHEDULED


def test_a_publish_the_cms_refuses_answers_502_with_no_retry_and_the_content_reads_failed(tenant, as_user, cms_server):
    connect(tenant, cms_server, app_password="wrong wrong wrong wrong")
    content = ready_content(tenant, images=False)

    response = as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/publish_to_cms/")

    assert response.status_code == 502
    body = response.json()
    assert body["code"] == "cms_auth_failed" and body["errors"] == {"next_retry_at": [], "attempts_left": ["0"]}
    assert body["error"] == PublishingRecord.objects.for_account(tenant.account).get(content=content).error
    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED and cms_server.posts == []


@pytest.mark.parametrize("status", ["draft", "review"])
def test_content_that_is_not_approved_is_a_state_conflict_on_both_publish_paths(tenant, as_user, cms_server, status):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False, status=status)
    client = as_user(tenant.owner)

    for response in (client.post(PUBLISH, {"content_id": content.pk}, format="json"), client.post(f"/api/v1/writer/content/{content.pk}/publish_to_cms/")):
        assert response.status_code == 409 and response.json()["code"] == "state_conflict"
        assert "move it to approved first" in response.json()["errors"]["status"][0]
    assert cms_server.posts == []
    content.refresh_from_db()
    assert (content.status, content.site_status) == (status, SiteStatus.NOT_PUBLISHED)


def test_publishing_without_an_integration_is_a_conflict(tenant, as_user):
    content = ready_content(tenant, images=False)

    response = as_user(tenant.owner).post(PUBLISH, {"content_id": content.pk}, format="json")

    assert response.status_code == 409
    assert response.json()["errors"] == {"site": ["This site has no CMS integration"]}


def test_publish_status_of_content_never_published(tenant, as_user):
    content = ready_content(tenant, images=False)
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.viewer, site=tenant.site)

    data = as_user(tenant.viewer).get(STATUS, {"content_id": content.pk}).json()["data"]

    assert data == {
        "content_id": content.pk,
        "status": "approved",
        "site_status": "not_published",
        "scheduled_publish_at": None,
        "published_at": None,
        "external_id": "",
        "external_url": "",
        "next_retry_at": None,
        "last_record": None,
    }


def test_content_of_another_account_is_refused_in_every_publisher_body_and_query(tenant, other_tenant, as_user):
    foreign = ready_content(other_tenant, images=False)
    client = as_user(tenant.owner)

    for response in (
        client.post(PUBLISH, {"content_id": foreign.pk}, format="json"),
        client.get(STATUS, {"content_id": foreign.pk}),
        client.post(RECORDS, {"content_id": foreign.pk, "external_url": "https://x.test/"}, format="json"),
    ):
        assert response.status_code == 400
        assert list(response.json()["errors"]) == ["content_id"]
    foreign.refresh_from_db()
    assert foreign.site_status == SiteStatus.NOT_PUBLISHED


def test_a_viewer_may_read_but_not_publish_or_record(tenant, as_user):
    content = ready_content(tenant, images=False)
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.viewer, site=tenant.site)
    client = as_user(tenant.viewer)

    assert client.post(PUBLISH, {"content_id": content.pk}, format="json").status_code == 403
    assert client.post(RECORDS, {"content_id": content.pk, "external_url": "https://x.test/"}, format="json").status_code == 403
    assert client.get(RECORDS).status_code == 200
    assert client.get(DEPLOYMENTS).status_code == 200


def test_an_editor_publishes_only_on_granted_sites(tenant, as_user, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False)
    client = as_user(tenant.editor)

    SiteUserAccess.objects.for_account(tenant.account).filter(user=tenant.editor).delete()
    assert client.post(PUBLISH, {"content_id": content.pk}, format="json").status_code == 403

    SiteUserAccess.objects.create(account=tenant.account, user=tenant.editor, site=tenant.site)
    assert client.post(PUBLISH, {"content_id": content.pk}, format="json").status_code == 200


def test_recording_a_publication_made_elsewhere_marks_the_content_published(tenant, as_user):
    content = ready_content(tenant, images=False)

    response = as_user(tenant.owner).post(RECORDS, {"content_id": content.pk, "external_url": "https://blog.test/tomatoes/", "external_id": "77"}, format="json")

    assert response.status_code == 201
    record = response.json()["data"]
    assert (record["trigger"], record["status"], record["external_url"]) == ("recorded", "succeeded", "https://blog.test/tomatoes/")
    content.refresh_from_db()
    assert (content.site_status, content.status, content.external_id) == ("published", "published", "77")


def test_records_are_listed_newest_first_and_filtered(tenant, as_user):
    first = ready_content(tenant, title="First", images=False)
    second = ready_content(tenant, title="Second", images=False)
    client = as_user(tenant.owner)
    for content in (first, second):
        client.post(RECORDS, {"content_id": content.pk, "external_url": "https://blog.test/x/"}, format="json")

    listed = client.get(RECORDS).json()
    assert listed["count"] == 2 and [row["content_id"] for row in listed["results"]] == [second.pk, first.pk]
    assert [row["content_id"] for row in client.get(RECORDS, {"content_id": first.pk}).json()["results"]] == [first.pk]
    assert client.get(RECORDS, {"status": "failed"}).json()["count"] == 0
    assert client.get(RECORDS, {"status": "nonsense"}).json()["errors"] == {"status": ["Invalid status value"]}


def test_deployments_are_listed_per_site_without_their_definitions(tenant, other_tenant, as_user):
    content = ready_content(tenant, images=False)
    as_user(tenant.owner).post(RECORDS, {"content_id": content.pk, "external_url": "https://blog.test/x/"}, format="json")
    definition.deploy(tenant.site)
    definition.deploy(other_tenant.site)

    listed = as_user(tenant.owner).get(DEPLOYMENTS, {"site_id": tenant.site.pk}).json()

    assert listed["count"] == 1
    assert set(listed["results"][0]) == {"id", "site_id", "version", "checksum", "article_count", "created_at"}
    assert listed["results"][0]["article_count"] == 1
    assert PublishingRecord.objects.for_account(other_tenant.account).count() == 0


def test_a_link_to_an_address_the_site_does_not_have_is_refused_with_the_list_and_nothing_is_sent(tenant, as_user, cms_server):
    connect(tenant, cms_server)
    live = ready_content(tenant, images=False)
    Content.objects.for_account(tenant.account).filter(pk=live.pk).update(site_status=SiteStatus.PUBLISHED, external_url=f"https://{tenant.site.domain}/live-one/")
    draft = ready_content(tenant, images=False)
    content = ready_content(tenant, images=False)
    links = (
        f'<p>See <a href="/live-one/">the live one</a>, <a href="https://www.{tenant.site.domain}/live-one">again</a>, '
        f'<a href="/how-to-choose-the-right-vegetable-garden/">a draft</a>, <a href="https://{tenant.site.domain}/gone/">a page that never was</a>, '
        '<a href="https://elsewhere.example.org/x/">another site</a>, <a href="/">home</a> and <a href="#top">the top</a>.</p>'
    )
    Content.objects.for_account(tenant.account).filter(pk=content.pk).update(html=content.html + links)

    response = as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/publish_to_cms/")

    assert response.status_code == 422, response.content
    message = response.json()["errors"]["html"][0]
    assert message.endswith(f"/how-to-choose-the-right-vegetable-garden/, https://{tenant.site.domain}/gone/")
    assert not cms_server.posts and not PublishingRecord.objects.for_account(tenant.account).filter(content=content).exists()
    # Once the draft is live at that address, the same article goes out.
    Content.objects.for_account(tenant.account).filter(pk=draft.pk).update(
        site_status=SiteStatus.PUBLISHED, external_url=f"https://{tenant.site.domain}/how-to-choose-the-right-vegetable-garden/"
    )
    Content.objects.for_account(tenant.account).filter(pk=content.pk).update(html=content.html + links.replace(f"https://{tenant.site.domain}/gone/", "/"))
    assert as_user(tenant.owner).post(f"/api/v1/writer/content/{content.pk}/publish_to_cms/").status_code == 200
