#!/usr/bin/env python
"""Keyword clustering benchmark (issue #19): meaning (WordLlama) against today's TF-IDF method.

    .venv/bin/python bench/clustering.py [--sweep] [--speed-keywords 5000]

Quality, on bench/data/clustering_keywords.csv: 645 search keywords in 92 intent groups across 9
industries, grouped by what the searcher wants, not by the words they type ("nexgard vs bravecto"
is about fleas and ticks, "rainy day savings" about an emergency fund). Each method clusters the
whole set in one run; a keyword a method leaves unclustered counts as a cluster of its own. It
reports the adjusted Rand index (ARI), normalized mutual information (NMI) and purity against the
groups, and the time.

The similarity threshold was chosen on the *tuning* half (the industries at even positions in
alphabetical order: coffee, finance, gardening, parenting, travel) and is reported on the
*held-out* half (cooking, fitness, home, pets) as well as the whole set; ``--sweep`` prints the
tuning sweep.

Speed and memory: embedding 10,000 keywords, clustering ``--speed-keywords`` keywords (the labelled
keywords with numbered variants, so they are distinct texts), and the process's peak resident
memory before and after (the model and the clustering's working set).
"""

from __future__ import annotations

import argparse
import csv
import resource
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tfidf_clustering import cluster_keywords as tfidf_clusters  # noqa: E402

from inkwell.ai.local.clustering import SIMILARITY, cluster_keywords  # noqa: E402
from inkwell.ai.local.embeddings import embed, model  # noqa: E402
from inkwell.ai.types import KeywordInput  # noqa: E402

DATA = ROOT / "bench" / "data" / "clustering_keywords.csv"
SWEEP = [round(value, 3) for value in np.arange(0.15, 0.501, 0.025)]


def labelled() -> list[dict]:
    with DATA.open(newline="") as handle:
        return list(csv.DictReader(handle))


def split(rows: list[dict]) -> dict[str, list[dict]]:
    industries = sorted({row["industry"] for row in rows})
    tuning = set(industries[::2])
    return {
        "tuning": [row for row in rows if row["industry"] in tuning],
        "held-out": [row for row in rows if row["industry"] not in tuning],
        "all": rows,
    }


def keywords_of(rows: list[dict]) -> list[KeywordInput]:
    # Volumes only decide names; any spread will do.
    return [KeywordInput(id=index + 1, keyword=row["keyword"], volume=(index * 37) % 900) for index, row in enumerate(rows)]


def predicted(clusters, keywords: list[KeywordInput]) -> list[int]:
    assigned = {keyword_id: index for index, cluster in enumerate(clusters) for keyword_id in cluster.keyword_ids}
    alone = len(clusters)
    labels = []
    for keyword in keywords:
        if keyword.id in assigned:
            labels.append(assigned[keyword.id])
        else:
            labels.append(alone)
            alone += 1
    return labels


def purity(truth: list[str], labels: list[int]) -> float:
    matrix = contingency_matrix(truth, labels)
    return float(matrix.max(axis=0).sum() / matrix.sum())


def scores(rows: list[dict], method) -> dict:
    keywords = keywords_of(rows)
    truth = [f"{row['industry']}/{row['intent']}" for row in rows]
    started = time.perf_counter()
    clusters = method(keywords)
    elapsed = time.perf_counter() - started
    labels = predicted(clusters, keywords)
    clustered = sum(len(cluster.keyword_ids) for cluster in clusters)
    return {
        "ari": adjusted_rand_score(truth, labels),
        "nmi": normalized_mutual_info_score(truth, labels),
        "purity": purity(truth, labels),
        "clusters": len(clusters),
        "unclustered": len(keywords) - clustered,
        "largest": max((len(cluster.keyword_ids) for cluster in clusters), default=0),
        "seconds": elapsed,
    }


def line(name: str, result: dict) -> str:
    return (
        f"  {name:<22} ARI {result['ari']:.3f}  NMI {result['nmi']:.3f}  purity {result['purity']:.3f}  "
        f"{result['clusters']:>3} clusters (largest {result['largest']:>3}), {result['unclustered']:>3} unclustered, "
        f"{result['seconds']:.2f} s"
    )


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def speed(count: int) -> None:
    rows = labelled()
    texts = [row["keyword"] if index < len(rows) else f"{rows[index % len(rows)]['keyword']} {index // len(rows)}" for index, row in enumerate(rows * (10000 // len(rows) + 1))][:10000]
    before = peak_mb()
    started = time.perf_counter()
    model()
    loaded = time.perf_counter() - started
    after_load = peak_mb()
    started = time.perf_counter()
    embed(texts)
    embedding = time.perf_counter() - started
    keywords = [KeywordInput(id=index + 1, keyword=text, volume=index % 500) for index, text in enumerate(texts[:count])]
    started = time.perf_counter()
    clusters = cluster_keywords(keywords)
    clustering = time.perf_counter() - started
    print("Speed and memory (this machine):")
    print(f"  model load (once per process)     {loaded:.2f} s, peak RSS {before:.0f} -> {after_load:.0f} MB")
    print(f"  embedding 10,000 keywords          {embedding:.2f} s (target <= 2 s)")
    print(f"  clustering {count:,} keywords          {clustering:.2f} s (target <= 10 s), {len(clusters)} clusters")
    print(f"  peak RSS after all of it           {peak_mb():.0f} MB: {peak_mb() - before:.0f} MB more than before the model (target <= 300 MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sweep", action="store_true", help="print the threshold sweep on the tuning half")
    parser.add_argument("--speed-keywords", type=int, default=5000)
    args = parser.parse_args()

    rows = labelled()
    groups = {f"{row['industry']}/{row['intent']}" for row in rows}
    print(f"{len(rows)} keywords, {len(groups)} intent groups, {len({row['industry'] for row in rows})} industries")
    speed(args.speed_keywords)
    parts = split(rows)
    if args.sweep:
        print("Threshold sweep on the tuning half (ARI / NMI / purity):")
        for value in SWEEP:
            result = scores(parts["tuning"], lambda keywords, value=value: cluster_keywords(keywords, similarity=value))
            print(f"  {value:.3f}  {result['ari']:.3f} / {result['nmi']:.3f} / {result['purity']:.3f}  {result['clusters']} clusters, {result['unclustered']} unclustered")
    for name, part in parts.items():
        print(f"{name} ({len(part)} keywords):")
        old = scores(part, tfidf_clusters)
        new = scores(part, cluster_keywords)
        print(line("TF-IDF (before #19)", old))
        print(line(f"WordLlama @ {SIMILARITY}", new))
        print(f"  ARI difference {new['ari'] - old['ari']:+.3f}")


if __name__ == "__main__":
    main()
