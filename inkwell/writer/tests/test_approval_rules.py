"""The approval rules of a site (#36): four eyes (someone other than the last editor approves),
the client's approval through a review link before the team's, each approval recorded with who
and when, and the reviewer role (comments and approves; never edits or publishes)."""

import pytest
from django.test import Client

from inkwell.api.tests import assert_error
from inkwell.sitesettings.services import unified_settings_update
from inkwell.tenancy.models import Role, RoleName, SiteUserAccess, User
from inkwell.writer import services
from inkwell.writer.models import Content, ContentApproval, ContentStatus, ReviewDecision, ReviewStep
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"
SETTINGS = "/api/v1/integration/sites/{}/unified-settings/"


def rules(site, **values):
    unified_settings_update(site=site, changes={"review_rules": values})


def edit(client, content, **fields):
    response = client.post(f"{CONTENT}{content.pk}/update_content/", fields, format="json")
    assert response.status_code == 200, response.content
    return response


def approve(client, content):
    return client.post(f"{CONTENT}{content.pk}/approve/", {}, format="json")


def status_of(content) -> str:
    return Content.dangerously_unscoped.get(pk=content.pk).status


@pytest.fixture
def reviewer(tenant):
    user = User.dangerously_unscoped.create_user("reviewer-a@example.com", "correct-horse-1", account=tenant.account, role=Role.objects.get(name=RoleName.REVIEWER))
    SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return user


@pytest.fixture
def in_review(tenant):
    return make_content(tenant, status=ContentStatus.REVIEW)


# The settings


def test_the_rules_are_off_by_default_and_set_per_site_through_the_unified_settings(tenant, as_user, second_site):
    client = as_user(tenant.owner)

    before = client.get(SETTINGS.format(tenant.site.pk)).json()["data"]["review_rules"]
    changed = client.patch(SETTINGS.format(tenant.site.pk), {"review_rules": {"four_eyes": True}}, format="json")
    other = client.get(SETTINGS.format(second_site.pk)).json()["data"]["review_rules"]

    assert before == {"four_eyes": False, "client_approval": False}
    assert changed.status_code == 200, changed.content
    assert changed.json()["data"]["review_rules"] == {"four_eyes": True, "client_approval": False}
    assert other == {"four_eyes": False, "client_approval": False}


def test_a_rule_that_is_not_a_boolean_is_refused(tenant, as_user):
    response = as_user(tenant.owner).patch(SETTINGS.format(tenant.site.pk), {"review_rules": {"four_eyes": "yes"}}, format="json")

    assert response.status_code == 400


# Four eyes


def test_four_eyes_the_last_editor_cannot_approve_their_own_article(tenant, as_user, in_review):
    rules(tenant.site, four_eyes=True)
    admin = as_user(tenant.admin)
    edit(admin, in_review, title="Edited by the admin")

    response = approve(admin, in_review)

    assert_error(response, 422, "four_eyes", errors={"status": [services.FOUR_EYES]}, error=services.FOUR_EYES)
    assert status_of(in_review) == ContentStatus.REVIEW
    assert not ContentApproval.objects.for_account(tenant.account).exists()


def test_four_eyes_also_holds_through_update_content(tenant, as_user, in_review):
    rules(tenant.site, four_eyes=True)
    admin = as_user(tenant.admin)
    edit(admin, in_review, title="Edited by the admin")

    response = admin.post(f"{CONTENT}{in_review.pk}/update_content/", {"status": "approved"}, format="json")

    assert response.status_code == 422 and response.json()["code"] == "four_eyes"


def test_four_eyes_an_edit_and_approval_in_one_request_is_refused(tenant, as_user, in_review):
    rules(tenant.site, four_eyes=True)

    response = as_user(tenant.owner).post(f"{CONTENT}{in_review.pk}/update_content/", {"title": "Mine now", "status": "approved"}, format="json")

    assert response.status_code == 422
    assert Content.dangerously_unscoped.get(pk=in_review.pk).title != "Mine now"


def test_four_eyes_someone_else_approves_and_the_approval_records_who_and_when(tenant, as_user, in_review):
    rules(tenant.site, four_eyes=True)
    edit(as_user(tenant.admin), in_review, title="Edited by the admin")

    response = approve(as_user(tenant.owner), in_review)

    assert response.status_code == 200, response.content
    assert status_of(in_review) == ContentStatus.APPROVED
    approval = ContentApproval.objects.for_account(tenant.account).get()
    assert (approval.step, approval.decision, approval.user_id, approval.reviewer_name) == (ReviewStep.TEAM, ReviewDecision.APPROVED, tenant.owner.pk, tenant.owner.email)
    assert approval.created_at is not None


def test_without_four_eyes_the_last_editor_may_approve(tenant, as_user, in_review):
    admin = as_user(tenant.admin)
    edit(admin, in_review, title="Edited by the admin")

    assert approve(admin, in_review).status_code == 200


def test_four_eyes_needs_a_person_the_service_refuses_an_approval_by_nobody(tenant, in_review):
    rules(tenant.site, four_eyes=True)

    with pytest.raises(Exception) as raised:
        services.content_approve(account=tenant.account, content=in_review, user=None)

    assert getattr(raised.value, "code", None) == "four_eyes"
    assert status_of(in_review) == ContentStatus.REVIEW


# The client first


def test_client_approval_first_the_team_cannot_approve_before_the_client(tenant, as_user, in_review):
    rules(tenant.site, client_approval=True)

    response = approve(as_user(tenant.owner), in_review)

    assert response.status_code == 422 and response.json()["code"] == "client_approval_required"


def test_client_approval_first_the_team_approves_after_the_client_approved_through_a_link(tenant, as_user, in_review):
    rules(tenant.site, client_approval=True)
    link = services.review_link_create(account=tenant.account, content=in_review, user=tenant.owner)
    Client().post(f"/review/{link.token}/decision/", {"name": "Clara Client", "decision": "approved"})

    response = approve(as_user(tenant.owner), in_review)

    assert response.status_code == 200, response.content
    steps = list(ContentApproval.objects.for_account(tenant.account).order_by("id").values_list("step", "reviewer_name"))
    assert steps == [("client", "Clara Client"), ("team", tenant.owner.email)]


def test_client_approval_first_an_edit_after_the_clients_approval_needs_a_new_one(tenant, as_user, in_review):
    rules(tenant.site, client_approval=True)
    link = services.review_link_create(account=tenant.account, content=in_review, user=tenant.owner)
    services.review_link_decide(link=link, reviewer_name="Clara", decision=ReviewDecision.APPROVED)
    edit(as_user(tenant.admin), in_review, html="<p>Changed after the client saw it</p>")

    refused = approve(as_user(tenant.owner), in_review)
    services.review_link_decide(link=link, reviewer_name="Clara", decision=ReviewDecision.APPROVED)
    accepted = approve(as_user(tenant.owner), in_review)

    assert (refused.status_code, accepted.status_code) == (422, 200)


def test_client_approval_first_a_request_for_changes_is_not_an_approval(tenant, as_user, in_review):
    rules(tenant.site, client_approval=True)
    link = services.review_link_create(account=tenant.account, content=in_review, user=tenant.owner)
    services.review_link_decide(link=link, reviewer_name="Clara", decision=ReviewDecision.APPROVED)
    services.review_link_decide(link=link, reviewer_name="Clara", decision=ReviewDecision.CHANGES_REQUESTED)

    assert approve(as_user(tenant.owner), in_review).status_code == 422


# The reviewer role


def test_a_reviewer_approves_and_requests_changes(tenant, as_user, reviewer):
    first, second = make_content(tenant, status=ContentStatus.REVIEW), make_content(tenant, status=ContentStatus.REVIEW)
    client = as_user(reviewer)

    approved = approve(client, first)
    sent_back = client.post(f"{CONTENT}{second.pk}/request_changes/", {"note": "Shorter intro"}, format="json")

    assert (approved.status_code, sent_back.status_code) == (200, 200)
    assert (status_of(first), status_of(second)) == (ContentStatus.APPROVED, ContentStatus.DRAFT)
    request = ContentApproval.objects.for_account(tenant.account).get(content=second)
    assert (request.decision, request.user_id, request.note) == (ReviewDecision.CHANGES_REQUESTED, reviewer.pk, "Shorter intro")


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "{id}/update_content/", {"title": "Reviewer edit"}),
        ("patch", "{id}/", {"title": "Reviewer edit"}),
        ("post", "{id}/publish_to_cms/", {}),
        ("post", "{id}/schedule/", {"scheduled_publish_at": "2099-01-01T09:00:00Z"}),
        ("post", "{id}/generate_images/", {}),
        ("post", "", {"title": "New", "site_id": 0}),
        ("post", "{id}/review_links/", {}),
    ],
    ids=["update_content", "patch", "publish", "schedule", "images", "create", "review-link"],
)
def test_a_reviewer_never_edits_or_publishes(tenant, as_user, reviewer, method, path, body):
    content = make_content(tenant, status=ContentStatus.APPROVED)

    response = getattr(as_user(reviewer), method)(CONTENT + path.format(id=content.pk), body, format="json")

    assert response.status_code == 403, (path, response.status_code)
    after = Content.dangerously_unscoped.get(pk=content.pk)
    assert (after.title, after.status, after.site_status) == (content.title, content.status, content.site_status)


def test_a_viewer_cannot_approve(tenant, as_user, in_review, granted):
    assert approve(as_user(tenant.viewer), in_review).status_code == 403
    assert status_of(in_review) == ContentStatus.REVIEW


def test_an_owner_makes_a_teammate_a_reviewer(big_tenant, as_user):
    response = as_user(big_tenant.owner).post("/api/v1/auth/users/", {"email": "new-reviewer@example.com", "password": "long-enough-1", "role": "reviewer"}, format="json")

    assert response.status_code == 201, response.content
    assert User.objects.for_account(big_tenant.account).get(email="new-reviewer@example.com").role_name == RoleName.REVIEWER
