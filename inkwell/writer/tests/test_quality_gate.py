"""The quality report and the gate before approval through the API (issue 35; contract section 12):
GET /writer/content/{id}/quality/, approving against the report, and a site's editorial rules."""

from unittest.mock import ANY

import pytest

from inkwell.api.tests import assert_error
from inkwell.tenancy.models import Site
from inkwell.writer.models import Content, ContentFingerprint, ContentStatus, SiteEditorial
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

CONTENT = "/api/v1/writer/content/"
INVENTED = (
    "<p>Growing tomatoes for beginners starts with a sunny spot. Last spring our editor grew twelve varieties on a small "
    "balcony; here is what worked. You will find plenty of conflicting advice about tomatoes, so this guide sorts the "
    "useful from the noise. You will find plenty of conflicting advice about tomatoes, so this guide sorts the useful "
    "from the noise.</p><h2>Growing tomatoes in pots</h2><p>Water the soil, not the leaves.</p>"
)
CLEAN = "<p>Growing tomatoes starts with a sunny spot and good soil.</p><h2>Growing tomatoes in pots</h2><p>Water the soil, not the leaves. Feed them once they flower.</p>"
META = {"meta_title": "Growing tomatoes for beginners", "meta_description": "Growing tomatoes: sun, soil and water for a first crop."}


def reloaded(content) -> Content:
    return Content.dangerously_unscoped.get(pk=content.pk)


def quality_of(client, content):
    return client.get(f"{CONTENT}{content.pk}/quality/")


def test_the_report_answers_the_contract_shape_with_findings_in_the_text(tenant, granted, as_user):
    content = make_content(tenant, html=INVENTED, focus_keyword="growing tomatoes", **META)

    response = quality_of(as_user(tenant.viewer), content)

    assert response.status_code == 200
    data = response.json()["data"]
    assert set(data) == {"passed", "findings", "scores", "text"}
    assert data["passed"] is False
    assert {finding["kind"] for finding in data["findings"]} == {"unsupported_claim", "repetition"}
    for finding in data["findings"]:
        assert set(finding) == {"kind", "message", "excerpt", "start", "end", "suggestion", "field"}
        assert data["text"][finding["start"] : finding["end"]].startswith(finding["excerpt"].rstrip("…"))
    assert data["scores"]["failing"] == ["unsupported_claim", "repetition"]
    assert data["scores"]["reading_ease"] > 0 and data["scores"]["keyword_coverage"] == 4


def test_reading_the_report_changes_nothing_of_the_content(tenant, as_user):
    content = make_content(tenant, html=INVENTED, status=ContentStatus.REVIEW)

    quality_of(as_user(tenant.owner), content)

    assert (reloaded(content).status, reloaded(content).quality_passed, reloaded(content).updated_at) == (ContentStatus.REVIEW, None, content.updated_at)


def test_a_draft_copying_another_article_of_the_site_names_it_and_the_overlap(tenant, as_user):
    body = " ".join(f"Tomato bed {name} needs deep watering at dawn and mulch against summer heat." for name in "abcdefghijklmnop")
    original = make_content(tenant, title="Watering tomato beds", html=f"<p>{body}</p>", external_url="https://site.example.com/watering/")
    copy = make_content(tenant, title="Tomato watering", html=f"<p>{body.replace('at dawn', 'at sunrise', 3)}</p>")

    data = quality_of(as_user(tenant.owner), copy).json()["data"]

    duplicates = [finding for finding in data["findings"] if finding["kind"] == "duplicate"]
    assert duplicates and '"Watering tomato beds" (https://site.example.com/watering/)' in duplicates[0]["message"]
    assert data["scores"]["closest_id"] == original.pk and data["scores"]["closest_overlap"] >= 0.5
    # The index keeps fingerprints, never text, and is refreshed when an article changes.
    fingerprint = ContentFingerprint.objects.for_account(tenant.account).get(content=original)
    assert b"Tomato" not in bytes(fingerprint.signature) + bytes(fingerprint.sample)
    Content.objects.for_account(tenant.account).filter(pk=original.pk).update(html="<p>Something else entirely about basil.</p>", updated_at=original.updated_at.replace(year=2030))
    data = quality_of(as_user(tenant.owner), copy).json()["data"]
    assert "duplicate" not in {finding["kind"] for finding in data["findings"]}


def test_a_claim_backed_by_a_link_passes(tenant, as_user):
    html = CLEAN + '<p>The <a href="https://extension.example.org/tomatoes">2021 extension survey</a> found 40% of growers overwater.</p>'
    content = make_content(tenant, html=html, focus_keyword="growing tomatoes", **META)

    data = quality_of(as_user(tenant.owner), content).json()["data"]

    assert data["passed"] is True and data["findings"] == []


def test_a_person_may_approve_a_failing_draft_and_that_is_recorded(tenant, granted, as_user):
    content = make_content(tenant, html=INVENTED, status=ContentStatus.REVIEW, focus_keyword="growing tomatoes", **META)

    response = as_user(tenant.editor).post(f"{CONTENT}{content.pk}/update_content/", {"status": "approved"}, format="json")

    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["status"], data["quality_passed"], data["quality_override_by_id"]) == ("approved", False, tenant.editor.pk)
    assert data["quality_override_at"] is not None
    assert data["quality_summary"]["failing"] == ["unsupported_claim", "repetition"]
    stored = reloaded(content)
    assert (stored.quality_override_by_id, stored.quality_passed) == (tenant.editor.pk, False)


def test_approving_a_passing_draft_records_no_override(tenant, granted, as_user):
    content = make_content(tenant, html=CLEAN, status=ContentStatus.REVIEW, focus_keyword="growing tomatoes", **META)

    as_user(tenant.editor).post(f"{CONTENT}{content.pk}/update_content/", {"status": "approved"}, format="json")

    stored = reloaded(content)
    assert (stored.status, stored.quality_passed, stored.quality_override_by_id, stored.quality_override_at) == (ContentStatus.APPROVED, True, None, None)


def test_a_site_made_through_the_api_asks_for_no_brief_until_its_client_says_so(tenant, as_user):
    """The API's task -> generate_content flow stays as the API describes it; a site made in the
    console asks for briefs (test_console_editorial)."""
    client = as_user(tenant.owner)
    tenant.site.delete()  # the free plan has room for one site
    created = client.post("/api/v1/auth/sites/", {"name": "Kitchen garden", "domain": "kitchen-garden.example.com"}, format="json")
    assert created.status_code == 201, created.content
    url = f"/api/v1/writer/sites/{created.json()['data']['id']}/editorial/"
    new = client.get(url).json()["data"]
    assert (new["brief_required"], new["stop_at_brief"], new["thresholds"]) == (False, False, {})
    assert new["effective_thresholds"]["allowed"]["unsupported_claim"] == 0
    assert client.patch(url, {"brief_required": True}, format="json").json()["data"]["brief_required"] is True


def test_the_site_thresholds_decide_what_passes(tenant, as_user):
    content = make_content(tenant, html=INVENTED, focus_keyword="growing tomatoes", **META)
    client = as_user(tenant.owner)

    response = client.patch(
        f"/api/v1/writer/sites/{tenant.site.pk}/editorial/", {"thresholds": {"allowed": {"unsupported_claim": 1, "repetition": 1}}}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["data"]["effective_thresholds"]["allowed"]["repetition"] == 1
    assert quality_of(client, content).json()["data"]["passed"] is True


def test_bad_thresholds_are_field_errors_and_change_nothing(tenant, as_user):
    response = as_user(tenant.owner).patch(
        f"/api/v1/writer/sites/{tenant.site.pk}/editorial/", {"thresholds": {"duplicate_overlap": 2, "allowed": {"typo": 1}}}, format="json"
    )

    assert_error(response, 400, "validation_error", errors={"thresholds.duplicate_overlap": [ANY], "thresholds.allowed.typo": ["Unknown field"]})
    assert not SiteEditorial.objects.for_account(tenant.account).filter(site=tenant.site).exists()


def test_viewers_read_the_editorial_rules_but_do_not_change_them(tenant, granted, as_user):
    client = as_user(tenant.viewer)
    assert client.get(f"/api/v1/writer/sites/{tenant.site.pk}/editorial/").status_code == 200
    assert client.patch(f"/api/v1/writer/sites/{tenant.site.pk}/editorial/", {"brief_required": True}, format="json").status_code == 403
    assert not SiteEditorial.objects.for_account(tenant.account).filter(site=tenant.site).exists()


def test_another_accounts_content_and_site_are_not_found(tenant, other_tenant, as_user):
    content = make_content(other_tenant, html=INVENTED)
    client = as_user(tenant.owner)
    assert client.get(f"{CONTENT}{content.pk}/quality/").status_code == 404
    assert client.get(f"/api/v1/writer/sites/{other_tenant.site.pk}/editorial/").status_code == 404
    assert Site.objects.for_account(tenant.account).filter(pk=other_tenant.site.pk).count() == 0


# The gate beside the site's approval rules (#36): both apply to one approval.


def test_approving_a_failing_draft_anyway_is_noted_on_the_teams_approval(tenant, granted, as_user):
    from inkwell.writer.models import ContentApproval

    content = make_content(tenant, html=INVENTED, status=ContentStatus.REVIEW, focus_keyword="growing tomatoes", **META)

    response = as_user(tenant.editor).post(f"{CONTENT}{content.pk}/approve/", {}, format="json")

    assert response.status_code == 200, response.content
    approval = ContentApproval.objects.for_account(tenant.account).get(content=content)
    assert (approval.step, approval.decision, approval.user_id) == ("team", "approved", tenant.editor.pk)
    assert approval.note == "Approved although the quality report does not pass (unsupported_claim, repetition)"
    assert reloaded(content).quality_override_by_id == tenant.editor.pk


def test_a_passing_report_does_not_lift_the_four_eyes_rule(tenant, granted, as_user):
    from inkwell.sitesettings.services import unified_settings_update
    from inkwell.writer import services
    from inkwell.writer.models import ContentApproval

    unified_settings_update(site=tenant.site, changes={"review_rules": {"four_eyes": True}})
    content = make_content(tenant, html=INVENTED, status=ContentStatus.REVIEW, focus_keyword="growing tomatoes", **META)
    editor = as_user(tenant.editor)
    assert editor.post(f"{CONTENT}{content.pk}/update_content/", {"html": CLEAN}, format="json").status_code == 200

    refused = editor.post(f"{CONTENT}{content.pk}/approve/", {}, format="json")

    assert_error(refused, 422, "four_eyes", errors={"status": [services.FOUR_EYES]}, error=services.FOUR_EYES)
    stored = reloaded(content)
    assert (stored.status, stored.quality_passed, stored.quality_override_at) == (ContentStatus.REVIEW, None, None)
    assert not ContentApproval.objects.for_account(tenant.account).filter(content=content).exists()
    assert as_user(tenant.owner).post(f"{CONTENT}{content.pk}/approve/", {}, format="json").status_code == 200
    assert (reloaded(content).status, reloaded(content).quality_passed) == (ContentStatus.APPROVED, True)
