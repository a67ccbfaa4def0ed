"""The AI engine: one provider interface for every AI operation Inkwell needs.

Providers: ``local`` (offline, deterministic drafting aid; not a language model) and ``openai``
(any OpenAI-compatible endpoint). Call sites never hold prompt text: they get an ``AIClient``
whose prompt templates come from the account's prompt store (``inkwell.system``). The engine
imports no domain.
"""
