"""The console's review screen (#36): comments with the API's rules, resolve and reopen, delete,
decisions under the site's rules, review links made and revoked."""

import json
import re

import pytest

from inkwell.sitesettings.services import unified_settings_update
from inkwell.writer.models import CommentMention, ContentApproval, ContentComment, ContentStatus, ReviewLink
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

BODY = "<h2>Fit</h2><p>Try shoes on in the evening.</p>"


@pytest.fixture
def article(tenant):
    return make_content(tenant, html=BODY, status=ContentStatus.REVIEW)


def test_the_review_screen_shows_the_preview_and_marks_the_comments_read_after_showing_them_new(tenant, console_client, article):
    ContentComment.objects.create(account=tenant.account, content=article, body="Seen?", author=tenant.admin, author_name="Admin")
    client = console_client(tenant.owner)

    first = client.get(f"/app/content/{article.pk}/review/").content.decode()
    second = client.get(f"/app/content/{article.pk}/review/").content.decode()

    assert "Try shoes on in the evening." in first and "Search result" in first and "Social card" in first
    assert "1 new comment" in first and "badge--new" in first
    assert "badge--new" not in second


def test_a_passage_comment_with_a_mention_made_in_the_console(tenant, console_client, article):
    response = console_client(tenant.owner).post(
        f"/app/content/{article.pk}/comments/", {"body": f"@{tenant.admin.email} evening?", "quote": "in the evening", "start": "10"}
    )

    comment = ContentComment.objects.for_account(tenant.account).get()
    assert response.status_code == 302 and response["Location"].endswith(f"/review/#comment-{comment.pk}")
    assert (comment.anchor_quote, comment.author_id) == ("in the evening", tenant.owner.pk)
    assert CommentMention.objects.for_account(tenant.account).get().user_id == tenant.admin.pk


def test_a_quote_not_in_the_article_is_refused_on_the_screen(tenant, console_client, article):
    response = console_client(tenant.owner).post(f"/app/content/{article.pk}/comments/", {"body": "?", "quote": "nowhere to be found"})

    assert response.status_code == 400
    assert "This passage is not in the article" in response.content.decode()


def test_a_thread_is_resolved_reopened_and_deleted_from_the_screen(tenant, console_client, article):
    comment = ContentComment.objects.create(account=tenant.account, content=article, body="Fix", author=tenant.owner, author_name="Owner")
    client = console_client(tenant.owner)

    client.post(f"/app/comments/{comment.pk}/resolve/", {"resolved": "1"})
    resolved = ContentComment.objects.for_account(tenant.account).get(pk=comment.pk)
    client.post(f"/app/comments/{comment.pk}/resolve/", {"resolved": "0"})
    reopened = ContentComment.objects.for_account(tenant.account).get(pk=comment.pk)
    client.post(f"/app/comments/{comment.pk}/delete/")

    assert (resolved.resolved_by_id, reopened.resolved_at) == (tenant.owner.pk, None)
    assert not ContentComment.objects.for_account(tenant.account).exists()


def test_the_four_eyes_rule_refuses_the_last_editor_on_the_screen(tenant, console_client, article):
    unified_settings_update(site=tenant.site, changes={"review_rules": {"four_eyes": True}})
    type(article).objects.for_account(tenant.account).filter(pk=article.pk).update(last_edited_by=tenant.owner)

    refused = console_client(tenant.owner).post(f"/app/content/{article.pk}/decision/", {"decision": "approved"})
    accepted = console_client(tenant.admin).post(f"/app/content/{article.pk}/decision/", {"decision": "approved"})

    assert refused.status_code == 422 and "last editor" in refused.content.decode()
    assert accepted.status_code == 302
    assert list(ContentApproval.objects.for_account(tenant.account).values_list("user_id", flat=True)) == [tenant.admin.pk]


def test_a_review_link_is_made_shown_and_revoked_from_the_screen(tenant, console_client, article):
    client = console_client(tenant.owner)

    client.post(f"/app/content/{article.pk}/review-links/", {"days": "7", "passcode": "secret-1"})
    link = ReviewLink.objects.for_account(tenant.account).get()
    page = client.get(f"/app/content/{article.pk}/review/").content.decode()
    client.post(f"/app/review-links/{link.pk}/revoke/")

    assert link.has_passcode and f"/review/{link.token}/" in page
    assert ReviewLink.objects.for_account(tenant.account).get().revoked_at is not None


def test_a_link_that_would_last_too_long_is_refused(tenant, console_client, article):
    response = console_client(tenant.owner).post(f"/app/content/{article.pk}/review-links/", {"days": "365"})

    assert response.status_code == 400
    assert not ReviewLink.objects.for_account(tenant.account).exists()


def test_the_author_edits_the_text_of_a_comment_from_the_screen_and_it_shows_as_edited(tenant, console_client, article):
    comment = ContentComment.objects.create(account=tenant.account, content=article, body="Fix the titel", author=tenant.owner, author_name="Owner")
    client = console_client(tenant.owner)

    response = client.post(f"/app/comments/{comment.pk}/edit/", {"body": "Fix the title"})
    page = client.get(f"/app/content/{article.pk}/review/").content.decode()

    comment.refresh_from_db()
    assert response.status_code == 302 and response["Location"].endswith(f"/review/#comment-{comment.pk}")
    assert comment.body == "Fix the title" and comment.edited_at is not None
    assert "Fix the title" in page and "(edited)" in page and f'action="/app/comments/{comment.pk}/edit/"' in page


def test_only_the_author_may_edit_a_comment_from_the_screen(tenant, console_client, article):
    comment = ContentComment.objects.create(account=tenant.account, content=article, body="Mine", author=tenant.admin, author_name="Admin")

    refused = console_client(tenant.owner).post(f"/app/comments/{comment.pk}/edit/", {"body": "Theirs now"})
    empty = console_client(tenant.admin).post(f"/app/comments/{comment.pk}/edit/", {"body": "  "})
    page = console_client(tenant.owner).get(f"/app/content/{article.pk}/review/").content.decode()

    comment.refresh_from_db()
    assert refused.status_code == 403
    assert empty.status_code == 400 and comment.body == "Mine"
    assert f"/app/comments/{comment.pk}/edit/" not in page


def test_an_edit_that_adds_a_mention_tells_the_new_teammate_only(tenant, granted, console_client, article):
    client = console_client(tenant.owner)
    client.post(f"/app/content/{article.pk}/comments/", {"body": f"@{tenant.admin.email} look"})
    comment = ContentComment.objects.for_account(tenant.account).get()

    client.post(f"/app/comments/{comment.pk}/edit/", {"body": f"@{tenant.admin.email} and @{tenant.editor.email} look"})

    mentioned = list(CommentMention.objects.for_account(tenant.account).order_by("id").values_list("user_id", flat=True))
    assert mentioned == [tenant.admin.pk, tenant.editor.pk]


def test_the_screen_offers_the_teammates_who_may_be_mentioned_and_nobody_else(tenant, console_client, article, other_tenant):
    page = console_client(tenant.owner).get(f"/app/content/{article.pk}/review/").content.decode()

    suggestions = json.loads(re.search(r'<script id="mention-suggestions" type="application/json">(.*?)</script>', page).group(1))
    assert [person["email"] for person in suggestions] == [tenant.admin.email]  # the editor and viewer are not granted the site
    assert suggestions[0]["insert"] == "admin-a"
    assert other_tenant.owner.email not in page and tenant.owner.email not in [person["email"] for person in suggestions]


def test_a_mention_by_handle_made_in_the_console(tenant, console_client, article):
    console_client(tenant.owner).post(f"/app/content/{article.pk}/comments/", {"body": "@admin-a, the evening?"})

    assert CommentMention.objects.for_account(tenant.account).get().user_id == tenant.admin.pk
