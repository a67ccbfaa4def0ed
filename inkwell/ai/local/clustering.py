"""Keyword clustering by meaning (issue #19).

How it works:

1. One entry per keyword text. Keywords whose text is the same once case and spacing are set
   aside (the same keyword added from several countries) are one entry: they are embedded once and
   land in the same cluster together, and the cluster's description lists their countries. Their
   volumes add up.
2. Meaning. Each entry becomes a WordLlama vector (``inkwell.ai.local.embeddings``), so "how many
   calories in a latte" and "latte nutrition" are close although they share one word. (The
   ``openai`` provider, given an embeddings model, uses that model's vectors instead.)
3. Neighbours. Each vector is moved towards the mean of its ``NEIGHBOURS`` nearest vectors among
   the keywords clustered together (``NEIGHBOUR_WEIGHT`` times that mean is added, then the sum is
   normalized again). One short keyword's static embedding is noisy; its nearest keywords usually
   share its intent, so this pulls a topic's keywords together before the cut.
4. Hierarchy and cut. Average-linkage agglomerative clustering over cosine distances of the moved
   vectors (``fastcluster``: scipy's algorithm and output in a 200 KB download), cut at the threshold
   (``similarity``, the ``AI_CLUSTER_SIMILARITY`` setting, default ``SIMILARITY``). Moving vectors
   towards their neighbours can also pull a word every keyword of a topic shares ("coffee") into
   one catch-all, so each group is checked on the keywords' own vectors: one whose mean similarity
   is below the threshold is cut again, alone, on those vectors. A cluster therefore holds keywords
   that are, on average, at least that close in their own vectors. The number of clusters follows
   from the threshold, never a fixed count.
5. A keyword that fits nowhere (a group of one entry) forms a cluster of its own, named after it:
   every keyword given ends in exactly one cluster (contract section 12, which replaced "keywords that
   fit nowhere stay unclustered"; issue 30).
6. Names. A cluster is named after its highest-volume keyword (ties: the shorter, then the first
   alphabetically), the convention users know from keyword clustering tools.
7. More than ``BLOCK_SIZE`` entries (memory grows with the square of the count) are first split in
   two along their principal direction (principal direction divisive partitioning) until every part
   fits, and each part is clustered as above.

Entries are sorted by text before any of this, so the result does not depend on the order the
keywords arrive in, and every step is deterministic.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import fastcluster
import numpy as np

from inkwell.ai.local.embeddings import embed
from inkwell.ai.local.text import title_case
from inkwell.ai.types import ClusterDraft, KeywordInput

# Tuned on the tuning half of bench/data/clustering_keywords.csv (bench/clustering.py).
SIMILARITY = 0.325
NEIGHBOURS = 2
NEIGHBOUR_WEIGHT = 0.5
BLOCK_SIZE = 4000
_ROWS_PER_PASS = 512
_POWER_ITERATIONS = 30


@dataclass
class _Entry:
    text: str
    keywords: list[KeywordInput] = field(default_factory=list)

    @property
    def volume(self) -> int:
        return sum(keyword.volume for keyword in self.keywords)

    @property
    def countries(self) -> list[str]:
        return sorted({keyword.country for keyword in self.keywords if keyword.country})


def normalized(text: str) -> str:
    return " ".join(text.lower().split())


def cluster_keywords(
    keywords: list[KeywordInput], *, similarity: float = SIMILARITY, embedder: Callable[[list[str]], np.ndarray] = embed
) -> list[ClusterDraft]:
    """Every keyword in exactly one cluster, largest first: a keyword unlike the others is a cluster
    of its own, named after it.

    ``embedder`` turns texts into vectors: WordLlama by default; the ``openai`` provider passes its
    endpoint's embeddings model. Its vectors are normalized here."""
    entries: dict[str, _Entry] = {}
    for keyword in sorted(keywords, key=lambda keyword: (normalized(keyword.keyword), keyword.id)):
        text = normalized(keyword.keyword)
        if text:
            entries.setdefault(text, _Entry(text)).keywords.append(keyword)
    ordered = list(entries.values())
    if len(ordered) < 2:
        return [_draft(ordered)] if ordered else []
    vectors = np.asarray(embedder([entry.text for entry in ordered]), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    np.divide(vectors, norms, out=vectors, where=norms > 0)
    groups: list[list[int]] = []
    for part in parts(vectors, np.arange(len(ordered))):
        groups.extend([int(part[index]) for index in members] for members in _cluster_part(vectors[part], similarity))
    drafts = [_draft([ordered[index] for index in group]) for group in groups]
    return sorted(drafts, key=lambda draft: (-len(draft.keyword_ids), draft.name))


def parts(vectors, indexes: np.ndarray, block_size: int = BLOCK_SIZE) -> list[np.ndarray]:
    """Split ``indexes`` (rows of ``vectors``, dense or sparse) in two along their principal direction
    until every part fits in ``block_size``."""
    if len(indexes) <= block_size:
        return [indexes]
    projection = _principal_projection(vectors[indexes])
    halves = [indexes[projection < 0], indexes[projection >= 0]]
    if not len(halves[0]) or not len(halves[1]):
        middle = len(indexes) // 2
        halves = [indexes[:middle], indexes[middle:]]
    return [part for half in halves for part in parts(vectors, half, block_size)]


def _principal_projection(rows) -> np.ndarray:
    """Each row's coordinate on the first principal component, by power iteration on the centred
    rows. Only products with ``rows`` are taken, so sparse rows are never made dense."""
    mean = np.asarray(rows.mean(axis=0)).ravel()
    direction = np.ones(rows.shape[1], dtype=np.float64) / np.sqrt(rows.shape[1])
    for _ in range(_POWER_ITERATIONS):
        projection = np.asarray(rows @ direction).ravel() - mean @ direction
        direction = np.asarray(rows.T @ projection).ravel() - mean * projection.sum()
        norm = np.linalg.norm(direction)
        if norm == 0:
            break
        direction /= norm
    return np.asarray(rows @ direction).ravel() - mean @ direction


def _condensed_distances(vectors: np.ndarray) -> np.ndarray:
    """Cosine distances of every pair (i < j) in scipy's condensed order, without an n x n float64 copy."""
    count = len(vectors)
    distances = np.empty(count * (count - 1) // 2, dtype=np.float64)
    position = 0
    for start in range(0, count - 1, _ROWS_PER_PASS):
        stop = min(start + _ROWS_PER_PASS, count - 1)
        block = vectors[start:stop] @ vectors.T
        for offset, row in enumerate(block):
            tail = row[start + offset + 1 :]
            distances[position : position + len(tail)] = tail
            position += len(tail)
    np.subtract(1.0, distances, out=distances)
    return np.clip(distances, 0.0, 2.0, out=distances)


def _towards_neighbours(vectors: np.ndarray) -> np.ndarray:
    """Each row plus ``NEIGHBOUR_WEIGHT`` times the mean of its ``NEIGHBOURS`` most similar other rows, normalized."""
    count = min(NEIGHBOURS, len(vectors) - 1)
    moved = vectors.copy()
    for start in range(0, len(vectors), _ROWS_PER_PASS):
        block = vectors[start : start + _ROWS_PER_PASS] @ vectors.T
        rows = np.arange(len(block))
        block[rows, start + rows] = -np.inf
        nearest = np.argpartition(-block, count - 1, axis=1)[:, :count]
        moved[start : start + len(block)] += NEIGHBOUR_WEIGHT * vectors[nearest].mean(axis=1)
    norms = np.linalg.norm(moved, axis=1, keepdims=True)
    np.divide(moved, norms, out=moved, where=norms > 0)
    return moved


def _cluster_part(vectors: np.ndarray, similarity: float) -> list[list[int]]:
    if len(vectors) == 1:
        return [[0]]
    groups = []
    # The moved vectors propose the groups; the keywords' own vectors decide whether one stays whole.
    for members in _cut(_towards_neighbours(vectors), similarity):
        if len(members) > 1 and _mean_similarity(vectors[members]) < similarity:
            groups.extend([members[index] for index in inner] for inner in _cut(vectors[members], similarity))
        else:
            groups.append(members)
    return groups


def _cut(vectors: np.ndarray, similarity: float) -> list[list[int]]:
    if len(vectors) == 1:
        return [[0]]
    tree = fastcluster.linkage(_condensed_distances(vectors), method="average")
    groups: dict[int, list[int]] = {}
    for index, root in enumerate(tree_cut(tree, len(vectors), distance=1.0 - similarity)):
        groups.setdefault(int(root), []).append(index)
    return list(groups.values())


def tree_cut(tree: np.ndarray, count: int, *, distance: float) -> np.ndarray:
    """For each of the ``count`` leaves of a monotone linkage ``tree``, the node of the largest group
    it joined at a height of at most ``distance`` (scipy's ``fcluster`` with ``criterion="distance"``)."""
    parent = np.arange(2 * count - 1)
    for row, (left, right, height, _size) in enumerate(tree):
        if height <= distance:
            parent[int(left)] = parent[int(right)] = count + row
    root = parent.copy()
    # A parent's index is always above its children's: from the top down, each node's root is known.
    for node in range(2 * count - 2, -1, -1):
        root[node] = root[parent[node]]
    return root[:count]


def _mean_similarity(vectors: np.ndarray) -> float:
    """The mean cosine similarity of every pair of (unit or zero) rows."""
    count = len(vectors)
    total = vectors.sum(axis=0)
    return float((total @ total - np.einsum("ij,ij->", vectors, vectors)) / (count * (count - 1)))


def _draft(entries: list[_Entry]) -> ClusterDraft:
    leader = min(entries, key=lambda entry: (-entry.volume, len(entry.text), entry.text))
    name = title_case(leader.keywords[0].keyword.strip())
    return ClusterDraft(
        name=name,
        description=_description(name, entries),
        keyword_ids=[keyword.id for entry in entries for keyword in entry.keywords],
    )


def _description(name: str, entries: list[_Entry]) -> str:
    top = sorted(entries, key=lambda entry: (-entry.volume, entry.text))[:3]
    volume = sum(entry.volume for entry in entries)
    searches = f" with {volume:,} monthly searches in all" if volume else ""
    examples = ", ".join(f'"{entry.text}"' for entry in top)
    several = sorted({country for entry in entries if len(entry.countries) > 1 for country in entry.countries})
    countries = f" Searched in several countries: {', '.join(several)}." if several else ""
    keywords = f"{len(entries)} keywords" if len(entries) > 1 else "1 keyword"
    return f"{keywords} about {name.lower()}{searches}. Top keywords: {examples}.{countries}"
