"""Article ideas for a keyword cluster.

Each idea takes a different structure (guide, listicle, how_to, comparison, review, question) in
an order drawn from a generator seeded with the cluster's name and keywords, a title from that
structure's templates, a different primary keyword where the cluster has enough of them, the
outline the local drafter would write for it, and a description built from that outline.
"""

import random
import re

from inkwell.ai.analysis import words_of
from inkwell.ai.local import phrases
from inkwell.ai.local.text import content_words, seed_of, title_case, with_acronyms
from inkwell.ai.local.writer import head_of, is_plural, outline_for, topic_of
from inkwell.ai.types import STRUCTURES, ArticleBrief, IdeaDraft

TITLES: dict[str, tuple[str, ...]] = {
    "guide": (
        "The Complete Guide to {Topic}",
        "{Topic}: Everything You Need to Know",
        "A Beginner's Guide to {Topic}",
        "{Topic} Explained: A Practical Guide",
    ),
    "listicle": (
        "{n} {Head} Tips That Actually Work",
        "{n} Things to Know About {Primary}",
        "{n} Common {Head} Mistakes and How to Avoid Them",
        "{n} Smart Ways to Approach {Primary}",
    ),
    "how_to": (
        "How to Choose the Right {Topic}",
        "How to Get Started With {Primary}",
        "How to Get the Most Out of {Topic}",
        "{Primary}: A Step-by-Step Guide",
    ),
    "comparison": (
        "{A} vs {B}: Which Should You Choose?",
        "{A} or {B}? An Honest Comparison",
    ),
    "review": (
        "Honest {Topic} Review: Pros, Cons and Verdict",
        "{Topic} Reviewed: What Works and What Doesn't",
        "{Is} {Topic} Worth It? An Honest Review",
    ),
    "question": (
        "What {Is} the Best {Topic} for You?",
        "{Is} {Topic} Worth It?",
        "Why {Does} {Topic} Matter?",
    ),
}
LIST_SIZES = (5, 7, 8, 10, 12)
DESCRIPTIONS = {
    "guide": "A complete guide to {topic} for readers searching for {primary}.",
    "listicle": "A scannable list that gives readers searching for {primary} quick, practical takeaways.",
    "how_to": "A step-by-step walkthrough that shows readers how to act on {primary}.",
    "comparison": "A side-by-side comparison that helps readers decide between {a} and {b}.",
    "review": "An honest review of {topic}, with strengths, weaknesses and a clear verdict.",
    "question": "A Q&A article that answers the questions people ask about {primary}.",
}


def generate_ideas(cluster_name: str, keywords: list[str], count: int) -> list[IdeaDraft]:
    keywords = list(dict.fromkeys(with_acronyms(" ".join(keyword.split())) for keyword in keywords if keyword and keyword.strip()))
    name = " ".join(cluster_name.split()) or (keywords[0] if keywords else "")
    if count <= 0 or not (name or keywords):
        return []
    rng = random.Random(seed_of("ideas", name.lower(), tuple(keyword.lower() for keyword in keywords), count))
    order = list(STRUCTURES)
    rng.shuffle(order)
    topic = topic_of(name.lower()) if name else topic_of(keywords[0])
    ideas: list[IdeaDraft] = []
    titles: set[str] = set()
    questions = [keyword for keyword in keywords if _is_question(keyword)]
    statements = [keyword for keyword in keywords if not _is_question(keyword)] or keywords
    for index in range(count):
        structure = order[index % len(order)]
        # Question keywords read well only as questions; every other structure takes a plain keyword.
        pool = questions if structure == "question" and questions else statements
        primary = pool[index % len(pool)] if pool else topic
        title = _title(structure, topic, primary, keywords, rng, titles, round_=index // len(order))
        titles.add(title.lower())
        targets = _targets(primary, keywords)
        outline = outline_for(ArticleBrief(title=title, keywords=targets, word_count=1500, structure=structure))
        ideas.append(
            IdeaDraft(
                title=title,
                description=_description(structure, topic, primary, keywords, outline),
                content_type="post",
                content_structure=structure,
                target_keywords=targets,
                outline=outline,
            )
        )
    return ideas


def _is_question(keyword: str) -> bool:
    return keyword.split()[0].lower() in phrases.QUESTION_WORDS


def _alternatives(keywords: list[str]) -> tuple[str, str] | None:
    """A "x vs y" keyword, or two keywords that share a word and so are alternatives."""
    for keyword in keywords:
        parts = re.split(r"\s+(?:vs\.?|versus)\s+", keyword, flags=re.IGNORECASE)
        if len(parts) == 2 and all(part.strip() for part in parts):
            return parts[0].strip(), parts[1].strip()
    for index, first in enumerate(keywords):
        for second in keywords[index + 1 :]:
            if set(content_words(first)) & set(content_words(second)) and topic_of(first).lower() != topic_of(second).lower():
                return topic_of(first), topic_of(second)
    return None


def _title(structure: str, topic: str, primary: str, keywords: list[str], rng: random.Random, taken: set[str], round_: int) -> str:
    head = head_of(topic)
    plural = is_plural(head)
    pair = _alternatives(keywords) or (f"budget {head}", f"premium {head}")
    values = {
        "Topic": title_case(topic),
        "Head": title_case(head),
        "Primary": title_case(topic_of(primary)) if not primary.lower().startswith("how to ") else title_case(primary),
        "A": title_case(pair[0]),
        "B": title_case(pair[1]),
        "Is": "Are" if plural else "Is",
        "Does": "Do" if plural else "Does",
    }
    # A question or how-to keyword is the best title there is; it goes first, as written.
    candidates = []
    if structure == "question" and _is_question(primary):
        candidates.append(title_case(primary.rstrip("?")) + "?")
    if structure == "how_to" and primary.lower().startswith("how to "):
        candidates.append(title_case(primary) + ": A Step-by-Step Guide")
    templates = TITLES[structure]
    start = rng.randrange(len(templates))
    for offset in range(len(templates)):
        values["n"] = rng.choice(LIST_SIZES)
        candidates.append(templates[(start + offset) % len(templates)].format(**values))
    for title in candidates:
        if title.lower() not in taken:
            return title
    fallback = f"{candidates[0]}: {title_case(primary)}"
    return fallback if fallback.lower() not in taken else f"{candidates[0]} ({round_ + 2})"


def _targets(primary: str, keywords: list[str]) -> list[str]:
    """The primary keyword, then up to four others, those sharing most words with it first."""
    primary_words = set(words_of(primary))
    others = [keyword for keyword in keywords if keyword.lower() != primary.lower()]
    others.sort(key=lambda keyword: -len(primary_words & set(words_of(keyword))))
    return [primary, *others[:4]]


def _description(structure: str, topic: str, primary: str, keywords: list[str], outline: list[str]) -> str:
    pair = _alternatives(keywords) or ("the main options", "the alternatives")
    lead = DESCRIPTIONS[structure].format(topic=topic, primary=primary, a=pair[0], b=pair[1])
    sections = [re.sub(r"^(?:step\s+\d+\s*:|\d+\.)\s*", "", heading, flags=re.IGNORECASE).rstrip("?").lower() for heading in outline[:3]]
    if sections:
        return f"{lead} It covers {', '.join(sections[:-1])} and {sections[-1]}." if len(sections) > 1 else f"{lead} It covers {sections[0]}."
    return lead
