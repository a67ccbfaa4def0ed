"""A brief before the draft (issue 35): made from the task, edited and approved by the editor,
required by sites that ask for it, and carried to the provider's request whole."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.writer.models import Brief, BriefStatus, Content, ContentStatus, SiteStatus, VoiceProfile
from inkwell.writer.services import site_editorial_update
from inkwell.writer.tests.factories import make_content, make_task

pytestmark = pytest.mark.django_db

TASKS = "/api/v1/writer/tasks/"


def brief_url(task, action="brief"):
    return f"{TASKS}{task.pk}/{action}/"


def tomato_task(tenant):
    return make_task(
        tenant,
        title="Growing Tomatoes for Beginners",
        description="A first season on a balcony, step by step.",
        keywords=["growing tomatoes", "how often to water tomatoes"],
        outline=["Choosing a Sunny Spot", "Soil and Feeding"],
        word_count=900,
    )


def test_a_brief_is_made_from_the_task_with_link_targets_among_live_articles(tenant, as_user):
    live = make_content(tenant, title="Tomato soil mixes that drain well", site_status=SiteStatus.PUBLISHED, external_url="https://a.example.com/soil/")
    make_content(tenant, title="Tomato cages", site_status=SiteStatus.NOT_PUBLISHED)  # not live
    make_content(tenant, title="Knitting for winter", site_status=SiteStatus.PUBLISHED)  # unrelated
    task = tomato_task(tenant)

    response = as_user(tenant.owner).post(brief_url(task), format="json")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["title"], data["angle"], data["target_length"], data["status"]) == (task.title, task.description, 900, "ready")
    assert data["outline"] == [{"level": 2, "text": "Choosing a Sunny Spot"}, {"level": 2, "text": "Soil and Feeding"}]
    assert data["keywords"][0] == "growing tomatoes"
    assert data["questions"] == ["How often to water tomatoes?"]
    assert data["internal_links"] == [{"content_id": live.pk, "title": live.title, "url": "https://a.example.com/soil/"}]
    assert_error(as_user(tenant.owner).post(brief_url(task), format="json"), 409, "state_conflict", errors={"brief": ["This task has a brief already: edit it (PATCH brief/)"]})


def test_the_editor_edits_and_approves_the_brief_and_a_change_needs_approving_again(tenant, granted, as_user):
    task = tomato_task(tenant)
    client = as_user(tenant.editor)
    client.post(brief_url(task), format="json")

    edited = client.patch(
        brief_url(task),
        {
            "reader": "A beginner with a sunny balcony",
            "outline": [{"level": 2, "text": "Choosing a Sunny Spot"}, {"level": 3, "text": "Balconies"}],
            "sources": [{"url": "https://extension.example.org/tomatoes"}, {"note": "Tomatoes need 6 hours of sun a day."}],
        },
        format="json",
    )
    assert edited.status_code == 200, edited.content
    approved = client.post(brief_url(task, "approve_brief"), format="json").json()["data"]
    assert (approved["status"], approved["approved_by_id"]) == ("approved", tenant.editor.pk)
    client.patch(brief_url(task), {"angle": "A new angle"}, format="json")
    brief = Brief.objects.for_account(tenant.account).get(task=task)
    assert (brief.status, brief.approved_by_id, brief.sources[1]) == (BriefStatus.READY, None, {"url": "", "note": "Tomatoes need 6 hours of sun a day."})


def test_bad_brief_fields_are_field_errors(tenant, as_user):
    task = tomato_task(tenant)
    client = as_user(tenant.owner)
    client.post(brief_url(task), format="json")
    other_site_content = make_content(tenant, site=None)
    response = client.patch(brief_url(task), {"outline": [{"level": 4, "text": "x"}], "sources": [{}], "target_length": 5}, format="json")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"outline.0.level", "sources.0.non_field_errors", "target_length"}
    missing = client.patch(brief_url(task), {"internal_links": [{"content_id": 999999}]}, format="json")
    assert missing.status_code == 400 and "internal_links" in missing.json()["errors"]
    assert other_site_content.pk


def test_a_site_that_requires_a_brief_writes_no_draft_before_it_is_approved(tenant, funded, as_user, eager_jobs):
    funded(100)
    site_editorial_update(site=tenant.site, brief_required=True)
    task = tomato_task(tenant)
    client = as_user(tenant.owner)

    refused = client.post(f"{TASKS}{task.pk}/generate_content/", format="json")
    assert_error(refused, 409, "state_conflict", errors={"brief": ["This site writes drafts from an approved brief: make the task's brief (POST brief/), then approve it (approve_brief/)"]})

    client.post(brief_url(task), format="json")
    client.patch(
        brief_url(task),
        {
            "outline": [{"level": 2, "text": "Choosing a Sunny Spot"}, {"level": 3, "text": "Balconies and Patios"}, {"level": 2, "text": "Soil and Feeding"}],
            "questions": ["How often should tomatoes be watered?"],
            "sources": [{"url": "https://extension.example.org/tomatoes"}],
        },
        format="json",
    )
    client.post(brief_url(task, "approve_brief"), format="json")
    with eager_jobs():
        accepted = client.post(f"{TASKS}{task.pk}/generate_content/", format="json")
    assert accepted.status_code == 202

    content = Content.objects.for_account(tenant.account).get(task=task)
    assert content.status == ContentStatus.DRAFT
    # The offline provider follows the brief's outline, answers its questions and names its sources.
    assert "<h2>Choosing a Sunny Spot</h2>" in content.html and "<h3>Balconies and Patios</h3>" in content.html
    assert "<h3>How often should tomatoes be watered?</h3>" in content.html
    assert '<a href="https://extension.example.org/tomatoes">' in content.html


def test_the_brief_and_the_voice_reach_the_providers_request(tenant, funded, as_user, eager_jobs, openai_provider):
    funded(100)
    task = tomato_task(tenant)
    client = as_user(tenant.owner)
    client.post(brief_url(task), format="json")
    client.patch(
        brief_url(task),
        {"reader": "A beginner with a sunny balcony", "angle": "Balcony first", "sources": [{"url": "https://extension.example.org/tomatoes", "note": "Six hours of sun."}]},
        format="json",
    )
    client.post(brief_url(task, "approve_brief"), format="json")
    VoiceProfile.objects.create(account=tenant.account, site=tenant.site, tone="friendly", person="second", words_to_avoid=["journey"], examples=["Plant deep, water slow."])

    with eager_jobs():
        client.post(f"{TASKS}{task.pk}/generate_content/", format="json")

    [request] = openai_provider.requests_to("chat")
    sent = " ".join(message["content"] for message in request.body["messages"])
    for part in (
        "Reader: A beginner with a sunny balcony",
        "Angle: Balcony first",
        "- https://extension.example.org/tomatoes",
        "- Six hours of sun.",
        "Questions the article must answer:",
        "Words never to use: journey",
        "Example paragraph 1: Plant deep, water slow.",
        "Person: second person",
    ):
        assert part in sent, part
