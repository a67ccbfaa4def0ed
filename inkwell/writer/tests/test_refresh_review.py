"""A refresh goes through the same review as a new article (#37, #36): the site's four-eyes rule
holds for its approval (someone other than its last editor, and never the automation), and a
refresh written with AI meets automation's review gate (approved by itself only where the site
approves generated content automatically and no rule asks for a person; never sent by itself)."""

import pytest

from inkwell.api.exceptions import BusinessRuleViolation
from inkwell.sitesettings.services import unified_settings_update
from inkwell.writer import services
from inkwell.writer.models import ContentStatus, RefreshSendStatus
from inkwell.tenancy.models import Role, RoleName, SiteUserAccess, User
from inkwell.writer.tests.factories import make_live_content

pytestmark = pytest.mark.django_db

WEAK_HTML = "<p>We run on the hill each day.</p><h2>Fit</h2><p>Good trail shoes grip the rock.</p>"


def _in_review(tenant, editor):
    refresh = services.refresh_create(account=tenant.account, content=make_live_content(tenant), user=editor)
    return services.refresh_update(account=tenant.account, refresh=refresh, user=editor, status=ContentStatus.REVIEW, title="Running shoes, tested again")


def test_under_four_eyes_the_last_editor_of_a_refresh_may_not_approve_it_and_someone_else_may(tenant):
    unified_settings_update(site=tenant.site, changes={"review_rules": {"four_eyes": True}})
    refresh = _in_review(tenant, tenant.owner)

    with pytest.raises(BusinessRuleViolation) as refused:
        services.refresh_update(account=tenant.account, refresh=refresh, user=tenant.owner, status=ContentStatus.APPROVED)
    approved = services.refresh_update(account=tenant.account, refresh=refresh, user=tenant.admin, status=ContentStatus.APPROVED)

    assert refused.value.code == "four_eyes"
    assert (approved.status, approved.last_edited_by_id) == (ContentStatus.APPROVED, tenant.owner.pk)


def test_under_four_eyes_an_edit_made_while_approving_makes_the_approver_its_last_editor(tenant):
    unified_settings_update(site=tenant.site, changes={"review_rules": {"four_eyes": True}})
    refresh = _in_review(tenant, tenant.owner)

    with pytest.raises(BusinessRuleViolation):
        services.refresh_update(account=tenant.account, refresh=refresh, user=tenant.admin, status=ContentStatus.APPROVED, title="Changed while approving")

    refresh.refresh_from_db()
    assert (refresh.status, refresh.title) == (ContentStatus.REVIEW, "Running shoes, tested again")


def test_under_four_eyes_the_automation_never_approves_a_refresh(tenant):
    unified_settings_update(site=tenant.site, changes={"review_rules": {"four_eyes": True}})
    refresh = _in_review(tenant, tenant.owner)

    with pytest.raises(BusinessRuleViolation) as refused:
        services.refresh_update(account=tenant.account, refresh=refresh, user=None, status=ContentStatus.APPROVED)

    assert refused.value.code == "four_eyes"


def test_the_api_answers_who_last_edited_a_refresh(tenant, as_user):
    refresh = _in_review(tenant, tenant.admin)

    answer = as_user(tenant.owner).get(f"/api/v1/writer/refreshes/{refresh.pk}/").json()["data"]

    assert answer["last_edited_by_id"] == tenant.admin.pk and answer["last_edited_at"] is not None


def test_without_rules_the_editor_of_a_refresh_approves_it_as_before(tenant):
    refresh = _in_review(tenant, tenant.owner)

    assert services.refresh_update(account=tenant.account, refresh=refresh, user=tenant.owner, status=ContentStatus.APPROVED).status == ContentStatus.APPROVED


# A refresh written with AI at automation's review gate


def _written_with_ai(tenant, funded, as_user, eager_jobs):
    funded(10)
    article = make_live_content(tenant, title="Trail Shoes for Hill Runs", html=WEAK_HTML, focus_keyword="trail shoes", meta_description="Hills.")
    refresh = services.refresh_create(account=tenant.account, content=article, user=tenant.owner, reason="Striking distance for “trail shoes for hills”")
    with eager_jobs():
        response = as_user(tenant.owner).post("/api/v1/optimizer/refresh_with_ai/", {"refresh_id": refresh.pk}, format="json")
    assert response.status_code == 202, response.content
    refresh.refresh_from_db()
    article.refresh_from_db()
    return refresh, article


def test_with_automatic_approval_a_refresh_written_with_ai_is_approved_but_not_sent(tenant, funded, as_user, eager_jobs):
    unified_settings_update(site=tenant.site, changes={"publishing_settings": {"auto_approval_enabled": True, "auto_publish_enabled": True}})

    refresh, article = _written_with_ai(tenant, funded, as_user, eager_jobs)

    assert refresh.html != WEAK_HTML
    assert (refresh.status, refresh.send_status, refresh.scheduled_at) == (ContentStatus.APPROVED, RefreshSendStatus.NOT_SENT, None)
    assert article.html == WEAK_HTML


def test_with_automatic_approval_and_an_approval_rule_a_refresh_written_with_ai_waits_for_a_person(tenant, funded, as_user, eager_jobs):
    unified_settings_update(site=tenant.site, changes={"publishing_settings": {"auto_approval_enabled": True}, "review_rules": {"client_approval": True}})

    refresh, _ = _written_with_ai(tenant, funded, as_user, eager_jobs)

    assert refresh.html != WEAK_HTML and refresh.status == ContentStatus.DRAFT


def test_without_automatic_approval_a_refresh_written_with_ai_stays_a_draft(tenant, funded, as_user, eager_jobs):
    refresh, _ = _written_with_ai(tenant, funded, as_user, eager_jobs)

    assert refresh.html != WEAK_HTML and refresh.status == ContentStatus.DRAFT


@pytest.fixture
def reviewer(tenant):
    user = User.dangerously_unscoped.create_user("reviewer-a@example.com", "correct-horse-1", account=tenant.account, role=Role.objects.get(name=RoleName.REVIEWER))
    SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return user


def test_a_reviewer_approves_a_refresh_in_review_through_the_api_as_an_article(tenant, reviewer, as_user):
    refresh = _in_review(tenant, tenant.owner)

    response = as_user(reviewer).post(f"/api/v1/writer/refreshes/{refresh.pk}/approve/")

    assert response.status_code == 200, response.content
    assert response.json()["data"]["status"] == ContentStatus.APPROVED


def test_a_reviewer_sends_a_refresh_in_review_back_to_draft_through_the_api(tenant, reviewer, as_user):
    refresh = _in_review(tenant, tenant.owner)

    response = as_user(reviewer).post(f"/api/v1/writer/refreshes/{refresh.pk}/request_changes/")

    assert response.status_code == 200 and response.json()["data"]["status"] == ContentStatus.DRAFT


def test_a_refresh_not_in_review_is_neither_approved_nor_sent_back(tenant, reviewer, as_user):
    draft = services.refresh_create(account=tenant.account, content=make_live_content(tenant), user=tenant.owner)

    response = as_user(reviewer).post(f"/api/v1/writer/refreshes/{draft.pk}/approve/")

    assert response.status_code == 409
    assert response.json()["errors"] == {"status": ["Only a refresh in review can be approved or sent back; this one is draft"]}


def test_a_reviewers_approval_of_a_refresh_keeps_the_four_eyes_rule(tenant, as_user):
    unified_settings_update(site=tenant.site, changes={"review_rules": {"four_eyes": True}})
    refresh = _in_review(tenant, tenant.admin)

    response = as_user(tenant.admin).post(f"/api/v1/writer/refreshes/{refresh.pk}/approve/")

    assert (response.status_code, response.json()["code"]) == (422, "four_eyes")


def test_a_reviewer_may_not_change_a_refreshs_text_through_the_api(tenant, reviewer, as_user):
    refresh = _in_review(tenant, tenant.owner)

    response = as_user(reviewer).patch(f"/api/v1/writer/refreshes/{refresh.pk}/", {"title": "Mine now"}, format="json")

    assert response.status_code == 403
