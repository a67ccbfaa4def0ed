"""Content analysis (inkwell.ai.analysis), used by the local optimizer and the optimizer app."""

import pytest

from inkwell.ai.analysis import analyze, blocks, count_occurrences, count_words, flesch_reading_ease, syllables
from inkwell.ai.types import ArticleDraft

GOOD_PARAGRAPH = "Running shoes for flat feet need good arch support. Try them on in the afternoon. Walk around the shop for a few minutes. " * 5


def good_article(**changes) -> ArticleDraft:
    body = (
        f"<p>{GOOD_PARAGRAPH}</p>"
        "<h2>Choosing Running Shoes for Flat Feet</h2>"
        f"<p>{'Look for a firm heel and a wide base. Replace worn pairs early. ' * 8}</p>"
        "<h3>Fit</h3>"
        f"<p>{'Leave a thumb of space at the toe. Lace them snugly. ' * 8}</p>"
        "<ul><li>Arch support</li><li>Firm heel</li></ul>"
    )
    values = {
        "title": "Running Shoes for Flat Feet: A Buyer's Guide",
        "meta_title": "Running Shoes for Flat Feet: A Buyer's Guide",
        "meta_description": "How to choose running shoes for flat feet: arch support, a firm heel and the right fit, explained simply for new runners.",
        "focus_keyword": "running shoes for flat feet",
        "outline": [],
        "html": body,
        "word_count": 0,
    }
    values.update(changes)
    return ArticleDraft(**values)


def test_visible_text_ignores_tags_scripts_and_styles():
    html = "<p>One <b>two</b> three.</p><script>var hidden = 1;</script><style>p {}</style><ul><li>four five</li></ul>"
    assert [(block.tag, block.text) for block in blocks(html)] == [("p", "One two three."), ("li", "four five")]
    assert analyze(html=html).word_count == 5


def test_words_are_counted_like_a_word_processor():
    assert count_words("Don't stop — step-by-step, 3 times!") == 5


def test_keyword_occurrences_are_whole_words_in_any_case():
    assert count_occurrences("Running Shoes, running shoes and runningshoes", "running shoes") == 2
    assert count_occurrences("shoe shoes", "shoe") == 1


def test_flesch_reading_ease_is_high_for_plain_text_and_low_for_dense_text():
    plain = blocks("<p>The cat sat on the mat. It was a sunny day. We had fun.</p>")
    dense = blocks("<p>Comprehensive organizational restructuring necessitates considerable interdepartmental communication, particularly regarding implementation responsibilities.</p>")
    assert flesch_reading_ease(plain) > 90
    assert flesch_reading_ease(dense) < 0
    assert syllables("readability") == 5 and syllables("the") == 1 and syllables("make") == 1


def test_a_well_made_article_scores_full_marks():
    analysis = analyze(good_article())
    assert analysis.issues == []
    assert analysis.score == 100
    assert analysis.keyword_in_title and analysis.keyword_in_first_paragraph and analysis.keyword_in_headings and analysis.keyword_in_meta_description
    assert analysis.headings["h2"] == 1 and analysis.headings["h3"] == 1
    assert analysis.meta_title_length == len(good_article().meta_title)


@pytest.mark.parametrize(
    ("changes", "issue", "lost"),
    [
        ({"meta_title": ""}, "Meta title is missing", 10),
        ({"meta_title": "x" * 61}, "Meta title is 61 characters; keep it to 60", 7),
        ({"meta_description": "Too short, with running shoes for flat feet."}, "Meta description is 44 characters; use at least 70", 5),
        ({"meta_description": "running shoes for flat feet " * 7}, "Meta description is 195 characters; keep it to 160", 7),
        ({"meta_description": "A description of some length that never names the keyword at all, sadly, not once."}, "The focus keyword is not in the meta description", 5),
        ({"title": "A Buyer's Guide", "meta_title": "A Buyer's Guide to Shoes for Runners Today"}, "The focus keyword is not in the title", 10),
    ],
)
def test_each_failed_check_costs_its_points_and_names_the_issue(changes, issue, lost):
    analysis = analyze(good_article(**changes))
    assert issue in analysis.issues
    assert analysis.score == 100 - lost


def test_structure_problems_are_reported():
    html = "<h1>Big</h1><h4>Skipped</h4>" + f"<p>{GOOD_PARAGRAPH * 2}</p>"
    analysis = analyze(good_article(html=html))
    assert "The body has an H1 heading; the title is the page's only H1" in analysis.issues
    assert "Heading levels skip from H1 to H4" in analysis.issues
    assert "1 paragraph is longer than 150 words" in analysis.issues
    assert "The focus keyword is not in any subheading" in analysis.issues


def test_density_outside_the_range_is_reported():
    stuffed = analyze(good_article(html="<p>" + "running shoes for flat feet are great. " * 60 + "</p>"))
    assert any(issue.startswith("The focus keyword appears too often") for issue in stuffed.issues)
    assert stuffed.keyword_density > 2.5
    sparse = analyze(good_article(html="<p>running shoes for flat feet " + "other words here " * 300 + "</p>"))
    assert any(issue.startswith("The focus keyword appears too rarely") for issue in sparse.issues)


def test_without_a_focus_keyword_keyword_checks_score_nothing():
    analysis = analyze(good_article(focus_keyword=""))
    assert "No focus keyword is set" in analysis.issues
    assert analysis.score == 100 - 15 - 30


def test_keyword_arguments_override_the_article_and_work_alone():
    article = good_article()
    assert not analyze(article, focus_keyword="arch support").keyword_in_title and analyze(article).keyword_in_title
    alone = analyze(html="<p>Hello world.</p>", focus_keyword="hello")
    assert alone.word_count == 2 and alone.keyword_in_first_paragraph
    empty = analyze()
    assert empty.word_count == 0 and 0 <= empty.score <= 100
