"""Optimization against a list of problems an analysis found.

``AIClient.optimize_article`` sends the account's optimization prompt, which knows the article but
not what a site-aware analysis (the optimizer app: target length, links, images) found wrong with
it. ``optimize_with_suggestions`` sends the same prompt followed by those findings, so the provider
works on them too. The prompt text stays here, in the AI engine, as for every other operation.
"""

from collections.abc import Sequence

from inkwell.ai.client import AIClient
from inkwell.ai.types import AIResult, ArticleDraft, OptimizedArticle, Voice

SUGGESTIONS_HEADER = "An analysis of the article found these problems. Fix each one you can without inventing facts:"


def optimization_prompt(client: AIClient, article: ArticleDraft, suggestions: Sequence[str], *, voice: Voice | None = None) -> str:
    prompt = client.optimization_prompt(article, voice=voice)
    findings = [" ".join(suggestion.split()) for suggestion in suggestions if suggestion.strip()]
    if not findings:
        return prompt
    return "\n".join([prompt, "", SUGGESTIONS_HEADER, *(f"- {finding}" for finding in findings)])


def optimize_with_suggestions(client: AIClient, article: ArticleDraft, suggestions: Sequence[str], *, voice: Voice | None = None) -> AIResult[OptimizedArticle]:
    """The article improved by the client's text provider, told about ``suggestions`` and the site's voice as well."""
    return client.text.optimize_article(article, prompt=optimization_prompt(client, article, suggestions, voice=voice))
