"""Idea generation by the local provider (inkwell.ai.local.ideas)."""

import pytest

from inkwell.ai.local.ideas import generate_ideas
from inkwell.ai.local.writer import write_article
from inkwell.ai.providers.local import LocalTextProvider
from inkwell.ai.types import STRUCTURES, ArticleBrief

KEYWORDS = ["best running shoes", "trail running shoes", "running shoes for flat feet", "how often to replace running shoes", "road running shoes vs trail running shoes"]


@pytest.mark.parametrize("count", [1, 3, 6, 10])
def test_count_distinct_ideas_are_generated(count):
    ideas = generate_ideas("Running Shoes", KEYWORDS, count)
    assert len(ideas) == count
    assert len({idea.title.lower() for idea in ideas}) == count


def test_first_six_ideas_each_take_a_different_structure():
    ideas = generate_ideas("Running Shoes", KEYWORDS, 6)
    assert sorted(idea.content_structure for idea in ideas) == sorted(STRUCTURES)
    assert all(idea.content_type == "post" for idea in ideas)


def test_structure_order_is_chosen_by_the_inputs_and_is_stable():
    first = generate_ideas("Running Shoes", KEYWORDS, 3)
    assert generate_ideas("Running Shoes", KEYWORDS, 3) == first
    orders = {tuple(idea.content_structure for idea in generate_ideas(name, KEYWORDS, 3)) for name in ("Running Shoes", "Trail Shoes", "Shoes for Runners", "Road Running")}
    assert len(orders) > 1


def test_ideas_carry_description_outline_and_target_keywords_from_the_cluster():
    for idea in generate_ideas("Running Shoes", KEYWORDS, 6):
        assert len(idea.description) > 40
        assert 4 <= len(idea.outline) <= 13
        assert idea.target_keywords[0] in KEYWORDS
        assert set(idea.target_keywords) <= set(KEYWORDS)
        assert "running shoes" in idea.title.lower() or idea.content_structure == "comparison"


def test_question_idea_asks_a_question_keyword_and_comparison_uses_the_vs_keyword():
    ideas = {idea.content_structure: idea for idea in generate_ideas("Running Shoes", KEYWORDS, 6)}
    assert ideas["question"].title == "How Often to Replace Running Shoes?"
    assert ideas["question"].target_keywords[0] == "how often to replace running shoes"
    assert ideas["comparison"].title.startswith("Road Running Shoes") and "Trail Running Shoes" in ideas["comparison"].title


def test_idea_outline_is_the_outline_the_drafter_writes():
    for idea in generate_ideas("Running Shoes", KEYWORDS, 6):
        article = write_article(ArticleBrief(title=idea.title, keywords=idea.target_keywords, structure=idea.content_structure, outline=idea.outline, include_faq=False))
        assert article.outline == idea.outline


def test_nothing_to_go_on_gives_no_ideas():
    assert generate_ideas("", [], 3) == []
    assert generate_ideas("Running Shoes", KEYWORDS, 0) == []


def test_a_cluster_with_one_keyword_still_gives_distinct_ideas():
    ideas = generate_ideas("Mortgage Rates", ["mortgage rates"], 8)
    assert len({idea.title for idea in ideas}) == 8
    assert all(idea.target_keywords == ["mortgage rates"] for idea in ideas)


def test_keywords_with_braces_are_safe_in_titles():
    ideas = generate_ideas("{weird} Cluster", ["{count} things", "how to {x}"], 6)
    assert len(ideas) == 6


def test_provider_generates_ideas_with_token_usage():
    result = LocalTextProvider().generate_ideas("Running Shoes", KEYWORDS, count=3, prompt="Three ideas please")
    assert result.value == generate_ideas("Running Shoes", KEYWORDS, 3)
    assert result.usage.model == "local" and result.usage.prompt_tokens == 4 and result.usage.completion_tokens > 0
