"""The console's one form layer (issue #29, case 1): a refused save shows the same page again with
everything the person typed, the message beside its field and a summary at the top linking to
each field, with the API's status; nothing is saved, and no dead-end refusal page follows."""

import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from inkwell.integration.tests.factories import make_integration
from inkwell.tenancy.models import Site
from inkwell.writer import selectors, services
from inkwell.writer.models import Content, ContentRefresh, ContentStatus, SiteStatus
from inkwell.writer.tests.factories import make_content, make_live_content

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    return html.unescape(response.content.decode())


def summary_links(page: str) -> list[str]:
    summary = page[page.index('class="notice notice--error error-summary"') :].split("</div>\n</div>")[0]
    return re.findall(r'<a href="(#[^"]+)">', summary)


def test_a_refused_editor_save_keeps_everything_typed_with_the_message_beside_the_title(console_client, tenant):
    content = make_content(tenant, title="Tomatoes", html="<p>Old body</p>", excerpt="Old excerpt")
    typed = {"title": "   ", "html": "<p>A paragraph I typed.</p>", "excerpt": "An excerpt I typed", "meta_title": "Meta typed", "meta_description": "", "focus_keyword": "tomatoes"}
    response = console_client(tenant.owner).post(f"/app/content/{content.pk}/", typed)
    assert response.status_code == 400
    page = text_of(response)
    assert "Nothing was saved" in page and "Validation failed" not in page.split("<main")[1].split("error-summary")[0]
    assert "A paragraph I typed." in page and "An excerpt I typed" in page and 'value="Meta typed"' in page
    title_field = page[page.index('<label for="id_title">') :].split("</div>")[0]
    assert "This field is required" in title_field
    assert summary_links(page) == ["#id_title"]
    content.refresh_from_db()
    assert (content.title, content.html, content.excerpt) == ("Tomatoes", "<p>Old body</p>", "Old excerpt")


def test_a_refused_first_site_keeps_what_was_typed_with_the_message_beside_its_field(console_client, big_tenant):
    response = console_client(big_tenant.owner).post("/app/sites/new/", {"name": "Harbour", "domain": "", "time_zone": "Europe/Berlin"})
    assert response.status_code == 400
    page = text_of(response)
    assert 'value="Harbour"' in page and "<option selected>Europe/Berlin</option>" in page
    assert "field--invalid" in page[page.index('<label for="id_domain">') - 40 :].split("</label>")[0]
    assert summary_links(page) == ["#id_domain"]
    assert not Site.objects.for_account(big_tenant.account).filter(name="Harbour").exists()


def test_a_move_to_a_past_time_shows_the_calendar_again_with_the_time_typed_beside_the_message(console_client, tenant):
    make_integration(tenant)
    at = timezone.now() + timedelta(days=3)
    content = make_content(tenant, status=ContentStatus.APPROVED, site_status=SiteStatus.SCHEDULED, scheduled_publish_at=at)
    local_day = at.date().isoformat()
    response = console_client(tenant.owner).post(f"/app/content/{content.pk}/schedule/", {"at": "2020-01-06T09:00", "view": "week", "date": local_day})
    assert response.status_code == 400
    page = text_of(response)
    move = page[page.index('<label for="move-at">') :].split("</form>")[0]
    assert 'value="2020-01-06T09:00"' in move and "field__error" in move
    assert summary_links(page) == ["#move-at"]
    content.refresh_from_db()
    assert content.scheduled_publish_at == at


def test_a_refused_schedule_of_a_ready_article_marks_its_own_form(console_client, tenant):
    make_integration(tenant)
    content = make_content(tenant, status=ContentStatus.APPROVED)
    response = console_client(tenant.owner).post(f"/app/content/{content.pk}/schedule/", {"at": "tomorrow"})
    assert response.status_code == 400
    page = text_of(response)
    assert summary_links(page) == [f"#at-{content.pk}"]
    assert f'id="at-{content.pk}-error"' in page
    assert Content.objects.for_account(tenant.account).get(pk=content.pk).site_status == SiteStatus.NOT_PUBLISHED


# The editor's version (case 3) and its autosave (case 2)


def test_a_save_from_an_older_version_shows_both_versions_keeps_mine_as_an_autosave_and_changes_nothing(console_client, tenant):
    content = make_content(tenant, title="Saving seeds", excerpt="Old excerpt")
    services.content_update(account=tenant.account, content=content, user=tenant.admin, title="Saving tomato seeds")
    typed = {"title": "Saving seeds", "html": content.html, "excerpt": "My excerpt", "meta_title": "", "meta_description": "", "focus_keyword": "", "version": "1"}

    response = console_client(tenant.owner).post(f"/app/content/{content.pk}/", typed)

    assert response.status_code == 409
    page = text_of(response)
    conflict = page[page.index('id="conflict"') :].split("</section>")[0]
    assert "Someone else saved this article" in conflict and "Saving tomato seeds" in conflict and "My excerpt" in conflict
    assert 'name="version" value="2"' in page and 'value="My excerpt"' not in page.split('id="conflict"')[0]
    assert "My excerpt" in page[page.index('<label for="id_excerpt">') :].split("</textarea>")[0]
    content.refresh_from_db()
    assert (content.title, content.excerpt, content.version) == ("Saving tomato seeds", "Old excerpt", 2)
    mine = selectors.autosaves_of(tenant.account, content, user=tenant.owner).get()
    assert (mine.title, mine.excerpt) == ("Saving seeds", "My excerpt")

    kept = console_client(tenant.owner).post(f"/app/content/{content.pk}/", {**typed, "version": "2"})
    assert kept.status_code == 302
    content.refresh_from_db()
    assert (content.title, content.excerpt, content.version) == ("Saving seeds", "My excerpt", 3)
    assert selectors.revisions_of(tenant.account, content).filter(is_autosave=False).first().title == "Saving tomato seeds"


def test_the_editor_sends_the_version_it_was_opened_at(console_client, tenant):
    content = make_content(tenant)
    services.content_update(account=tenant.account, content=content, user=tenant.admin, title="Changed once")
    assert 'name="version" value="2"' in text_of(console_client(tenant.owner).get(f"/app/content/{content.pk}/"))


def test_an_autosave_keeps_the_typing_without_saving_and_the_editor_offers_it_back(console_client, tenant):
    content = make_content(tenant, title="Saved title", excerpt="Saved excerpt")
    client = console_client(tenant.owner)

    response = client.post(f"/app/content/{content.pk}/autosave/", {"title": "", "html": "<p>Typed</p>", "excerpt": "Typed excerpt"})

    assert response.status_code == 204
    content.refresh_from_db()
    assert (content.title, content.excerpt, content.version) == ("Saved title", "Saved excerpt", 1)
    autosave = selectors.autosaves_of(tenant.account, content, user=tenant.owner).get()
    page = text_of(client.get(f"/app/content/{content.pk}/"))
    assert f'href="?autosave={autosave.pk}"' in page
    restored = text_of(client.get(f"/app/content/{content.pk}/?autosave={autosave.pk}"))
    assert "Typed excerpt" in restored[restored.index('<label for="id_excerpt">') :].split("</textarea>")[0]
    # Another person's autosave is not offered, and cannot be opened.
    other = console_client(tenant.admin)
    assert "?autosave=" not in text_of(other.get(f"/app/content/{content.pk}/"))
    assert other.get(f"/app/content/{content.pk}/?autosave={autosave.pk}").status_code == 404
    # Once the article is saved, the older autosave is not offered any more.
    client.post(f"/app/content/{content.pk}/", {"title": "Saved again", "version": "1"})
    assert "?autosave=" not in text_of(client.get(f"/app/content/{content.pk}/"))


def test_an_autosave_over_a_limit_is_refused_with_the_apis_message_and_keeps_nothing(console_client, tenant):
    content = make_content(tenant)
    response = console_client(tenant.owner).post(f"/app/content/{content.pk}/autosave/", {"title": "T", "meta_title": "m" * 61}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400 and "Meta title must be at most 60 characters" in text_of(response)
    assert not selectors.autosaves_of(tenant.account, content, user=tenant.owner).exists()


# A refresh of a live article: its text and the time of its update


def _refresh(tenant, console_client):
    make_integration(tenant)
    article = make_live_content(tenant, title="Running shoes", url="https://blog.example.com/running-shoes/", external_id="301", html="<p>Old.</p>")
    client = console_client(tenant.owner)
    client.post(reverse("console:content-refresh", kwargs={"pk": article.pk}), {"reason": "Falling clicks"})
    return client, ContentRefresh.objects.for_account(tenant.account).get()


def test_a_refused_refresh_save_keeps_the_text_typed_with_the_message_beside_the_title(console_client, tenant):
    client, refresh = _refresh(tenant, console_client)
    response = client.post(reverse("console:refresh", kwargs={"pk": refresh.pk}), {"title": " ", "html": "<p>Typed body.</p>", "meta_title": "Typed meta", "meta_description": ""})
    assert response.status_code == 400
    page = text_of(response)
    assert "<p>Typed body.</p>" in page and 'value="Typed meta"' in page
    assert summary_links(page) == ["#id_title"]
    refresh.refresh_from_db()
    assert refresh.html != "<p>Typed body.</p>"


def test_a_refused_refresh_time_shows_the_refresh_again_with_the_time_typed(console_client, tenant):
    client, refresh = _refresh(tenant, console_client)
    for status in ("review", "approved"):
        client.post(reverse("console:refresh-status", kwargs={"pk": refresh.pk}), {"status": status})
    response = client.post(reverse("console:refresh-send", kwargs={"pk": refresh.pk}), {"at": "2020-01-06T09:00"})
    assert response.status_code == 400
    page = text_of(response)
    assert 'value="2020-01-06T09:00"' in page and 'id="refresh-at-error"' in page
    assert summary_links(page) == ["#refresh-at"]


# The review screen's forms


def test_a_refused_review_link_shows_the_review_screen_again_with_the_message_beside_the_passcode(console_client, tenant):
    content = make_content(tenant, status=ContentStatus.REVIEW)
    response = console_client(tenant.owner).post(reverse("console:review-link-create", kwargs={"pk": content.pk}), {"days": "30", "passcode": "abc"})
    assert response.status_code == 400
    page = text_of(response)
    assert 'id="link-days" name="days" type="number" min="1" max="90" value="30"' in page and 'value="abc"' not in page
    assert summary_links(page) == ["#link-passcode"]
    assert "field__error" in page[page.index('<label for="link-passcode">') :].split("</div>")[0]


def test_a_refused_comment_keeps_the_text_typed(console_client, tenant):
    content = make_content(tenant, status=ContentStatus.REVIEW)
    response = console_client(tenant.owner).post(reverse("console:comment-create", kwargs={"pk": content.pk}), {"body": "A comment typed", "parent_id": "999999"})
    assert response.status_code == 400
    page = text_of(response)
    assert ">A comment typed</textarea>" in page and summary_links(page) == ["#comment-body"]


def test_revisions_name_an_autosave_as_one(console_client, tenant):
    content = make_content(tenant)
    client = console_client(tenant.owner)
    client.post(f"/app/content/{content.pk}/autosave/", {"title": "Typed", "html": "<p>Typed</p>"})
    assert "autosave, not saved" in text_of(client.get(f"/app/content/{content.pk}/revisions/"))
