"""Inputs and outputs of AI operations: plain data, the same whichever provider answers."""

from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

IMAGE_TYPES = ("featured", "in_article")
# The tones and structures an article brief may ask for; every provider writes each of them.
TONES = ("professional", "friendly", "casual", "authoritative", "conversational", "persuasive")
STRUCTURES = ("guide", "listicle", "how_to", "comparison", "review", "question")


@dataclass(frozen=True)
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""


@dataclass(frozen=True)
class AIResult(Generic[T]):
    """What an operation produced, and what it cost the provider in tokens."""

    value: T
    usage: TokenUsage = field(default_factory=TokenUsage)


@dataclass(frozen=True)
class KeywordInput:
    id: int
    keyword: str
    volume: int = 0
    difficulty: int = 0
    country: str = ""  # ISO 3166-1 alpha-2: the same text from several countries is clustered as one entry


@dataclass(frozen=True)
class ClusterDraft:
    name: str
    description: str
    keyword_ids: list[int]


@dataclass(frozen=True)
class IdeaDraft:
    title: str
    description: str
    content_type: str  # post, page, ...
    content_structure: str  # guide, listicle, how_to, comparison, review, ...
    target_keywords: list[str]
    outline: list[str]


PERSONS = ("first", "second", "third")


@dataclass(frozen=True)
class Voice:
    """A site's voice (issue 35): what every writing, optimizing and rewriting prompt carries."""

    tone: str = ""
    person: str = ""  # one of PERSONS: "we", "you", or neither
    reading_grade: float = 0.0  # Flesch-Kincaid grade to aim for
    sentence_words: int = 0  # average words per sentence to aim for
    words_to_use: tuple[str, ...] = ()
    words_to_avoid: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()

    def as_text(self) -> str:
        """The voice as lines of a prompt ("" when the site has none)."""
        lines = []
        if self.tone:
            lines.append(f"Tone: {self.tone}")
        if self.person:
            lines.append(f"Person: {dict(first='first person plural (we, our)', second='second person (you, your)', third='third person (no we, no you)')[self.person]}")
        if self.reading_grade:
            lines.append(f"Reading level: about grade {self.reading_grade:g}")
        if self.sentence_words:
            lines.append(f"Sentence length: about {self.sentence_words} words on average")
        if self.words_to_use:
            lines.append("Words to use: " + ", ".join(self.words_to_use))
        if self.words_to_avoid:
            lines.append("Words never to use: " + ", ".join(self.words_to_avoid))
        for index, example in enumerate(self.examples, start=1):
            lines.append(f"Example paragraph {index}: {example}")
        return "\n".join(lines)


@dataclass(frozen=True)
class InternalLink:
    title: str
    url: str


@dataclass(frozen=True)
class ArticleBrief:
    """What an article is written from. ``outline`` entries are H2 headings; one that starts with
    "### " is an H3 under the H2 before it. The fields after ``outline`` come from an approved
    brief (issue 35) and the site's voice; empty, they ask nothing."""

    title: str
    keywords: list[str]
    word_count: int = 1500
    tone: str = "professional"
    structure: str = "guide"
    include_faq: bool = True
    description: str = ""
    outline: list[str] = field(default_factory=list)
    angle: str = ""
    reader: str = ""
    questions: list[str] = field(default_factory=list)
    internal_links: list[InternalLink] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # URLs or notes the writer must use
    voice: Voice | None = None

    def brief_text(self) -> str:
        """The approved brief's parts as lines of a prompt ("" when there are none)."""
        lines = []
        if self.angle:
            lines.append(f"Angle: {self.angle}")
        if self.reader:
            lines.append(f"Reader: {self.reader}")
        if self.questions:
            lines.append("Questions the article must answer:\n" + "\n".join(f"- {question}" for question in self.questions))
        if self.internal_links:
            lines.append("Link to these articles of the site where they fit (use these URLs exactly):\n" + "\n".join(f"- {link.title}: {link.url}" for link in self.internal_links))
        if self.sources:
            lines.append(
                "Sources you must use (a figure, date, quotation or finding may come only from these, linked where it is used):\n"
                + "\n".join(f"- {source}" for source in self.sources)
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class FaqItem:
    question: str
    answer: str


@dataclass(frozen=True)
class ArticleDraft:
    title: str
    meta_title: str
    meta_description: str
    focus_keyword: str
    outline: list[str]
    html: str
    word_count: int
    faq: list[FaqItem] = field(default_factory=list)


@dataclass(frozen=True)
class ImagePromptDraft:
    prompt: str
    alt_text: str
    image_type: str  # one of IMAGE_TYPES


@dataclass(frozen=True)
class GeneratedImage:
    data: bytes
    mime_type: str
    width: int
    height: int
    prompt: str


@dataclass(frozen=True)
class ContentAnalysis:
    """Measured qualities of an article; ``score`` is 0..100."""

    score: int
    word_count: int
    readability: float
    keyword_density: float
    issues: list[str]
    # The measurements behind the score (inkwell.ai.analysis); optional so a provider may omit them.
    meta_title_length: int = 0
    meta_description_length: int = 0
    headings: dict[str, int] = field(default_factory=dict)  # {"h1": 0, "h2": 5, ...}
    keyword_in_title: bool = False
    keyword_in_first_paragraph: bool = False
    keyword_in_headings: bool = False
    keyword_in_meta_description: bool = False


@dataclass(frozen=True)
class OptimizedArticle:
    article: ArticleDraft
    before: ContentAnalysis
    after: ContentAnalysis
    changes: list[str]


@dataclass(frozen=True)
class KeyCheck:
    """The outcome of a real verification call: ``detail`` is safe to show (never the key)."""

    valid: bool
    detail: str
    provider: str
    model: str = ""
