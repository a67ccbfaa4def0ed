#!/usr/bin/env python
"""Quality report benchmark (issue 35): what the report finds in both providers' drafts, how well
originality catches copies of synced posts, and what the report and the index cost.

    .venv/bin/python bench/quality.py [--drafts-per-topic 10]

- Drafts: 20 topics x ``--drafts-per-topic`` briefs (tones, structures and lengths varied with a
  fixed seed) from the offline provider, and the same briefs through the ``openai`` provider
  against the project's protocol-faithful test server (``inkwell/ai/tests/openai_server.py``).
  That server is a canned responder, not a language model: its numbers measure what the report
  finds in its answers, not what a real model writes. For each provider: the share of drafts with
  at least one ``unsupported_claim`` finding and with at least one repeated sentence.
- Duplicates: 1,000 "synced posts" are fingerprinted (offline drafts on the 20 topics, as the
  index would hold them). Seeded copies: for 200 of them, a new draft that takes the post's text
  and rewrites one sentence in five (a word swapped in each) and appends a paragraph of its own;
  caught when the report's duplicate finding names that post. False alarms: 200 distinct drafts
  (briefs not in the corpus) checked against the same 1,000 posts; any duplicate finding is one.
- Timing: the report of a 1,500-word draft, alone and against the 1,000 fingerprints (p50 and
  max of 50 runs, after a warm-up that loads the pronouncing dictionary); indexing 1,000 posts
  (fingerprints taken, once).
No database is needed. Targets: invented claims 0 (offline), repeated sentences 0, >= 95 % of
copies caught, < 2 % false alarms, report < 50 ms, index of 1,000 posts < 10 s.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from inkwell.ai import quality  # noqa: E402
from inkwell.ai.local.writer import write_article  # noqa: E402
from inkwell.ai.providers.base import ProviderConfig  # noqa: E402
from inkwell.ai.types import STRUCTURES, TONES, ArticleBrief  # noqa: E402

TOPICS = [
    ("Growing Tomatoes for Beginners", ["growing tomatoes", "tomato varieties", "tomato soil"]),
    ("Best Running Shoes for Flat Feet", ["running shoes for flat feet", "trail running shoes", "road running shoes"]),
    ("How to Train a Puppy", ["puppy training", "crate training", "leash training"]),
    ("Sourdough Starter Basics", ["sourdough starter", "rye flour", "feeding schedule"]),
    ("Home Solar Panels Explained", ["solar panels", "battery storage", "net metering"]),
    ("Learning Python for Data Analysis", ["python for data analysis", "pandas", "jupyter notebooks"]),
    ("Caring for Houseplants in Low Light", ["low light houseplants", "snake plant", "pothos"]),
    ("Choosing a Travel Credit Card", ["travel credit card", "airline miles", "annual fee"]),
    ("Pour Over Coffee at Home", ["pour over coffee", "grind size", "water ratio"]),
    ("Charging an Electric Car at Home", ["home ev charging", "level 2 charger", "charging time"]),
    ("Yoga for Back Pain", ["yoga for back pain", "gentle stretches", "breathing exercises"]),
    ("Understanding Home Insurance", ["home insurance", "deductible", "replacement cost"]),
    ("High Protein Vegan Meals", ["vegan protein", "lentil recipes", "tofu dishes"]),
    ("Cold Weather Camping Gear", ["cold weather camping", "sleeping bag", "tent insulation"]),
    ("Planning a Small Wedding", ["small wedding", "wedding budget", "guest list"]),
    ("Keyword Research for Small Sites", ["keyword research", "search intent", "long tail keywords"]),
    ("Budget Travel in Europe", ["budget travel europe", "rail passes", "hostels"]),
    ("Beginner Woodworking Projects", ["beginner woodworking", "hand tools", "wood glue"]),
    ("Saving for Retirement in Your 30s", ["retirement savings", "index funds", "employer match"]),
    ("Composting at Home", ["home composting", "compost bin", "green waste"]),
]


def briefs(per_topic: int, seed: int) -> list[ArticleBrief]:
    rng = random.Random(seed)
    made = []
    for title, keywords in TOPICS:
        for index in range(per_topic):
            made.append(
                ArticleBrief(
                    title=title if index == 0 else f"{title}: {rng.choice(['A Practical Guide', 'What to Know', 'Getting It Right', 'Common Questions', 'First Steps'])} {index}",
                    keywords=keywords,
                    word_count=rng.choice([600, 900, 1200, 1500]),
                    tone=rng.choice(TONES),
                    structure=rng.choice(STRUCTURES),
                )
            )
    return made


def shares(drafts, brief_list) -> dict:
    """What the brief gave (its title and keywords) is not an invented claim."""
    claims = repeats = 0
    for draft, brief in zip(drafts, brief_list):
        report = quality.report(html=draft.html, title=brief.title, keywords=brief.keywords, meta_title=draft.meta_title, meta_description=draft.meta_description)
        claims += report.scores["unsupported_claims"] > 0
        repeats += report.scores["repeated_sentences"] > 0
    return {"drafts": len(drafts), "with_invented_claim": claims / len(drafts), "with_repeated_sentence": repeats / len(drafts)}


def openai_drafts(brief_list) -> list:
    from tests.loopback import LoopbackServer  # noqa: F401  (the server's base; importing checks the path)
    from inkwell.ai.providers.openai import OpenAITextProvider
    from inkwell.ai.tests.openai_server import OpenAICompatibleServer

    with OpenAICompatibleServer() as server:
        provider = OpenAITextProvider(ProviderConfig(provider="openai", base_url=server.base_url, api_key=server.api_key, model="gpt-4o", allow_private=True, max_retries=0))
        return [provider.write_article(brief, prompt=f"Write an article titled {brief.title} as JSON.").value for brief in brief_list]


def copied(html: str, rng: random.Random) -> str:
    """The post's text with one sentence in five changed (a word swapped) and a paragraph added."""
    text, blocks = quality.visible_text(html)
    out = []
    for block in blocks:
        sentences = [text[start:end] for start, end in quality._sentences(text, block.start, block.end)]
        changed = []
        for sentence in sentences:
            words = sentence.split()
            if rng.random() < 0.2 and len(words) > 3:
                words[rng.randrange(len(words))] = rng.choice(["really", "simply", "often", "always"])
            changed.append(" ".join(words))
        tag = block.tag if block.tag in ("h2", "h3", "li") else "p"
        out.append(f"<{tag}>{' '.join(changed)}</{tag}>" if tag != "li" else f"<ul><li>{' '.join(changed)}</li></ul>")
    out.append("<p>Our own closing paragraph adds a few new lines of text so the copy is not identical to its source.</p>")
    return "".join(out)


def timed(function, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--drafts-per-topic", type=int, default=10)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.platform()})")

    quality.report(html="<p>Warm up the pronouncing dictionary.</p>")
    brief_list = briefs(args.drafts_per_topic, seed=35)
    offline = [write_article(brief) for brief in brief_list]
    print("offline provider:", shares(offline, brief_list))
    llm = openai_drafts(brief_list)
    print("openai provider via the test server:", shares(llm, brief_list))

    corpus_briefs = briefs(50, seed=1)  # 1,000 posts
    posts = [write_article(brief) for brief in corpus_briefs]
    started = time.perf_counter()
    references = [quality.Reference(index, brief.title, f"/post-{index}/", *quality.fingerprint(post.html)) for index, (brief, post) in enumerate(zip(corpus_briefs, posts))]
    print(f"index of {len(references)} posts: {time.perf_counter() - started:.2f} s")

    rng = random.Random(7)
    seeded = rng.sample(range(len(posts)), 200)
    copies = [(index, quality.report(html=copied(posts[index].html, rng), references=references)) for index in seeded]
    distinct = [write_article(brief) for brief in briefs(10, seed=99)]
    distinct_reports = [quality.report(html=draft.html, references=references) for draft in distinct]
    copy_overlaps = sorted(report.scores["closest_overlap"] for _index, report in copies)
    overlaps = sorted(report.scores["closest_overlap"] for report in distinct_reports)
    print(f"seeded copies' overlap with their post: min {copy_overlaps[0]:.3f} p5 {copy_overlaps[len(copy_overlaps) // 20]:.3f} p50 {copy_overlaps[len(copy_overlaps) // 2]:.3f}")
    print(f"distinct drafts' closest overlap: p50 {overlaps[len(overlaps) // 2]:.3f} p95 {overlaps[len(overlaps) * 19 // 20]:.3f} max {overlaps[-1]:.3f}")
    for threshold in (0.3, 0.4, 0.5):
        caught = sum(report.scores["closest_id"] == index and report.scores["closest_overlap"] >= threshold for index, report in copies)
        alarms = sum(report.scores["closest_overlap"] >= threshold for report in distinct_reports)
        print(f"duplicate_overlap {threshold}: {caught}/200 seeded copies caught ({caught / 2:.1f} %), {alarms}/{len(distinct)} false alarms on distinct drafts ({alarms * 100 / len(distinct):.1f} %)")

    article = next(draft for draft, brief in zip(offline, brief_list) if brief.word_count == 1500)
    alone = timed(lambda: quality.report(html=article.html, keywords=[article.focus_keyword], meta_title=article.meta_title, meta_description=article.meta_description), 50)
    against = timed(lambda: quality.report(html=article.html, keywords=[article.focus_keyword], references=references), 50)
    print(f"report of a {article.word_count}-word draft: p50 {alone[0]:.1f} ms, max {alone[1]:.1f} ms; against 1,000 fingerprints: p50 {against[0]:.1f} ms, max {against[1]:.1f} ms")


if __name__ == "__main__":
    main()
