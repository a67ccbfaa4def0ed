"""The provider interface. Every method takes a prompt already rendered from the account's
prompt store, and returns an ``AIResult`` carrying token usage."""

from dataclasses import dataclass
from typing import Protocol

from inkwell.ai.types import (
    AIResult,
    ArticleBrief,
    ArticleDraft,
    ClusterDraft,
    GeneratedImage,
    IdeaDraft,
    ImagePromptDraft,
    KeyCheck,
    KeywordInput,
    OptimizedArticle,
)


@dataclass(frozen=True)
class ProviderConfig:
    """Where and how to reach a provider. ``api_key`` is never logged or shown.

    ``allow_private``: whether calls may reach a loopback or private-network address (a local
    Ollama); off, every connection to such an address is refused (``inkwell.netguard``).
    """

    provider: str = "local"  # "local" | "openai"
    base_url: str = ""
    api_key: str = ""
    model: str = ""
    timeout_seconds: float = 60
    max_retries: int = 3
    allow_private: bool = False
    # The endpoint's embeddings model; when set, the openai provider clusters keywords by its
    # vectors (inkwell.ai.local.clustering) instead of asking the chat model.
    embedding_model: str = ""
    # The account the calls are made for: its calls in flight are limited (inkwell.ai.limits).
    account_id: int | None = None

    def __repr__(self) -> str:
        return f"ProviderConfig(provider={self.provider!r}, base_url={self.base_url!r}, model={self.model!r}, api_key=***)"


class TextProvider(Protocol):
    name: str

    def cluster_keywords(self, keywords: list[KeywordInput], *, prompt: str) -> AIResult[list[ClusterDraft]]: ...

    def generate_ideas(self, cluster_name: str, keywords: list[str], *, count: int, prompt: str) -> AIResult[list[IdeaDraft]]: ...

    def write_article(self, brief: ArticleBrief, *, prompt: str) -> AIResult[ArticleDraft]: ...

    def extract_image_prompts(self, article: ArticleDraft, *, count: int, style: str, prompt: str) -> AIResult[list[ImagePromptDraft]]: ...

    def optimize_article(self, article: ArticleDraft, *, prompt: str) -> AIResult[OptimizedArticle]: ...

    def test_key(self) -> KeyCheck: ...


class ImageProvider(Protocol):
    name: str

    def generate_image(self, prompt: str, *, size: str, style: str) -> AIResult[GeneratedImage]: ...

    def test_key(self) -> KeyCheck: ...
