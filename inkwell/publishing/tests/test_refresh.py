"""Refreshes of live articles (issue #37): a new revision that goes through review and approval
while the live post and the content's row stay as they are, sent as an update of the post now or
at its scheduled time, exactly once, with the publisher's records and retries."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from inkwell.api.exceptions import BusinessRuleViolation, CMSPublishFailed, StateConflict
from inkwell.integration.models import SiteIntegration
from inkwell.notifications.models import Notification
from inkwell.publishing.models import PublishingRecord, PublishStatus, PublishTrigger
from inkwell.publishing.services import (
    publish_due,
    publish_now,
    recover_stalled,
    refresh_schedule,
    refresh_send_now,
    refresh_unschedule,
    send_scheduled_refresh,
)
from inkwell.publishing.tests.helpers import connect, ready_content
from inkwell.sitesettings.tests import publish_any_time
from inkwell.system.models import ContentSettings
from inkwell.writer import services as writer_services
from inkwell.writer.models import (
    ContentRefresh,
    ContentRevision,
    ContentStatus,
    RefreshSendStatus,
    SiteStatus,
)

pytestmark = pytest.mark.django_db

POSTS = "/wp/v2/posts"
NEW_HTML = "<p>Sun, a deep pot and water.</p><h2>Watering in a heatwave</h2><p>Twice a day.</p>"


@pytest.fixture(autouse=True)
def open_rules(tenant):
    """Any time is within the site's publishing rules here but where the rules are the subject."""
    publish_any_time(tenant.site)


@pytest.fixture(autouse=True)
def cms_settings(settings):
    settings.INKWELL_CMS = {**settings.INKWELL_CMS, "ALLOW_PRIVATE_URLS": True, "PUBLISH_MAX_ATTEMPTS": 3, "PUBLISH_RETRY_SECONDS": 60}


def _live(tenant, server):
    connect(tenant, server)
    content = ready_content(tenant, images=False)
    publish_now(content=content, user=tenant.owner)
    content.refresh_from_db()
    return content


def _approved_refresh(tenant, content, **fields):
    refresh = writer_services.refresh_create(account=tenant.account, content=content, user=tenant.owner, reason="Striking distance for “tomato heatwave”")
    fields.setdefault("title", "Growing tomatoes on a balcony, even in a heatwave")
    fields.setdefault("html", NEW_HTML)
    refresh = writer_services.refresh_update(account=tenant.account, refresh=refresh, user=tenant.owner, status=ContentStatus.REVIEW, **fields)
    return writer_services.refresh_update(account=tenant.account, refresh=refresh, user=tenant.owner, status=ContentStatus.APPROVED)


def _row(content):
    content.refresh_from_db()
    return (content.title, content.html, content.site_status, content.external_url, content.published_at)


def test_a_refresh_in_the_works_changes_neither_the_live_post_nor_the_content(tenant, cms_server):
    content = _live(tenant, cms_server)
    before, posts_before = _row(content), cms_server.count("POST", f"{POSTS}/{content.external_id}")
    _approved_refresh(tenant, content)
    assert _row(content) == before
    assert cms_server.count("POST", f"{POSTS}/{content.external_id}") == posts_before
    assert cms_server.posts[0]["title"]["raw"] == "Growing tomatoes on a balcony"


def test_only_a_live_article_can_be_refreshed_and_only_one_refresh_at_a_time(tenant, cms_server):
    content = _live(tenant, cms_server)
    draft = ready_content(tenant, title="Not published yet", images=False)
    with pytest.raises(StateConflict):
        writer_services.refresh_create(account=tenant.account, content=draft, user=None)
    writer_services.refresh_create(account=tenant.account, content=content, user=None)
    with pytest.raises(StateConflict):
        writer_services.refresh_create(account=tenant.account, content=content, user=None)


def test_a_refresh_that_is_not_approved_is_not_sent(tenant, cms_server):
    content = _live(tenant, cms_server)
    refresh = writer_services.refresh_create(account=tenant.account, content=content, user=None, title="New title")
    with pytest.raises(StateConflict):
        refresh_send_now(refresh=refresh, user=None)
    with pytest.raises(StateConflict):
        refresh_schedule(refresh=refresh, scheduled_at=timezone.now() + timedelta(hours=1))
    assert cms_server.posts[0]["title"]["raw"] == "Growing tomatoes on a balcony"


def test_changing_an_approved_refresh_sends_it_back_to_review(tenant, cms_server):
    refresh = _approved_refresh(tenant, _live(tenant, cms_server))
    refresh = writer_services.refresh_update(account=tenant.account, refresh=refresh, user=None, html="<p>Changed after approval.</p>")
    assert refresh.status == ContentStatus.REVIEW


def test_sending_a_refresh_updates_the_same_post_and_then_the_content(tenant, cms_server):
    content = _live(tenant, cms_server)
    published_at = content.published_at
    refresh = _approved_refresh(tenant, content)
    outcome = refresh_send_now(refresh=refresh, user=tenant.owner)
    assert outcome.published
    [post] = cms_server.posts
    assert post["title"]["raw"] == "Growing tomatoes on a balcony, even in a heatwave"
    assert "Watering in a heatwave" in post["content"]["raw"] and post["status"] == "publish"
    assert str(post["id"]) == content.external_id
    content.refresh_from_db()
    assert (content.title, content.html, content.site_status, content.published_at) == (refresh.title, NEW_HTML, SiteStatus.PUBLISHED, published_at)
    assert ContentRevision.objects.for_account(tenant.account).filter(content=content, title="Growing tomatoes on a balcony").exists()
    refresh.refresh_from_db()
    assert (refresh.send_status, refresh.sent_at is not None) == (RefreshSendStatus.SENT, True)
    record = PublishingRecord.objects.for_account(tenant.account).get(refresh=refresh)
    assert (record.status, record.trigger) == (PublishStatus.SUCCEEDED, PublishTrigger.MANUAL)
    with pytest.raises(StateConflict):
        refresh_send_now(refresh=refresh, user=None)


def test_a_refresh_with_a_new_title_keeps_the_live_posts_address(tenant, cms_server):
    content = _live(tenant, cms_server)
    slug, url = cms_server.posts[0]["slug"], content.external_url

    refresh_send_now(refresh=_approved_refresh(tenant, content, title="A wholly new title"), user=tenant.owner)

    content.refresh_from_db()
    assert (cms_server.posts[0]["slug"], content.external_url) == (slug, url)


def test_a_refresh_keeps_the_post_live_whatever_the_default_post_status(tenant, cms_server):
    content = _live(tenant, cms_server)
    ContentSettings.objects.for_account(tenant.account).update_or_create(account=tenant.account, key="publishing", defaults={"values": {"default_publish_status": "draft"}})
    refresh_send_now(refresh=_approved_refresh(tenant, content), user=None)
    assert cms_server.posts[0]["status"] == "publish"


def test_a_failed_send_leaves_the_live_post_and_content_as_they_were_and_retries(tenant, cms_server):
    content = _live(tenant, cms_server)
    before = _row(content)
    refresh = _approved_refresh(tenant, content)
    cms_server.fail_next(1, status=503)
    with pytest.raises(CMSPublishFailed):
        refresh_send_now(refresh=refresh, user=None)
    assert _row(content) == before
    refresh.refresh_from_db()
    assert refresh.send_status == RefreshSendStatus.SCHEDULED
    record = PublishingRecord.objects.for_account(tenant.account).get(refresh=refresh)
    assert (record.status, record.retry_at) == (PublishStatus.FAILED, refresh.scheduled_at)
    publish_due(now=refresh.scheduled_at + timedelta(seconds=1))
    refresh.refresh_from_db()
    assert refresh.send_status == RefreshSendStatus.SENT
    assert PublishingRecord.objects.for_account(tenant.account).filter(refresh=refresh).order_by("id").last().attempt == 2


def test_a_refresh_whose_worker_died_goes_back_on_the_schedule_and_the_content_stays_live(tenant, cms_server, settings):
    content = _live(tenant, cms_server)
    refresh = _approved_refresh(tenant, content)
    # A worker claimed the refresh and died before the push.
    ContentRefresh.objects.for_account(tenant.account).filter(pk=refresh.pk).update(send_status=RefreshSendStatus.SENDING)
    type(content).objects.for_account(tenant.account).filter(pk=content.pk).update(site_status=SiteStatus.PUBLISHING)
    record = PublishingRecord.objects.create(account=tenant.account, site=tenant.site, content=content, refresh=refresh, platform="wordpress", trigger=PublishTrigger.SCHEDULED)
    later = timezone.now() + timedelta(seconds=settings.INKWELL_CMS["PUBLISH_STALE_SECONDS"] + 5)
    PublishingRecord.objects.for_account(tenant.account).filter(pk=record.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert recover_stalled(now=later) == 1
    content.refresh_from_db()
    refresh.refresh_from_db()
    assert (content.site_status, refresh.send_status) == (SiteStatus.PUBLISHED, RefreshSendStatus.SCHEDULED)


def test_unscheduling_a_refresh_takes_it_off_the_schedule(tenant, cms_server):
    refresh = _approved_refresh(tenant, _live(tenant, cms_server))
    refresh_schedule(refresh=refresh, scheduled_at=timezone.now() + timedelta(hours=1))
    refresh = refresh_unschedule(refresh=refresh)
    assert (refresh.send_status, refresh.scheduled_at) == (RefreshSendStatus.NOT_SENT, None)
    assert publish_due(now=timezone.now() + timedelta(hours=2)) == 0


def test_a_refresh_outside_the_sites_publishing_days_or_slots_is_refused_naming_the_rule(tenant, cms_server):
    """Contract section 12 holds for refreshes too: the update of a live post goes out within the
    site's publishing days and time slots, in its time zone."""
    from inkwell.api.exceptions import OutsidePublishingRules
    from inkwell.writer.tests.test_content_schedule import _next, _site_rules

    _site_rules(tenant)
    refresh = _approved_refresh(tenant, _live(tenant, cms_server))

    with pytest.raises(OutsidePublishingRules) as refused:
        refresh_schedule(refresh=refresh, scheduled_at=_next(5, 9, 30))
    assert refused.value.error == "Saturday is not a publishing day of this site"
    with pytest.raises(OutsidePublishingRules) as refused:
        refresh_schedule(refresh=refresh, scheduled_at=_next(1, 11, 30))
    assert refused.value.error == "11:30 is outside this site's publishing time slots (09:00-10:00)"
    refresh.refresh_from_db()
    assert (refresh.send_status, refresh.scheduled_at) == (RefreshSendStatus.NOT_SENT, None)


def test_a_refresh_is_not_held_by_the_publication_limits_which_count_new_posts(tenant, cms_server):
    from inkwell.writer.tests.test_content_schedule import _next, _site_rules

    _site_rules(tenant, daily_publish_limit=1)
    refresh = _approved_refresh(tenant, _live(tenant, cms_server))
    other = ready_content(tenant, images=False)
    type(other).objects.for_account(tenant.account).filter(pk=other.pk).update(site_status=SiteStatus.SCHEDULED, scheduled_publish_at=_next(2, 9, 0))

    refresh = refresh_schedule(refresh=refresh, scheduled_at=_next(2, 9, 30))

    assert refresh.send_status == RefreshSendStatus.SCHEDULED


def test_a_refresh_scheduled_anyway_through_the_api_records_the_override(tenant, cms_server, as_user):
    from inkwell.api.tests import assert_error
    from inkwell.publishing.models import ScheduleOverride
    from inkwell.writer.tests.test_content_schedule import _next, _site_rules

    refresh = _approved_refresh(tenant, _live(tenant, cms_server))
    _site_rules(tenant)
    client = as_user(tenant.admin)
    url = reverse("writer-refresh-schedule", kwargs={"pk": refresh.pk})
    saturday = _next(5, 11, 30)

    assert_error(client.post(url, {"scheduled_at": saturday.isoformat()}, format="json"), 409, "outside_publishing_rules", error="Saturday is not a publishing day of this site")
    anyway = client.post(url, {"scheduled_at": saturday.isoformat(), "override_rules": True}, format="json")

    assert anyway.status_code == 200 and anyway.json()["data"]["send_status"] == "scheduled"
    [override] = ScheduleOverride.objects.for_account(tenant.account).filter(refresh=refresh)
    assert (override.content_id, override.rule, override.created_by, override.scheduled_publish_at) == (refresh.content_id, "Saturday is not a publishing day of this site", tenant.admin, saturday)


# The API


def test_the_refresh_api_creates_reviews_approves_and_schedules(tenant, cms_server, as_user):
    content = _live(tenant, cms_server)
    client = as_user(tenant.owner)
    created = client.post(reverse("writer-refresh-list"), {"content_id": content.pk, "reason": "Decaying"}, format="json")
    assert created.status_code == 201, created.content
    refresh_id = created.json()["data"]["id"]
    detail = reverse("writer-refresh-detail", kwargs={"pk": refresh_id})
    assert client.patch(detail, {"title": "Fresh title", "status": "review"}, format="json").status_code == 200
    assert client.post(reverse("writer-refresh-schedule", kwargs={"pk": refresh_id}), {"scheduled_at": (timezone.now() + timedelta(hours=1)).isoformat()}, format="json").status_code == 409
    assert client.patch(detail, {"status": "approved"}, format="json").json()["data"]["status"] == "approved"
    at = (timezone.now() + timedelta(hours=1)).isoformat()
    scheduled = client.post(reverse("writer-refresh-schedule", kwargs={"pk": refresh_id}), {"scheduled_at": at}, format="json")
    assert scheduled.status_code == 200 and scheduled.json()["data"]["send_status"] == "scheduled"
    assert client.patch(detail, {"title": "Too late"}, format="json").status_code == 409
    listed = client.get(reverse("writer-refresh-list"), {"send_status": "scheduled"})
    assert [item["id"] for item in listed.json()["results"]] == [refresh_id]
    assert cms_server.posts[0]["title"]["raw"] == "Growing tomatoes on a balcony"


# The real WordPress


@pytest.mark.wordpress
def test_a_refresh_scheduled_for_later_updates_the_real_wordpress_at_its_time_exactly_once(tenant, wordpress, allow_private_cms):
    content = _live(tenant, wordpress)
    refresh = _approved_refresh(tenant, content, title=f"Refreshed {content.pk}-{tenant.account.pk}")
    at = timezone.now() + timedelta(hours=1)
    refresh_schedule(refresh=refresh, scheduled_at=at)

    def remote():
        with wordpress.client() as client:
            response = client.get(f"/wp/v2/posts/{content.external_id}", params={"context": "edit"})
            response.raise_for_status()
            return response.json()

    before = remote()
    assert publish_due(now=at - timedelta(minutes=1)) == 0
    assert remote()["title"]["raw"] == before["title"]["raw"] == "Growing tomatoes on a balcony"
    assert _row(content)[0] == "Growing tomatoes on a balcony"

    assert publish_due(now=at + timedelta(seconds=1)) == 1
    after = remote()
    assert after["title"]["raw"] == refresh.title
    assert "Watering in a heatwave" in after["content"]["raw"]
    assert after["status"] == "publish" and after["id"] == before["id"]

    # A second sweep, and a duplicate delivery of the same refresh, do nothing.
    assert publish_due(now=at + timedelta(minutes=5)) == 0
    assert send_scheduled_refresh(refresh_id=refresh.pk, now=at + timedelta(minutes=5)) is None
    assert remote()["modified_gmt"] == after["modified_gmt"]
    records = PublishingRecord.objects.for_account(tenant.account).filter(refresh=refresh)
    assert [(record.status, record.trigger) for record in records] == [(PublishStatus.SUCCEEDED, PublishTrigger.SCHEDULED)]
    content.refresh_from_db()
    assert (content.title, content.site_status) == (refresh.title, SiteStatus.PUBLISHED)


# The real Ghost


def test_a_refresh_scheduled_for_later_updates_the_real_ghost_at_its_time_exactly_once(tenant, ghost, allow_private_cms):
    SiteIntegration.objects.create(account=tenant.account, site=tenant.site, platform="ghost", base_url=ghost.url, username="", app_password=ghost.admin_key, webhook_secret="s" * 32)
    content = ready_content(tenant, images=False)
    publish_now(content=content, user=tenant.owner)
    content.refresh_from_db()
    refresh = _approved_refresh(tenant, content, title=f"Refreshed {content.pk}-{tenant.account.pk}")
    at = timezone.now() + timedelta(hours=1)
    refresh_schedule(refresh=refresh, scheduled_at=at)

    def remote():
        with ghost.client() as client:
            response = client.get(f"/posts/{content.external_id}/", params={"formats": "html"})
            response.raise_for_status()
            return response.json()["posts"][0]

    before = remote()
    assert publish_due(now=at - timedelta(minutes=1)) == 0
    assert remote()["title"] == before["title"] == "Growing tomatoes on a balcony"
    assert _row(content)[0] == "Growing tomatoes on a balcony"

    assert publish_due(now=at + timedelta(seconds=1)) == 1
    after = remote()
    assert after["title"] == refresh.title
    assert "Watering in a heatwave" in after["html"] and "Cherry tomatoes" not in after["html"]
    assert (after["status"], after["id"], after["url"]) == ("published", before["id"], before["url"])

    # A second sweep, and a duplicate delivery of the same refresh, do nothing.
    assert publish_due(now=at + timedelta(minutes=5)) == 0
    assert send_scheduled_refresh(refresh_id=refresh.pk, now=at + timedelta(minutes=5)) is None
    assert remote()["updated_at"] == after["updated_at"]
    records = PublishingRecord.objects.for_account(tenant.account).filter(refresh=refresh)
    assert [(record.status, record.trigger, record.platform) for record in records] == [(PublishStatus.SUCCEEDED, PublishTrigger.SCHEDULED, "ghost")]
    content.refresh_from_db()
    assert (content.title, content.site_status, content.external_id) == (refresh.title, SiteStatus.PUBLISHED, before["id"])


def test_a_due_refresh_of_an_article_no_longer_live_is_not_sent_and_the_team_is_told(tenant, cms_server):
    content = _live(tenant, cms_server)
    refresh = _approved_refresh(tenant, content)
    at = timezone.now() + timedelta(hours=1)
    refresh_schedule(refresh=refresh, scheduled_at=at)
    type(content).objects.for_account(tenant.account).filter(pk=content.pk).update(site_status=SiteStatus.NOT_PUBLISHED)
    assert publish_due(now=at + timedelta(seconds=1)) == 0
    refresh.refresh_from_db()
    assert refresh.send_status == RefreshSendStatus.FAILED
    assert not PublishingRecord.objects.for_account(tenant.account).filter(refresh=refresh).exists()
    assert Notification.objects.for_account(tenant.account).filter(notification_type="content_publish_failed", metadata__error_code="not_live").count() == 1
    assert publish_due(now=at + timedelta(minutes=2)) == 0
    assert cms_server.posts[0]["title"]["raw"] == "Growing tomatoes on a balcony"


def test_a_refresh_linking_to_an_address_the_site_does_not_have_is_neither_sent_nor_scheduled(tenant, cms_server):
    content = _live(tenant, cms_server)
    html = f'{NEW_HTML}<p>See <a href="{content.external_url}">this very post</a> and <a href="/not-live-yet/">the next one</a>.</p>'
    refresh = _approved_refresh(tenant, content, html=html)

    with pytest.raises(BusinessRuleViolation) as refused:
        refresh_send_now(refresh=refresh, user=tenant.owner)
    assert refused.value.errors["html"][0].endswith(": /not-live-yet/")
    with pytest.raises(BusinessRuleViolation):
        refresh_schedule(refresh=refresh, scheduled_at=timezone.now() + timedelta(hours=1))
    assert cms_server.posts[0]["title"]["raw"] == "Growing tomatoes on a balcony"
    assert not PublishingRecord.objects.for_account(tenant.account).filter(refresh=refresh).exists()
