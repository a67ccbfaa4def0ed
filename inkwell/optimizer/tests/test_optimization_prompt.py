"""``inkwell.ai.optimization``: the optimization prompt with the analysis' findings after it."""

from inkwell.ai.client import AIClient
from inkwell.ai.optimization import SUGGESTIONS_HEADER, optimization_prompt
from inkwell.ai.providers.local import LocalImageProvider, LocalTextProvider
from inkwell.ai.types import ArticleDraft

ARTICLE = ArticleDraft(title="Hill runs", meta_title="", meta_description="", focus_keyword="trail shoes", outline=[], html="<p>Run.</p>", word_count=1)


def client(template: str = "") -> AIClient:
    return AIClient(LocalTextProvider(), LocalImageProvider(), {"optimization": template} if template else {})


def test_the_findings_follow_the_accounts_prompt_one_per_line():
    prompt = optimization_prompt(client("Fix {title} for {focus_keyword}: {content}"), ARTICLE, ["Meta title is missing", "  Add\nimages  ", " "])

    assert prompt == f"Fix Hill runs for trail shoes: <p>Run.</p>\n\n{SUGGESTIONS_HEADER}\n- Meta title is missing\n- Add images"


def test_without_findings_the_prompt_is_the_usual_one():
    assert optimization_prompt(client(), ARTICLE, []) == client().prompt("optimization", title="Hill runs", focus_keyword="trail shoes", content="<p>Run.</p>")
