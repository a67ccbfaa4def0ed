"""SEO clean-up of an article: measure, apply fixes that need no judgement, measure again.

Fixes, each applied only when the analysis calls for it and reported as one plain sentence:
a focus keyword taken from the title when none is set; H1 headings in the body demoted and
skipped heading levels closed up; the focus keyword added to the first paragraph and to a
subheading; paragraphs over 150 words split at sentence ends and sentences over 35 words split
at a clause boundary; keyword density brought into 0.5-2.5 %; meta title and description
rewritten to fit 60 and 160 characters with the keyword in them.

The HTML is edited in place, block by block (``<p>`` and ``<h1>``-``<h6>``); inline markup
inside a paragraph is kept, and text is only ever split where no inline tag is open. When the
result would score lower than the original (it should not), the original is returned unchanged.
"""

import html
import re
from dataclasses import dataclass, replace

from inkwell.ai.analysis import (
    DENSITY_RANGE,
    LONG_PARAGRAPH_WORDS,
    META_DESCRIPTION_MAX,
    META_DESCRIPTION_MIN,
    META_TITLE_MAX,
    META_TITLE_MIN,
    analyze,
    count_occurrences,
    count_words,
    sentences,
)
from inkwell.ai.local.phrases import FAQ_HINTS
from inkwell.ai.local.text import title_case
from inkwell.ai.local.writer import fit, focus_keyword_of, head_of, topic_of
from inkwell.ai.types import ArticleBrief, ArticleDraft, OptimizedArticle

LONG_SENTENCE_WORDS = 35
PARAGRAPH_CHUNK_WORDS = 100
TARGET_DENSITY = 0.8  # per cent, when mentions have to be added
MAX_MENTIONS = 20
_BLOCK = re.compile(r"<(p|h[1-6])(\s[^>]*)?>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"(<[^>]*>)")
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
# What closes a sentence (quotes, brackets) stays with it: only the whitespace after it is a boundary.
_BOUNDARY = re.compile(r"(?<=[.!?])([\"'”’)\]]*)\s+(?=[A-Z0-9\"“'‘(])")
_ENDS_SENTENCE = re.compile(r"(?<=[.!?])([\"'”’)\]]*)\s+$")
_CLAUSE = re.compile(r"(; |, and |, but |, so |, which means )")
_MENTIONS = (
    "This matters for {kw} in particular.",
    "The same holds true for {kw}.",
    "Keep {kw} in mind at this stage.",
    "That is especially true of {kw}.",
    "It is a key point for anyone working on {kw}.",
)


@dataclass
class _Block:
    tag: str
    attributes: str
    inner: str

    @property
    def text(self) -> str:
        return " ".join(html.unescape(_TAG.sub(" ", self.inner)).split())

    def render(self) -> str:
        return f"<{self.tag}{self.attributes}>{self.inner}</{self.tag}>"


def optimize_article(article: ArticleDraft) -> OptimizedArticle:
    before = analyze(article)
    editor = _Editor(article)
    improved = editor.run()
    after = analyze(improved)
    if after.score < before.score:
        return OptimizedArticle(article=article, before=before, after=before, changes=[])
    return OptimizedArticle(article=improved, before=before, after=after, changes=editor.changes)


class _Editor:
    def __init__(self, article: ArticleDraft):
        self.article = article
        self.keyword = " ".join(article.focus_keyword.split())
        self.changes: list[str] = []
        # Alternating raw HTML strings and blocks; raw parts are never touched.
        self.parts: list[str | _Block] = []
        position = 0
        for match in _BLOCK.finditer(article.html or ""):
            self.parts.append(article.html[position : match.start()])
            self.parts.append(_Block(match.group(1).lower(), match.group(2) or "", match.group(3)))
            position = match.end()
        self.parts.append((article.html or "")[position:])

    @property
    def blocks(self) -> list[_Block]:
        return [part for part in self.parts if isinstance(part, _Block)]

    def html(self) -> str:
        return "".join(part.render() if isinstance(part, _Block) else part for part in self.parts)

    def run(self) -> ArticleDraft:
        if not self.keyword and self.article.title.strip():
            self.keyword = focus_keyword_of(ArticleBrief(title=self.article.title, keywords=[]))
            self.changes.append(f"Set the focus keyword to \"{self.keyword}\", taken from the title")
        self._fix_heading_levels()
        if self.keyword:
            self._keyword_in_first_paragraph()
            self._keyword_in_heading()
        self._split_long_sentences()
        self._split_long_paragraphs()
        if self.keyword:
            self._balance_density()
        body = self.html()
        meta_title = self._meta_title()
        meta_description = self._meta_description()
        analysis = analyze(html=body, title=self.article.title, meta_title=meta_title, meta_description=meta_description, focus_keyword=self.keyword)
        return replace(
            self.article,
            focus_keyword=self.keyword,
            html=body,
            meta_title=meta_title,
            meta_description=meta_description,
            outline=[block.text for block in self.blocks if block.tag == "h2"],
            word_count=analysis.word_count,
        )

    # -- headings ---------------------------------------------------------------------------

    def _fix_heading_levels(self) -> None:
        demoted = closed = 0
        previous = 1
        for block in self.blocks:
            if block.tag[0] != "h":
                continue
            level = int(block.tag[1])
            if level == 1:
                level, demoted = 2, demoted + 1
            if level > previous + 1:
                level, closed = previous + 1, closed + 1
            block.tag = f"h{level}"
            previous = level
        if demoted:
            self.changes.append(f"Changed {_count(demoted, 'H1 heading')} in the body to H2; the title is the page's only H1")
        if closed:
            self.changes.append(f"Closed up {_count(closed, 'heading')} that skipped a level")

    def _keyword_in_heading(self) -> None:
        headings = [block for block in self.blocks if block.tag in ("h2", "h3", "h4", "h5", "h6")]
        if any(count_occurrences(block.text, self.keyword) for block in headings):
            return
        candidates = [block for block in headings if block.tag == "h2" and not _is_faq(block.text)]
        label = html.escape(title_case(self.keyword), quote=False)
        if candidates:
            target = candidates[0]
            old = target.text
            target.inner = f"{label}: {target.inner}"
            self.changes.append(f"Added the focus keyword to the heading \"{old}\"")
            return
        paragraphs = [index for index, part in enumerate(self.parts) if isinstance(part, _Block) and part.tag == "p"]
        if analyze(html=self.html()).word_count > 300 and len(paragraphs) >= 2:
            self.parts[paragraphs[1] : paragraphs[1]] = [_Block("h2", "", f"{label}: Key Points"), "\n"]
            self.changes.append("Added an H2 subheading with the focus keyword")

    # -- paragraphs -------------------------------------------------------------------------

    def _paragraphs(self, *, skip_faq: bool = False) -> list[_Block]:
        result, in_faq = [], False
        for block in self.blocks:
            if block.tag == "h2":
                in_faq = _is_faq(block.text)
            elif block.tag == "p" and block.text and not (skip_faq and in_faq):
                result.append(block)
        return result

    def _keyword_in_first_paragraph(self) -> None:
        paragraphs = self._paragraphs()
        sentence = html.escape(f"Here is what you need to know about {self.keyword}.", quote=False)
        if paragraphs and count_occurrences(paragraphs[0].text, self.keyword):
            return
        if paragraphs:
            paragraphs[0].inner = f"{sentence} {paragraphs[0].inner.lstrip()}"
        else:
            self.parts[0:0] = [_Block("p", "", sentence), "\n"]
        self.changes.append("Added the focus keyword to the first paragraph")

    def _split_long_paragraphs(self) -> None:
        split = 0
        for part in list(self.parts):
            if not isinstance(part, _Block) or part.tag != "p" or count_words(part.text) <= LONG_PARAGRAPH_WORDS:
                continue
            chunks, current, words = [], [], 0
            for fragment in _sentence_fragments(part.inner):
                size = count_words(_visible(fragment))
                if current and words + size > PARAGRAPH_CHUNK_WORDS:
                    chunks.append(current)
                    current, words = [], 0
                current.append(fragment)
                words += size
            if current:
                chunks.append(current)
            if len(chunks) < 2:
                continue
            replacement: list[str | _Block] = []
            for number, chunk in enumerate(chunks):
                if number:
                    replacement.append("\n")
                replacement.append(_Block("p", part.attributes, " ".join(fragment.strip() for fragment in chunk)))
            position = self.parts.index(part)
            self.parts[position : position + 1] = replacement
            split += 1
        if split:
            self.changes.append(f"Split {_count(split, 'paragraph')} longer than {LONG_PARAGRAPH_WORDS} words")

    def _split_long_sentences(self) -> None:
        split = 0
        for block in self._paragraphs():
            fragments = _sentence_fragments(block.inner)
            changed = False
            for index, fragment in enumerate(fragments):
                if count_words(_visible(fragment)) > LONG_SENTENCE_WORDS and "<" not in fragment:
                    shorter = _split_sentence(fragment.strip())
                    if shorter != fragment.strip():
                        fragments[index], changed = shorter, True
                        split += 1
            if changed:
                block.inner = " ".join(fragment.strip() for fragment in fragments)
        if split:
            self.changes.append(f"Split {_count(split, 'sentence')} longer than {LONG_SENTENCE_WORDS} words")

    # -- keyword density --------------------------------------------------------------------

    def _density(self) -> tuple[float, int]:
        """Keyword density in per cent, as the analysis measures it, and the word count."""
        measured = analyze(html=self.html(), focus_keyword=self.keyword)
        return measured.keyword_density, measured.word_count

    def _balance_density(self) -> None:
        low, high = DENSITY_RANGE
        density, words = self._density()
        if not words:
            return
        if density < low:
            # Longest paragraphs first, one mention each per round, at most three rounds.
            paragraphs = sorted(self._paragraphs(skip_faq=True)[1:] or self._paragraphs(), key=lambda block: -count_words(block.text))
            added = 0
            for index in range(min(MAX_MENTIONS, 3 * len(paragraphs))):
                if self._density()[0] >= TARGET_DENSITY:
                    break
                mention = _MENTIONS[index % len(_MENTIONS)].format(kw=self.keyword)
                paragraph = paragraphs[index % len(paragraphs)]
                paragraph.inner = f"{paragraph.inner.rstrip()} {html.escape(mention, quote=False)}"
                added += 1
            if added:
                self.changes.append(f"Mentioned the focus keyword {_count(added, 'more time')} (density {density:.2f}% to {self._density()[0]:.2f}%)")
        elif density > high:
            reference = head_of(topic_of(self.keyword))
            reference = reference if reference.lower() != self.keyword.lower() else "this topic"
            pattern = re.compile(rf"(?<!\w){re.escape(self.keyword)}(?!\w)", re.IGNORECASE)
            replaced = False
            # First every second repetition in each paragraph, then all but the first, until the density is reasonable.
            for keep_every in (2, None):
                for block in self._paragraphs(skip_faq=True)[1:]:
                    if self._density()[0] <= 2.0:
                        break
                    block.inner = _replace_repetitions(block.inner, pattern, reference, keep_every)
                    replaced = True
            if replaced:
                self.changes.append(f"Replaced some repetitions of the focus keyword with \"{reference}\" (density {density:.2f}% to {self._density()[0]:.2f}%)")

    # -- meta -------------------------------------------------------------------------------

    def _meta_title(self) -> str:
        current = " ".join(self.article.meta_title.split())
        if not self.keyword:
            return fit(current or " ".join(self.article.title.split()), META_TITLE_MAX)
        title = " ".join(self.article.title.split())
        keyword = title_case(self.keyword)
        if not current:
            current = title if count_occurrences(title, self.keyword) else f"{keyword}: {title}" if title else keyword
            current = fit(current, META_TITLE_MAX)
            self.changes.append("Wrote a meta title from the title")
        if len(current) > META_TITLE_MAX:
            current = fit(current, META_TITLE_MAX)
            self.changes.append(f"Shortened the meta title to {len(current)} characters")
        if not count_occurrences(current, self.keyword):
            with_keyword = f"{keyword}: {current}"
            current = with_keyword if len(with_keyword) <= META_TITLE_MAX else fit(f"{keyword}: {title}", META_TITLE_MAX)
            self.changes.append("Added the focus keyword to the meta title")
        if len(current) < META_TITLE_MIN and len(f"{current}: A Practical Guide") <= META_TITLE_MAX:
            current = f"{current}: A Practical Guide"
            self.changes.append(f"Lengthened the meta title to {len(current)} characters")
        return current

    def _meta_description(self) -> str:
        current = " ".join(self.article.meta_description.split())
        if not self.keyword:
            return fit(current, META_DESCRIPTION_MAX)
        length_ok = META_DESCRIPTION_MIN <= len(current) <= META_DESCRIPTION_MAX
        if current and length_ok and count_occurrences(current, self.keyword):
            return current
        paragraphs = self._paragraphs()
        source = sentences(paragraphs[0].text) if paragraphs else []
        description = current if current else ""
        if not count_occurrences(description, self.keyword):
            description = f"{title_case(self.keyword)}: {description}" if description else ""
        for sentence in source:
            if len(description) >= META_DESCRIPTION_MIN:
                break
            description = f"{description} {sentence}".strip()
        if not description:
            description = f"{title_case(self.keyword)}: {self.article.title}"
        description = fit(description, META_DESCRIPTION_MAX)
        if not current:
            self.changes.append("Wrote a meta description from the first paragraph")
        else:
            self.changes.append(f"Rewrote the meta description ({len(current)} to {len(description)} characters, with the focus keyword)")
        return description


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _is_faq(text: str) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in FAQ_HINTS)


def _visible(fragment: str) -> str:
    return html.unescape(_TAG.sub(" ", fragment))


def _sentence_fragments(inner: str) -> list[str]:
    """``inner`` cut into sentences, only where no inline tag is open, so each piece is valid HTML."""
    fragments, current, depth = [], "", 0
    for piece in _TAG.split(inner):
        if not piece:
            continue
        if piece.startswith("<"):
            name = re.match(r"</?\s*([a-zA-Z0-9]+)", piece)
            if name and name.group(1).lower() not in _VOID and not piece.endswith("/>"):
                depth += -1 if piece.startswith("</") else 1
            current += piece
            continue
        if depth > 0:
            current += piece
            continue
        start = 0
        for match in _BOUNDARY.finditer(piece):
            fragments.append(current + piece[start : match.end(1)])
            current = ""
            start = match.end()
        tail = piece[start:]
        ending = _ENDS_SENTENCE.search(tail)
        if ending:
            # The sentence ends just before a tag: "... check it. <a href=...>"
            fragments.append(current + tail[: ending.end(1)])
            current, tail = "", ""
        current += tail
    if current.strip():
        fragments.append(current)
    return fragments


def _split_sentence(sentence: str) -> str:
    """Split at the clause boundary nearest the middle: "a; b" -> "a. B"."""
    matches = list(_CLAUSE.finditer(sentence))
    if not matches:
        return sentence
    middle = len(sentence) / 2
    match = min(matches, key=lambda item: abs(item.start() - middle))
    head, tail = sentence[: match.start()].rstrip(), sentence[match.end() :].lstrip()
    joiner = match.group(1).strip(" ;,")
    if count_words(head) < 6 or count_words(tail) < 6:
        return sentence
    tail = f"{joiner.capitalize()} {tail}" if joiner else tail[:1].upper() + tail[1:]
    return f"{head}. {tail}"


def _replace_repetitions(inner: str, pattern: re.Pattern, reference: str, keep_every: int | None) -> str:
    """Keyword repetitions in the text (never inside a tag) become the shorter reference: every
    ``keep_every``-th one, or all but the first when ``keep_every`` is None."""
    seen = 0

    def swap(match: re.Match) -> str:
        nonlocal seen
        seen += 1
        if (keep_every and seen % keep_every) or (keep_every is None and seen == 1):
            return match.group(0)
        return reference[:1].upper() + reference[1:] if match.group(0)[:1].isupper() else reference

    return "".join(piece if piece.startswith("<") else pattern.sub(swap, piece) for piece in _TAG.split(inner))
