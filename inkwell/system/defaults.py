"""The global defaults every account starts from (API-CONTRACT section 10), and the allowed values
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
        "default_publish_status": "draft",
        "auto_schedule": False,
        "schedule_frequency": "daily",
        "schedule_times": ["09:00"],
    },
}
CONTENT_KEYS = tuple(CONTENT_DEFAULTS)

# Defaults of the integration settings that settings.INKWELL_AI does not carry.
AI_PROVIDER_DEFAULTS = {"use_testing_model": False}
IMAGE_GENERATION_DEFAULTS = {"size": "1024x1024", "style": "photorealistic", "max_images": 4}
