"""Keyword clustering by the words keywords share: the local provider's method before #19, kept as
the baseline of bench/clustering.py (production clusters by meaning, inkwell.ai.local.clustering).

How it works:

1. Features. Each keyword becomes two TF-IDF vectors (scikit-learn): word unigrams and bigrams
   over its stemmed content words (stop words, search modifiers such as "best" or "near me" and
   bare numbers left out), and character n-grams (``char_wb``, 3 to 5) over the same words, which
   catch spelling variants and compounds ("houseplant" / "house plant"). Both are L2-normalized
   and concatenated with equal weight, so the cosine similarity of two keywords is the mean of
   their word and character similarities.
2. Hierarchy. Average-linkage agglomerative clustering over exact cosine distances (computed
   block by block from the sparse vectors straight into a condensed float64 array; scipy's
   ``linkage``, the routine scikit-learn's ``AgglomerativeClustering`` itself runs for average
   linkage). Reducing to ~100 dimensions with TruncatedSVD first was measured as well: faster
   to set up but it blurs distances (clusters of a 3,455-keyword library 0.62 to 0.79
   homogeneous against its sectors, against 0.88 exact), and scikit-learn's precomputed-distance
   path peaks near 800 MB for 5,000 keywords, where this one stays near 200 MB.
3. Cut. The number of clusters comes from a distance threshold, not a fixed count: a group is
   kept whole while the mean similarity of its keywords is at least ``1 - DISTANCE_THRESHOLD``
   and it holds at most ``MAX_CLUSTER_SIZE`` keywords (larger groups split along the hierarchy,
   so a broad topic becomes its sub-topics rather than one unplannable cluster).
4. Tiny groups. A group of one or two keywords joins the cluster it is most similar to when its
   mean similarity to that cluster also meets the threshold (this happens when a size split cut
   it off); otherwise it stays a cluster of its own: a keyword unlike any other is still a topic
   to write about, and merging it with unrelated keywords would mislead the idea generator.
5. More than ``BLOCK_SIZE`` keywords (memory grows with the square of the count) are first split
   by bisecting k-means on the same vectors, with a fixed seed, and each part clustered as above.

Keywords are sorted by text, then id, before any of this, so the result does not depend on the
order they arrive in, and every step is deterministic.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.cluster.hierarchy import linkage
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from inkwell.ai.local.clustering import parts
from inkwell.ai.local.text import MODIFIERS, STOP_WORDS, content_words, stem, title_case, tokenize
from inkwell.ai.types import ClusterDraft, KeywordInput

DISTANCE_THRESHOLD = 0.9
WORD_WEIGHT = 0.5
MAX_CLUSTER_SIZE = 50
TINY_GROUP = 2
BLOCK_SIZE = 6000
_ROWS_PER_PASS = 512


def cluster_keywords(keywords: list[KeywordInput]) -> list[ClusterDraft]:
    """Every keyword id in exactly one cluster; clusters largest first."""
    if not keywords:
        return []
    ordered = sorted(keywords, key=lambda keyword: (keyword.keyword.strip().lower(), keyword.id))
    vectors = _features([keyword.keyword for keyword in ordered])
    groups: list[list[int]] = []
    for part in parts(vectors, np.arange(len(ordered)), BLOCK_SIZE):
        groups.extend([part[index] for index in members] for members in _cluster_part(vectors[part]))
    drafts = _named([[ordered[index] for index in group] for group in groups])
    return sorted(drafts, key=lambda draft: (-len(draft.keyword_ids), draft.name))


def _word_analyzer(text: str) -> list[str]:
    stems = [stem(word) for word in content_words(text)]
    return stems + [f"{first} {second}" for first, second in zip(stems, stems[1:])]


def _tfidf(vectorizer: TfidfVectorizer, documents: list[str]) -> sparse.csr_matrix:
    try:
        return normalize(vectorizer.fit_transform(documents))
    except ValueError:
        # Not one document has a feature ("best", "how to"): nothing links any two of them.
        return sparse.csr_matrix((len(documents), 0), dtype=np.float32)


def _features(texts: list[str]) -> sparse.csr_matrix:
    words = _tfidf(TfidfVectorizer(analyzer=_word_analyzer, sublinear_tf=True, dtype=np.float32), texts)
    characters = _tfidf(
        TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, dtype=np.float32),
        [" ".join(content_words(text)) for text in texts],
    )
    return normalize(sparse.hstack([words * WORD_WEIGHT, characters * (1.0 - WORD_WEIGHT)], format="csr", dtype=np.float32))


def _condensed_distances(vectors: sparse.csr_matrix) -> np.ndarray:
    """Cosine distances of every pair (i < j) in scipy's condensed order, without a dense n x n copy."""
    count = vectors.shape[0]
    distances = np.empty(count * (count - 1) // 2, dtype=np.float64)
    transposed = vectors.T.tocsc()
    position = 0
    for start in range(0, count - 1, _ROWS_PER_PASS):
        stop = min(start + _ROWS_PER_PASS, count - 1)
        block = (vectors[start:stop] @ transposed).toarray()
        for offset, row in enumerate(block):
            index = start + offset
            tail = row[index + 1 :]
            distances[position : position + len(tail)] = tail
            position += len(tail)
    np.subtract(1.0, distances, out=distances)
    return np.clip(distances, 0.0, 2.0, out=distances)


def _cluster_part(vectors: sparse.csr_matrix) -> list[list[int]]:
    count = vectors.shape[0]
    if count == 1:
        return [[0]]
    tree = linkage(_condensed_distances(vectors), method="average")
    groups = _cut(tree, count)
    return _absorb_tiny_groups(vectors, groups)


def _cut(tree: np.ndarray, count: int) -> list[list[int]]:
    """Top-down: a node is one cluster when it is close enough and small enough, else its children are tried."""
    groups = []
    pending = [2 * count - 2]
    while pending:
        node = pending.pop()
        if node < count:
            groups.append([node])
            continue
        left, right, distance, size = tree[node - count]
        if distance <= DISTANCE_THRESHOLD and size <= MAX_CLUSTER_SIZE:
            groups.append(_leaves(tree, node, count))
        else:
            pending.extend((int(right), int(left)))
    return groups


def _leaves(tree: np.ndarray, node: int, count: int) -> list[int]:
    leaves, pending = [], [node]
    while pending:
        current = pending.pop()
        if current < count:
            leaves.append(current)
        else:
            left, right = tree[current - count][:2]
            pending.extend((int(right), int(left)))
    return leaves


def _absorb_tiny_groups(vectors: sparse.csr_matrix, groups: list[list[int]]) -> list[list[int]]:
    labels = np.empty(vectors.shape[0], dtype=np.int64)
    for label, members in enumerate(groups):
        labels[members] = label
    sizes = np.bincount(labels, minlength=len(groups)).astype(np.float64)
    transposed = vectors.T.tocsc()
    for label, members in enumerate(groups):
        if len(members) > TINY_GROUP:
            continue
        eligible = (sizes > TINY_GROUP) & (sizes + len(members) <= MAX_CLUSTER_SIZE)
        eligible[label] = False
        if not eligible.any():
            continue
        similarity = (vectors[members] @ transposed).toarray().sum(axis=0)
        totals = np.bincount(labels, weights=similarity, minlength=len(groups))
        mean_similarity = np.full(len(groups), -1.0)
        mean_similarity[eligible] = totals[eligible] / (sizes[eligible] * len(members))
        target = int(np.argmax(mean_similarity))
        if mean_similarity[target] >= 1.0 - DISTANCE_THRESHOLD:
            labels[members] = target
            sizes[target] += len(members)
            sizes[label] = 0
    merged: dict[int, list[int]] = defaultdict(list)
    for index, label in enumerate(labels):
        merged[int(label)].append(index)
    return list(merged.values())


@dataclass
class _Phrase:
    document_frequency: int = 0
    surfaces: Counter = field(default_factory=Counter)


def _phrases(keywords: list[KeywordInput]) -> dict[tuple[str, ...], _Phrase]:
    """Runs of 1 to 3 words that start and end on a content word, counted once per keyword."""
    phrases: dict[tuple[str, ...], _Phrase] = defaultdict(_Phrase)
    for keyword in keywords:
        words = tokenize(keyword.keyword)
        seen = set()
        for start, first in enumerate(words):
            if not _is_content(first):
                continue
            for stop in range(start + 1, min(start + 3, len(words)) + 1):
                if not _is_content(words[stop - 1]):
                    continue
                surface = words[start:stop]
                key = tuple(stem(word) for word in surface)
                phrases[key].surfaces[" ".join(surface)] += 1
                if key not in seen:
                    seen.add(key)
                    phrases[key].document_frequency += 1
    return phrases


def _is_content(word: str) -> bool:
    return word not in STOP_WORDS and word not in MODIFIERS and not word.isdigit()


def _surface(phrase: _Phrase) -> str:
    return min(phrase.surfaces.items(), key=lambda item: (-item[1], item[0]))[0]


def _base_name(keywords: list[KeywordInput], phrases: dict[tuple[str, ...], _Phrase]) -> tuple[str, set]:
    """The longest phrase nearly as common as the most common word: "running shoes" over "shoes"."""
    top = max((phrase.document_frequency for key, phrase in phrases.items() if len(key) == 1), default=0)
    if top < 2:
        # No word is shared (a single keyword, or keywords linked by spelling only): the most searched one names it.
        leader = min(keywords, key=lambda keyword: (-keyword.volume, keyword.keyword))
        return title_case(leader.keyword.strip()), {stem(word) for word in tokenize(leader.keyword)}
    floor = max(2, 0.6 * top)
    key, phrase = min(
        ((key, phrase) for key, phrase in phrases.items() if phrase.document_frequency >= floor),
        key=lambda item: (-len(item[0]), -item[1].document_frequency, _surface(item[1])),
    )
    if len(key) == 1:
        qualified = _qualified(keywords, phrases, key[0])
        if qualified:
            return qualified
    return title_case(_surface(phrase)), set(key)


def _qualified(keywords: list[KeywordInput], phrases: dict[tuple[str, ...], _Phrase], head: str) -> tuple[str, set] | None:
    """A lone word ("Training") names a cluster poorly: pair it with the next most common word,
    in the order the keywords use them ("Dog Training")."""
    floor = max(2, 0.4 * len(keywords))
    candidates = sorted(
        ((key[0], phrase) for key, phrase in phrases.items() if len(key) == 1 and key[0] != head and phrase.document_frequency >= floor),
        key=lambda item: (-item[1].document_frequency, _surface(item[1])),
    )
    if not candidates:
        return None
    qualifier, qualifier_phrase = candidates[0]
    before = after = 0
    for keyword in keywords:
        stems = [stem(word) for word in tokenize(keyword.keyword)]
        if head in stems and qualifier in stems:
            if stems.index(qualifier) < stems.index(head):
                before += 1
            else:
                after += 1
    head_surface = _surface(phrases[(head,)])
    words = (_surface(qualifier_phrase), head_surface) if before >= after else (head_surface, _surface(qualifier_phrase))
    return title_case(" ".join(words)), {head, qualifier}


def _named(groups: list[list[KeywordInput]]) -> list[ClusterDraft]:
    drafts, used = [], set()
    for keywords in sorted(groups, key=lambda group: (-len(group), min(keyword.keyword for keyword in group))):
        phrases = _phrases(keywords)
        name, stems_in_name = _base_name(keywords, phrases)
        if name.lower() in used:
            name = _distinguished(name, phrases, stems_in_name, used)
        used.add(name.lower())
        drafts.append(ClusterDraft(name=name, description=_description(name, keywords), keyword_ids=[keyword.id for keyword in keywords]))
    return drafts


def _distinguished(name: str, phrases: dict[tuple[str, ...], _Phrase], stems_in_name: set, used: set) -> str:
    """Two clusters may share their main words; the next most common word of the cluster tells them apart."""
    extras = sorted(
        ((key, phrase) for key, phrase in phrases.items() if len(key) == 1 and key[0] not in stems_in_name),
        key=lambda item: (-item[1].document_frequency, _surface(item[1])),
    )
    for _key, phrase in extras:
        candidate = f"{name} ({title_case(_surface(phrase))})"
        if candidate.lower() not in used:
            return candidate
    number = 2
    while f"{name} ({number})".lower() in used:
        number += 1
    return f"{name} ({number})"


def _description(name: str, keywords: list[KeywordInput]) -> str:
    top = sorted(keywords, key=lambda keyword: (-keyword.volume, keyword.keyword))[:3]
    volume = sum(keyword.volume for keyword in keywords)
    size = f"{len(keywords)} keyword{'s' if len(keywords) != 1 else ''}"
    searches = f" with {volume:,} monthly searches in all" if volume else ""
    examples = ", ".join(f'"{keyword.keyword.strip()}"' for keyword in top)
    lead = "Top keywords" if len(keywords) > 1 else "Keyword"
    return f"{size} about {name.lower()}{searches}. {lead}: {examples}."
