"""The site's voice (issue 35): measured from its published posts, edited by the team, followed
by the offline drafter where it can."""

import pytest

from inkwell.ai.local.writer import write_article
from inkwell.ai.types import ArticleBrief, Voice
from inkwell.writer.models import SiteStatus, VoiceProfile
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

POST = (
    "<p>We grow our tomatoes in deep pots on the roof. We water them at dawn and we feed them weekly once the first "
    "flowers open. Our compost comes from the kitchen, and we turn it every week so it stays sweet and crumbly.</p>"
    "<p>We keep notes on every plant. Our notes say when we sowed, when we moved the pots and when the first fruit "
    "turned red, so next spring we can do better than this one with our tomatoes.</p>"
)


def test_the_voice_is_measured_from_the_sites_published_posts(tenant, as_user):
    make_content(tenant, title="Roof tomatoes", html=POST, site_status=SiteStatus.PUBLISHED)
    make_content(tenant, title="Draft", html="<p>You you you you you.</p>")  # not published: not measured

    response = as_user(tenant.owner).post(f"/api/v1/writer/sites/{tenant.site.pk}/voice/propose/", format="json")

    assert response.status_code == 200, response.content
    voice = response.json()["data"]
    assert (voice["measured_posts"], voice["person"]) == (1, "first")
    assert 15 <= voice["sentence_words"] <= 30
    assert voice["reading_grade"] > 0 and "tomato" in voice["words_to_use"]
    assert voice["examples"][0].startswith("We grow our tomatoes")


def test_the_words_a_voice_proposes_to_use_are_the_posts_own_topic_words_not_function_words(tenant, as_user):
    make_content(tenant, title="Roof tomatoes", html=POST, site_status=SiteStatus.PUBLISHED)

    voice = as_user(tenant.owner).post(f"/api/v1/writer/sites/{tenant.site.pk}/voice/propose/", format="json").json()["data"]

    assert not {"our", "that", "them", "when", "we", "the"} & set(voice["words_to_use"])
    assert {"tomato", "note", "pot"} <= set(voice["words_to_use"])


def test_a_site_with_nothing_published_has_no_voice_to_measure(tenant, as_user):
    response = as_user(tenant.owner).post(f"/api/v1/writer/sites/{tenant.site.pk}/voice/propose/", format="json")
    assert response.status_code == 409
    assert not VoiceProfile.objects.for_account(tenant.account).exists()


def test_the_team_edits_the_voice_and_bad_values_are_field_errors(tenant, as_user):
    client = as_user(tenant.owner)
    edited = client.patch(f"/api/v1/writer/sites/{tenant.site.pk}/voice/", {"tone": "friendly", "words_to_avoid": ["journey"]}, format="json")
    assert edited.status_code == 200
    assert (edited.json()["data"]["tone"], edited.json()["data"]["words_to_avoid"]) == ("friendly", ["journey"])
    bad = client.patch(f"/api/v1/writer/sites/{tenant.site.pk}/voice/", {"person": "fourth", "examples": ["a", "b", "c"]}, format="json")
    assert bad.status_code == 400 and set(bad.json()["errors"]) == {"person", "examples"}


def test_the_offline_drafter_never_uses_a_word_the_voice_avoids_and_keeps_its_sentences_short():
    brief = ArticleBrief(title="Growing Tomatoes for Beginners", keywords=["growing tomatoes"], word_count=800)
    plain = write_article(brief)
    assert "frustration" in plain.html or "practice" in plain.html
    voiced = write_article(
        ArticleBrief(title=brief.title, keywords=brief.keywords, word_count=800, voice=Voice(words_to_avoid=("frustration", "practice"), sentence_words=12))
    )
    assert "frustration" not in voiced.html.lower() and "practice" not in voiced.html.lower()
    from inkwell.ai.analysis import blocks, sentences

    lengths = [len(sentence.split()) for block in blocks(voiced.html) if block.tag == "p" for sentence in sentences(block.text)]
    plain_lengths = [len(sentence.split()) for block in blocks(plain.html) if block.tag == "p" for sentence in sentences(block.text)]
    assert sum(lengths) / len(lengths) < sum(plain_lengths) / len(plain_lengths)
