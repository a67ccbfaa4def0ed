import pytest


@pytest.fixture
def global_defaults(offline_ai):
    """The operator's AI settings (settings.INKWELL_AI) the system tests start from: the root
    conftest's offline defaults, which tests change to play the operator."""
    return offline_ai
