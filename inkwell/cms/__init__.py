"""CMS adapters: one interface (``inkwell.cms.base``) over each CMS platform's own API."""

from django.conf import settings

from inkwell.cms.base import CMSAdapter, CMSCredentials

PLATFORMS = ("wordpress", "ghost")


def build_adapter(platform: str, credentials: CMSCredentials) -> CMSAdapter:
    """The adapter for ``platform``, with the timeout and address rules of ``settings.INKWELL_CMS``."""
    options = settings.INKWELL_CMS
    if platform == "wordpress":
        from inkwell.cms.wordpress import WordPressAdapter

        return WordPressAdapter(credentials, timeout=options["TIMEOUT_SECONDS"], allow_private=options["ALLOW_PRIVATE_URLS"])
    if platform == "ghost":
        from inkwell.cms.ghost import GhostAdapter

        return GhostAdapter(credentials, timeout=options["TIMEOUT_SECONDS"], allow_private=options["ALLOW_PRIVATE_URLS"])
    raise ValueError(f"Unknown CMS platform {platform!r}; one of {list(PLATFORMS)}")
