"""Concurrent edits (issue #29, contract section 12): every content has a ``version``, one more with
every change; an update made from an older version is refused with 409 ``concurrent_modification``
and changes nothing; autosaves are revisions marked as such, a few per person, never the content."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.writer import services
from inkwell.writer.models import Content, ContentRevision
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"


def reloaded(content) -> Content:
    return Content.dangerously_unscoped.get(pk=content.pk)


def test_the_detail_and_the_list_say_the_version_and_every_change_makes_it_one_more(tenant, as_user):
    content = make_content(tenant)
    client = as_user(tenant.owner)
    assert client.get(f"{CONTENT}{content.pk}/").json()["data"]["version"] == 1
    assert client.get(CONTENT).json()["results"][0]["version"] == 1

    changed = client.post(f"{CONTENT}{content.pk}/update_content/", {"title": "A new title", "version": 1}, format="json")

    assert changed.status_code == 200, changed.content
    assert changed.json()["data"]["version"] == 2 and reloaded(content).version == 2


def test_an_update_that_changes_nothing_keeps_the_version(tenant, as_user):
    content = make_content(tenant, title="Same")
    response = as_user(tenant.owner).post(f"{CONTENT}{content.pk}/update_content/", {"title": "Same", "version": 1}, format="json")
    assert response.status_code == 200 and response.json()["data"]["version"] == 1


@pytest.mark.parametrize(("method", "path"), [("post", "{pk}/update_content/"), ("patch", "{pk}/"), ("put", "{pk}/")])
def test_a_save_from_an_older_version_is_a_409_concurrent_modification_and_changes_nothing(tenant, as_user, method, path):
    content = make_content(tenant, title="Original", html="<p>Original</p>")
    first, second = as_user(tenant.owner), as_user(tenant.admin)
    mine = first.get(f"{CONTENT}{content.pk}/").json()["data"]
    theirs = second.get(f"{CONTENT}{content.pk}/").json()["data"]
    assert second.post(f"{CONTENT}{content.pk}/update_content/", {"title": "Theirs", "version": theirs["version"]}, format="json").status_code == 200

    response = getattr(first, method)(CONTENT + path.format(pk=content.pk), {"title": "Mine", "html": "<p>Mine</p>", "version": mine["version"]}, format="json")

    assert_error(response, 409, "concurrent_modification", errors={
        "version": ["This change was made from version 1, but the content is at version 2 now: reload it and make the change again"],
    })
    assert (reloaded(content).title, reloaded(content).html, reloaded(content).version) == ("Theirs", "<p>Original</p>", 2)


def test_a_save_from_the_current_version_after_a_conflict_applies_and_keeps_the_other_as_a_revision(tenant, as_user):
    content = make_content(tenant, title="Original")
    client = as_user(tenant.owner)
    services.content_update(account=tenant.account, content=content, user=tenant.editor, title="Theirs")

    response = client.post(f"{CONTENT}{content.pk}/update_content/", {"title": "Mine", "version": 2}, format="json")

    assert response.status_code == 200 and response.json()["data"]["version"] == 3
    revisions = client.get(f"{CONTENT}{content.pk}/revisions/").json()["results"]
    assert [revision["title"] for revision in revisions] == ["Theirs", "Original"]
    assert not any(revision["is_autosave"] for revision in revisions)


def test_an_update_without_a_version_applies_to_the_content_as_it_is(tenant, as_user):
    content = make_content(tenant)
    services.content_update(account=tenant.account, content=content, user=tenant.editor, title="Theirs")
    response = as_user(tenant.owner).post(f"{CONTENT}{content.pk}/update_content/", {"title": "Mine"}, format="json")
    assert response.status_code == 200 and response.json()["data"]["version"] == 3


@pytest.mark.parametrize("version", [0, -1, "two", None])
def test_a_version_that_is_not_one_is_a_400(tenant, as_user, version):
    content = make_content(tenant)
    response = as_user(tenant.owner).post(f"{CONTENT}{content.pk}/update_content/", {"title": "Mine", "version": version}, format="json")
    assert response.status_code == 400 and "version" in response.json()["errors"]
    assert reloaded(content).title == content.title


def test_an_autosave_keeps_what_was_typed_without_changing_the_content_and_only_the_newest_few(tenant):
    content = make_content(tenant, title="Saved", html="<p>Saved</p>")
    for number in range(services.AUTOSAVES_KEPT + 2):
        services.content_autosave(account=tenant.account, content=content, user=tenant.owner, title="", html=f"<p>Typed {number}</p><script>x()</script>", excerpt="Typed excerpt")
    services.content_autosave(account=tenant.account, content=content, user=tenant.editor, html="<p>The editor's</p>")

    assert (reloaded(content).title, reloaded(content).html, reloaded(content).version) == ("Saved", "<p>Saved</p>", 1)
    owners = ContentRevision.objects.for_account(tenant.account).filter(content=content, created_by=tenant.owner, is_autosave=True).order_by("-id")
    assert [revision.html for revision in owners] == [f"<p>Typed {number}</p>" for number in reversed(range(2, services.AUTOSAVES_KEPT + 2))]
    assert owners[0].title == "" and owners[0].excerpt == "Typed excerpt"
    assert ContentRevision.objects.for_account(tenant.account).filter(content=content, created_by=tenant.editor, is_autosave=True).count() == 1
