"""Provider construction: a ``ProviderConfig`` in, a ``TextProvider`` or ``ImageProvider`` out.

``default_text_config`` and ``default_image_config`` read the deployment's defaults from
``settings.INKWELL_AI``; an account's own provider settings (``inkwell.system``) build a
``ProviderConfig`` of their own and go through the same ``build_*`` functions.
"""

import time

from django.conf import settings

from inkwell.ai.errors import ProviderNotConfigured
from inkwell.ai.providers.base import ImageProvider, ProviderConfig, TextProvider

PROVIDER_NAMES = ("local", "openai")


def import_provider_sdk() -> float:
    """Imports the ``openai`` provider and its SDK (seconds, on a busy machine) and returns how
    long it took. A worker calls it when it starts, so that no job waits for it; elsewhere the
    import happens at the first use, so the local provider never needs the package."""
    started = time.monotonic()
    import inkwell.ai.providers.openai  # noqa: F401, PLC0415 (the import is the point)

    return time.monotonic() - started


def build_text_provider(config: ProviderConfig) -> TextProvider:
    if config.provider == "local":
        from inkwell.ai.providers.local import LocalTextProvider

        return LocalTextProvider(config)
    if config.provider == "openai":
        # Imported here so the local provider works without the openai package being importable.
        from inkwell.ai.providers.openai import OpenAITextProvider

        return OpenAITextProvider(config)
    raise ProviderNotConfigured(f"Unknown AI provider {config.provider!r}; choose one of {', '.join(PROVIDER_NAMES)}")


def build_image_provider(config: ProviderConfig) -> ImageProvider:
    if config.provider == "local":
        from inkwell.ai.providers.local import LocalImageProvider

        return LocalImageProvider(config)
    if config.provider == "openai":
        from inkwell.ai.providers.openai import OpenAIImageProvider

        return OpenAIImageProvider(config)
    raise ProviderNotConfigured(f"Unknown image provider {config.provider!r}; choose one of {', '.join(PROVIDER_NAMES)}")


def default_text_config(*, live: bool = True) -> ProviderConfig:
    """The deployment's text provider; ``live=False`` picks the cheaper testing model."""
    ai = settings.INKWELL_AI
    return ProviderConfig(
        provider=ai.get("PROVIDER") or "local",
        base_url=ai.get("BASE_URL") or "",
        api_key=ai.get("API_KEY") or "",
        model=(ai.get("LIVE_MODEL") if live else ai.get("TESTING_MODEL")) or "",
        timeout_seconds=float(ai.get("TIMEOUT_SECONDS") or 60),
        max_retries=int(ai.get("MAX_RETRIES") if ai.get("MAX_RETRIES") is not None else 3),
        embedding_model=ai.get("EMBEDDING_MODEL") or "",
        allow_private=bool(ai.get("ALLOW_PRIVATE_ENDPOINTS")),
    )


def default_image_config() -> ProviderConfig:
    """The deployment's image provider; its URL and key fall back to the text provider's."""
    ai = settings.INKWELL_AI
    return ProviderConfig(
        provider=ai.get("IMAGE_PROVIDER") or "local",
        base_url=ai.get("IMAGE_BASE_URL") or ai.get("BASE_URL") or "",
        api_key=ai.get("IMAGE_API_KEY") or ai.get("API_KEY") or "",
        model=ai.get("IMAGE_MODEL") or "",
        timeout_seconds=float(ai.get("TIMEOUT_SECONDS") or 60),
        max_retries=int(ai.get("MAX_RETRIES") if ai.get("MAX_RETRIES") is not None else 3),
        allow_private=bool(ai.get("ALLOW_PRIVATE_ENDPOINTS")),
    )
