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


@dataclass(frozen=True)
class ArticleBrief:
    title: str
    keywords: list[str]
    word_count: int = 1500
    tone: str = "professional"
    structure: str = "guide"
    include_faq: bool = True
    description: str = ""
    outline: list[str] = field(default_factory=list)


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
