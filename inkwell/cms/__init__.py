"""CMS adapters: one interface (``inkwell.cms.base``) over each CMS platform's own API."""

from django.conf import settings

from inkwell.cms.base import CMSAdapter, CMSCredentials

PLATFORMS = ("wordpress", "ghost")


def adapter_class(platform: str) -> type[CMSAdapter]:
    if platform == "wordpress":
        from inkwell.cms.wordpress import WordPressAdapter

        return WordPressAdapter
    if platform == "ghost":
        from inkwell.cms.ghost import GhostAdapter

        return GhostAdapter
    raise ValueError(f"Unknown CMS platform {platform!r}; one of {list(PLATFORMS)}")


def platforms_where(**traits) -> list[str]:
    """The platforms whose adapter has these class traits, e.g. ``webhook_signing="ghost"``: the
    layers above ask the adapters, never name a platform."""
    return [platform for platform in PLATFORMS if all(getattr(adapter_class(platform), name) == value for name, value in traits.items())]


def build_adapter(platform: str, credentials: CMSCredentials) -> CMSAdapter:
    """The adapter for ``platform``, with the timeout and address rules of ``settings.INKWELL_CMS``."""
    options = settings.INKWELL_CMS
    return adapter_class(platform)(credentials, timeout=options["TIMEOUT_SECONDS"], allow_private=options["ALLOW_PRIVATE_URLS"])
