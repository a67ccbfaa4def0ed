"""A task's brief in the console (issue 35): made from the task, edited as text (one entry a
line), approved, and shown as "brief ready" or approved in the task queue, through the API's
serializers and services; a site that asks for briefs offers no draft before one is approved."""

import re

import pytest

from inkwell.writer.models import Brief, BriefStatus, SiteStatus
from inkwell.writer.services import brief_approve, brief_propose, site_editorial_update
from inkwell.writer.tests.factories import make_content, make_task

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def tomato_task(tenant):
    return make_task(
        tenant,
        title="Growing Tomatoes for Beginners",
        description="A first season on a balcony, step by step.",
        keywords=["growing tomatoes", "how often to water tomatoes"],
        outline=["Choosing a Sunny Spot", "Soil and Feeding"],
        word_count=900,
    )


def _brief_form(**changes) -> dict:
    form = {
        "form": "brief",
        "title": "Growing Tomatoes for Beginners",
        "angle": "A first season on a balcony.",
        "reader": "Someone with a balcony and no garden.",
        "target_length": "1200",
        "outline": "Choosing a Sunny Spot\n### Balconies and Patios\n\nSoil and Feeding",
        "keywords": "growing tomatoes\nhow often to water tomatoes",
        "questions": "How often should tomatoes be watered?",
        "sources": "https://extension.example.org/tomatoes Watering guide\nTomatoes need 6 hours of sun a day.",
    }
    return {**form, **changes}


def test_a_task_without_a_brief_offers_to_make_one_from_the_task(console_client, tenant):
    task = tomato_task(tenant)
    client = console_client(tenant.owner)
    url = f"/app/tasks/{task.pk}/brief/"
    assert "No brief yet" in _text(client.get(url))

    response = client.post(url, {"form": "make"})

    assert response.status_code == 302 and response.headers["Location"] == url + "?saved=made"
    page = _text(client.get(url + "?saved=made"))
    assert "Brief ready" in page and "Approve the brief" in page
    assert re.search(r'<textarea id="id_outline" name="outline"[^>]*>Choosing a Sunny Spot\nSoil and Feeding</textarea>', client.get(url).content.decode())


def test_the_brief_is_edited_as_lines_and_saved_by_the_apis_service(console_client, tenant):
    live = make_content(tenant, title="Tomato soil mixes", site_status=SiteStatus.PUBLISHED, external_url="https://a.example.com/soil/")
    task = tomato_task(tenant)
    brief_propose(account=tenant.account, task=task)
    client = console_client(tenant.owner)

    response = client.post(f"/app/tasks/{task.pk}/brief/", {**_brief_form(), "link": [str(live.pk)]})

    assert response.status_code == 302, _text(response)
    brief = Brief.objects.for_account(tenant.account).get(task=task)
    assert brief.outline == [{"level": 2, "text": "Choosing a Sunny Spot"}, {"level": 3, "text": "Balconies and Patios"}, {"level": 2, "text": "Soil and Feeding"}]
    assert brief.sources == [{"url": "https://extension.example.org/tomatoes", "note": "Watering guide"}, {"url": "", "note": "Tomatoes need 6 hours of sun a day."}]
    assert (brief.target_length, brief.questions, brief.reader) == (1200, ["How often should tomatoes be watered?"], "Someone with a balcony and no garden.")
    assert brief.internal_links == [{"content_id": live.pk, "title": "Tomato soil mixes", "url": "https://a.example.com/soil/"}]
    page = client.get(f"/app/tasks/{task.pk}/brief/").content.decode()
    assert "### Balconies and Patios" in page and f'name="link" value="{live.pk}" checked' in page


def test_bad_lines_are_refused_naming_the_line_and_nothing_changes(console_client, tenant):
    task = tomato_task(tenant)
    brief_propose(account=tenant.account, task=task)

    response = console_client(tenant.owner).post(f"/app/tasks/{task.pk}/brief/", _brief_form(sources="A note\n" + "x" * 2001, target_length="5"))

    assert response.status_code == 400
    page = _text(response)
    assert "Nothing was saved" in page and re.search(r'id="id_target_length".*?<p class="field__error">Ensure this value is greater than or equal to 100', page)
    assert '<p class="field__error">Line 2: Ensure this field has no more than 2000 characters.</p>' in page
    assert Brief.objects.for_account(tenant.account).get(task=task).sources == []


def test_approving_the_brief_records_who_and_a_change_makes_it_ready_again(console_client, tenant, granted):
    task = tomato_task(tenant)
    brief_propose(account=tenant.account, task=task)
    client = console_client(tenant.editor)

    response = client.post(f"/app/tasks/{task.pk}/brief/approve/")

    assert response.headers["Location"] == f"/app/tasks/{task.pk}/brief/?saved=approved"
    brief = Brief.objects.for_account(tenant.account).get(task=task)
    assert (brief.status, brief.approved_by_id) == (BriefStatus.APPROVED, tenant.editor.pk)
    assert "Brief approved" in _text(client.get(f"/app/tasks/{task.pk}/brief/"))
    client.post(f"/app/tasks/{task.pk}/brief/", _brief_form(angle="Another angle"))
    assert Brief.objects.for_account(tenant.account).get(task=task).status == BriefStatus.READY


def test_the_queue_shows_brief_ready_and_offers_no_draft_before_the_site_has_an_approved_brief(console_client, tenant):
    site_editorial_update(site=tenant.site, brief_required=True)
    waiting, approved, none = tomato_task(tenant), make_task(tenant, title="Staking tomatoes"), make_task(tenant, title="Pruning tomatoes")
    brief_propose(account=tenant.account, task=waiting)
    brief_approve(account=tenant.account, brief=brief_propose(account=tenant.account, task=approved), user=tenant.owner)

    page = console_client(tenant.owner).get(f"/app/sites/{tenant.site.pk}/tasks/").content.decode()

    items = {re.search(r'<h2 class="queue__title">(.*?)</h2>', item).group(1): item for item in page.split('<li class="queue__item card">')[1:]}
    assert "Brief ready" in items["Growing Tomatoes for Beginners"] and "generate/" not in items["Growing Tomatoes for Beginners"]
    assert "Brief approved" in items["Staking tomatoes"] and f"/app/tasks/{approved.pk}/generate/" in items["Staking tomatoes"]
    assert "The draft waits for an approved brief." in items["Pruning tomatoes"] and f"/app/tasks/{none.pk}/brief/" in items["Pruning tomatoes"]


def test_a_viewer_reads_the_brief_and_cannot_make_change_or_approve_it(console_client, tenant, granted):
    task = tomato_task(tenant)
    brief_propose(account=tenant.account, task=task)
    client = console_client(tenant.viewer)
    page = _text(client.get(f"/app/tasks/{task.pk}/brief/"))
    assert "Brief ready" in page and "brief/approve/" not in page and 'value="brief"' not in page
    assert client.post(f"/app/tasks/{task.pk}/brief/", _brief_form(angle="x")).status_code == 403
    assert client.post(f"/app/tasks/{task.pk}/brief/approve/").status_code == 403
    assert Brief.objects.for_account(tenant.account).get(task=task).status == BriefStatus.READY
