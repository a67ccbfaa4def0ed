"""Opportunities from search performance (issue #37), on hand-made rows: striking distance,
decaying articles, cannibalization, review-by dates and their reminder, and an opportunity
becoming a refresh."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.urls import reverse

from inkwell.notifications.models import Notification, NotificationType
from inkwell.performance import selectors, services
from inkwell.performance.models import ArticleReview
from inkwell.performance.tests.factories import make_metric
from inkwell.sitesettings.models import SiteSettings
from inkwell.writer.models import ContentRefresh, ContentStatus
from inkwell.writer.tests.factories import make_live_content

pytestmark = pytest.mark.django_db

AUG = {"start": date(2026, 8, 1), "end": date(2026, 8, 31)}
SEP = {"start": date(2026, 9, 1), "end": date(2026, 9, 30)}


def _article(tenant, slug: str, **fields):
    fields.setdefault("title", slug.replace("-", " ").capitalize())
    return make_live_content(tenant, url=f"https://blog.example.com/{slug}/", external_id=str(abs(hash(slug)) % 10**8), **fields)


def _query(tenant, content, query, *, position, impressions, clicks=1, period=SEP):
    return make_metric(tenant, content=content, kind="page+query", query=query, position=position, impressions=impressions, clicks=clicks, **period)


def _settings(tenant, **performance):
    SiteSettings.objects.for_account(tenant.account).update_or_create(account=tenant.account, site=tenant.site, defaults={"performance": performance})


# Striking distance


def test_striking_distance_takes_positions_8_to_20_with_real_impressions(tenant):
    article = _article(tenant, "running-shoes", html="<h2>Fit</h2><p>Try shoes on.</p>")
    _query(tenant, article, "in range low", position=8.0, impressions=50)
    _query(tenant, article, "in range high", position=20.0, impressions=300)
    _query(tenant, article, "already top", position=7.9, impressions=5000)
    _query(tenant, article, "too deep", position=20.1, impressions=5000)
    _query(tenant, article, "too few impressions", position=12.0, impressions=49)
    found = selectors.striking_distance(site=tenant.site)
    assert [(item.query, item.content_id) for item in found] == [("in range high", article.pk), ("in range low", article.pk)]


def test_striking_distance_uses_only_the_newest_period(tenant):
    article = _article(tenant, "running-shoes")
    _query(tenant, article, "last month", position=12.0, impressions=500, period=AUG)
    _query(tenant, article, "this month", position=12.0, impressions=500)
    assert [item.query for item in selectors.striking_distance(site=tenant.site)] == ["this month"]


def test_striking_distance_thresholds_follow_the_site_settings(tenant):
    article = _article(tenant, "running-shoes")
    _query(tenant, article, "deep query", position=25.0, impressions=60)
    assert selectors.striking_distance(site=tenant.site) == []
    _settings(tenant, striking_max_position=30, striking_min_impressions=60)
    assert [item.query for item in selectors.striking_distance(site=tenant.site)] == ["deep query"]


def test_the_action_is_a_section_when_the_article_does_not_speak_of_the_query(tenant):
    article = _article(tenant, "running-shoes", html="<h2>Fit</h2><p>Try shoes on in the evening.</p>")
    _query(tenant, article, "marathon taper plan", position=11.0, impressions=400)
    assert selectors.striking_distance(site=tenant.site)[0].action == "Add a section that answers “marathon taper plan”"


def test_the_action_is_a_heading_when_the_words_are_in_the_text_but_no_heading(tenant):
    article = _article(tenant, "running-shoes", html="<h2>Fit</h2><p>Wide running shoes suit flat feet.</p>")
    _query(tenant, article, "wide running shoes", position=11.0, impressions=400)
    assert selectors.striking_distance(site=tenant.site)[0].action == "Add a heading on “wide running shoes”"


def test_the_action_names_live_articles_to_link_from_when_the_article_covers_the_query(tenant):
    article = _article(tenant, "running-shoes", html="<h2>Wide running shoes</h2><p>Wide running shoes suit flat feet.</p>")
    related = _article(tenant, "flat-feet", title="Running with flat feet", html="<p>Flat feet need wide running shoes.</p>")
    _article(tenant, "already-links", title="Shoe guide", html='<p>Wide running shoes: <a href="https://blog.example.com/running-shoes/">here</a>.</p>')
    _article(tenant, "unrelated", title="Marathon taper", html="<p>Rest before the race.</p>")
    _query(tenant, article, "wide running shoes", position=11.0, impressions=400)
    found = selectors.striking_distance(site=tenant.site)[0]
    assert found.link_from == [{"id": related.pk, "title": "Running with flat feet"}]
    assert found.action == "Add internal links to it from “Running with flat feet”"


# Decaying articles


def _page(tenant, content, clicks, period):
    return make_metric(tenant, content=content, kind="page", clicks=clicks, impressions=clicks * 20, position=6.0, **period)


def test_an_article_whose_clicks_fell_beyond_the_threshold_is_decaying(tenant):
    # August has 31 days and September 30: clicks are compared per day.
    falling = _article(tenant, "falling")
    steady = _article(tenant, "steady")
    _page(tenant, falling, 310, AUG)
    _page(tenant, falling, 209, SEP)  # 10/day → 6.97/day: 30.3% down
    _page(tenant, steady, 310, AUG)
    _page(tenant, steady, 211, SEP)  # 7.03/day: 29.7% down
    found = selectors.decaying_articles(site=tenant.site)
    assert [(item["content_id"], item["previous_clicks"], item["clicks"]) for item in found] == [(falling.pk, 310, 209)]
    assert found[0]["drop_pct"] == 30.3


def test_an_article_gone_from_the_current_period_is_decaying(tenant):
    vanished = _article(tenant, "vanished")
    other = _article(tenant, "other")
    _page(tenant, vanished, 100, AUG)
    _page(tenant, other, 100, SEP)
    assert [item["content_id"] for item in selectors.decaying_articles(site=tenant.site)] == [vanished.pk]


def test_too_few_clicks_before_is_not_decay_and_the_threshold_is_the_sites(tenant):
    small = _article(tenant, "small")
    medium = _article(tenant, "medium")
    _page(tenant, small, 9, AUG)
    _page(tenant, small, 0, SEP)
    _page(tenant, medium, 310, AUG)
    _page(tenant, medium, 270, SEP)  # about 10% down
    assert selectors.decaying_articles(site=tenant.site) == []
    _settings(tenant, decay_threshold_pct=10, decay_min_clicks=5)
    assert {item["content_id"] for item in selectors.decaying_articles(site=tenant.site)} == {small.pk, medium.pk}


def test_without_a_previous_period_nothing_is_decaying(tenant):
    _page(tenant, _article(tenant, "only"), 0, SEP)
    assert selectors.decaying_articles(site=tenant.site) == []


# Cannibalization


def test_two_articles_shown_for_one_query_compete(tenant):
    guide = _article(tenant, "guide", title="Running shoes guide")
    review = _article(tenant, "review", title="Running shoes review")
    _query(tenant, guide, "running shoes", position=6.0, impressions=900, clicks=40)
    _query(tenant, review, "running shoes", position=14.0, impressions=300, clicks=3)
    found = selectors.cannibalization(site=tenant.site)
    assert [item["query"] for item in found] == ["running shoes"]
    assert [article["content_id"] for article in found[0]["articles"]] == [guide.pk, review.pk]


def test_an_article_with_under_a_tenth_of_the_impressions_does_not_compete(tenant):
    guide = _article(tenant, "guide")
    stray = _article(tenant, "stray")
    _query(tenant, guide, "running shoes", position=6.0, impressions=1000)
    _query(tenant, stray, "running shoes", position=40.0, impressions=99)
    _query(tenant, guide, "trail shoes", position=6.0, impressions=1000)
    assert selectors.cannibalization(site=tenant.site) == []


def test_unmatched_pages_do_not_compete(tenant):
    guide = _article(tenant, "guide")
    _query(tenant, guide, "running shoes", position=6.0, impressions=500)
    make_metric(tenant, kind="page+query", query="running shoes", page="https://blog.example.com/tag/shoes/", position=9.0, impressions=500, **SEP)
    assert selectors.cannibalization(site=tenant.site) == []


# Review-by dates


def _published(months_ago: int) -> datetime:
    now = datetime.now(UTC)
    return now - timedelta(days=months_ago * 31)


def test_an_article_is_due_for_review_the_site_default_after_publishing(tenant):
    old = _article(tenant, "old", published_at=_published(13))
    _article(tenant, "recent", published_at=_published(11))
    due = selectors.due_for_review(site=tenant.site)
    assert [item["content_id"] for item in due] == [old.pk]
    assert due[0]["review_by"] == selectors.add_months(old.published_at.date(), 12)


def test_the_review_period_is_a_site_setting(tenant):
    recent = _article(tenant, "recent", published_at=_published(7))
    assert selectors.due_for_review(site=tenant.site) == []
    _settings(tenant, review_after_months=6)
    assert [item["content_id"] for item in selectors.due_for_review(site=tenant.site)] == [recent.pk]


def test_marking_an_article_reviewed_moves_its_review_by_date(tenant, as_user):
    old = _article(tenant, "old", published_at=_published(13))
    response = as_user(tenant.owner).post(reverse("writer-content-reviewed", kwargs={"pk": old.pk}), {}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["review_by"] == selectors.add_months(datetime.now(UTC).date(), 12).isoformat()
    assert selectors.due_for_review(site=tenant.site) == []


def test_an_articles_own_review_by_date_wins(tenant):
    recent = _article(tenant, "recent", published_at=_published(1))
    services.review_by_set(account=tenant.account, content=recent, review_by=date(2026, 1, 1))
    assert [item["content_id"] for item in selectors.due_for_review(site=tenant.site, today=date(2026, 1, 1))] == [recent.pk]


def test_adding_months_keeps_to_the_end_of_a_shorter_month():
    assert selectors.add_months(date(2025, 1, 31), 1) == date(2025, 2, 28)
    assert selectors.add_months(date(2024, 2, 29), 12) == date(2025, 2, 28)


def test_the_reminder_is_raised_once_per_article_and_date(tenant):
    old = _article(tenant, "old", published_at=_published(13))
    _article(tenant, "recent", published_at=_published(2))
    assert services.remind_due_reviews() == 1
    assert services.remind_due_reviews() == 0
    reminders = Notification.objects.for_account(tenant.account).filter(notification_type=NotificationType.CONTENT_READY_REVIEW, metadata__reason="review_due")
    assert reminders.count() == 1
    assert reminders.get().metadata["content_id"] == old.pk
    assert "is due for review" in reminders.get().message
    assert ArticleReview.objects.for_account(tenant.account).get(content=old).reminded_for is not None


# An opportunity becomes work


def test_an_opportunity_becomes_a_draft_refresh_that_says_what_to_do(tenant):
    article = _article(tenant, "running-shoes", html="<h2>Fit</h2><p>Try shoes on.</p>")
    _query(tenant, article, "marathon taper plan", position=11.0, impressions=400)
    opportunity = selectors.striking_distance(site=tenant.site)[0]
    refresh = services.refresh_from_opportunity(account=tenant.account, content=article, reason=opportunity.reason, user=tenant.owner)
    assert refresh.status == ContentStatus.DRAFT
    assert refresh.reason == "Striking distance for “marathon taper plan”: Add a section that answers “marathon taper plan”"
    assert (refresh.title, refresh.html) == (article.title, article.html)
    assert ContentRefresh.objects.for_account(tenant.account).count() == 1


def test_the_site_summary_lists_every_kind_of_opportunity(tenant, as_user):
    article = _article(tenant, "running-shoes", published_at=_published(13))
    _query(tenant, article, "wide running shoes", position=11.0, impressions=400)
    response = as_user(tenant.owner).get(reverse("site-search-performance", kwargs={"site_id": tenant.site.pk}))
    assert response.status_code == 200
    data = response.json()["data"]
    assert [item["query"] for item in data["striking_distance"]] == ["wide running shoes"]
    assert [item["content_id"] for item in data["due_for_review"]] == [article.pk]
    assert data["decaying"] == [] and data["cannibalization"] == []


def test_the_thresholds_are_read_and_changed_through_the_unified_settings(tenant, as_user):
    url = reverse("site-unified-settings", kwargs={"site_id": tenant.site.pk})
    client = as_user(tenant.owner)
    assert client.get(url).json()["data"]["performance_settings"]["review_after_months"] == 12
    response = client.patch(url, {"performance_settings": {"review_after_months": 6, "decay_threshold_pct": 20}}, format="json")
    assert response.status_code == 200, response.content
    performance = selectors.effective_settings(site=tenant.site).performance
    assert (performance.review_after_months, performance.decay_threshold_pct, performance.striking_max_position) == (6, 20, 20)
    crossed = client.patch(url, {"performance_settings": {"striking_min_position": 25}}, format="json")
    assert crossed.status_code == 422
    assert "performance_settings.striking_max_position" in crossed.json()["errors"]
