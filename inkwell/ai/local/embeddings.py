"""The offline provider's sense of meaning: WordLlama's 256-dimension static token embeddings.

WordLlama (``wordllama`` on PyPI) ships its model inside the wheel: the token embedding matrix
(``wordllama/weights/l2_supercat_256.safetensors``, 32,000 x 256 float16, 16 MB) and its tokenizer
(``wordllama/tokenizers/l2_supercat_tokenizer_config.json``). Both are opened here by their paths
inside the installed package. ``WordLlama.load()`` is not used on purpose: in 0.4.0.post1 it looks
for the tokenizer under ``wordllama/tokenizer/`` (singular), misses the shipped file, and would
download it from a model hub into ``~/.cache/wordllama``. Nothing here reaches the network.

A text's vector is the weighted mean of its tokens' vectors, L2-normalized, so the dot product of
two vectors is their cosine similarity. Stop words and search modifiers ("best", "near me") are
left out when anything else remains, and each token is weighted by its inverse document frequency
among the texts embedded together: the word every keyword of a site shares ("coffee" on a coffee
site) says little about which topic a keyword belongs to.

The matrix is loaded once per process, on first use (about 0.4 s and 50 MB resident).
"""

import threading
from functools import cache
from importlib.resources import files

import numpy as np

from inkwell.ai.local.text import content_words

DIMENSIONS = 256
_WEIGHTS = ("weights", "l2_supercat_256.safetensors")
_TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")
_BATCH = 1024
_load_lock = threading.Lock()


class _Model:
    def __init__(self):
        from safetensors import safe_open
        from tokenizers import Tokenizer

        package = files("wordllama")
        with safe_open(str(package.joinpath(*_WEIGHTS)), framework="np") as weights:
            self.matrix = np.ascontiguousarray(weights.get_tensor("embedding.weight").astype(np.float32))
        self.tokenizer = Tokenizer.from_file(str(package.joinpath(*_TOKENIZER)))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()


@cache
def _cached_model() -> _Model:
    return _Model()


def model() -> _Model:
    """The process's one model, loaded on first use."""
    with _load_lock:
        return _cached_model()


def _documents(texts: list[str]) -> list[str]:
    documents = []
    for text in texts:
        words = content_words(text)
        documents.append(" ".join(words) if words else text.strip().lower())
    return documents


def embed(texts: list[str]) -> np.ndarray:
    """An (n, 256) float32 array of unit vectors; a text without any token gets a zero vector."""
    vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    if not texts:
        return vectors
    current = model()
    encoded = current.tokenizer.encode_batch(_documents(texts), add_special_tokens=False)
    lengths = np.fromiter((len(encoding.ids) for encoding in encoded), dtype=np.int64, count=len(encoded))
    flat = np.fromiter((token for encoding in encoded for token in encoding.ids), dtype=np.int64, count=int(lengths.sum()))
    if not len(flat):
        return vectors
    rows = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    vocabulary = current.matrix.shape[0]
    # A token counts once per text however often the text repeats it.
    document_frequency = np.bincount(np.unique(rows * vocabulary + flat) % vocabulary, minlength=vocabulary)
    inverse = (np.log((1.0 + len(texts)) / (1.0 + document_frequency)) + 1.0).astype(np.float32)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    for first in range(0, len(texts), _BATCH):
        present = first + np.flatnonzero(lengths[first : first + _BATCH])
        if not len(present):
            continue
        low, high = starts[present[0]], starts[present[-1]] + lengths[present[-1]]
        tokens = flat[low:high]
        weighted = current.matrix[tokens] * inverse[tokens][:, None]
        vectors[present] = np.add.reduceat(weighted, starts[present] - low, axis=0)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    np.divide(vectors, norms, out=vectors, where=norms > 0)
    return vectors
