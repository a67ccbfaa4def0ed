"""``AIClient``: the one entry point domains use for AI work.

It holds a text provider, an image provider and the account's prompt templates (prompt type ->
text; a type without one uses the registry's default), renders the right prompt for each call and
hands it to the provider with the structured inputs. Call sites never see prompt text.
"""

from collections.abc import Mapping, Sequence

from inkwell.ai.analysis import blocks
from inkwell.ai.prompts import PROMPTS, render
from inkwell.ai.providers.base import ImageProvider, TextProvider
from inkwell.ai.types import (
    AIResult,
    ArticleBrief,
    ArticleDraft,
    ClusterDraft,
    GeneratedImage,
    IdeaDraft,
    ImagePromptDraft,
    KeywordInput,
    OptimizedArticle,
    Voice,
)

DEFAULT_IMAGE_SIZE = "1024x1024"
DEFAULT_IMAGE_STYLE = "photorealistic"


class AIClient:
    def __init__(self, text: TextProvider, image: ImageProvider, templates: Mapping[str, str] | None = None):
        self.text = text
        self.image = image
        self.templates = dict(templates or {})

    def prompt(self, prompt_type: str, *, carried: Sequence[tuple[str, str]] = (), **values: object) -> str:
        """The rendered prompt of ``prompt_type``: the account's template, or the default.

        ``carried`` are (placeholder, label) pairs every prompt of the type must carry (the brief,
        the site's voice): an account's template written before they existed, or without them,
        gets each non-empty one appended under its label."""
        template = self.templates.get(prompt_type) or PROMPTS[prompt_type].default_text
        rendered = render(prompt_type, template, **values)
        for name, label in carried:
            if "{" + name + "}" not in template and values.get(name):
                rendered += f"\n\n{label}:\n{values[name]}"
        return rendered

    def cluster_keywords(self, keywords: Sequence[KeywordInput], *, sector: str = "") -> AIResult[list[ClusterDraft]]:
        keywords = list(keywords)
        prompt = self.prompt("clustering", keywords="\n".join(keyword.keyword for keyword in keywords), sector=sector)
        return self.text.cluster_keywords(keywords, prompt=prompt)

    def generate_ideas(self, cluster_name: str, keywords: Sequence[str], *, count: int = 3) -> AIResult[list[IdeaDraft]]:
        keywords = list(keywords)
        prompt = self.prompt("idea_generation", cluster_name=cluster_name, keywords="\n".join(keywords), count=count)
        return self.text.generate_ideas(cluster_name, keywords, count=count, prompt=prompt)

    def write_article(self, brief: ArticleBrief) -> AIResult[ArticleDraft]:
        prompt = self.prompt(
            "content_generation",
            title=brief.title,
            keywords=", ".join(brief.keywords),
            word_count=brief.word_count,
            tone=brief.tone,
            structure=brief.structure,
            outline="\n".join(brief.outline),
            include_faq=brief.include_faq,
            description=brief.description,
            brief=brief.brief_text(),
            voice=brief.voice.as_text() if brief.voice else "",
            carried=(("brief", "Brief"), ("voice", "The site's voice")),
        )
        return self.text.write_article(brief, prompt=prompt)

    def extract_image_prompts(self, article: ArticleDraft, *, count: int = 3, style: str = DEFAULT_IMAGE_STYLE) -> AIResult[list[ImagePromptDraft]]:
        headings = article.outline or [block.text for block in blocks(article.html) if block.tag == "h2"]
        prompt = self.prompt("image_prompt_extraction", title=article.title, headings="\n".join(headings), count=count, style=style)
        return self.text.extract_image_prompts(article, count=count, style=style, prompt=prompt)

    def generate_image(self, prompt: str, *, size: str = DEFAULT_IMAGE_SIZE, style: str = DEFAULT_IMAGE_STYLE) -> AIResult[GeneratedImage]:
        rendered = self.prompt("image_generation", prompt=prompt, style=style)
        return self.image.generate_image(rendered, size=size, style=style)

    def optimization_prompt(self, article: ArticleDraft, *, voice: Voice | None = None) -> str:
        """The optimization prompt of ``article``, carrying the site's voice."""
        return self.prompt(
            "optimization",
            title=article.title,
            focus_keyword=article.focus_keyword,
            content=article.html,
            voice=voice.as_text() if voice else "",
            carried=(("voice", "Keep to the site's voice"),),
        )

    def optimize_article(self, article: ArticleDraft, *, voice: Voice | None = None) -> AIResult[OptimizedArticle]:
        return self.text.optimize_article(article, prompt=self.optimization_prompt(article, voice=voice))
