"""Text integrity: no operation changes text outside the span it means to change.

The linker and the optimizer (the local provider, and the openai provider over the wire through the
protocol-faithful test server) run over hundreds of generated articles (nested lists, headings,
existing links, entities, non-ASCII, repeated phrases, phrases at paragraph edges) and over articles
the local writer wrote. After each operation:

- the linker: the document with the links it reports removed is the input, token for token (tags,
  attributes, text as the reader sees it);
- the optimizer: the words of the input are all there, in order, apart from the edits it makes on
  purpose (a sentence inserted, a label before a heading, a long sentence split at a clause, a
  repetition of the focus keyword replaced by a shorter reference);
- the HTML is well formed, and no link sits inside a link or a heading.
"""

import difflib
import html as html_lib
import re
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inkwell.ai.local.optimizer import optimize_article
from inkwell.ai.local.writer import head_of, topic_of, write_article
from inkwell.ai.providers.base import ProviderConfig
from inkwell.ai.providers.openai import OpenAITextProvider
from inkwell.ai.tests.openai_server import TEST_API_KEY
from inkwell.ai.types import ArticleBrief, ArticleDraft
from inkwell.linker.selectors import Target
from inkwell.linker.services import VOID_ELEMENTS, LinkIndex
from inkwell.writer.sanitize import clean_html

HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
PHRASES = ("tomatoes", "far easier", "raised beds", "garden soil", "crème fraîche", "naïve gardener", "useful", "the noise", "don’t water")
TARGETS = [Target(content_id=number + 2, url=f"/article-{number}/", phrases=(phrase,)) for number, phrase in enumerate(PHRASES)]
# An existing link to one of the targets: that target gets no second link.
EXISTING_TARGET_URL = TARGETS[2].url
WORDS = (
    "the", "a", "soil", "water", "sun", "plant", "grow", "makes", "every", "later", "decision", "root", "leaf",
    "tomatoes", "far", "easier", "useful", "from", "noise", "raised", "beds", "garden", "crème", "fraîche",
    "naïve", "gardener", "Über", "café", "jalapeño", "東京", "don’t", "it's", "5&nbsp;cm", "&amp;", "&lt;3", "R&amp;D", "&#8212;",
)
FOCUS_KEYWORDS = ("", "tomatoes", "garden soil", "raised beds", "compost")


# -- reading HTML back -------------------------------------------------------------------------


class _Tokens(HTMLParser):
    """Start tags (with attributes), end tags and text (entities decoded), adjacent text merged."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tokens: list[tuple] = []

    def handle_starttag(self, tag, attrs):
        self.tokens.append(("start", tag, tuple(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tokens.append(("start", tag, tuple(attrs)))

    def handle_endtag(self, tag):
        self.tokens.append(("end", tag))

    def handle_data(self, data):
        if self.tokens and self.tokens[-1][0] == "text":
            self.tokens[-1] = ("text", self.tokens[-1][1] + data)
        else:
            self.tokens.append(("text", data))


def tokens(html: str) -> list[tuple]:
    parser = _Tokens()
    parser.feed(html)
    parser.close()
    return parser.tokens


def _merged(items: list[tuple]) -> list[tuple]:
    merged: list[tuple] = []
    for item in items:
        if item[0] == "text" and merged and merged[-1][0] == "text":
            merged[-1] = ("text", merged[-1][1] + item[1])
        else:
            merged.append(item)
    return merged


def without_links_to(html: str, urls: set[str]) -> list[tuple]:
    """The tokens of ``html`` with every link to one of ``urls`` unwrapped to its text."""
    kept, open_links = [], []
    for token in tokens(html):
        if token[0] == "start" and token[1] == "a":
            added = dict(token[2]).get("href") in urls
            open_links.append(added)
            if added:
                continue
        elif token[0] == "end" and token[1] == "a" and open_links and open_links.pop():
            continue
        kept.append(token)
    return _merged(kept)


def problems_of_structure(html: str) -> list[str]:
    """Unclosed or stray elements, and links inside links or headings."""
    problems, stack = [], []
    for token in tokens(html):
        if token[0] == "start":
            if token[1] == "a" and ("a" in stack or HEADINGS & set(stack)):
                problems.append(f"a link inside {[tag for tag in stack if tag == 'a' or tag in HEADINGS]}")
            if token[1] not in VOID_ELEMENTS:
                stack.append(token[1])
        elif token[0] == "end" and token[1] not in VOID_ELEMENTS:
            if not stack or stack[-1] != token[1]:
                problems.append(f"</{token[1]}> closes {stack[-1] if stack else 'nothing'}")
            else:
                stack.pop()
    if stack:
        problems.append(f"unclosed {stack}")
    return problems


_BLOCK_TAG = re.compile(r"</?(?:p|h[1-6]|li|ul|ol|blockquote|br|div|figure)\b[^>]*>", re.IGNORECASE)


def visible_words(html: str) -> list[str]:
    """The words a reader sees, block boundaries as spaces, inline tags as nothing."""
    return html_lib.unescape(re.sub(r"<[^>]*>", "", _BLOCK_TAG.sub(" ", html))).split()


def _bare(words: list[str]) -> list[str]:
    """Words compared without the punctuation a sentence split changes, nor case."""
    return [bare for word in words if (bare := re.sub(r"[.,;]", "", word).casefold())]


def _within(small: list[str], big: list[str]) -> bool:
    """``small`` is ``big`` with some words left out (in order)."""
    rest = iter(big)
    return all(word in rest for word in small)


def _as_compared(words: list[str], phrases: set[str]) -> list[str]:
    """``_bare`` words, each of ``phrases`` as one placeholder word."""
    text = " ".join(_bare(words))
    for phrase in sorted(phrases, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(phrase)}(?!\w)", " <keyword> ", text)
    return text.split()


def unintended_changes(before: str, after: str, *, focus_keyword: str) -> list[str]:
    """The places where words of ``before`` are missing or altered in ``after``, beyond the
    optimizer's deliberate edits: insertions, a sentence split at a clause ("head; tail" ->
    "head. Tail"), the focus keyword's repetitions replaced by a reference."""
    keyword = " ".join(focus_keyword.split()).casefold()
    # The keyword and what may stand for it compare alike, on both sides.
    alike = {keyword, "this topic", head_of(topic_of(keyword)).casefold()} if keyword else set()
    old, new = _as_compared(visible_words(before), alike), _as_compared(visible_words(after), alike)
    found = []
    for operation, old_start, old_end, new_start, new_end in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if operation in ("equal", "insert") or _within(old[old_start:old_end], new[new_start:new_end]):
            continue
        found.append(f"{' '.join(old[max(0, old_start - 4) : old_end + 4])!r} -> {' '.join(new[max(0, new_start - 4) : new_end + 4])!r}")
    return found


# -- articles ----------------------------------------------------------------------------------

_words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
_phrase = st.sampled_from(PHRASES).map(lambda phrase: html_lib.escape(phrase, quote=False))


@st.composite
def sentences(draw) -> str:
    parts = draw(st.lists(st.one_of(_words, _phrase), min_size=1, max_size=4))
    text = " ".join(parts)
    joiner = draw(st.sampled_from(["", "", "; ", ", and ", ", so "]))
    if joiner:
        text = f"{text}{joiner}{draw(_words)} {draw(_words)} {draw(_words)}"
    wrapper = draw(st.sampled_from(["{}", "{}", "{}", "“{}”", "({})", "<em>{}</em>", "<strong>{}</strong>"]))
    end = draw(st.sampled_from([".", ".", "!", "?", ".”", ".)", ".\""]))
    return wrapper.format(text[:1].upper() + text[1:]) + end


@st.composite
def inline(draw) -> str:
    """A paragraph's content: sentences, existing links, phrases right at its edges."""
    pieces = draw(st.lists(sentences(), min_size=1, max_size=9))
    if draw(st.booleans()):
        href = draw(st.sampled_from([EXISTING_TARGET_URL, "https://elsewhere.example.org/", "/not-an-article/"]))
        pieces.insert(draw(st.integers(0, len(pieces))), f'<a href="{href}">{draw(st.one_of(_phrase, _words))}</a>')
    separator = draw(st.sampled_from([" ", " ", "\n", "  "]))
    text = separator.join(pieces)
    if draw(st.booleans()):
        text = f"{draw(_phrase)} {text}"
    if draw(st.booleans()):
        text = f"{text} {draw(_phrase)}"
    return text


@st.composite
def blocks(draw, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["p", "p", "p", "heading", "list", "quote"] if depth < 2 else ["p", "heading"]))
    if kind == "heading":
        level = draw(st.integers(1, 4))
        return f"<h{level}>{draw(st.one_of(_phrase, _words))} {draw(_words)}</h{level}>"
    if kind == "list":
        tag = draw(st.sampled_from(["ul", "ol"]))
        items = []
        for _ in range(draw(st.integers(1, 3))):
            body = draw(st.one_of(inline(), blocks(depth=depth + 1).map(lambda block: block)))
            if draw(st.booleans()):
                body = f"{body}<{tag}><li>{draw(inline())}</li></{tag}>"
            items.append(f"<li>{body}</li>")
        return f"<{tag}>{''.join(items)}</{tag}>"
    if kind == "quote":
        return f"<blockquote><p>{draw(inline())}</p></blockquote>"
    return f"<p>{draw(inline())}</p>"


articles = st.lists(blocks(), min_size=1, max_size=7).flatmap(lambda parts: st.sampled_from(["", "\n"]).map(lambda joiner: joiner.join(parts)))

# The local writer's articles, as the writer stores them.
REALISTIC = [
    clean_html(write_article(ArticleBrief(title=f"{title}", keywords=list(keywords), word_count=words, structure=structure)).html)
    for title, keywords, words, structure in [
        ("Growing tomatoes in raised beds", ("growing tomatoes", "raised beds", "garden soil"), 900, "guide"),
        ("Vegetable garden basics", ("vegetable garden", "tomatoes"), 1500, "how_to"),
        ("Trail running shoes compared", ("trail running shoes",), 600, "comparison"),
        ("Crème fraîche at home", ("crème fraîche", "useful"), 400, "listicle"),
        ("Is compost worth it?", ("compost", "garden soil"), 1200, "question"),
        ("The naïve gardener's guide to tomatoes", ("tomatoes",), 300, "review"),
    ]
]
LINKER = LinkIndex(TARGETS)
TARGET_URLS = {target.url for target in TARGETS}
# Deterministic (the same examples every run, no example database), and under a minute in all.
PROPERTY_SETTINGS = settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_linked_faithfully(before: str, max_links: int) -> str:
    after, links = LINKER.link(before, max_links)
    assert without_links_to(after, {link.url for link in links}) == _merged(tokens(before))
    assert problems_of_structure(after) == []
    assert EXISTING_TARGET_URL not in {link.url for link in links} or EXISTING_TARGET_URL not in before
    assert [link.anchor_text for link in links] == [text for url, text in _anchors(after) if url in {link.url for link in links}]
    return after


def _anchors(html: str) -> list[tuple[str, str]]:
    found, href, text = [], None, ""
    for token in tokens(html):
        if token[0] == "start" and token[1] == "a":
            href, text = dict(token[2]).get("href"), ""
        elif token[0] == "text" and href is not None:
            text += token[1]
        elif token[0] == "end" and token[1] == "a" and href is not None:
            found.append((href, text))
            href = None
    return found


def assert_optimized_faithfully(article: ArticleDraft) -> ArticleDraft:
    optimized = optimize_article(article).article
    assert unintended_changes(article.html, optimized.html, focus_keyword=optimized.focus_keyword) == []
    assert problems_of_structure(optimized.html) == []
    return optimized


def draft(html: str, focus_keyword: str) -> ArticleDraft:
    return ArticleDraft(
        title="Growing tomatoes in raised beds", meta_title="Tomatoes in raised beds", meta_description="How to grow tomatoes in raised beds.",
        focus_keyword=focus_keyword, outline=[], html=html, word_count=0,
    )


# -- the properties ----------------------------------------------------------------------------


@settings(PROPERTY_SETTINGS, max_examples=80)
@given(html=articles, max_links=st.integers(1, 12))
def test_the_linker_changes_nothing_but_the_links_it_adds(html, max_links):
    assert problems_of_structure(html) == []
    after = assert_linked_faithfully(html, max_links)
    # Running it again on its own output adds nothing.
    assert LINKER.link(after, max_links) == (after, [])


@settings(PROPERTY_SETTINGS, max_examples=50)
@given(html=articles, focus_keyword=st.sampled_from(FOCUS_KEYWORDS))
def test_the_local_optimizer_changes_text_only_where_it_means_to(html, focus_keyword):
    assert_optimized_faithfully(draft(html, focus_keyword))


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(html=articles, focus_keyword=st.sampled_from(FOCUS_KEYWORDS), max_links=st.integers(1, 12))
def test_optimizing_then_linking_keeps_every_word_outside_the_edits(html, focus_keyword, max_links):
    optimized = assert_optimized_faithfully(draft(html, focus_keyword))
    linked = assert_linked_faithfully(clean_html(optimized.html), max_links)
    again = assert_optimized_faithfully(replace(optimized, html=clean_html(linked)))
    assert_linked_faithfully(clean_html(again.html), max_links)


@pytest.mark.parametrize("html", REALISTIC)
@pytest.mark.parametrize("focus_keyword", FOCUS_KEYWORDS)
def test_written_articles_keep_their_text_through_optimizing_and_linking(html, focus_keyword):
    optimized = assert_optimized_faithfully(draft(html, focus_keyword))
    assert_linked_faithfully(clean_html(optimized.html), 8)


def test_a_sentence_ending_in_a_quote_or_bracket_keeps_it_when_the_optimizer_splits_its_paragraph():
    """A splice the property test found: splitting a paragraph dropped the quote or bracket that closed a sentence."""
    sentence = "Using a plan makes tomatoes far easier (and the useful from the noise.) "
    quoted = "“Raised beds drain well,” she said. “They warm up early.” "
    html = f"<p>{(sentence + quoted) * 12}</p>"
    optimized = optimize_article(draft(html, "tomatoes")).article
    assert unintended_changes(html, optimized.html, focus_keyword="tomatoes") == []
    assert optimized.html.count("noise.)") == 12
    assert optimized.html.count("early.”") == 12


OPENAI_ARTICLES = st.lists(blocks(), min_size=1, max_size=6).map("".join)


@pytest.fixture
def openai_text(openai_server) -> OpenAITextProvider:
    config = ProviderConfig(provider="openai", base_url=openai_server.base_url, api_key=TEST_API_KEY, model="gpt-4o-mini", timeout_seconds=5, max_retries=0, allow_private=True)
    return OpenAITextProvider(config)


@settings(PROPERTY_SETTINGS, max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(html=OPENAI_ARTICLES, focus_keyword=st.sampled_from(FOCUS_KEYWORDS[1:]))
def test_the_openai_path_keeps_the_text_over_the_wire_and_through_the_linker(openai_text, html, focus_keyword):
    optimized = openai_text.optimize_article(draft(html, focus_keyword), prompt="Optimize").value.article
    stored = clean_html(optimized.html)
    assert unintended_changes(html, stored, focus_keyword=focus_keyword) == []
    assert problems_of_structure(stored) == []
    assert_linked_faithfully(stored, 6)
