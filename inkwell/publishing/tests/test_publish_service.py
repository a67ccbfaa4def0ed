"""Publishing one content against the WordPress-faithful test server: what reaches the CMS, what
we record, retries with back-off, failures, and no second post after a crash."""

from datetime import timedelta

import pytest
from django.utils import timezone

from inkwell.api.exceptions import CMSPublishFailed, StateConflict
from inkwell.notifications.models import Notification
from inkwell.publishing import services
from inkwell.publishing.models import PublishingRecord, PublishStatus, PublishTrigger
from inkwell.publishing.services import body_with_images, publish_due, publish_now, recover_stalled
from inkwell.publishing.tests.helpers import connect, ready_content, schedule
from inkwell.system.models import ContentSettings
from inkwell.writer.models import ContentStatus, Image, SiteStatus, Taxonomy

pytestmark = pytest.mark.django_db

POSTS = "/wp/v2/posts"


@pytest.fixture(autouse=True)
def cms_settings(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True, "PUBLISH_MAX_ATTEMPTS": 3, "PUBLISH_RETRY_SECONDS": 60}


def test_publishing_sends_title_body_excerpt_slug_terms_and_images_and_records_the_post(tenant, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, slug="balcony-tomatoes", excerpt="Tomatoes on a balcony, briefly.")

    outcome = publish_now(content=content, user=tenant.owner)

    assert outcome.published
    [post] = cms_server.posts
    assert post["title"]["raw"] == "Growing tomatoes on a balcony"
    assert post["status"] == "publish" and post["slug"] == "balcony-tomatoes"
    assert post["excerpt"]["raw"] == "Tomatoes on a balcony, briefly."
    assert f"inkwell:ref:{tenant.account.pk}-{content.pk}" in post["content"]["raw"]
    terms = cms_server.terms
    assert [term["id"] for term in terms["category"] if term["slug"] == "vegetables"] == post["categories"]
    assert [term["id"] for term in terms["post_tag"] if term["slug"] == "balcony"] == post["tags"]
    media = {item["id"]: item for item in cms_server.media}
    assert media[post["featured_media"]]["alt_text"] == "Featured tomatoes"
    in_article = next(item for item in media.values() if item["alt_text"] == "Tomatoes in a pot")
    assert in_article["source_url"] in post["content"]["raw"]

    content.refresh_from_db()
    assert (content.site_status, content.status) == (SiteStatus.PUBLISHED, ContentStatus.PUBLISHED)
    assert content.external_id == str(post["id"]) and content.external_url == post["link"] and content.published_at
    record = PublishingRecord.objects.for_account(tenant.account).get()
    assert (record.status, record.trigger, record.attempt, record.external_id) == (PublishStatus.SUCCEEDED, PublishTrigger.MANUAL, 1, str(post["id"]))
    assert record.created_by == tenant.owner and record.duration_ms is not None
    assert Notification.objects.for_account(tenant.account).filter(notification_type="content_published").count() == 1
    assert set(Taxonomy.objects.for_account(tenant.account).values_list("external_id", flat=True)) == {str(post["categories"][0]), str(post["tags"][0])}
    assert all(Image.objects.for_account(tenant.account).values_list("external_id", flat=True))


def test_publishing_again_updates_the_same_post_and_uploads_nothing_twice(tenant, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant)
    publish_now(content=content, user=None)
    content.refresh_from_db()
    content.title = "Growing cherry tomatoes on a balcony"
    content.save()

    publish_now(content=content, user=None)

    assert cms_server.count("POST", POSTS) == 1
    assert [post["title"]["raw"] for post in cms_server.posts] == ["Growing cherry tomatoes on a balcony"]
    assert len(cms_server.media) == 2


def test_a_post_deleted_on_the_cms_is_published_anew(tenant, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False)
    publish_now(content=content, user=None)
    content.refresh_from_db()
    content.external_id = "999999"
    content.save()

    publish_now(content=content, user=None)

    content.refresh_from_db()
    assert content.external_id == str(cms_server.posts[0]["id"])
    assert len(cms_server.posts) == 1


def test_the_accounts_publish_status_setting_sends_drafts_that_are_not_live(tenant, cms_server):
    connect(tenant, cms_server)
    ContentSettings.objects.create(account=tenant.account, key="publishing", values={"default_publish_status": "draft"})
    content = ready_content(tenant, images=False)

    outcome = publish_now(content=content, user=None)

    assert not outcome.published
    assert cms_server.posts[0]["status"] == "draft"
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED and content.external_id


def test_a_site_without_an_active_integration_cannot_publish(tenant, cms_server):
    connect(tenant, cms_server, is_active=False)
    content = ready_content(tenant, images=False)

    with pytest.raises(StateConflict) as raised:
        publish_now(content=content, user=None)

    assert raised.value.errors == {"site": ["This site has no CMS integration"]}
    assert cms_server.count("POST", POSTS) == 0


def test_content_being_published_cannot_be_published_again(tenant, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False, site_status=SiteStatus.PUBLISHING)

    with pytest.raises(StateConflict):
        publish_now(content=content, user=None)


def test_a_passing_cms_failure_is_retried_with_a_back_off_and_then_publishes(tenant, cms_server):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False)
    cms_server.fail_next(1, status=503)

    before = timezone.now()
    with pytest.raises(CMSPublishFailed) as failure:
        publish_now(content=content, user=None)

    content.refresh_from_db()
    assert content.site_status == SiteStatus.SCHEDULED
    assert before + timedelta(seconds=59) < content.scheduled_publish_at < timezone.now() + timedelta(seconds=61)
    record = PublishingRecord.objects.for_account(tenant.account).get(content=content)
    assert record.retry_at == content.scheduled_publish_at and record.error_code == "cms_unavailable"
    assert failure.value.code == "cms_unavailable" and failure.value.errors["attempts_left"] == ["2"]
    assert not Notification.objects.for_account(tenant.account).filter(notification_type="content_publish_failed").exists()

    assert publish_due(now=content.scheduled_publish_at + timedelta(seconds=1)) == 1

    content.refresh_from_db()
    assert content.site_status == SiteStatus.PUBLISHED
    attempts = list(PublishingRecord.objects.for_account(tenant.account).order_by("created_at").values_list("attempt", "status", "trigger"))
    assert attempts == [(1, "failed", "manual"), (2, "succeeded", "scheduled")]


def test_the_back_off_doubles_and_the_last_attempt_fails_with_a_notification(tenant, cms_server):
    connect(tenant, cms_server)
    content = schedule(ready_content(tenant, images=False))
    cms_server.fail_next(10, status=502)
    now = timezone.now()

    for expected_delay in (60, 120):
        publish_due(now=now)
        content.refresh_from_db()
        assert content.site_status == SiteStatus.SCHEDULED
        now = content.scheduled_publish_at
        record = PublishingRecord.objects.for_account(tenant.account).order_by("-id").first()
        assert record.retry_at - record.finished_at == timedelta(seconds=expected_delay)
    publish_due(now=now)

    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED
    assert list(PublishingRecord.objects.for_account(tenant.account).order_by("id").values_list("attempt", flat=True)) == [1, 2, 3]
    [failed] = Notification.objects.for_account(tenant.account).filter(notification_type="content_publish_failed")
    assert "after 3 attempts" in failed.message and "unavailable" in failed.message


def test_a_rejected_password_fails_at_once_without_retrying(tenant, cms_server):
    connect(tenant, cms_server, app_password="wrong password")
    content = schedule(ready_content(tenant, images=False))

    publish_due()

    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED
    record = PublishingRecord.objects.for_account(tenant.account).get()
    assert (record.error_code, record.retry_at) == ("cms_auth_failed", None)
    assert "wrong password" not in record.error
    assert Notification.objects.for_account(tenant.account).filter(notification_type="content_publish_failed").count() == 1


def test_scheduled_content_of_a_site_without_integration_fails_with_a_clear_reason(tenant):
    content = schedule(ready_content(tenant, images=False))

    publish_due()

    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED
    assert PublishingRecord.objects.for_account(tenant.account).get().error == "This site has no CMS integration"


def test_the_scheduler_publishes_only_due_content(tenant, cms_server):
    connect(tenant, cms_server)
    due = schedule(ready_content(tenant, title="Due", images=False))
    later = ready_content(tenant, title="Later", images=False, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=timezone.now() + timedelta(hours=1))
    draft = ready_content(tenant, title="Not scheduled", images=False)

    assert publish_due() == 1

    assert [post["title"]["raw"] for post in cms_server.posts] == ["Due"]
    for content, site_status in ((due, SiteStatus.PUBLISHED), (later, SiteStatus.SCHEDULED), (draft, SiteStatus.NOT_PUBLISHED)):
        content.refresh_from_db()
        assert content.site_status == site_status


class WorkerDied(BaseException):
    """Stands for the process being killed: nothing after it runs, no except clause catches it."""


def test_a_crash_between_the_cms_call_and_our_commit_leaves_one_post(tenant, cms_server, monkeypatch, settings):
    connect(tenant, cms_server)
    content = schedule(ready_content(tenant))

    def die(*args, **kwargs):
        raise WorkerDied()

    with monkeypatch.context() as patched:
        patched.setattr(services, "_succeed", die)
        with pytest.raises(WorkerDied):
            publish_due()
    assert cms_server.count("POST", POSTS) == 1
    content.refresh_from_db()
    assert content.site_status == SiteStatus.PUBLISHING and not content.external_id

    later = timezone.now() + timedelta(seconds=settings.INKWELL_CMS["PUBLISH_STALE_SECONDS"] + 1)
    assert recover_stalled(now=later) == 1
    content.refresh_from_db()
    publish_due(now=content.scheduled_publish_at)

    content.refresh_from_db()
    assert content.site_status == SiteStatus.PUBLISHED
    assert cms_server.count("POST", POSTS) == 1 and len(cms_server.posts) == 1
    assert content.external_id == str(cms_server.posts[0]["id"])
    statuses = list(PublishingRecord.objects.for_account(tenant.account).order_by("id").values_list("status", "error_code"))
    assert statuses == [("failed", "worker_lost"), ("succeeded", "")]


def test_a_second_scheduler_finds_nothing_left_to_claim(tenant, cms_server):
    connect(tenant, cms_server)
    content = schedule(ready_content(tenant, images=False))

    assert services.publish_scheduled(content_id=content.pk) is not None
    assert services.publish_scheduled(content_id=content.pk) is None
    assert cms_server.count("POST", POSTS) == 1


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>a</p><h2>B</h2><p>b</p><h2>C</h2><p>c</p>", "<p>a</p><h2>B</h2><p>b</p>[1]<h2>C</h2><p>c</p>[2]"),
        ("<p>only text</p>", "<p>only text</p>[1][2]"),
        ("<H2 class='x'>A</H2><h2>B</h2><h2>C</h2><h2>D</h2>", "<H2 class='x'>A</H2>[1]<h2>B</h2>[2]<h2>C</h2><h2>D</h2>"),
    ],
)
def test_in_article_images_open_the_sections_after_the_first_and_the_rest_go_last(html, expected):
    figures = {f"[{n}]": f'<figure class="wp-block-image"><img src="https://cms.test/{n}.png" alt="alt {n}"/></figure>' for n in (1, 2)}

    result = body_with_images(html=html, figures=list(figures.values()))

    for marker, figure in figures.items():
        expected = expected.replace(marker, figure)
    assert result == expected


# The editorial gate (contract section 11)


@pytest.mark.parametrize("status", [ContentStatus.DRAFT, ContentStatus.REVIEW])
def test_content_that_is_not_approved_is_not_published_now(tenant, cms_server, status):
    connect(tenant, cms_server)
    content = ready_content(tenant, images=False, status=status)

    with pytest.raises(StateConflict) as refused:
        publish_now(content=content, user=None)

    assert "move it to approved first" in refused.value.errors["status"][0]
    assert cms_server.posts == []
    content.refresh_from_db()
    assert content.site_status == SiteStatus.NOT_PUBLISHED
    assert not PublishingRecord.objects.for_account(tenant.account).exists()


def test_scheduled_content_moved_back_to_draft_is_unscheduled_at_its_time_and_the_team_is_told(tenant, cms_server):
    connect(tenant, cms_server)
    content = schedule(ready_content(tenant, images=False, status=ContentStatus.DRAFT))

    assert publish_due() == 0

    content.refresh_from_db()
    assert (content.site_status, content.scheduled_publish_at, content.status) == (SiteStatus.NOT_PUBLISHED, None, ContentStatus.DRAFT)
    assert cms_server.posts == []
    assert not PublishingRecord.objects.for_account(tenant.account).exists()
    [notice] = Notification.objects.for_account(tenant.account).filter(notification_type="content_publish_failed")
    assert "not approved" in notice.message and notice.metadata["error_code"] == "not_approved"


def test_a_refused_publish_raises_the_cms_cause_its_reason_and_no_retry(tenant, cms_server):
    connect(tenant, cms_server, app_password="wrong wrong wrong wrong")
    content = ready_content(tenant, images=False)

    with pytest.raises(CMSPublishFailed) as failure:
        publish_now(content=content, user=None)

    assert failure.value.status_code == 502 and failure.value.code == "cms_auth_failed"
    assert failure.value.errors == {"next_retry_at": [], "attempts_left": ["0"]}
    content.refresh_from_db()
    assert content.site_status == SiteStatus.FAILED
    assert PublishingRecord.objects.for_account(tenant.account).get(content=content).error == failure.value.error
