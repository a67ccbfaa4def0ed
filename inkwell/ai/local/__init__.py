"""The building blocks of the offline ``local`` provider (``inkwell.ai.providers.local``):
clustering, idea and article drafting, image prompts and artwork, and SEO clean-up. Deterministic
throughout: the same input always gives the same output."""
