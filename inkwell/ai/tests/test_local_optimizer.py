"""SEO optimization by the local provider (inkwell.ai.local.optimizer)."""

from html.parser import HTMLParser

import pytest

from inkwell.ai.analysis import analyze, blocks
from inkwell.ai.local.optimizer import optimize_article
from inkwell.ai.local.writer import write_article
from inkwell.ai.providers.local import LocalTextProvider
from inkwell.ai.types import TONES, ArticleBrief, ArticleDraft

LONG_SENTENCE = "Choosing footwear is personal and it depends on many things, including how you run, where you run and how often you run, and the shape of your feet matters a great deal; many runners never check it."


def weak_article(**changes) -> ArticleDraft:
    body = (
        "<h1>Finding Shoes</h1>"
        "<p>Intro text about comfort &amp; fit, written for new runners.</p>"
        "<h3>Sizing</h3>"
        f"<p>{' '.join([LONG_SENTENCE] * 6)} <a href=\"/guide\">Read <b>our guide. Really</b></a> for more.</p>"
        "<h2>Care</h2><p>Short care paragraph about cleaning shoes.</p><ul><li>Air them out</li></ul>"
    )
    values = {"title": "Finding Shoes That Fit", "meta_title": "", "meta_description": "Shoes.", "focus_keyword": "running shoes for flat feet", "outline": [], "html": body, "word_count": 0}
    values.update(changes)
    return ArticleDraft(**values)


class _Balance(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.ok = [], True

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)

    def handle_endtag(self, tag):
        self.ok = self.ok and bool(self.stack) and self.stack.pop() == tag


def balanced(html: str) -> bool:
    parser = _Balance()
    parser.feed(html)
    return parser.ok and not parser.stack


def test_optimizing_raises_the_score_and_lists_each_change():
    result = optimize_article(weak_article())
    assert result.before == analyze(weak_article())
    assert result.after == analyze(result.article)
    assert result.after.score > result.before.score
    assert result.after.score >= 90
    assert result.changes == [
        "Changed 1 H1 heading in the body to H2; the title is the page's only H1",
        "Added the focus keyword to the first paragraph",
        'Added the focus keyword to the heading "Finding Shoes"',
        "Split 6 sentences longer than 35 words",
        "Split 1 paragraph longer than 150 words",
        "Wrote a meta title from the title",
        "Rewrote the meta description (6 to 100 characters, with the focus keyword)",
    ]


def test_optimized_article_fixes_what_the_analysis_flagged():
    result = optimize_article(weak_article())
    after = result.after
    assert after.keyword_in_first_paragraph and after.keyword_in_headings and after.keyword_in_meta_description and after.keyword_in_title
    assert after.headings["h1"] == 0
    assert 0 < after.meta_title_length <= 60 and 70 <= after.meta_description_length <= 160
    assert not any("longer than 150 words" in issue for issue in after.issues)
    assert not any("skip" in issue for issue in after.issues)


def test_inline_markup_survives_and_the_html_stays_balanced():
    html = optimize_article(weak_article()).article.html
    assert '<a href="/guide">Read <b>our guide. Really</b></a>' in html
    assert "&amp;" in html
    assert balanced(html)


def test_outline_and_word_count_follow_the_new_html():
    article = optimize_article(weak_article()).article
    assert article.outline == [block.text for block in blocks(article.html) if block.tag == "h2"]
    assert article.word_count == analyze(article).word_count


def test_sparse_keyword_is_mentioned_more_and_stuffed_keyword_is_thinned():
    filler = "Good shoes make every run more comfortable and help you keep going. " * 10
    sparse = weak_article(html="<p>Intro about running shoes for flat feet.</p>" + f"<h2>Staying Comfortable</h2><p>{filler}</p>" * 6)
    result = optimize_article(sparse)
    assert result.before.keyword_density < 0.5 <= result.after.keyword_density
    assert any(change.startswith("Mentioned the focus keyword") for change in result.changes)
    stuffed = weak_article(html="<p>Running shoes for flat feet matter.</p><h2>Running Shoes for Flat Feet</h2>" + "<p>Running shoes for flat feet help. Running shoes for flat feet last. Running shoes for flat feet fit well today.</p>" * 5)
    result = optimize_article(stuffed)
    assert result.before.keyword_density > 2.5 and result.after.keyword_density < result.before.keyword_density
    assert any(change.startswith("Replaced some repetitions") for change in result.changes)


def test_missing_focus_keyword_is_taken_from_the_title():
    result = optimize_article(weak_article(focus_keyword="", title="The Complete Guide to Trail Running Shoes"))
    assert result.article.focus_keyword == "trail running shoes"
    assert result.changes[0] == 'Set the focus keyword to "trail running shoes", taken from the title'
    assert result.after.score > result.before.score


@pytest.mark.parametrize("tone", TONES)
def test_optimizing_a_local_draft_never_lowers_its_score(tone):
    draft = write_article(ArticleBrief(title="Sourdough Starter Basics", keywords=["sourdough starter", "rye flour"], word_count=800, tone=tone))
    result = optimize_article(draft)
    assert result.after.score >= result.before.score


def test_an_article_with_nothing_to_fix_comes_back_unchanged():
    draft = write_article(ArticleBrief(title="How to Choose Running Shoes for Flat Feet", keywords=["running shoes for flat feet"], word_count=800))
    result = optimize_article(draft)
    assert result.changes == [] and result.article == draft


def test_an_empty_article_is_handled():
    empty = ArticleDraft(title="", meta_title="", meta_description="", focus_keyword="", outline=[], html="", word_count=0)
    result = optimize_article(empty)
    assert result.after.score >= result.before.score
    assert result.article.html == ""


def test_provider_optimizes_with_token_usage():
    result = LocalTextProvider().optimize_article(weak_article(), prompt="Improve it")
    assert result.value == optimize_article(weak_article())
    assert result.usage.model == "local" and result.usage.prompt_tokens == 3 and result.usage.completion_tokens > 0
