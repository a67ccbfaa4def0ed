"""The prompt registry: every prompt type Inkwell sends to an AI provider, its placeholders and
its default text. Accounts may replace a type's text (``inkwell.system`` stores it); ``AIClient``
renders the account's text, or the default, before each call.

Template syntax: ``{name}`` is a placeholder, filled with a value when the prompt is rendered.
Only the type's own placeholders are allowed. ``{{name}}`` writes a literal ``{name}``. Any other
brace is plain text, so a JSON example such as ``{"title": "..."}`` needs no escaping, but braces
must balance. Values are inserted as they are and never read as template text, so a keyword
holding ``{`` or ``{count}`` is harmless.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class PromptSpec:
    type: str
    title: str
    description: str
    default_text: str
    placeholders: tuple[str, ...]


_CLUSTERING = """You are an SEO strategist building a content plan. Group the keywords below into topical clusters.

Rules:
- Put keywords in the same cluster when a single article could rank for all of them: same topic and same search intent.
- Every keyword belongs to exactly one cluster. Do not drop, merge, rewrite or invent keywords.
- A keyword unlike all the others may form a cluster of its own.
- Name each cluster with a short, descriptive title of 2 to 5 words drawn from its keywords, and describe it in one sentence.

Industry sector (may be empty): {sector}

Keywords, one per line:
{keywords}"""

_IDEA_GENERATION = """You are a content strategist. Propose {count} distinct article ideas for the keyword cluster "{cluster_name}".

Keywords in the cluster:
{keywords}

For each idea give:
- a compelling title under 70 characters that uses one of the keywords;
- a two-sentence description of the angle and the reader it serves;
- the content structure: one of guide, listicle, how_to, comparison, review or question;
- an outline of 4 to 8 H2 headings;
- the keywords it should rank for, the primary keyword first.

Make the ideas differ in angle and structure, not only in wording."""

_CONTENT_GENERATION = """Write an original, genuinely helpful article as HTML.

Title: {title}
Description: {description}
Keywords, primary first: {keywords}
Length: about {word_count} words of visible text
Tone: {tone}
Structure: {structure}
Outline to follow (H2 headings; a line starting with "### " is an H3 under the H2 before it; empty means choose your own):
{outline}
Include an FAQ section: {include_faq}

Brief (empty means none was written):
{brief}

The site's voice (empty means none was set):
{voice}

Requirements:
- Use <h2> for sections, <h3> for subsections, <p> for paragraphs and <ul><li> for lists; no <h1>, no inline styles, no scripts.
- Use the primary keyword in the first paragraph and in at least one heading, and the other keywords where they fit naturally. Never stuff keywords.
- Keep paragraphs under 120 words and most sentences under 25 words.
- Write in the requested tone throughout and follow the requested structure.
- If an FAQ section is requested, add an <h2>Frequently Asked Questions</h2> section with 3 to 5 questions as <h3> headings, each followed by a short answer.
- Also write a meta title of at most 60 characters and a meta description of at most 160 characters, both containing the primary keyword.
- Do not invent statistics, quotes, dates, sources or first-person experience: every figure, date, quotation or finding comes from the brief's sources, with a link to the source where it is used.
- Never repeat a sentence."""

_IMAGE_PROMPT_EXTRACTION = """Write {count} prompts for an image generator to illustrate the article below, in a {style} style.

Article title: {title}
Section headings:
{headings}

The first prompt is the featured image and represents the article as a whole; the others illustrate individual sections, in order.
Each prompt is one or two sentences describing a concrete scene: subject, setting, composition and lighting. No text, letters, logos or watermarks in the image.
Give each prompt a short alt text (under 125 characters) that describes what the image shows."""

_IMAGE_GENERATION = """{prompt}

Style: {style}. High quality and well composed, with no text, letters, watermarks or logos."""

_OPTIMIZATION = """You are an SEO editor. Improve the article below for its focus keyword "{focus_keyword}" without changing its meaning or inventing facts.

Title: {title}

Keep to the site's voice (empty means none was set):
{voice}

Where needed:
- Keep the meta title to at most 60 characters and the meta description to at most 160 characters, both containing the focus keyword.
- Put the focus keyword in the first paragraph and in at least one H2 heading.
- Keep the keyword density between 0.5% and 2.5% of words.
- Split paragraphs longer than 150 words and sentences longer than 30 words.
- Keep the HTML valid with <h2>, <h3>, <p> and <ul>; no <h1>.

List every change you made in plain language.

Article HTML:
{content}"""

PROMPTS: dict[str, PromptSpec] = {
    spec.type: spec
    for spec in (
        PromptSpec(
            type="clustering",
            title="Keyword clustering",
            description="Groups a site's keywords into topical clusters. {keywords} holds one keyword per line; {sector} the industry sector's name, or nothing.",
            default_text=_CLUSTERING,
            placeholders=("keywords", "sector"),
        ),
        PromptSpec(
            type="idea_generation",
            title="Idea generation",
            description="Proposes article ideas for one cluster: {cluster_name}, its {keywords} (one per line) and the number of ideas wanted, {count}.",
            default_text=_IDEA_GENERATION,
            placeholders=("cluster_name", "keywords", "count"),
        ),
        PromptSpec(
            type="content_generation",
            title="Content generation",
            description=(
                "Writes an article from a task's brief: {title}, {keywords} (comma-separated, primary first), {word_count}, {tone}, "
                "{structure}, {outline} (one H2 per line, \"### \" before an H3), {include_faq} (yes or no), {description}, "
                "{brief} (the approved brief's angle, reader, questions, internal links and sources) and {voice} (the site's voice). "
                "A text without {brief} or {voice} gets them appended, so every writing prompt carries them."
            ),
            default_text=_CONTENT_GENERATION,
            placeholders=("title", "keywords", "word_count", "tone", "structure", "outline", "include_faq", "description", "brief", "voice"),
        ),
        PromptSpec(
            type="image_prompt_extraction",
            title="Image prompt extraction",
            description="Turns an article into image prompts: its {title}, section {headings} (one per line), the number wanted, {count}, and the image {style}.",
            default_text=_IMAGE_PROMPT_EXTRACTION,
            placeholders=("title", "headings", "count", "style"),
        ),
        PromptSpec(
            type="image_generation",
            title="Image generation",
            description="The text sent to the image generator for one image: the image {prompt} and the {style}.",
            default_text=_IMAGE_GENERATION,
            placeholders=("prompt", "style"),
        ),
        PromptSpec(
            type="optimization",
            title="Content optimization",
            description="Improves an article for search: its {title}, {focus_keyword}, HTML {content} and the site's {voice} (appended when the text lacks it).",
            default_text=_OPTIMIZATION,
            placeholders=("title", "focus_keyword", "content", "voice"),
        ),
    )
}
PROMPT_TYPE_NAMES: tuple[str, ...] = tuple(PROMPTS)

# "{{name}}" (a literal), "{name}" (a placeholder), or a lone brace.
_TOKEN = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|[{}]")


def placeholders_in(text: str) -> set[str]:
    """Names of the ``{name}`` placeholders in ``text`` (escaped ``{{name}}`` not included)."""
    return {match.group(2) for match in _TOKEN.finditer(text or "") if match.group(2)}


def template_errors(prompt_type: str, text: str) -> list[str]:
    """Problems that would stop ``text`` working as a ``prompt_type`` prompt; empty when it is fine."""
    spec = PROMPTS.get(prompt_type)
    if spec is None:
        return [f"Unknown prompt type {prompt_type!r}"]
    if not (text or "").strip():
        return ["The prompt cannot be empty"]
    errors = []
    allowed = ", ".join(f"{{{name}}}" for name in spec.placeholders)
    unknown = sorted(placeholders_in(text) - set(spec.placeholders))
    for name in unknown:
        errors.append(f"Unknown placeholder {{{name}}}; this prompt can use {allowed}")
    opened: list[int] = []
    for match in _TOKEN.finditer(text):
        if match.group(1) or match.group(2):
            continue
        if match.group(0) == "{":
            opened.append(match.start())
        elif opened:
            opened.pop()
        else:
            errors.append(f"Unmatched '}}' on line {_line(text, match.start())}")
            break
    if opened:
        errors.append(f"Unmatched '{{' on line {_line(text, opened[0])}: every '{{' needs a closing '}}'")
    return errors


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def render(prompt_type: str, text: str, **values: object) -> str:
    """``text`` with the type's placeholders filled in. Unknown names and stray braces stay as
    written; a known placeholder without a value becomes empty. Never raises on user text."""
    spec = PROMPTS.get(prompt_type)
    if spec is None:
        raise KeyError(f"Unknown prompt type {prompt_type!r}")
    known = set(spec.placeholders)

    def fill(match: re.Match) -> str:
        if match.group(1):
            return "{" + match.group(1) + "}"
        name = match.group(2)
        if name and name in known:
            return _as_text(values.get(name, ""))
        return match.group(0)

    return _TOKEN.sub(fill, text or "")


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "\n".join(str(item) for item in value)
    return "" if value is None else str(value)
