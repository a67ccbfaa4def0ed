"""Inkwell settings: one module, every value read from the environment.

Every variable is documented in docs/configuration.md. With no environment at all the
embedded default runs: SQLite and a database cache in ``data/``, Celery on the filesystem
transport. Setting ``DATABASE_URL`` and ``REDIS_URL`` switches to the production profile.
"""

import json
import os
import secrets
from pathlib import Path

import dj_database_url
from csp.constants import NONCE

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value is None or value == "" else int(value)


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return default if value is None or value == "" else float(value)


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


DATA_DIR = Path(env_str("INKWELL_DATA_DIR", str(BASE_DIR / "data"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    """The key from the environment, or one generated once and kept in the data folder.

    No secret ships with the code: a fresh clone gets its own random key on first start.
    """
    key = env_str("DJANGO_SECRET_KEY")
    if key:
        return key
    key_file = DATA_DIR / "secret_key"
    if not key_file.exists():
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")
INKWELL_VERSION = "0.1.0"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_prose_editor",
    "inkwell.api",
    "inkwell.tenancy",
    "inkwell.ai",
    "inkwell.keywords",
    "inkwell.jobs",
    "inkwell.billing",
    "inkwell.notifications",
    "inkwell.webhooks",
    "inkwell.system",
    "inkwell.sitesettings",
    "inkwell.planner",
    "inkwell.writer",
    "inkwell.integration",
    "inkwell.publishing",
    "inkwell.performance",
    "inkwell.linker",
    "inkwell.optimizer",
    "inkwell.automation",
    "inkwell.console",
]

MIDDLEWARE = [
    "inkwell.api.middleware.RequestIdMiddleware",
    "inkwell.observability.middleware.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "inkwell.api.middleware.TrailingSlashForWritesMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "inkwell.api.middleware.RateLimitHeadersMiddleware",
]

ROOT_URLCONF = "inkwell.urls"
WSGI_APPLICATION = "inkwell.wsgi.application"
ASGI_APPLICATION = "inkwell.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: a SQLite file in the data folder unless DATABASE_URL names another.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'inkwell.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        # A SELECT 1 before a kept connection's first query in each request (0.15-0.25 ms): off, a
        # request that meets a connection the database dropped answers 503 once instead.
        conn_health_checks=env_bool("DATABASE_CONN_HEALTH_CHECKS", True),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and IMMEDIATE transactions let the web server and the embedded worker write
    # concurrently without "database is locked" errors.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Cache: shared by every process. Redis in production, a database table embedded.
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's Redis cache, reusing its redis-py client (inkwell.api.cache).
            "BACKEND": "inkwell.api.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "inkwell"),
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "inkwell_cache",
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "inkwell"),
        }
    }

AUTH_USER_MODEL = "tenancy.User"
# ModelBackend's password check; each request of a session reads its user from the cached principal.
AUTHENTICATION_BACKENDS = ["inkwell.tenancy.backends.PrincipalBackend"]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3 * 24 * 3600)

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(DATA_DIR / "static")))
MEDIA_URL = env_str("MEDIA_URL", "media/")
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(DATA_DIR / "media")))
# Files (generated images) go through Django's storage API: under MEDIA_ROOT by default, or any
# other Django storage named by MEDIA_STORAGE_BACKEND with MEDIA_STORAGE_OPTIONS (JSON), such as
# an S3-compatible bucket through django-storages (docs/operations.md, "Media files").
STORAGES = {
    "default": {
        "BACKEND": env_str("MEDIA_STORAGE_BACKEND", "django.core.files.storage.FileSystemStorage"),
        "OPTIONS": json.loads(env_str("MEDIA_STORAGE_OPTIONS", "{}")),
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# The app itself serves the files of the default storage at MEDIA_URL (the embedded profile);
# turn it off when a proxy, CDN or object store serves them.
SERVE_MEDIA = env_bool("SERVE_MEDIA", True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Admin and API-docs assets are found in the installed packages without collectstatic.
WHITENOISE_USE_FINDERS = True

SESSION_COOKIE_HTTPONLY = True
# Rows in the database; on Redis read through the cache for PRINCIPAL_CACHE_SECONDS at most, and
# never needing it (inkwell.tenancy.sessions). Embedded, where the cache is itself a table, the rows alone.
SESSION_ENGINE = "inkwell.tenancy.sessions" if REDIS_URL else "django.contrib.sessions.backends.db"
# The console (/app/) signs in with the session; the API keeps its bearer tokens.
LOGIN_URL = "console:signin"
LOGIN_REDIRECT_URL = "console:home"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
# Behind a TLS-terminating proxy in production: set these (see docs/operations.md, "Running the console behind a proxy").
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Content-Security-Policy on every answer (docs/operations.md, "Content-Security-Policy"): scripts
# only from files this server serves, never inline, so markup that slipped through cannot run.
# Styles may be inline: the API docs' UIs and the editor set them, and they run no code.
# Browsers report violations to /csp-report/, which logs them.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        # A page that needs one inline script (the editor's import map) gives it the request's nonce.
        "script-src": ["'self'", NONCE],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        "report-uri": "/csp-report/",
    },
}

# E-mail: printed to the console unless an SMTP host is configured.
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if env_str("EMAIL_HOST") else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Inkwell <no-reply@localhost>")

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["inkwell.api.renderers.EnvelopeJSONRenderer"],
    # JSON only, in what the server accepts and what the schema advertises (no upload takes a file).
    "DEFAULT_PARSER_CLASSES": ["inkwell.api.parsers.JSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "inkwell.tenancy.authentication.BearerTokenAuthentication",
        "inkwell.tenancy.authentication.ApiKeyAuthentication",
        "inkwell.tenancy.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["inkwell.tenancy.permissions.IsAccountMember", "inkwell.system.permissions.ModuleEnabled"],
    "DEFAULT_THROTTLE_CLASSES": ["inkwell.api.throttling.ScopedRateThrottle"],
    "DEFAULT_PAGINATION_CLASS": "inkwell.api.pagination.PageNumberPagination",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "inkwell.api.negotiation.JSONOnlyNegotiation",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "inkwell.api.schema.EnvelopeAutoSchema",
    "EXCEPTION_HANDLER": "inkwell.api.exceptions.exception_handler",
    "NUM_PROXIES": env_int("INKWELL_NUM_PROXIES", 0),
    "PAGE_SIZE": 20,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# Requests per minute for each rate-limit scope.
INKWELL_RATE_LIMITS = {
    "ai": env_int("RATE_LIMIT_AI", 60),
    "content": env_int("RATE_LIMIT_CONTENT", 100),
    "auth": env_int("RATE_LIMIT_AUTH", 20),
    "general": env_int("RATE_LIMIT_GENERAL", 300),
    # A review link's public page, per address, and its passcode attempts, per link and address (#36).
    "review": env_int("RATE_LIMIT_REVIEW", 60),
    "review_passcode": env_int("RATE_LIMIT_REVIEW_PASSCODE", 5),
}

# Failed logins per e-mail address (inkwell/tenancy/logins.py): from the threshold on, the address
# is locked for LOCK_SECONDS, doubling per further failure up to LOCK_MAX_SECONDS.
INKWELL_LOGIN = {
    "LOCK_THRESHOLD": env_int("LOGIN_LOCK_THRESHOLD", 5),
    "LOCK_SECONDS": env_int("LOGIN_LOCK_SECONDS", 30),
    "LOCK_MAX_SECONDS": env_int("LOGIN_LOCK_MAX_SECONDS", 900),
    "FAILURE_WINDOW_SECONDS": env_int("LOGIN_FAILURE_WINDOW_SECONDS", 3600),
}

INKWELL_JWT = {
    "SIGNING_KEY": env_str("JWT_SIGNING_KEY") or SECRET_KEY,
    "ALGORITHM": "HS256",
    "ACCESS_TTL_SECONDS": env_int("JWT_ACCESS_TTL_SECONDS", 15 * 60),
    "REFRESH_TTL_SECONDS": env_int("JWT_REFRESH_TTL_SECONDS", 7 * 24 * 3600),
}
# How long an authenticated user's principal (user, account, plan, role) and the account's module
# switches may be served from the cache; every change to them forgets them sooner
# (inkwell.tenancy.principal). 0 turns this off: the default of the embedded profile, whose cache
# is a database table and would cost more queries than it saves.
INKWELL_PRINCIPAL_CACHE_SECONDS = env_int("PRINCIPAL_CACHE_SECONDS", 300 if REDIS_URL else 0)
INKWELL_DEFAULT_PLAN = env_str("INKWELL_DEFAULT_PLAN", "free")
# Credits granted at sign-up; empty means the default plan's own signup_credits.
INKWELL_SIGNUP_CREDITS = int(env_str("INKWELL_SIGNUP_CREDITS")) if env_str("INKWELL_SIGNUP_CREDITS") else None

SPECTACULAR_SETTINGS = {
    "TITLE": "Inkwell API",
    "DESCRIPTION": (
        "Plan, write and publish web content with AI. Every response uses the envelope described "
        "in docs/api.md of the repository; authenticate with `Authorization: Bearer <access token>` from "
        "`/api/v1/auth/login/`, or `Authorization: ApiKey <key>`."
    ),
    "VERSION": INKWELL_VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    # Several models have a "status"; each enum gets its own name in the schema.
    "ENUM_NAME_OVERRIDES": {
        "TaskStatusEnum": "inkwell.writer.models.TaskStatus",
        "ContentStatusEnum": "inkwell.writer.models.ContentStatus",
        "ToneEnum": "inkwell.system.defaults.TONES",
        "JobStatusEnum": "inkwell.jobs.models.JobStatus",
        "KeywordStatusEnum": "inkwell.planner.models.KeywordStatus",
        "ClusterStatusEnum": "inkwell.planner.models.ClusterStatus",
        "IdeaStatusEnum": "inkwell.planner.models.IdeaStatus",
        "SyncStatusEnum": "inkwell.integration.models.SyncStatus",
        "ConnectionStatusEnum": "inkwell.integration.models.ConnectionStatus",
        "PublishStatusEnum": "inkwell.publishing.models.PublishStatus",
        "DayEnum": "inkwell.sitesettings.defaults.DAYS",
        "ScheduleFrequencyEnum": "inkwell.system.defaults.SCHEDULE_FREQUENCIES",
        "AutomationRunStatusEnum": "inkwell.automation.models.RunStatus",
        "AutomationTriggerEnum": "inkwell.automation.models.RunTrigger",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "inkwell.api.schema.tag_operations_by_content_flow",
        "inkwell.api.schema.shapes_chosen_by_path_are_any_of",
    ],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
}

# Celery: Redis when REDIS_URL is set; otherwise the filesystem transport inside the data
# folder, so `make run` needs no broker service.
CELERY_FS_DIR = DATA_DIR / "celery"
if REDIS_URL:
    CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
else:
    CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_FS_DIR / "queue"),
        "data_folder_out": str(CELERY_FS_DIR / "queue"),
        "control_folder": str(CELERY_FS_DIR / "control"),
        "processed_folder": str(CELERY_FS_DIR / "processed"),
        "store_processed": False,
        "polling_interval": 0.2,
    }
    for _folder in ("queue", "control", "processed"):
        (CELERY_FS_DIR / _folder).mkdir(parents=True, exist_ok=True)
# Deployments sharing one Redis keep their work apart with their own queue name.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "inkwell")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 30)
# Background jobs (inkwell.jobs): a running job proves its worker alive every HEARTBEAT_SECONDS;
# one silent for STALE_AFTER_SECONDS is queued again (while attempts remain) or failed by the sweep.
INKWELL_JOBS = {
    "HEARTBEAT_SECONDS": env_int("JOB_HEARTBEAT_SECONDS", 10),
    "STALE_AFTER_SECONDS": env_int("JOB_STALE_AFTER_SECONDS", 60),
    "MAX_ATTEMPTS": env_int("JOB_MAX_ATTEMPTS", 3),
    "RETRY_BACKOFF_SECONDS": env_int("JOB_RETRY_BACKOFF_SECONDS", 10),
    "REQUEUE_AFTER_SECONDS": env_int("JOB_REQUEUE_AFTER_SECONDS", 600),
    "SWEEP_SECONDS": env_int("JOB_SWEEP_SECONDS", 30),
}
CELERY_BEAT_SCHEDULE = {
    "worker-heartbeat": {"task": "inkwell.system.tasks.worker_heartbeat", "schedule": WORKER_HEARTBEAT_SECONDS},
    "sweep-stale-jobs": {"task": "inkwell.jobs.sweep_stale_jobs", "schedule": INKWELL_JOBS["SWEEP_SECONDS"]},
    "renew-monthly-credits": {"task": "inkwell.billing.renew_monthly_credits", "schedule": env_int("CREDIT_RENEWAL_SECONDS", 3600)},
    "purge-idempotency-records": {"task": "inkwell.api.purge_idempotency_records", "schedule": 3600},
    # Starts the automation runs whose scheduled time has come (inkwell.automation.tasks).
    "dispatch-automation-runs": {"task": "inkwell.automation.dispatch_due_runs", "schedule": env_int("AUTOMATION_DISPATCH_SECONDS", 60)},
}

# Credits per AI operation (docs/api.md, "Credits"): `credits` for every started `per` units, so an
# article of 1,500 words costs 15. INKWELL_CREDIT_COSTS (JSON, e.g. {"image_generation": 3})
# overrides the credits of any operation.
INKWELL_CREDIT_COSTS = {
    "clustering": {"credits": 1, "per": 20, "unit": "keyword"},
    "idea_generation": {"credits": 2, "per": 1, "unit": "cluster"},
    "content_generation": {"credits": 1, "per": 100, "unit": "word"},
    "image_prompt_extraction": {"credits": 1, "per": 1, "unit": "article"},
    "image_generation": {"credits": 2, "per": 1, "unit": "image"},
    "optimization": {"credits": 2, "per": 1, "unit": "article"},
    "linking": {"credits": 1, "per": 1, "unit": "article"},
}
for _operation, _credits in json.loads(env_str("INKWELL_CREDIT_COSTS", "{}")).items():
    INKWELL_CREDIT_COSTS[_operation]["credits"] = int(_credits)
# credits_low is raised when the balance first falls below this share of the plan's monthly credits.
INKWELL_CREDITS_LOW_PERCENT = env_int("CREDITS_LOW_PERCENT", 10)
# How long an Idempotency-Key's first answer is replayed.
INKWELL_IDEMPOTENCY_TTL_HOURS = env_int("IDEMPOTENCY_TTL_HOURS", 24)

# AI providers (docs/ai-providers.md). `local` is the offline drafting aid; `openai` speaks to
# any OpenAI-compatible endpoint. Accounts may override these in /system/settings/integrations/.
INKWELL_AI = {
    "PROVIDER": env_str("AI_PROVIDER", "local"),
    "BASE_URL": env_str("AI_BASE_URL"),
    "API_KEY": env_str("AI_API_KEY"),
    "TESTING_MODEL": env_str("AI_TESTING_MODEL", "gpt-4o-mini"),
    "LIVE_MODEL": env_str("AI_LIVE_MODEL", "gpt-4o"),
    "IMAGE_PROVIDER": env_str("AI_IMAGE_PROVIDER", "local"),
    "IMAGE_BASE_URL": env_str("AI_IMAGE_BASE_URL"),
    "IMAGE_API_KEY": env_str("AI_IMAGE_API_KEY"),
    "IMAGE_MODEL": env_str("AI_IMAGE_MODEL", "gpt-image-1"),
    "TIMEOUT_SECONDS": env_int("AI_TIMEOUT_SECONDS", 60),
    "MAX_RETRIES": env_int("AI_MAX_RETRIES", 3),
    # May the provider calls reach a loopback or private-network address (a local Ollama)? Off by
    # default: accounts are strangers to each other. Link-local addresses are refused either way.
    "ALLOW_PRIVATE_ENDPOINTS": env_bool("AI_ALLOW_PRIVATE_ENDPOINTS", False),
    # An embeddings model of the endpoint (e.g. text-embedding-3-small): when set, the openai
    # provider clusters keywords by its vectors, cut at EMBEDDING_CLUSTER_SIMILARITY.
    "EMBEDDING_MODEL": env_str("AI_EMBEDDING_MODEL"),
    "EMBEDDING_CLUSTER_SIMILARITY": env_float("AI_EMBEDDING_CLUSTER_SIMILARITY", 0.5),
    # Meaning (docs/ai-providers.md, "Meaning, offline"): cosine similarities of WordLlama vectors, 0..1.
    # Keywords cluster together while their mean similarity is at least this.
    "CLUSTER_SIMILARITY": env_float("AI_CLUSTER_SIMILARITY", 0.325),
    # An idea, task or content at least this close to another of the site's is reported in `overlaps`.
    "OVERLAP_SIMILARITY": env_float("AI_OVERLAP_SIMILARITY", 0.7),
    # The linker's `suggest` mode proposes a target for a paragraph at least this close to it.
    "LINK_SUGGEST_SIMILARITY": env_float("AI_LINK_SUGGEST_SIMILARITY", 0.35),
    # Provider calls in flight (inkwell.ai.limits), counted across every process of the deployment:
    # at most MAX_CONCURRENCY per account, and per endpoint and key a limit that starts at
    # PROVIDER_MAX_CONCURRENCY, is multiplied by RATE_LIMIT_DECREASE on a 429 and grows back by
    # one per window of successful calls. A call waits for a place, and after a 429 for the
    # provider's Retry-After, up to RATE_LIMIT_MAX_WAIT_SECONDS in all before it gives up.
    "MAX_CONCURRENCY": env_int("AI_MAX_CONCURRENCY", 8),
    "PROVIDER_MAX_CONCURRENCY": env_int("AI_PROVIDER_MAX_CONCURRENCY", 16),
    "RATE_LIMIT_DECREASE": env_float("AI_RATE_LIMIT_DECREASE", 0.5),
    "RATE_LIMIT_MAX_WAIT_SECONDS": env_int("AI_RATE_LIMIT_MAX_WAIT_SECONDS", 300),
}
# CMS integrations (inkwell.cms, inkwell.integration, inkwell.publishing).
INKWELL_CMS = {
    "TIMEOUT_SECONDS": env_int("CMS_TIMEOUT_SECONDS", 20),
    # May an integration point at a loopback or private-network address? Off: no server-side
    # request forgery into this server's network. Link-local addresses are refused either way.
    "ALLOW_PRIVATE_URLS": env_bool("CMS_ALLOW_PRIVATE_URLS", False),
    # A webhook whose timestamp is older (or further in the future) than this is refused.
    "WEBHOOK_TOLERANCE_SECONDS": env_int("CMS_WEBHOOK_TOLERANCE_SECONDS", 300),
    # Publishing: attempts per content before it is marked failed, the first retry delay (doubled
    # each time), and how often the scheduler looks for due content.
    "PUBLISH_MAX_ATTEMPTS": env_int("PUBLISH_MAX_ATTEMPTS", 5),
    "PUBLISH_RETRY_SECONDS": env_int("PUBLISH_RETRY_SECONDS", 60),
    "PUBLISH_SWEEP_SECONDS": env_int("PUBLISH_SWEEP_SECONDS", 60),
    # An attempt still open after this long lost its worker: it is closed and retried.
    "PUBLISH_STALE_SECONDS": env_int("PUBLISH_STALE_SECONDS", 600),
    # How long the public site definition may be served from the cache.
    "SITE_DEFINITION_CACHE_SECONDS": env_int("SITE_DEFINITION_CACHE_SECONDS", 60),
}
# Links the linker may put into one article to other articles of its site (a request may ask for fewer or more, 1-50).
LINKER_MAX_LINKS = env_int("LINKER_MAX_LINKS", 5)
CELERY_BEAT_SCHEDULE |= {
    "publish-due-content": {"task": "inkwell.publishing.publish_due", "schedule": INKWELL_CMS["PUBLISH_SWEEP_SECONDS"]},
    "deploy-changed-sites": {"task": "inkwell.publishing.deploy_changed_sites", "schedule": INKWELL_CMS["PUBLISH_SWEEP_SECONDS"]},
    "purge-webhook-deliveries": {"task": "inkwell.integration.purge_webhook_deliveries", "schedule": 3600},
}
# Outbound webhooks (inkwell.webhooks, docs/publishing.md "Webhooks"): Standard Webhooks deliveries
# from the outbox. An attempt without a 2xx answer within TIMEOUT_SECONDS fails; failed deliveries
# are tried again after each wait of RETRY_SCHEDULE_SECONDS in turn (so 1 + len attempts), the
# Standard Webhooks recommendation by default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. The URLs
# pass the CMS's address guard, CMS_ALLOW_PRIVATE_URLS included.
INKWELL_WEBHOOKS = {
    "TIMEOUT_SECONDS": env_float("WEBHOOK_TIMEOUT_SECONDS", 10),
    "RETRY_SCHEDULE_SECONDS": [int(value) for value in env_list("WEBHOOK_RETRY_SCHEDULE", "5,300,1800,7200,18000,36000,36000")],
    # How often beat hands due deliveries to the workers (what no kick reached, and every retry).
    "SWEEP_SECONDS": env_int("WEBHOOK_SWEEP_SECONDS", 15),
    # A delivery claimed this long ago without an outcome lost its worker: it is tried again.
    "STALE_SECONDS": env_int("WEBHOOK_STALE_SECONDS", 120),
    # An endpoint whose attempts have failed for this long, without one success, is switched off.
    "DISABLE_AFTER_DAYS": env_int("WEBHOOK_DISABLE_AFTER_DAYS", 5),
    # After a rotation the previous secret still signs (beside the new one) for this long.
    "SECRET_OVERLAP_HOURS": env_int("WEBHOOK_SECRET_OVERLAP_HOURS", 24),
    "MAX_ENDPOINTS": env_int("WEBHOOK_MAX_ENDPOINTS", 20),
    # Deliveries (with their attempts) older than this are deleted by the hourly purge.
    "RETENTION_DAYS": env_int("WEBHOOK_RETENTION_DAYS", 30),
}
CELERY_BEAT_SCHEDULE |= {
    "deliver-due-webhooks": {"task": "inkwell.webhooks.deliver_due", "schedule": INKWELL_WEBHOOKS["SWEEP_SECONDS"]},
    "purge-outbound-webhook-deliveries": {"task": "inkwell.webhooks.purge_deliveries", "schedule": 3600},
}
# Search performance (issue #37): the largest Search Console export one import takes, and how
# often the review reminder looks for articles whose review-by date has come.
SEARCH_PERFORMANCE_MAX_UPLOAD_BYTES = env_int("SEARCH_PERFORMANCE_MAX_UPLOAD_BYTES", 20 * 1024 * 1024)
REVIEW_REMINDER_SECONDS = env_int("REVIEW_REMINDER_SECONDS", 3600)
CELERY_BEAT_SCHEDULE |= {"remind-due-reviews": {"task": "inkwell.performance.remind_due_reviews", "schedule": REVIEW_REMINDER_SECONDS}}
# Fernet keys that encrypt stored secrets (provider API keys, CMS passwords); the first encrypts,
# all decrypt, so a key can be rotated. Empty: one derived from DJANGO_SECRET_KEY.
INKWELL_ENCRYPTION_KEYS = env_list("INKWELL_ENCRYPTION_KEYS", "")

# Metrics (docs/operations.md, "Metrics and logs"): /metrics answers only with this bearer token; unset, it is a 404.
METRICS_TOKEN = env_str("METRICS_TOKEN")
# Logs: "plain" lines, or "json": one JSON object per line.
LOG_FORMAT = env_str("LOG_FORMAT", "plain")
# In JSON, Celery workers log through the configuration below too (not Celery's own format).
CELERY_WORKER_HIJACK_ROOT_LOGGER = LOG_FORMAT != "json"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "inkwell.api.logging.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s request_id=%(request_id)s %(message)s"},
        "json": {"()": "inkwell.api.logging.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "json" if LOG_FORMAT == "json" else "plain", "filters": ["request_id"]},
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # 4xx answers are the client's business; 5xx are logged with their request id.
        "django.request": {"handlers": ["console"], "level": "ERROR", "propagate": False},
        # The HTTP client of the CMS adapter and the OpenAI SDK logs every request at INFO.
        "httpx2": {"level": "WARNING"},
    },
}
CSRF_FAILURE_VIEW = "inkwell.api.exceptions.csrf_failure"
