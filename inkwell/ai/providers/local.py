"""The ``local`` provider: an offline, deterministic drafting aid. It is not a language model.

It needs no network, no API key and no model files beyond the one its ``wordllama`` dependency
ships. Every operation is computed from its structured inputs with fixed rules, word lists,
WordLlama vectors, fastcluster and Pillow, so the same input
always gives the same output, and the output is a starting point for a human editor:

- keyword clustering groups keywords by meaning: WordLlama embeddings (a 256-dimension model
  shipped inside the ``wordllama`` wheel, loaded once per process, never downloaded) and
  agglomerative clustering cut at a similarity threshold (``inkwell.ai.local.clustering``);
- ideas, articles and image prompts are composed from templates and a phrase bank filled with the
  brief's title and keywords, honouring its length, tone, structure, outline and FAQ choice
  (``ideas``, ``writer``, ``images``);
- images are real PNGs of the requested size: abstract artwork (gradient, shapes and the prompt's text);
- optimization measures the article (``inkwell.ai.analysis``) and applies rule-based SEO fixes.

The rendered prompt each method receives is not interpreted (there is no model to read it); it
counts towards the token estimate. Token usage is estimated, not metered: 4 tokens per 3 words
(the usual average for English text) of the prompt, and of the text produced as completion, with
``model="local"``. Nothing here spends money, but the estimate lets credit accounting and usage
reports treat every provider alike.
"""

import math

from django.conf import settings

from inkwell.ai.analysis import blocks
from inkwell.ai.local.clustering import SIMILARITY, cluster_keywords
from inkwell.ai.local.ideas import generate_ideas
from inkwell.ai.local.images import extract_image_prompts, render_image
from inkwell.ai.local.optimizer import optimize_article
from inkwell.ai.local.writer import write_article
from inkwell.ai.providers.base import ProviderConfig
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
    TokenUsage,
)

NAME = "local"
KEY_DETAIL = "The local provider needs no API key"


def estimate_tokens(*texts: str) -> int:
    """About 4 tokens per 3 words of English."""
    return math.ceil(sum(len(text.split()) for text in texts) * 4 / 3)


def _usage(prompt: str, *completion: str) -> TokenUsage:
    return TokenUsage(prompt_tokens=estimate_tokens(prompt), completion_tokens=estimate_tokens(*completion), model=NAME)


def _article_text(article: ArticleDraft) -> list[str]:
    return [article.title, article.meta_title, article.meta_description, *(block.text for block in blocks(article.html))]


class LocalTextProvider:
    name = NAME

    def __init__(self, config: ProviderConfig | None = None):
        self.config = config or ProviderConfig(provider=NAME)

    def cluster_keywords(self, keywords: list[KeywordInput], *, prompt: str) -> AIResult[list[ClusterDraft]]:
        clusters = cluster_keywords(list(keywords), similarity=float(settings.INKWELL_AI.get("CLUSTER_SIMILARITY", SIMILARITY)))
        return AIResult(clusters, _usage(prompt, *(f"{cluster.name} {cluster.description}" for cluster in clusters)))

    def generate_ideas(self, cluster_name: str, keywords: list[str], *, count: int, prompt: str) -> AIResult[list[IdeaDraft]]:
        ideas = generate_ideas(cluster_name, list(keywords), count)
        texts = [" ".join([idea.title, idea.description, *idea.outline, *idea.target_keywords]) for idea in ideas]
        return AIResult(ideas, _usage(prompt, *texts))

    def write_article(self, brief: ArticleBrief, *, prompt: str) -> AIResult[ArticleDraft]:
        article = write_article(brief)
        return AIResult(article, _usage(prompt, *_article_text(article)))

    def extract_image_prompts(self, article: ArticleDraft, *, count: int, style: str, prompt: str) -> AIResult[list[ImagePromptDraft]]:
        drafts = extract_image_prompts(article, count=count, style=style)
        return AIResult(drafts, _usage(prompt, *(f"{draft.prompt} {draft.alt_text}" for draft in drafts)))

    def optimize_article(self, article: ArticleDraft, *, prompt: str) -> AIResult[OptimizedArticle]:
        result = optimize_article(article)
        return AIResult(result, _usage(prompt, *_article_text(result.article), *result.changes))

    def test_key(self) -> KeyCheck:
        return KeyCheck(valid=True, detail=KEY_DETAIL, provider=NAME, model=NAME)


class LocalImageProvider:
    name = NAME

    def __init__(self, config: ProviderConfig | None = None):
        self.config = config or ProviderConfig(provider=NAME)

    def generate_image(self, prompt: str, *, size: str = "1024x1024", style: str = "photorealistic") -> AIResult[GeneratedImage]:
        """Abstract PNG artwork for the prompt; raises ``InvalidImageSize`` (an ``AIError`` and ``ValueError``) for a bad size."""
        return AIResult(render_image(prompt, size=size, style=style), _usage(prompt))

    def test_key(self) -> KeyCheck:
        return KeyCheck(valid=True, detail=KEY_DETAIL, provider=NAME, model=NAME)
