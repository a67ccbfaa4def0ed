#!/usr/bin/env python
"""Local AI provider benchmark: clustering 5,000 keywords and drafting a 1,500-word article.

    .venv/bin/python bench/ai_local.py [--keywords 5000] [--runs 20]

The keywords are built combinatorially from 40 topic word lists (head terms x facets x search
modifiers, sampled with a fixed seed), so every run clusters the same realistic-looking set and
the topic each keyword came from is known: the script also prints how homogeneous the clusters
are with respect to those topics, and their adjusted Rand index. Timings are wall-clock; clustering is timed once per run and the
median (p50) and maximum are printed, as is the p50 of drafting one 1,500-word article.
Targets (issue #4): clustering 5,000 keywords <= 10 s, drafting 1,500 words <= 1 s.
No settings or database are needed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from sklearn.metrics import adjusted_rand_score, homogeneity_score  # noqa: E402

from inkwell.ai.providers.base import ProviderConfig  # noqa: E402  (the repository root is on the path only from here)
from inkwell.ai.providers.local import LocalTextProvider  # noqa: E402
from inkwell.ai.types import ArticleBrief, KeywordInput  # noqa: E402

# topic -> (head terms, topic-specific facets)
TOPICS: dict[str, tuple[list[str], list[str]]] = {
    "running shoes": (["running shoes", "trail running shoes", "running trainers"], ["for flat feet", "for women", "for men", "for marathon training", "with wide toe box", "for overpronation", "size guide", "with carbon plate", "for heavy runners", "zero drop", "waterproof", "for plantar fasciitis"]),
    "mortgage rates": (["mortgage rates", "mortgage refinance rates", "home loan rates"], ["30 year fixed", "15 year fixed", "for first time buyers", "forecast", "with bad credit", "jumbo", "fha", "va", "lock period", "calculator", "history", "adjustable"]),
    "dog training": (["dog training", "puppy training", "dog obedience classes"], ["crate", "leash pulling", "barking", "potty", "clicker", "recall", "separation anxiety", "biting", "aggressive dogs", "treats", "collar", "positive reinforcement"]),
    "sourdough baking": (["sourdough bread", "sourdough starter", "sourdough recipe"], ["whole wheat", "rye", "discard", "hydration", "scoring", "overnight", "dutch oven", "proofing time", "feeding schedule", "rye flour", "sandwich loaf", "gluten free"]),
    "solar panels": (["solar panels", "home solar system", "rooftop solar"], ["installation", "tax credit", "battery storage", "inverter", "efficiency", "for rv", "monocrystalline", "maintenance", "payback period", "net metering", "off grid", "kit"]),
    "python programming": (["python programming", "python tutorial", "python course"], ["list comprehension", "dictionaries", "decorators", "asyncio", "virtual environment", "pandas", "classes", "exceptions", "string formatting", "type hints", "unit testing", "data analysis"]),
    "houseplants": (["houseplant care", "indoor plants", "house plants"], ["low light", "watering schedule", "yellow leaves", "repotting", "fertilizer", "pet safe", "monstera", "snake plant", "pothos", "fungus gnats", "soil mix", "humidity"]),
    "credit card rewards": (["rewards credit card", "cash back credit card", "travel credit card"], ["sign up bonus", "no annual fee", "airline miles", "points transfer", "for groceries", "for students", "for business", "hotel points", "redemption", "lounge access", "foreign transaction fee", "balance transfer"]),
    "coffee brewing": (["coffee brewing", "pour over coffee", "espresso at home"], ["grind size", "water ratio", "french press", "aeropress", "moka pot", "cold brew", "grinder", "beans", "milk frothing", "descaling", "temperature", "chemex"]),
    "ev charging": (["ev charger", "electric car charging", "ev charging station"], ["level 2", "home installation", "cost per kwh", "supercharger", "tax credit", "cable types", "portable", "charging time", "public network", "apps", "fast charging", "wallbox"]),
    "yoga": (["yoga for beginners", "yoga poses", "yoga classes"], ["back pain", "flexibility", "morning routine", "vinyasa", "hatha", "yin", "mat", "breathing", "meditation", "prenatal", "hot yoga", "stretches"]),
    "home insurance": (["home insurance", "homeowners insurance", "renters insurance"], ["quotes", "flood coverage", "deductible", "claims", "liability", "for condos", "premiums", "windstorm", "replacement cost", "bundle with auto", "fire damage", "policy"]),
    "vegan recipes": (["vegan recipes", "plant based meals", "vegan dinner"], ["high protein", "tofu", "chickpea", "lentil", "meal prep", "desserts", "breakfast", "pasta", "curry", "on a budget", "gluten free", "slow cooker"]),
    "camping gear": (["camping gear", "camping tent", "sleeping bag"], ["for cold weather", "ultralight", "family size", "backpacking", "waterproof", "sleeping pad", "camp stove", "lantern", "checklist", "car camping", "hammock", "cooler"]),
    "wedding planning": (["wedding planning", "wedding venues", "wedding checklist"], ["budget", "timeline", "guest list", "invitations", "photographer", "catering", "destination", "small", "outdoor", "dress", "flowers", "seating chart"]),
    "seo": (["seo strategy", "search engine optimization", "keyword research"], ["backlinks", "on page", "technical audit", "local", "meta description", "site speed", "schema markup", "content", "tools", "for ecommerce", "internal linking", "ranking factors"]),
    "kitchen remodel": (["kitchen remodel", "kitchen renovation", "kitchen cabinets"], ["cost", "ideas", "small kitchen", "countertops", "backsplash", "island", "lighting", "flooring", "layout", "contractor", "timeline", "paint colors"]),
    "weight loss": (["weight loss", "lose weight", "fat loss diet"], ["calorie deficit", "meal plan", "intermittent fasting", "keto", "for women over 40", "walking", "protein", "plateau", "belly fat", "tracking", "metabolism", "sugar"]),
    "guitar lessons": (["guitar lessons", "learn guitar", "guitar chords"], ["for beginners", "acoustic", "electric", "fingerpicking", "strumming patterns", "scales", "tabs", "barre chords", "tuning", "online", "practice routine", "songs"]),
    "personal budgeting": (["budgeting", "personal budget", "budget planner"], ["50 30 20 rule", "zero based", "app", "spreadsheet", "emergency fund", "debt payoff", "savings goals", "for couples", "envelope method", "template", "monthly expenses", "sinking funds"]),
    "skin care": (["skincare routine", "skin care", "face moisturizer"], ["for acne", "for dry skin", "for oily skin", "retinol", "vitamin c serum", "sunscreen", "anti aging", "niacinamide", "sensitive skin", "night", "exfoliation", "dark spots"]),
    "photography": (["photography tips", "camera settings", "portrait photography"], ["aperture", "shutter speed", "iso", "lighting", "composition", "lenses", "mirrorless", "editing", "golden hour", "night sky", "for beginners", "tripod"]),
    "web hosting": (["web hosting", "wordpress hosting", "vps hosting"], ["cheap", "managed", "uptime", "ssl certificate", "bandwidth", "for small business", "cloud", "shared", "migration", "email", "domain", "speed"]),
    "electric bikes": (["electric bike", "e bike", "electric bicycle"], ["battery range", "for commuting", "folding", "mountain", "conversion kit", "motor", "for seniors", "cargo", "laws", "maintenance", "fat tire", "charger"]),
    "gardening vegetables": (["vegetable garden", "growing vegetables", "raised garden beds"], ["tomatoes", "planting calendar", "companion planting", "compost", "soil", "pests", "watering", "seeds", "zucchini", "peppers", "container", "layout"]),
    "cybersecurity": (["cybersecurity", "password security", "network security"], ["phishing", "two factor authentication", "password manager", "firewall", "ransomware", "vpn", "for small business", "training", "breach", "encryption", "antivirus", "audit"]),
    "aquariums": (["aquarium", "fish tank", "freshwater aquarium"], ["cycling", "filter", "heater", "plants", "betta", "goldfish", "water changes", "algae", "substrate", "lighting", "stocking", "ph levels"]),
    "baby sleep": (["baby sleep", "newborn sleep schedule", "sleep training"], ["regression", "nap schedule", "swaddle", "white noise", "ferber method", "bedtime routine", "night feeding", "crib", "teething", "4 month", "safe sleep", "sleep sack"]),
    "hiking": (["hiking trails", "hiking boots", "day hike"], ["for beginners", "essentials", "waterproof", "national parks", "backpack", "safety", "elevation gain", "poles", "socks", "blisters", "navigation", "winter"]),
    "email marketing": (["email marketing", "newsletter", "email campaigns"], ["open rates", "subject lines", "automation", "segmentation", "templates", "deliverability", "list building", "a b testing", "welcome series", "software", "unsubscribe", "metrics"]),
    "car maintenance": (["car maintenance", "oil change", "car service"], ["schedule", "brake pads", "tire rotation", "battery", "coolant", "transmission fluid", "spark plugs", "air filter", "wiper blades", "checklist", "diy", "warning lights"]),
    "meditation": (["meditation", "mindfulness meditation", "guided meditation"], ["for anxiety", "for sleep", "breathing", "body scan", "apps", "for beginners", "benefits", "5 minute", "loving kindness", "focus", "stress", "morning"]),
    "interior paint": (["interior paint", "paint colors", "wall paint"], ["living room", "bedroom", "finish", "eggshell", "satin", "primer", "neutral", "accent wall", "ceiling", "how much", "brush", "roller"]),
    "retirement savings": (["retirement savings", "401k", "roth ira"], ["contribution limits", "employer match", "withdrawal rules", "rollover", "catch up", "calculator", "fees", "index funds", "target date fund", "early retirement", "tax", "required minimum distribution"]),
    "smartphones": (["smartphone", "android phone", "iphone"], ["battery life", "camera", "screen protector", "case", "under 500", "5g", "storage", "unlocked", "comparison", "deals", "refurbished", "charging"]),
    "language learning": (["learn spanish", "language learning", "learn french"], ["apps", "grammar", "vocabulary", "fluency", "immersion", "podcasts", "online tutor", "for kids", "pronunciation", "flashcards", "verb conjugation", "courses"]),
    "home workouts": (["home workout", "home gym", "bodyweight exercises"], ["no equipment", "dumbbells", "resistance bands", "hiit", "abs", "for beginners", "30 minute", "kettlebell", "pull up bar", "routine", "for women", "strength"]),
    "cat care": (["cat care", "kitten care", "cat food"], ["litter box", "grooming", "scratching", "vaccinations", "hairballs", "indoor cats", "senior cats", "wet vs dry", "toys", "spaying", "feeding schedule", "dental"]),
    "travel packing": (["packing list", "carry on luggage", "travel backpack"], ["for europe", "minimalist", "packing cubes", "toiletries", "for beach", "winter", "business trip", "weight limits", "checklist", "long haul flight", "for kids", "liquids"]),
    "podcasting": (["podcast", "start a podcast", "podcast equipment"], ["microphone", "hosting", "editing software", "recording", "monetization", "interview", "cover art", "audio interface", "growth", "script", "headphones", "analytics"]),
}
PREFIXES = ["", "best", "cheap", "how to choose", "top", "guide to"]
SUFFIXES = ["", "near me", "reviews", "for beginners", "tips", "vs"]


def generated_keywords(total: int) -> tuple[list[KeywordInput], list[str]]:
    """``total`` distinct keywords spread evenly over the topics, and each one's topic."""
    rng = random.Random(4)
    per_topic = -(-total // len(TOPICS))
    keywords: list[KeywordInput] = []
    labels: list[str] = []
    for topic, (heads, facets) in TOPICS.items():
        phrases = sorted(
            {
                " ".join(part for part in (prefix, head, facet, suffix if suffix != "vs" else f"vs {rng.choice(heads)}") if part)
                for prefix in PREFIXES
                for head in heads
                for facet in ["", *facets]
                for suffix in SUFFIXES
                if not (suffix == "vs" and prefix)
            }
        )
        for phrase in rng.sample(phrases, min(per_topic, len(phrases))):
            keywords.append(KeywordInput(id=len(keywords) + 1, keyword=phrase, volume=rng.randrange(10, 20000)))
            labels.append(topic)
    return keywords[:total], labels[:total]


def timed(function):
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keywords", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=20, help="article drafts to time")
    parser.add_argument("--cluster-runs", type=int, default=3, help="clustering runs to time")
    args = parser.parse_args()

    provider = LocalTextProvider(ProviderConfig(provider="local"))
    keywords, labels = generated_keywords(args.keywords)

    cluster_times = []
    for _ in range(args.cluster_runs):
        elapsed, result = timed(lambda: provider.cluster_keywords(keywords, prompt=""))
        cluster_times.append(elapsed)
    clusters = result.value
    assigned = {keyword_id: index for index, cluster in enumerate(clusters) for keyword_id in cluster.keyword_ids}
    # A keyword that fits no cluster stays unclustered (#19): it counts as a cluster of its own.
    predicted = [assigned.get(keyword.id, len(clusters) + keyword.id) for keyword in keywords]
    sizes = sorted((len(cluster.keyword_ids) for cluster in clusters), reverse=True)
    print(f"clustering {len(keywords)} keywords ({len(TOPICS)} topics): p50 {statistics.median(cluster_times):.2f} s, "
          f"max {max(cluster_times):.2f} s over {len(cluster_times)} runs (target <= 10 s)")
    print(f"  {len(clusters)} clusters, largest {sizes[:5]}, unclustered {len(keywords) - len(assigned)}")
    print(f"  homogeneity against the topics {homogeneity_score(labels, predicted):.3f}, "
          f"adjusted Rand index {adjusted_rand_score(labels, predicted):.3f}")
    for cluster in clusters[:5]:
        print(f"  - {cluster.name}: {cluster.description}")

    brief = ArticleBrief(
        title="How to Choose Running Shoes for Flat Feet",
        keywords=["running shoes for flat feet", "stability running shoes", "overpronation", "arch support"],
        word_count=1500,
        tone="friendly",
        structure="guide",
        include_faq=True,
    )
    draft_times = []
    for _ in range(args.runs):
        elapsed, result = timed(lambda: provider.write_article(brief, prompt=""))
        draft_times.append(elapsed)
    print(f"drafting a 1,500-word article: p50 {statistics.median(draft_times) * 1000:.1f} ms, "
          f"max {max(draft_times) * 1000:.1f} ms over {len(draft_times)} runs (target <= 1 s); "
          f"{result.value.word_count} visible words")


if __name__ == "__main__":
    main()
