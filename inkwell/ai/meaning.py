"""The AI engine's sense of meaning, for domains that compare texts without asking a provider: the
cannibalization guard (planner) and the linker's suggestions. Both always use the offline model
(WordLlama, ``ai.local.embeddings``), whichever provider the account writes with: it costs no
credits, needs no network, and its vectors are comparable with one another from one request to
the next. Domains import this module, never ``ai.local`` itself (an import-linter contract)."""

from inkwell.ai.local.embeddings import embed
from inkwell.ai.local.text import MODIFIERS, STOP_WORDS

__all__ = ["MODIFIERS", "STOP_WORDS", "embed"]
