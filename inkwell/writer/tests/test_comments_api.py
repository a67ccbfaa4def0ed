"""Comments on an article (#36, contract section 12): GET, POST /writer/content/{id}/comments/,
PATCH, DELETE /writer/content/{id}/comments/{comment_id}/, POST .../comments/read/; anchors that
follow their passage, threads, resolve and reopen, @mentions and unread markers."""

import pytest
from django.core import mail

from inkwell.api.tests import assert_error
from inkwell.notifications.models import Notification, NotificationPreference, NotificationType
from inkwell.tenancy.models import Role, RoleName, SiteUserAccess, User
from inkwell.writer.models import CommentMention, ContentComment
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"
BODY = "<h2>Fit</h2><p>Try shoes on in the evening, when your feet are largest.</p><p>Walk around the shop.</p>"


def comments_url(content) -> str:
    return f"{CONTENT}{content.pk}/comments/"


def post(client, content, **body):
    return client.post(comments_url(content), body, format="json")


def listed(client, content) -> list[dict]:
    response = client.get(comments_url(content))
    assert response.status_code == 200, response.content
    return response.json()["results"]


@pytest.fixture
def article(tenant):
    return make_content(tenant, html=BODY)


@pytest.fixture
def reviewer(tenant):
    user = User.dangerously_unscoped.create_user("reviewer-a@example.com", "correct-horse-1", account=tenant.account, role=Role.objects.get(name=RoleName.REVIEWER))
    SiteUserAccess.objects.create(account=tenant.account, user=user, site=tenant.site)
    return user


def test_a_comment_on_the_whole_article_is_listed_with_its_author(tenant, as_user, article):
    response = post(as_user(tenant.owner), article, body="Strong opening.")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["body"], data["anchor"], data["parent_id"], data["author_id"], data["resolved"]) == ("Strong opening.", None, None, tenant.owner.pk, False)
    assert [item["id"] for item in listed(as_user(tenant.owner), article)] == [data["id"]]


def test_a_comment_on_a_passage_is_anchored_where_the_quote_is(tenant, as_user, article):
    response = post(as_user(tenant.owner), article, body="Why evening?", anchor={"quote": "in the evening", "start": 0, "end": 14})

    anchor = response.json()["data"]["anchor"]
    text = "Fit\nTry shoes on in the evening, when your feet are largest.\nWalk around the shop."
    assert text[anchor["start"] : anchor["end"]] == "in the evening"
    assert anchor["outdated"] is False


def test_a_quote_that_is_not_in_the_article_is_refused(tenant, as_user, article):
    response = post(as_user(tenant.owner), article, body="?", anchor={"quote": "not there at all", "start": 0, "end": 16})

    assert_error(response, 400, "validation_error", errors={"anchor.quote": ["This passage is not in the article; select it again"]})
    assert not ContentComment.objects.for_account(tenant.account).exists()


@pytest.mark.parametrize(
    "body",
    [{}, {"body": ""}, {"body": "x", "anchor": {"quote": "Fit"}}, {"body": "x", "parent_id": "abc"}, {"body": "x", "surprise": 1}, {"body": "x" * 5001}],
    ids=["no-body", "blank", "anchor-without-offsets", "parent-not-a-number", "unknown-field", "too-long"],
)
def test_bad_comment_input_is_a_400_never_a_500(tenant, as_user, article, body):
    response = as_user(tenant.owner).post(comments_url(article), body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"


def test_an_anchored_comment_follows_its_passage_through_an_edit(tenant, as_user, article):
    client = as_user(tenant.owner)
    comment_id = post(client, article, body="Why?", anchor={"quote": "Walk around the shop.", "start": 60, "end": 81}).json()["data"]["id"]

    client.post(f"{CONTENT}{article.pk}/update_content/", {"html": "<p>A new first paragraph.</p>" + BODY}, format="json")

    comment = ContentComment.objects.for_account(tenant.account).get(pk=comment_id)
    text = "A new first paragraph.\nFit\nTry shoes on in the evening, when your feet are largest.\nWalk around the shop."
    assert (comment.outdated, text[comment.anchor_start : comment.anchor_end]) == (False, "Walk around the shop.")


def test_a_comment_whose_passage_is_edited_away_is_outdated_and_keeps_its_quote_until_it_returns(tenant, as_user, article):
    client = as_user(tenant.owner)
    comment_id = post(client, article, body="Why?", anchor={"quote": "Walk around the shop.", "start": 0, "end": 21}).json()["data"]["id"]

    client.post(f"{CONTENT}{article.pk}/update_content/", {"html": "<p>Something else entirely.</p>"}, format="json")
    outdated = [item for item in listed(client, article) if item["id"] == comment_id][0]["anchor"]
    client.post(f"{CONTENT}{article.pk}/update_content/", {"html": BODY}, format="json")
    restored = [item for item in listed(client, article) if item["id"] == comment_id][0]["anchor"]

    assert (outdated["outdated"], outdated["quote"]) == (True, "Walk around the shop.")
    assert restored["outdated"] is False


def test_a_reply_joins_the_thread_of_the_comment_it_answers(tenant, as_user, article):
    client = as_user(tenant.owner)
    first = post(client, article, body="First").json()["data"]["id"]
    reply = post(client, article, body="Reply", parent_id=first).json()["data"]["id"]

    reply_to_reply = post(client, article, body="Reply to the reply", parent_id=reply)

    assert reply_to_reply.json()["data"]["parent_id"] == first


def test_a_reply_to_a_comment_of_another_content_is_refused(tenant, as_user, article):
    client = as_user(tenant.owner)
    elsewhere = post(client, make_content(tenant), body="Elsewhere").json()["data"]["id"]

    response = post(client, article, body="Reply", parent_id=elsewhere)

    assert_error(response, 400, "validation_error", errors={"parent_id": ["The comment replied to must be on the same content"]})


def test_a_thread_is_resolved_and_reopened_with_who_and_when(tenant, as_user, article):
    client = as_user(tenant.owner)
    comment_id = post(client, article, body="Fix the title").json()["data"]["id"]
    url = f"{comments_url(article)}{comment_id}/"

    SiteUserAccess.objects.create(account=tenant.account, user=tenant.editor, site=tenant.site)
    resolved = as_user(tenant.editor).patch(url, {"resolved": True}, format="json").json()["data"]
    assert (resolved["resolved"], resolved["resolved_by_id"], resolved["resolved_by_name"]) == (True, tenant.editor.pk, tenant.editor.email)
    assert resolved["resolved_at"] is not None
    reopened = client.patch(url, {"resolved": False}, format="json").json()["data"]
    assert (reopened["resolved"], reopened["resolved_at"], reopened["resolved_by_id"]) == (False, None, None)


def test_only_the_author_changes_a_comments_text(tenant, as_user, article):
    comment_id = post(as_user(tenant.owner), article, body="Mine").json()["data"]["id"]

    response = as_user(tenant.admin).patch(f"{comments_url(article)}{comment_id}/", {"body": "Not mine"}, format="json")

    assert response.status_code == 403
    assert ContentComment.objects.for_account(tenant.account).get(pk=comment_id).body == "Mine"


def test_a_comment_is_deleted_by_its_author_or_a_manager_and_not_by_another_commenter(tenant, as_user, article, reviewer):
    comment_id = post(as_user(tenant.owner), article, body="Mine").json()["data"]["id"]
    url = f"{comments_url(article)}{comment_id}/"

    refused = as_user(reviewer).delete(url)
    deleted = as_user(tenant.admin).delete(url)

    assert (refused.status_code, deleted.status_code) == (403, 204)
    assert not ContentComment.objects.for_account(tenant.account).filter(pk=comment_id).exists()


def test_a_reviewer_comments_and_a_viewer_only_reads(tenant, as_user, article, reviewer):
    SiteUserAccess.objects.create(account=tenant.account, user=tenant.viewer, site=tenant.site)

    by_reviewer = post(as_user(reviewer), article, body="From the reviewer")
    by_viewer = post(as_user(tenant.viewer), article, body="From the viewer")

    assert (by_reviewer.status_code, by_viewer.status_code) == (201, 403)
    assert [item["body"] for item in listed(as_user(tenant.viewer), article)] == ["From the reviewer"]


def test_comments_of_a_site_not_granted_are_not_found(tenant, as_user, article, make_tenant):
    response = as_user(tenant.editor).get(comments_url(article))

    assert_error(response, 404, "not_found")


# Mentions


def test_a_mention_tells_the_teammate_in_the_app_and_by_email_with_a_link_to_the_comment(tenant, as_user, article):
    response = post(as_user(tenant.owner), article, body=f"@{tenant.admin.email} can you check this?")

    comment = response.json()["data"]
    assert comment["mentions"] == [{"user_id": tenant.admin.pk, "email": tenant.admin.email, "notified_in_app": True, "emailed": True}]
    notification = Notification.objects.for_account(tenant.account).get(notification_type=NotificationType.COMMENT_MENTION)
    assert (notification.user_id, notification.action_url) == (tenant.admin.pk, f"/app/content/{article.pk}/review/#comment-{comment['id']}")
    assert [message.to for message in mail.outbox] == [[tenant.admin.email]]
    assert f"/app/content/{article.pk}/review/#comment-{comment['id']}" in mail.outbox[0].body


def test_a_mention_follows_each_persons_preferences(tenant, as_user, article):
    client = as_user(tenant.admin)
    client.patch("/api/v1/notifications/preferences/", {"preferences": [{"notification_type": "comment_mention", "email": False}]}, format="json")

    post(as_user(tenant.owner), article, body=f"@{tenant.admin.email} look")

    mention = CommentMention.objects.for_account(tenant.account).get()
    assert (mention.user_id, mention.notified_in_app, mention.emailed) == (tenant.admin.pk, True, False)
    assert mail.outbox == []


def test_preferences_read_back_with_the_default_of_both_channels(tenant, as_user):
    client = as_user(tenant.viewer)

    before = client.get("/api/v1/notifications/preferences/").json()["data"]
    after = client.patch("/api/v1/notifications/preferences/", {"preferences": [{"notification_type": "comment_mention", "in_app": False}]}, format="json").json()["data"]

    assert before == [{"notification_type": "comment_mention", "label": "Mentioned in a comment", "in_app": True, "email": True}]
    assert after[0]["in_app"] is False and after[0]["email"] is True
    assert NotificationPreference.objects.for_account(tenant.account).get().user_id == tenant.viewer.pk


def test_an_unknown_preference_is_refused(tenant, as_user):
    response = as_user(tenant.owner).patch("/api/v1/notifications/preferences/", {"preferences": [{"notification_type": "credits_low"}]}, format="json")

    assert response.status_code == 400


def test_a_mention_of_someone_who_cannot_see_the_site_or_of_another_account_tells_nobody(tenant, as_user, article, other_tenant):
    post(as_user(tenant.owner), article, body=f"@{tenant.editor.email} and @{other_tenant.owner.email}")

    assert not CommentMention.objects.for_account(tenant.account).exists()
    assert not Notification.dangerously_unscoped.filter(notification_type=NotificationType.COMMENT_MENTION).exists()
    assert mail.outbox == []


def _named(user, first: str, last: str = ""):
    User.objects.for_account(user.account_id).filter(pk=user.pk).update(first_name=first, last_name=last)


def test_a_mention_by_handle_first_name_or_full_name_tells_the_one_teammate_it_names(tenant, as_user, article):
    _named(tenant.admin, "Ada", "Lovelace")

    first = post(as_user(tenant.owner), article, body="@ada, can you check? cc @Ada.Lovelace.").json()["data"]
    second = post(as_user(tenant.owner), article, body="And @admin-a: the handle is the e-mail's first part").json()["data"]

    assert [mention["user_id"] for mention in first["mentions"]] == [tenant.admin.pk]
    assert [mention["user_id"] for mention in second["mentions"]] == [tenant.admin.pk]
    assert len(mail.outbox) == 2


def test_a_name_two_teammates_share_is_refused_and_nothing_is_saved(tenant, as_user, article):
    _named(tenant.admin, "Sam")
    _named(tenant.owner, "Sam")

    response = post(as_user(tenant.owner), article, body="@sam look")

    assert_error(response, 400, "validation_error", errors={"body": ["@sam names more than one teammate: mention them by e-mail address"]})
    assert not ContentComment.objects.for_account(tenant.account).exists() and mail.outbox == []


def test_a_name_or_handle_of_another_accounts_member_tells_nobody_and_makes_no_match_ambiguous(tenant, as_user, article, other_tenant):
    _named(other_tenant.owner, "Zed")
    _named(other_tenant.admin, "Ada")
    _named(tenant.admin, "Ada")

    response = post(as_user(tenant.owner), article, body="@zed @owner-b @admin-b and @ada")

    assert response.status_code == 201
    assert [mention["user_id"] for mention in response.json()["data"]["mentions"]] == [tenant.admin.pk]
    assert not Notification.dangerously_unscoped.filter(account=other_tenant.account).exists()
    assert [message.to for message in mail.outbox] == [[tenant.admin.email]]


def test_an_at_word_that_names_nobody_is_plain_text(tenant, as_user, article):
    response = post(as_user(tenant.owner), article, body="Work @home, or @ the office")

    assert response.status_code == 201 and response.json()["data"]["mentions"] == []


# Unread markers


def test_comments_by_others_are_unread_until_the_person_marks_them_read(tenant, as_user, article):
    owner, admin = as_user(tenant.owner), as_user(tenant.admin)
    post(owner, article, body="One")

    before = [item["unread"] for item in listed(admin, article)]
    own_view = [item["unread"] for item in listed(owner, article)]
    admin.post(f"{comments_url(article)}read/", {}, format="json")
    after = [item["unread"] for item in listed(admin, article)]
    post(owner, article, body="Two")
    later = [item["unread"] for item in listed(admin, article)]

    assert (before, own_view, after, later) == ([True], [False], [False], [False, True])


def test_a_comment_full_of_at_words_is_read_in_one_pass(tenant, as_user, article, django_assert_max_num_queries):
    _named(tenant.admin, "Ada")
    body = " ".join(f"@nobody{n}" for n in range(450)) + " @ada"

    with django_assert_max_num_queries(40):
        response = post(as_user(tenant.owner), article, body=body)

    assert response.status_code == 201
    assert [mention["user_id"] for mention in response.json()["data"]["mentions"]] == [tenant.admin.pk]
