"""JSON Schemas of the answers a language model must give, one per text operation.

The ``openai`` provider puts the schema in the system message and validates the answer against it
(jsonschema, Draft 2020-12) before mapping it to the dataclasses in ``inkwell.ai.types``. Each
schema's ``title`` names its operation, so an answer (or a test server) can tell them apart.
Limits are generous on purpose: the schema rejects answers that cannot be used, while the
instructions ask for the tighter editorial limits (a 58-character meta title is not an error).
"""

from inkwell.ai.types import IMAGE_TYPES

# "pattern" is searched, not anchored: at least one visible character.
_TEXT = {"type": "string", "minLength": 1, "maxLength": 500, "pattern": "\\S"}
_TEXT_LIST = {"type": "array", "items": _TEXT}
_LABEL = {"type": "string", "minLength": 1, "maxLength": 50, "pattern": "[A-Za-z]"}

CLUSTER_KEYWORDS = {
    "title": "cluster_keywords",
    "type": "object",
    "required": ["clusters"],
    "properties": {
        "clusters": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "keyword_ids"],
                "properties": {
                    "name": {**_TEXT, "maxLength": 200},
                    "description": {"type": "string", "maxLength": 1000},
                    "keyword_ids": {"type": "array", "items": {"type": "integer"}},
                },
            },
        },
    },
}

GENERATE_IDEAS = {
    "title": "generate_ideas",
    "type": "object",
    "required": ["ideas"],
    "properties": {
        "ideas": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["title", "description", "content_type", "content_structure", "target_keywords", "outline"],
                "properties": {
                    "title": _TEXT,
                    "description": {"type": "string", "maxLength": 2000},
                    "content_type": _LABEL,
                    "content_structure": _LABEL,
                    "target_keywords": _TEXT_LIST,
                    "outline": _TEXT_LIST,
                },
            },
        },
    },
}

_ARTICLE_PROPERTIES = {
    "title": _TEXT,
    "meta_title": _TEXT,
    "meta_description": {**_TEXT, "maxLength": 1000},
    "focus_keyword": _TEXT,
    "outline": _TEXT_LIST,
    "html": {"type": "string", "minLength": 1, "pattern": "\\S"},
    "faq": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["question", "answer"],
            "properties": {"question": _TEXT, "answer": {"type": "string", "minLength": 1, "pattern": "\\S"}},
        },
    },
}
_ARTICLE_REQUIRED = ["title", "meta_title", "meta_description", "focus_keyword", "outline", "html", "faq"]

WRITE_ARTICLE = {
    "title": "write_article",
    "type": "object",
    "required": _ARTICLE_REQUIRED,
    "properties": _ARTICLE_PROPERTIES,
}

EXTRACT_IMAGE_PROMPTS = {
    "title": "extract_image_prompts",
    "type": "object",
    "required": ["images"],
    "properties": {
        "images": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["prompt", "alt_text", "image_type"],
                "properties": {
                    "prompt": {**_TEXT, "maxLength": 4000},
                    "alt_text": _TEXT,
                    "image_type": {"enum": list(IMAGE_TYPES)},
                },
            },
        },
    },
}

OPTIMIZE_ARTICLE = {
    "title": "optimize_article",
    "type": "object",
    "required": [*_ARTICLE_REQUIRED, "changes"],
    "properties": {**_ARTICLE_PROPERTIES, "changes": _TEXT_LIST},
}

ALL = (CLUSTER_KEYWORDS, GENERATE_IDEAS, WRITE_ARTICLE, EXTRACT_IMAGE_PROMPTS, OPTIMIZE_ARTICLE)
