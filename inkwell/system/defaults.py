"""The global defaults every account starts from, and the allowed values
of each setting. Accounts store only what they change; reads merge their values over these."""

# Inkwell's modules, in menu order; each is enabled unless the account switched it off.
MODULES = ("planner", "writer", "automation", "linker", "optimizer", "publisher", "integration")
MODULE_TITLES = {
    "planner": "Planner",
    "writer": "Writer",
    "automation": "Automation",
    "linker": "Internal linker",
    "optimizer": "Optimizer",
    "publisher": "Publisher",
    "integration": "CMS integration",
}

TONES = ("professional", "friendly", "casual", "authoritative", "conversational", "persuasive")
STRUCTURES = ("guide", "listicle", "how_to", "comparison", "review")
PUBLISH_STATUSES = ("draft", "publish")
SCHEDULE_FREQUENCIES = ("daily", "weekly", "monthly")
IMAGE_STYLES = ("photorealistic", "illustration", "flat", "3d", "watercolor")
# The sizes OpenAI-compatible image endpoints accept (square, portrait, landscape).
IMAGE_SIZES = ("256x256", "512x512", "1024x1024", "1024x1536", "1536x1024", "1024x1792", "1792x1024")

ARTICLE_LENGTH_RANGE = (300, 10000)
IMAGES_PER_ARTICLE_RANGE = (0, 8)
MAX_IMAGES_RANGE = (1, 8)
SCHEDULE_TIMES_RANGE = (1, 10)

CONTENT_DEFAULTS = {
    "content_generation": {
        "default_article_length": 1500,
        "default_tone": "professional",
        "default_structure": "guide",
        "include_faq": True,
        "enable_internal_linking": True,
        "include_images": True,
        "images_per_article": 4,
        "use_testing_model": False,
    },
    "publishing": {
        "default_publish_status": "publish",
        "auto_schedule": False,
        "schedule_frequency": "daily",
        "schedule_times": ["09:00"],
    },
}
CONTENT_KEYS = tuple(CONTENT_DEFAULTS)

# Defaults of the integration settings that settings.INKWELL_AI does not carry.
AI_PROVIDER_DEFAULTS = {"use_testing_model": False}
IMAGE_GENERATION_DEFAULTS = {"size": "1024x1024", "style": "photorealistic", "max_images": 4}

# The AI model catalogue sites choose from (inkwell.system.models.AIModel): the local provider's
# models and common OpenAI ones; ``ai_model_catalogue`` adds the deployment's configured models.
AI_MODELS = (
    ("text", "local", "local"),
    ("image", "local", "local"),
    ("text", "openai", "gpt-4o"),
    ("text", "openai", "gpt-4o-mini"),
    ("text", "openai", "gpt-4.1"),
    ("text", "openai", "gpt-4.1-mini"),
    ("text", "openai", "gpt-4.1-nano"),
    ("image", "openai", "gpt-image-1"),
    ("image", "openai", "dall-e-3"),
    ("image", "openai", "dall-e-2"),
)


def ai_model_catalogue(ai_settings: dict) -> list[tuple[str, str, str]]:
    """``AI_MODELS`` and the models ``settings.INKWELL_AI`` names (as OpenAI models), each once."""
    configured = [
        ("text", "openai", ai_settings.get("TESTING_MODEL")),
        ("text", "openai", ai_settings.get("LIVE_MODEL")),
        ("image", "openai", ai_settings.get("IMAGE_MODEL")),
    ]
    return list(dict.fromkeys([*AI_MODELS, *(entry for entry in configured if entry[2])]))


def load_ai_models(model, ai_settings: dict) -> None:
    """Adds the catalogue's models that ``model`` (AIModel, or its migration state) lacks; a model
    staff changed or deactivated stays as they left it."""
    for kind, provider, name in ai_model_catalogue(ai_settings):
        model.objects.get_or_create(kind=kind, provider=provider, name=name)
