"""Review links (#36, contract section 12): GET, POST /writer/content/{id}/review_links/, DELETE
/writer/content/{id}/review_links/{link_id}/, and the public page the link opens without signing
in (/review/<token>/): expiry, revocation, passcode, a tampered token, headers, and a token
matrix: a link for one article reaches nothing else."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from inkwell.api.tests import assert_error
from inkwell.notifications.models import Notification, NotificationType
from inkwell.writer.models import ContentApproval, ContentComment, ReviewDecision, ReviewLink, ReviewStep
from inkwell.writer.tests.factories import make_comment, make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"
BODY = "<h2>Fit</h2><p>Try shoes on in the evening, when your feet are largest.</p>"


def links_url(content) -> str:
    return f"{CONTENT}{content.pk}/review_links/"


def create_link(client, content, **body) -> dict:
    response = client.post(links_url(content), body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]


def path_of(url: str) -> str:
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


@pytest.fixture
def article(tenant):
    return make_content(tenant, title="Choosing running shoes", html=BODY, meta_description="How to choose running shoes that fit.")


@pytest.fixture
def link(tenant, as_user, article) -> dict:
    return create_link(as_user(tenant.owner), article)


# The API


def test_a_link_is_absolute_and_expires_in_fourteen_days_by_default(tenant, as_user, article):
    data = create_link(as_user(tenant.owner), article)

    assert set(data) >= {"id", "url", "expires_at", "created_at"}
    assert data["url"].startswith("http://testserver/review/")
    row = ReviewLink.objects.for_account(tenant.account).get(pk=data["id"])
    assert timedelta(days=13, hours=23) < row.expires_at - timezone.now() <= timedelta(days=14)
    assert row.token_hash not in data["url"] and len(row.token_hash) == 64


def test_the_answer_that_carries_a_link_is_not_stored(tenant, as_user, article):
    response = as_user(tenant.owner).post(links_url(article), {}, format="json")

    assert "no-store" in response["Cache-Control"]


@pytest.mark.parametrize(
    ("body", "field"),
    [({"expires_at": "2000-01-01T00:00:00Z"}, "expires_at"), ({"expires_at": "not a date"}, "expires_at"), ({"passcode": "abc"}, "passcode"), ({"x": 1}, "x")],
    ids=["past", "not-a-date", "short-passcode", "unknown-field"],
)
def test_bad_link_input_is_a_400(tenant, as_user, article, body, field):
    response = as_user(tenant.owner).post(links_url(article), body, format="json")

    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_a_link_lasts_at_most_ninety_days(tenant, as_user, article):
    response = as_user(tenant.owner).post(links_url(article), {"expires_at": (timezone.now() + timedelta(days=91)).isoformat()}, format="json")

    assert_error(response, 400, "validation_error", errors={"expires_at": ["A review link lasts at most 90 days"]})


def test_links_are_listed_with_their_url_and_state(tenant, as_user, article, link):
    response = as_user(tenant.owner).get(links_url(article))

    items = response.json()["results"]
    assert [(item["id"], item["url"], item["active"], item["has_passcode"]) for item in items] == [(link["id"], link["url"], True, False)]


def test_a_reviewer_or_viewer_cannot_make_links(tenant, as_user, article, granted):
    response = as_user(tenant.viewer).post(links_url(article), {}, format="json")

    assert response.status_code == 403
    assert not ReviewLink.objects.for_account(tenant.account).exists()


# The public page


def test_the_link_opens_the_preview_and_comments_without_signing_in(tenant, article, link):
    make_comment(tenant, content=article, body="A team note")

    response = Client().get(path_of(link["url"]))

    page = response.content.decode()
    assert response.status_code == 200
    assert "Choosing running shoes" in page and "Try shoes on in the evening" in page and "A team note" in page
    assert "How to choose running shoes that fit." in page  # the search snippet


def test_the_public_page_is_never_indexed_stored_or_referred_from(article, link):
    response = Client().get(path_of(link["url"]))

    assert response["X-Robots-Tag"].startswith("noindex")
    assert response["Referrer-Policy"] == "no-referrer"
    assert "no-store" in response["Cache-Control"]
    assert '<meta name="robots" content="noindex' in response.content.decode()


def test_a_tampered_token_is_not_found(article, link):
    path = path_of(link["url"])
    token = path.split("/")[2]
    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
    secret_changed = ("A" if token[0] != "A" else "B") + token[1:]

    responses = [Client().get(f"/review/{value}/") for value in (tampered, secret_changed, "nothing", token.split(".")[0])]

    assert [response.status_code for response in responses] == [404, 404, 404, 404]
    assert all(response["X-Robots-Tag"].startswith("noindex") for response in responses)


def test_a_revoked_link_is_gone(tenant, as_user, article, link):
    response = as_user(tenant.owner).delete(f"{links_url(article)}{link['id']}/")

    assert response.status_code == 204
    assert Client().get(path_of(link["url"])).status_code == 410
    assert ReviewLink.objects.for_account(tenant.account).get(pk=link["id"]).revoked_at is not None


def test_an_expired_link_is_gone(tenant, article, link):
    ReviewLink.objects.for_account(tenant.account).filter(pk=link["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))

    response = Client().get(path_of(link["url"]))

    assert response.status_code == 410
    assert "Choosing running shoes" not in response.content.decode()


def test_a_passcode_is_asked_first_and_a_wrong_one_opens_nothing(tenant, as_user, article):
    data = create_link(as_user(tenant.owner), article, passcode="open sesame")
    path = path_of(data["url"])
    browser = Client()

    locked = browser.get(path)
    wrong = browser.post(f"{path}passcode/", {"passcode": "wrong"})
    comment_while_locked = browser.post(f"{path}comments/", {"name": "Eve", "body": "sneaky"})
    right = browser.post(f"{path}passcode/", {"passcode": "open sesame"})
    opened = browser.get(path)

    assert data["has_passcode"] is True
    assert locked.status_code == 200 and "Try shoes on" not in locked.content.decode() and "passcode" in locked.content.decode()
    assert wrong.status_code == 403 and "Try shoes on" not in wrong.content.decode()
    assert not ContentComment.objects.for_account(tenant.account).filter(body="sneaky").exists()
    assert comment_while_locked.status_code == 200
    assert right.status_code == 302
    assert opened.status_code == 200 and "Try shoes on" in opened.content.decode()
    assert ReviewLink.objects.for_account(tenant.account).get(pk=data["id"]).passcode_hash.startswith(("md5$", "argon2"))


def test_passcode_attempts_are_rate_limited(tenant, as_user, article, settings):
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "review_passcode": 3}
    path = path_of(create_link(as_user(tenant.owner), article, passcode="open sesame")["url"])
    browser = Client()

    codes = [browser.post(f"{path}passcode/", {"passcode": "wrong"}).status_code for _ in range(3)]
    over = browser.post(f"{path}passcode/", {"passcode": "open sesame"})

    assert codes == [403, 403, 403]
    assert over.status_code == 429


def test_the_public_page_is_rate_limited(article, link, settings):
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "review": 2}
    browser = Client()

    codes = [browser.get(path_of(link["url"])).status_code for _ in range(3)]

    assert codes == [200, 200, 429]


def test_an_outside_reviewer_comments_under_the_name_they_give(tenant, article, link):
    path = path_of(link["url"])

    response = Client().post(f"{path}comments/", {"name": "Clara Client", "body": "Love it", "quote": "in the evening", "start": "20"})

    comment = ContentComment.objects.for_account(tenant.account).get()
    assert response.status_code == 302
    assert (comment.author_id, comment.author_name, comment.review_link_id, comment.anchor_quote) == (None, "Clara Client", link["id"], "in the evening")


def test_an_outside_comment_needs_a_name(tenant, article, link):
    response = Client().post(f"{path_of(link['url'])}comments/", {"name": " ", "body": "Anonymous"})

    assert response.status_code == 400
    assert not ContentComment.objects.for_account(tenant.account).exists()


def test_an_outside_reviewer_approves_and_the_team_hears_who(tenant, article, link):
    response = Client().post(f"{path_of(link['url'])}decision/", {"name": "Clara Client", "decision": "approved", "note": "Ship it"})

    approval = ContentApproval.objects.for_account(tenant.account).get()
    assert response.status_code == 302
    assert (approval.step, approval.decision, approval.reviewer_name, approval.review_link_id, approval.user_id, approval.note) == (
        ReviewStep.CLIENT, ReviewDecision.APPROVED, "Clara Client", link["id"], None, "Ship it",
    )
    notification = Notification.objects.for_account(tenant.account).get(notification_type=NotificationType.REVIEW_DECISION)
    assert "Clara Client" in notification.title


def test_an_outside_reviewer_requests_changes(tenant, article, link):
    Client().post(f"{path_of(link['url'])}decision/", {"name": "Clara", "decision": "changes_requested"})
    refused = Client().post(f"{path_of(link['url'])}decision/", {"name": "Clara", "decision": "publish"})

    assert list(ContentApproval.objects.for_account(tenant.account).values_list("decision", flat=True)) == [ReviewDecision.CHANGES_REQUESTED]
    assert refused.status_code == 400


def test_the_approvals_are_listed_with_who_and_when(tenant, as_user, article, link):
    Client().post(f"{path_of(link['url'])}decision/", {"name": "Clara Client", "decision": "approved"})

    items = as_user(tenant.owner).get(f"{CONTENT}{article.pk}/approvals/").json()["results"]

    assert [(item["step"], item["decision"], item["reviewer_name"], item["user_id"]) for item in items] == [("client", "approved", "Clara Client", None)]
    assert items[0]["created_at"]


# The token matrix: a link opens its one article, and nothing else.


def test_a_link_for_one_article_reaches_nothing_else(tenant, as_user, article, link, other_tenant):
    other_article = make_content(tenant, title="Another article, same account", html="<p>Secret draft body</p>")
    other_account_article = make_content(other_tenant, title="Another account's article", html="<p>Foreign body</p>")
    foreign_comment = make_comment(tenant, content=other_article, body="Internal note elsewhere")
    path = path_of(link["url"])
    token = path.split("/")[2]
    browser = Client()

    page = browser.get(path).content.decode()
    # A reply under a comment of another article is refused, and nothing is written there.
    reply = browser.post(f"{path}comments/", {"name": "Eve", "body": "reply", "parent_id": str(foreign_comment.pk)})
    # The token opens no API route: not as a bearer token, not as a cookie.
    api_with_token = Client(HTTP_AUTHORIZATION=f"Bearer {token}").get(f"{CONTENT}{other_article.pk}/")
    api_comments = Client(HTTP_AUTHORIZATION=f"Bearer {token}").get(f"{CONTENT}{article.pk}/comments/")
    # Nor the console.
    console = browser.get(reverse("console:content-review", kwargs={"pk": article.pk}))
    # Other paths under /review/ with the same token name only its own article.
    unknown_paths = [browser.get(f"{path}{suffix}").status_code for suffix in (f"{other_article.pk}/", "../", "comments/?content_id=1")]

    for text in ("Secret draft body", "Internal note elsewhere", "Foreign body", "Another article, same account"):
        assert text not in page
    assert reply.status_code == 400
    assert not ContentComment.objects.for_account(tenant.account).filter(content=other_article, body="reply").exists()
    assert (api_with_token.status_code, api_comments.status_code) == (401, 401)
    assert console.status_code == 302 and console["Location"].startswith("/app/signin/")
    assert unknown_paths[0] == 404
    assert other_account_article.title not in page


def test_a_link_of_another_account_opens_only_its_own_article(tenant, as_user, article, other_tenant):
    theirs = make_content(other_tenant, title="Theirs", html="<p>Their body</p>")
    their_link = create_link(as_user(other_tenant.owner), theirs)

    page = Client().get(path_of(their_link["url"])).content.decode()

    assert "Their body" in page and "Try shoes on" not in page
