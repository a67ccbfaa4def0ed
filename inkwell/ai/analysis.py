"""Content analysis: measurable qualities of an article and a 0..100 score.

``analyze`` reads the article's HTML as a browser would show it (tags, scripts and styles
dropped; every block element ends a sentence) and measures:

- ``word_count``: visible words (whitespace-separated runs holding a letter or digit);
- ``readability``: Flesch reading ease, 206.835 - 1.015 x words per sentence - 84.6 x syllables
  per word (syllables estimated from vowel groups); higher is easier, 60-70 is plain English;
- ``keyword_density``: occurrences of the focus keyword (whole words, any case) per 100 visible
  words;
- heading structure, meta title and description lengths, and whether the focus keyword appears in
  the title, the first paragraph, a heading and the meta description.

Score: the sum of these checks (100 in all); each failed or partial check adds an issue.

| check | points |
|---|---|
| at least 300 words (proportional below) | 10 |
| readability: Flesch >= 60 full, 30..60 proportional, below 30 none | 15 |
| keyword density 0.5-2.5 % full; below 0.5 proportional; above 2.5 falling to 0 at 5 % | 15 |
| focus keyword in the title (or meta title) | 10 |
| focus keyword in the first paragraph | 10 |
| focus keyword in an H2-H6 heading | 5 |
| focus keyword in the meta description | 5 |
| meta title 30-60 characters (1-29: 5, over 60: 3, none: 0) | 10 |
| meta description 70-160 characters (1-69: 5, over 160: 3, none: 0) | 10 |
| headings: an H2 once the text passes 300 words, no H1 in the body, no skipped level | 5 |
| paragraphs: none longer than 150 words | 5 |

Without a focus keyword the four keyword checks and the density score nothing.
"""

import math
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from inkwell.ai.types import ArticleDraft, ContentAnalysis
from inkwell.api.text import counted

META_TITLE_MAX = 60
META_TITLE_MIN = 30
META_DESCRIPTION_MAX = 160
META_DESCRIPTION_MIN = 70
LONG_PARAGRAPH_WORDS = 150
MIN_WORDS = 300
DENSITY_RANGE = (0.5, 2.5)

_BLOCK_TAGS = frozenset(
    "address article aside blockquote dd details div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul".split()
)
_HIDDEN_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title"})
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+")
_VOWEL_GROUPS = re.compile(r"[aeiouy]+")


@dataclass(frozen=True)
class Block:
    """A block element's visible text: ``tag`` is "p", "h2", "li", ... ("" for loose text)."""

    tag: str
    text: str


class _BlockParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self._tags: list[str] = []
        self._parts: list[str] = []
        self._hidden = 0

    def _flush(self):
        text = " ".join("".join(self._parts).split())
        if text:
            block_tag = next((tag for tag in reversed(self._tags) if tag in _BLOCK_TAGS), "")
            self.blocks.append(Block(block_tag, text))
        self._parts = []

    def handle_starttag(self, tag, attrs):
        if tag in _HIDDEN_TAGS:
            self._hidden += 1
        elif tag in _BLOCK_TAGS or tag == "br":
            self._flush()
        if tag in _BLOCK_TAGS:
            self._tags.append(tag)

    def handle_endtag(self, tag):
        if tag in _HIDDEN_TAGS:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCK_TAGS:
            self._flush()
            if tag in self._tags:
                # Close up to the matching tag: browsers forgive a missing </li> or </p> the same way.
                while self._tags.pop() != tag:
                    pass

    def handle_data(self, data):
        if not self._hidden:
            self._parts.append(data)

    def close(self):
        super().close()
        self._flush()


def blocks(html: str) -> list[Block]:
    """The visible text of ``html``, one entry per block element, in document order."""
    parser = _BlockParser()
    parser.feed(html or "")
    parser.close()
    return parser.blocks


def count_words(text: str) -> int:
    return sum(1 for chunk in text.split() if any(character.isalnum() for character in chunk))


def words_of(text: str) -> list[str]:
    """Lower-cased words for matching; an apostrophe inside a word keeps it whole."""
    return [word.replace("’", "'") for word in _WORD.findall(text.lower())]


def count_occurrences(text: str, keyword: str) -> int:
    """Whole-word, case-insensitive, non-overlapping occurrences of ``keyword`` in ``text``."""
    needle = words_of(keyword)
    if not needle:
        return 0
    haystack = words_of(text)
    count = index = 0
    size = len(needle)
    while index <= len(haystack) - size:
        if haystack[index : index + size] == needle:
            count += 1
            index += size
        else:
            index += 1
    return count


def contains_keyword(text: str, keyword: str) -> bool:
    return count_occurrences(text, keyword) > 0


def sentences(text: str) -> list[str]:
    return [sentence for sentence in _SENTENCE_END.split(text.strip()) if count_words(sentence)]


def syllables(word: str) -> int:
    word = word.lower().strip("'")
    if not word.isalpha():
        return 1
    groups = len(_VOWEL_GROUPS.findall(word))
    if word.endswith("e") and not word.endswith(("le", "ee", "ye")) and groups > 1:
        groups -= 1
    return max(1, groups)


def flesch_reading_ease(text_blocks: list[Block]) -> float:
    sentence_count = word_count = syllable_count = 0
    for block in text_blocks:
        for sentence in sentences(block.text):
            words = _WORD.findall(sentence)
            if not words:
                continue
            sentence_count += 1
            word_count += len(words)
            syllable_count += sum(syllables(word) for word in words)
    if not word_count:
        return 0.0
    return round(206.835 - 1.015 * word_count / sentence_count - 84.6 * syllable_count / word_count, 1)


def analyze(
    article: ArticleDraft | None = None,
    *,
    html: str | None = None,
    title: str | None = None,
    meta_title: str | None = None,
    meta_description: str | None = None,
    focus_keyword: str | None = None,
) -> ContentAnalysis:
    """Analyse ``article``, or the given parts; a keyword argument overrides the article's field."""

    def pick(value: str | None, attribute: str) -> str:
        if value is not None:
            return value
        return getattr(article, attribute, "") if article is not None else ""

    html = pick(html, "html")
    title = pick(title, "title").strip()
    meta_title = pick(meta_title, "meta_title").strip()
    meta_description = pick(meta_description, "meta_description").strip()
    keyword = " ".join(pick(focus_keyword, "focus_keyword").split())
    return _Measured(blocks(html), title, meta_title, meta_description, keyword).analysis()


class _Measured:
    def __init__(self, text_blocks: list[Block], title: str, meta_title: str, meta_description: str, keyword: str):
        self.blocks = text_blocks
        self.title = title
        self.meta_title = meta_title
        self.meta_description = meta_description
        self.keyword = keyword if words_of(keyword) else ""
        self.text = "\n".join(block.text for block in text_blocks)
        self.word_count = count_words(self.text)
        self.readability = flesch_reading_ease(text_blocks)
        occurrences = count_occurrences(self.text, self.keyword) if self.keyword else 0
        self.density = round(100.0 * occurrences / self.word_count, 2) if self.word_count else 0.0
        self.headings = {tag: sum(1 for block in text_blocks if block.tag == tag) for tag in _HEADINGS}
        paragraphs = [block for block in text_blocks if block.tag == "p"] or [block for block in text_blocks if block.tag not in _HEADINGS]
        self.first_paragraph = paragraphs[0].text if paragraphs else ""
        self.long_paragraphs = sum(1 for block in text_blocks if block.tag in ("p", "") and count_words(block.text) > LONG_PARAGRAPH_WORDS)
        self.issues: list[str] = []

    def analysis(self) -> ContentAnalysis:
        keyword = self.keyword
        in_title = bool(keyword) and (contains_keyword(self.title, keyword) or contains_keyword(self.meta_title, keyword))
        in_first = bool(keyword) and contains_keyword(self.first_paragraph, keyword)
        in_heading = bool(keyword) and any(block.tag in _HEADINGS[1:] and contains_keyword(block.text, keyword) for block in self.blocks)
        in_description = bool(keyword) and contains_keyword(self.meta_description, keyword)
        score = (
            self._length()
            + self._readability()
            + self._density()
            + self._keyword_checks(in_title, in_first, in_heading, in_description)
            + self._meta(self.meta_title, "Meta title", META_TITLE_MIN, META_TITLE_MAX)
            + self._meta(self.meta_description, "Meta description", META_DESCRIPTION_MIN, META_DESCRIPTION_MAX)
            + self._structure()
            + self._paragraphs()
        )
        return ContentAnalysis(
            score=max(0, min(100, math.floor(score + 1e-9))),
            word_count=self.word_count,
            readability=self.readability,
            keyword_density=self.density,
            issues=self.issues,
            meta_title_length=len(self.meta_title),
            meta_description_length=len(self.meta_description),
            headings=dict(self.headings),
            keyword_in_title=in_title,
            keyword_in_first_paragraph=in_first,
            keyword_in_headings=in_heading,
            keyword_in_meta_description=in_description,
        )

    def _length(self) -> float:
        if self.word_count >= MIN_WORDS:
            return 10
        self.issues.append(f"The text has {counted(self.word_count, 'word')}; aim for at least {MIN_WORDS}")
        return 10 * self.word_count / MIN_WORDS

    def _readability(self) -> float:
        if self.readability >= 60:
            return 15
        if self.word_count:
            self.issues.append(f"Readability is low (Flesch reading ease {self.readability:g}); use shorter sentences and simpler words")
        return 0 if self.readability <= 30 else 15 * (self.readability - 30) / 30

    def _density(self) -> float:
        if not self.keyword:
            self.issues.append("No focus keyword is set")
            return 0
        low, high = DENSITY_RANGE
        if low <= self.density <= high:
            return 15
        if self.density < low:
            self.issues.append(f"The focus keyword appears too rarely ({self.density:g}% of words; aim for {low:g}-{high:g}%)")
            return 15 * self.density / low
        self.issues.append(f"The focus keyword appears too often ({self.density:g}% of words; aim for {low:g}-{high:g}%)")
        return max(0.0, 15 * (5.0 - self.density) / (5.0 - high))

    def _keyword_checks(self, in_title: bool, in_first: bool, in_heading: bool, in_description: bool) -> float:
        if not self.keyword:
            return 0
        checks = (
            (in_title, 10, "The focus keyword is not in the title"),
            (in_first, 10, "The focus keyword is not in the first paragraph"),
            (in_heading, 5, "The focus keyword is not in any subheading"),
            (in_description, 5, "The focus keyword is not in the meta description"),
        )
        for passed, _points, issue in checks:
            if not passed:
                self.issues.append(issue)
        return sum(points for passed, points, _issue in checks if passed)

    def _meta(self, value: str, label: str, minimum: int, maximum: int) -> float:
        length = len(value)
        if not length:
            self.issues.append(f"{label} is missing")
            return 0
        if length > maximum:
            self.issues.append(f"{label} is {counted(length, 'character')}; keep it to {maximum}")
            return 3
        if length < minimum:
            self.issues.append(f"{label} is {counted(length, 'character')}; use at least {minimum}")
            return 5
        return 10

    def _structure(self) -> float:
        points = 5
        if self.word_count > MIN_WORDS and not self.headings["h2"]:
            self.issues.append("The text has no H2 subheadings")
            points -= 3
        if self.headings["h1"]:
            self.issues.append("The body has an H1 heading; the title is the page's only H1")
            points -= 1
        previous = 1
        for block in self.blocks:
            if block.tag in _HEADINGS:
                level = int(block.tag[1])
                if level > previous + 1:
                    self.issues.append(f"Heading levels skip from H{previous} to H{level}")
                    points -= 1
                    break
                previous = level
        return max(0, points)

    def _paragraphs(self) -> float:
        if not self.long_paragraphs:
            return 5
        plural = "s are" if self.long_paragraphs > 1 else " is"
        self.issues.append(f"{self.long_paragraphs} paragraph{plural} longer than {LONG_PARAGRAPH_WORDS} words")
        return 0
