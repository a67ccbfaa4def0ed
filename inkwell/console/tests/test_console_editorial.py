"""The site's editorial rules and voice in the console (issue 35): the brief before the draft and
the quality report's thresholds (a section of the site's settings), and the voice page with its
proposal from the site's published posts. Saved through the API's serializers and services, with
the API's messages beside the fields; viewers read and change nothing."""

import re

import pytest

from inkwell.writer.models import SiteEditorial, SiteStatus, VoiceProfile
from inkwell.writer.quality import editorial_answer, site_voice
from inkwell.writer.tests.factories import make_content

pytestmark = pytest.mark.django_db

POST = (
    "<p>We grow our tomatoes on the roof in deep pots of rich compost. We water them at dawn and we feed them every week "
    "once the first flowers open. Our best crop came from plants we pinched back hard in early summer, and we keep doing that "
    "because the fruit ripens sooner on a plant that does not sprawl across the whole of the roof garden.</p>"
)


def _text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def _editorial(**changes) -> dict:
    form = {
        "form": "editorial",
        "brief_required": "on",
        "min_reading_ease": "45.0",
        "max_grade": "12.0",
        "max_sentence_words": "35",
        "max_paragraph_words": "150",
        "words_per_heading": "350",
        "duplicate_overlap": "0.4",
        **{f"allowed.{kind}": str(count) for kind, count in {"unsupported_claim": 0, "repetition": 0, "duplicate": 0, "readability": 0, "structure": 2, "keyword": 1}.items()},
    }
    return {**form, **changes}


# The brief and the thresholds, on the site's settings.


def test_the_site_settings_show_the_brief_rule_and_every_threshold_that_applies(console_client, tenant):
    page = _text(console_client(tenant.owner).get(f"/app/sites/{tenant.site.pk}/settings/"))

    assert "Briefs and the quality gate" in page
    assert re.search(r'<input type="checkbox" name="brief_required">', page)  # an older site asks for no brief
    assert re.search(r'id="id_duplicate_overlap" name="duplicate_overlap" type="text" value="0.4"', page)
    assert re.search(r'id="id_allowed.structure" name="allowed.structure" type="number" value="2"', page)


def test_saving_keeps_only_the_thresholds_the_person_changed(console_client, tenant):
    url = f"/app/sites/{tenant.site.pk}/settings/"

    response = console_client(tenant.owner).post(url, _editorial(stop_at_brief="on", min_reading_ease="60", **{"allowed.keyword": "3"}))

    assert response.status_code == 302 and response.headers["Location"] == url + "?saved=editorial#editorial"
    answer = editorial_answer(site=tenant.site)
    assert (answer["brief_required"], answer["stop_at_brief"]) == (True, True)
    assert answer["thresholds"] == {"min_reading_ease": 60.0, "allowed": {"keyword": 3}}
    assert answer["effective_thresholds"]["max_sentence_words"] == 35


def test_a_grade_left_alone_keeps_following_the_voice(console_client, tenant):
    VoiceProfile.objects.create(account=tenant.account, site=tenant.site, reading_grade=6.0)

    console_client(tenant.owner).post(f"/app/sites/{tenant.site.pk}/settings/", _editorial(max_grade="8.0"))

    assert "max_grade" not in editorial_answer(site=tenant.site)["thresholds"]


def test_a_bad_threshold_is_refused_with_the_apis_message_beside_the_field_and_nothing_changes(console_client, tenant):
    response = console_client(tenant.owner).post(f"/app/sites/{tenant.site.pk}/settings/", _editorial(duplicate_overlap="2", **{"allowed.repetition": "-1"}))

    assert response.status_code == 400
    page = _text(response)
    assert "Nothing was saved" in page
    assert re.search(r'id="id_duplicate_overlap" name="duplicate_overlap" type="text" value="2".*?<p class="field__error">Ensure this value is less than or equal to 1', page)
    assert re.search(r'id="id_allowed.repetition".*?<p class="field__error">Ensure this value is greater than or equal to 0', page)
    assert not SiteEditorial.objects.for_account(tenant.account).filter(site=tenant.site).exists()


def test_a_viewer_reads_the_editorial_rules_and_cannot_change_them(console_client, tenant, granted):
    client = console_client(tenant.viewer)
    page = _text(client.get(f"/app/sites/{tenant.site.pk}/settings/"))
    assert "Briefs and the quality gate" in page and 'value="editorial"' not in page
    assert client.post(f"/app/sites/{tenant.site.pk}/settings/", _editorial()).status_code == 403
    assert not SiteEditorial.objects.for_account(tenant.account).filter(site=tenant.site).exists()


# The voice.


def test_the_voice_page_shows_the_defaults_until_the_team_sets_one(console_client, tenant):
    page = _text(console_client(tenant.owner).get(f"/app/sites/{tenant.site.pk}/voice/"))

    assert "Not set yet" in page and "has <strong>0</strong> published posts" in page
    assert '<option value="second" selected>' in page
    assert "voice/propose/" not in page  # nothing published: nothing to measure


def test_the_team_edits_the_voice_and_every_prompt_gets_it(console_client, tenant):
    url = f"/app/sites/{tenant.site.pk}/voice/"
    form = {
        "form": "voice", "tone": "friendly", "person": "first", "reading_grade": "7.5", "sentence_words": "14",
        "words_to_use": "compost, harvest\nseedling", "words_to_avoid": "journey", "examples": ["We sow in March.", ""],
    }

    response = console_client(tenant.owner).post(url, form)

    assert response.status_code == 302 and response.headers["Location"] == url + "?saved=voice"
    voice = site_voice(site=tenant.site)
    assert (voice.tone, voice.person, voice.reading_grade, voice.sentence_words) == ("friendly", "first", 7.5, 14)
    assert (voice.words_to_use, voice.words_to_avoid, voice.examples) == (("compost", "harvest", "seedling"), ("journey",), ("We sow in March.",))


def test_bad_voice_values_are_field_errors_and_change_nothing(console_client, tenant):
    response = console_client(tenant.owner).post(
        f"/app/sites/{tenant.site.pk}/voice/", {"form": "voice", "tone": "grumpy", "person": "second", "reading_grade": "40", "sentence_words": "14"}
    )

    assert response.status_code == 400
    page = _text(response)
    assert re.search(r'id="id_reading_grade" name="reading_grade" type="text" value="40".*?<p class="field__error">Ensure this value is less than or equal to 20', page)
    assert "&quot;grumpy&quot; is not a valid choice." in page
    assert not VoiceProfile.objects.for_account(tenant.account).exists()


def test_proposing_measures_the_sites_published_posts(console_client, tenant):
    make_content(tenant, title="Roof tomatoes", html=POST, site_status=SiteStatus.PUBLISHED)
    client = console_client(tenant.owner)
    url = f"/app/sites/{tenant.site.pk}/voice/"
    assert "Propose from 1 published post" in _text(client.get(url))

    response = client.post(url + "propose/")

    assert response.status_code == 302 and response.headers["Location"] == url + "?saved=proposed"
    voice = VoiceProfile.objects.for_account(tenant.account).get(site=tenant.site)
    assert (voice.measured_posts, voice.person) == (1, "first") and voice.examples[0].startswith("We grow our tomatoes")
    assert "The last proposal measured <strong>1</strong> post." in _text(client.get(url + "?saved=proposed"))


def test_proposing_with_nothing_published_is_refused_and_changes_nothing(console_client, tenant):
    response = console_client(tenant.owner).post(f"/app/sites/{tenant.site.pk}/voice/propose/")

    assert response.status_code == 409 and "no published post to measure its voice from" in _text(response)
    assert not VoiceProfile.objects.for_account(tenant.account).exists()


def test_a_viewer_reads_the_voice_and_cannot_change_it(console_client, tenant, granted):
    make_content(tenant, html=POST, site_status=SiteStatus.PUBLISHED)
    client = console_client(tenant.viewer)
    page = _text(client.get(f"/app/sites/{tenant.site.pk}/voice/"))
    assert "you can read it" in page and "voice/propose/" not in page and 'value="voice"' not in page
    assert client.post(f"/app/sites/{tenant.site.pk}/voice/", {"form": "voice", "tone": "casual"}).status_code == 403
    assert client.post(f"/app/sites/{tenant.site.pk}/voice/propose/").status_code == 403
    assert not VoiceProfile.objects.for_account(tenant.account).exists()
