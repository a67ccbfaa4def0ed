import pytest


@pytest.fixture(autouse=True)
def global_defaults(settings):
    """The operator's AI settings (settings.INKWELL_AI) the system tests start from: offline
    providers, no keys, known model names, short timeouts and no retries."""
    settings.INKWELL_AI = {
        **settings.INKWELL_AI,
        "PROVIDER": "local",
        "BASE_URL": "",
        "API_KEY": "",
        "TESTING_MODEL": "gpt-4o-mini",
        "LIVE_MODEL": "gpt-4o",
        "IMAGE_PROVIDER": "local",
        "IMAGE_BASE_URL": "",
        "IMAGE_API_KEY": "",
        "IMAGE_MODEL": "gpt-image-1",
        "TIMEOUT_SECONDS": 2,
        "MAX_RETRIES": 0,
    }
    return settings
