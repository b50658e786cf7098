"""Spelunker settings, read from the environment (12-factor, via django-environ).

Every value has an embedded default so that `make run` works on a fresh machine:
SQLite in WAL mode, a local broker and memcached on their default ports. The
Celery block follows the Async Task Pattern; `tests/test_settings.py` pins the
delivery guarantees so nobody loosens them by accident.
"""

from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
env.read_env(BASE_DIR / ".env", overwrite=False)

# Everything the running app writes (SQLite, uploads, collected static).
VAR_DIR = Path(env.str("SPELUNKER_VAR_DIR", default=str(BASE_DIR / "var")))

SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="dev-only-insecure-key-change-me")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

# --- HTTPS (production) -------------------------------------------------------
# `make run` serves plain HTTP on loopback; a deployment sets DJANGO_HTTPS=true
# and gets secure cookies, an HTTPS redirect and HSTS together, so none is
# forgotten. `manage.py check --deploy` is clean with these values
# (tests/security/test_production_settings.py).
HTTPS = env.bool("DJANGO_HTTPS", default=False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=365 * 24 * 3600 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=True)
# Behind a TLS-terminating proxy the request reaches gunicorn as HTTP; trust the
# proxy's X-Forwarded-Proto only when told to (the proxy must set it itself),
# otherwise the HTTPS redirect would loop.
if env.bool("DJANGO_BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_celery_beat",
    "django_htmx",
    "csp",
    "axes",
    "spelunker",
    "jobs",
    "llm_manager",
    "solution_library",
    "rfp_manager",
    "answer_library",
    "demo",
    "audit",
    "teamwork",
    "trust_center",
    "home",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page requires a signed-in user unless its view is marked
    # @login_not_required (login, /healthz, /readyz); JSON and htmx requests
    # get a 401 JSON answer instead of a redirect to the login page.
    "spelunker.middleware.LoginRequiredMiddleware",
    # Who is signed in, for the audit trail; records exports and cancellations.
    "audit.middleware.AuditMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes requires: it turns a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "spelunker.urls"
WSGI_APPLICATION = "spelunker.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "spelunker.context_processors.links",
                "teamwork.context_processors.unread_notifications",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------
# SQLite (WAL mode, see spelunker/apps.py) is the embedded default;
# DATABASE_URL selects PostgreSQL (compose, CI).
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
# Keep a process's connection between requests and tasks (a new PostgreSQL connection costs a few ms
# of authentication, more than a job task's own queries: make bench, "Task overhead"); it is checked
# before each request or task reuses it, so a database restart costs one reconnect, not an error.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A worker process and the web process share the file: wait for locks
    # instead of failing at once, and take the write lock at BEGIN so two
    # writers never deadlock on a lock upgrade.
    DATABASES["default"]["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
    # Tests on SQLite must use a file, so that a real worker process sees them.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test_db.sqlite3")}
    # SQLite creates the file but not its folder: var/ is not in git, so a
    # fresh clone has none until something makes it, and that is us.
    if DATABASES["default"]["NAME"] not in ("", ":memory:"):
        Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# django-axes first: a locked-out username/address pair is refused before any
# password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "spelunker.auth.CachedModelBackend",  # ModelBackend, the signed-in user read from Memcached
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(env.str("SPELUNKER_MEDIA_ROOT", default=str(VAR_DIR / "media")))
MEDIA_URL = "media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Media in S3-compatible storage (AWS S3, MinIO, Ceph …) when a bucket is named: every machine
# then reads and writes the same files, so web and workers need no shared disk
# (docs/deployment.md). Without a bucket, the local folder above: `make run` on one machine.
S3_BUCKET = env.str("SPELUNKER_S3_BUCKET", default="")
if S3_BUCKET:
    from core.storage import s3_storage_options

    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": s3_storage_options(
            bucket=S3_BUCKET,
            endpoint_url=env.str("SPELUNKER_S3_ENDPOINT_URL", default="") or None,
            access_key=env.str("SPELUNKER_S3_ACCESS_KEY_ID", default="") or None,
            secret_key=env.str("SPELUNKER_S3_SECRET_ACCESS_KEY", default="") or None,
            region=env.str("SPELUNKER_S3_REGION", default="") or None,
            prefix=env.str("SPELUNKER_S3_PREFIX", default=""),
        ),
    }
# Serve app static files even before (or without) collectstatic: tests, a
# fresh checkout. Production images run collectstatic at build time.
WHITENOISE_USE_FINDERS = True
DATA_UPLOAD_MAX_NUMBER_FILES = 200
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# --- Content-Security-Policy (django-csp) ------------------------------------
# Scripts only from our own static files: no inline script, no eval. A
# third-party template that needs an inline script gets a per-request nonce
# (templates/admin/djcelery/change_periodictask_form.html). Style elements come
# from our files too; style *attributes* stay allowed (progress bar widths,
# Django admin markup) as they cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# --- Login throttling (django-axes) --------------------------------------------
# After AXES_FAILURE_LIMIT wrong passwords for one username from one address
# (login form and admin alike) that pair is refused until the cool-off ends;
# a success before the limit resets the count. Keyed on username *and*
# address, so an attacker can neither lock every user out nor lock out
# everyone behind one NAT.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Behind N proxies, read the client's address from X-Forwarded-For, trusting only
# the N entries our own proxies appended (a client can forge the rest).
if env.int("DJANGO_PROXY_COUNT", default=0):
    AXES_IPWARE_PROXY_COUNT = env.int("DJANGO_PROXY_COUNT")
    AXES_IPWARE_PROXY_ORDER = "right-most"
    AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"]

# --- Cache (Memcached) ----------------------------------------------------
# Short socket timeouts: a memcached outage must degrade the site (cache
# misses), never hang a request or a task.
CACHES = {
    "default": {
        "BACKEND": "spelunker.cache.PersistentPyMemcacheCache",  # connections kept between requests
        "LOCATION": env.str("KVDB_LOCATION", default="127.0.0.1:11211"),
        "KEY_PREFIX": env.str("KVDB_PREFIX", default="spelunker"),
        "TIMEOUT": 300,
        "OPTIONS": {
            "connect_timeout": 0.5,
            "timeout": 0.5,
            "no_delay": True,
            "ignore_exc": True,
            "retry_attempts": 1,
            "dead_timeout": 5,
        },
    }
}
# Sessions are read from Memcached and written through to the database: a signed-in request
# costs a cache read instead of a database query (make bench, "Live progress under load").
# With Memcached down every read is a miss and falls back to the database, so nobody is signed
# out by a cache outage (tests/faults: "Memcached stopped", every page answers 200).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# --- Celery -----------------------------------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="amqp://guest:guest@127.0.0.1:5672//")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="rpc://")
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = TIME_ZONE
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=1800)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=2100)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
CELERY_TASK_SEND_SENT_EVENT = True
CELERY_WORKER_SEND_TASK_EVENTS = True
CELERY_TASK_TRACK_STARTED = True
CELERY_TASK_DEFAULT_QUEUE = "default"
# Three classic durable queues, one worker pool each, so one kind of work
# cannot starve another: quick/latency-sensitive, CPU-heavy ingest, long RFP jobs.
CELERY_QUEUE_NAMES = ("default", "embedding", "batch")
CELERY_TASK_QUEUES = [
    Queue(name, routing_key=name, durable=True, queue_arguments={"x-queue-type": "classic"})
    for name in CELERY_QUEUE_NAMES
]
CELERY_TASK_ROUTES = {
    "solution_library.embed_*": {"queue": "embedding"},
    "rfp_manager.batch_*": {"queue": "batch"},
    "answer_library.batch_*": {"queue": "batch"},
    "*": {"queue": "default"},
}
# The memory budget of each worker pool process (spelunker/celery.py). A process replaces itself after a task
# once its peak resident memory passed CELERY_WORKER_MAX_MEMORY_PER_CHILD (KiB, Celery's own setting), and cannot
# allocate past SPELUNKER_WORKER_MEMORY_LIMIT_MB at all: the task gets a MemoryError and its job fails with the
# reason, so a file that slips past the file limits costs one process restart. Measured: a process that embeds
# with the local model holds about 460 MB; reading the largest questionnaire sample, under 200 MB.
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env.int("CELERY_WORKER_MAX_MEMORY_PER_CHILD", default=768 * 1024)
WORKER_MEMORY_LIMIT_MB = env.int("SPELUNKER_WORKER_MEMORY_LIMIT_MB", default=1536)
# Reliability (the jobs app): a task whose deliveries kill their worker this many
# times in a row without progress is failed as a poison message; the sweeper
# treats a processing job silent for JOB_STALE_SECONDS, with no live task, as
# lost and sends it again up to JOB_MAX_REDISPATCHES times.
JOB_MAX_UNFINISHED_DELIVERIES = env.int("JOB_MAX_UNFINISHED_DELIVERIES", default=3)
JOB_STALE_SECONDS = env.int("JOB_STALE_SECONDS", default=15 * 60)
JOB_MAX_REDISPATCHES = env.int("JOB_MAX_REDISPATCHES", default=2)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_LOGGING_LEVEL = env.str("CELERY_LOGGING_LEVEL", default="INFO")
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

AUTO_EMBED_DOCUMENTS = env.bool("AUTO_EMBED_DOCUMENTS", default=True)
# rfp_manager batch jobs (responder/reviewer): soft time limit in seconds; the hard limit is 10 minutes more.
RFP_BATCH_SOFT_TIME_LIMIT = env.int("RFP_BATCH_SOFT_TIME_LIMIT", default=3 * 60 * 60)
# A questionnaire upload larger than this (KB) is read and analysed by a job on the default queue, with live
# progress, so the upload request answers at once: reading a 260 KB workbook takes about 2 s.
QUESTION_IMPORT_INLINE_MAX_KB = env.int("SPELUNKER_QUESTION_IMPORT_INLINE_MAX_KB", default=64)
# Seconds that job may read for (the hard limit is 30 s more): a file within the limits takes well under a minute.
QUESTION_IMPORT_SOFT_TIME_LIMIT = env.int("SPELUNKER_QUESTION_IMPORT_SOFT_TIME_LIMIT", default=120)
# The answer library reuses an entry automatically when the question's match score reaches this: half its cosine to
# the entry's closest wording, half to the entry as answered (answer_library.services.matching). Chosen on make
# eval's dev split for all-MiniLM-L6-v2 as the lowest score at which wrong reuse (a near miss or another entry) is at
# most half of the 0.05 allowed, a margin for questions nobody here wrote (docs/quality.md). Other models: measure.
ANSWER_LIBRARY_MATCH_THRESHOLD = env.float("ANSWER_LIBRARY_MATCH_THRESHOLD", default=0.66)
# Below that and at least this score, the best entries are suggested to a person beside the document draft
# (at most ANSWER_LIBRARY_SUGGESTIONS of them). The floor is the highest on dev that keeps the right entry among
# the suggestions or the automatic reuse for 0.95 of reworded questions.
ANSWER_LIBRARY_SUGGESTION_FLOOR = env.float("ANSWER_LIBRARY_SUGGESTION_FLOOR", default=0.35)
ANSWER_LIBRARY_SUGGESTIONS = env.int("ANSWER_LIBRARY_SUGGESTIONS", default=3)
# Ask the default chat model whether the best suggestion answers the question, and reuse it unasked when it says
# yes (answer_library.services.judge). Off by default: make eval measures the offline tiers, not a model's word.
ANSWER_LIBRARY_JUDGE = env.bool("ANSWER_LIBRARY_JUDGE", default=False)

# --- llm_manager: vectors of questions, passages and sentences each process keeps (llm_manager.services.embed_remembered)
# A batch compares the same library passages with every question: at 384 dimensions 8,192 vectors are 12 MB.
EMBEDDING_VECTORS_REMEMBERED = env.int("EMBEDDING_VECTORS_REMEMBERED", default=8192)

# --- llm_manager: local embedding models (llm_manager/providers/local.py)
# A model's folder instead of its installed package, as name=path pairs (a repaired or newer copy).
LOCAL_MODEL_FOLDERS = env.dict("LOCAL_MODEL_FOLDERS", default={})
# ONNX Runtime threads per process for a local model; 0 lets it use every core. Two worker processes
# on two cores: 1 each (the benchmark, bench/bench_encoder.py, shows the trade-off).
LOCAL_EMBEDDING_THREADS = env.int("LOCAL_EMBEDDING_THREADS", default=0)
# Dynamic int8 weights: faster, but the vectors move (docs/benchmarks.md measures how far); off by default.
LOCAL_EMBEDDING_INT8 = env.bool("LOCAL_EMBEDDING_INT8", default=False)

# --- solution_library
# Largest file accepted by the library upload (refused with a clear message above it).
SOLUTION_LIBRARY_MAX_UPLOAD_MB = env.float("SOLUTION_LIBRARY_MAX_UPLOAD_MB", default=25)
# --- What an uploaded file may become when read (core/file_limits.py), library and questionnaire import alike.
# Checked before reading, from what the file declares; a file over one is refused with the limit, its figure
# and what to do. Sized from the largest real files we have (evaluation/documents/, the shared questionnaire
# samples) with a wide margin: docs/file-limits.md gives each real figure and margin, measured by bench/file_limits.py.
# ZIP packages (DOCX, XLSX): members, sum of declared uncompressed sizes, that sum over the file's size (a bomb:
# hundreds), cell formats of a workbook (Excel's own limit: 64,000).
FILE_LIMIT_ARCHIVE_MEMBERS = env.int("SPELUNKER_FILE_LIMIT_ARCHIVE_MEMBERS", default=5_000)
FILE_LIMIT_UNCOMPRESSED_MB = env.int("SPELUNKER_FILE_LIMIT_UNCOMPRESSED_MB", default=50)
FILE_LIMIT_COMPRESSION_RATIO = env.int("SPELUNKER_FILE_LIMIT_COMPRESSION_RATIO", default=100)
FILE_LIMIT_CELL_FORMATS = env.int("SPELUNKER_FILE_LIMIT_CELL_FORMATS", default=64_000)
# PDF: pages, inflated bytes of one stream, entries of one array or dictionary.
FILE_LIMIT_PDF_PAGES = env.int("SPELUNKER_FILE_LIMIT_PDF_PAGES", default=2_000)
FILE_LIMIT_PDF_STREAM_MB = env.int("SPELUNKER_FILE_LIMIT_PDF_STREAM_MB", default=20)
FILE_LIMIT_PDF_OBJECTS = env.int("SPELUNKER_FILE_LIMIT_PDF_OBJECTS", default=100_000)
# What any format gives: characters and paragraphs of text, rows and filled cells of a questionnaire (the import
# is built for 10,000 questions).
FILE_LIMIT_CHARACTERS = env.int("SPELUNKER_FILE_LIMIT_CHARACTERS", default=5_000_000)
FILE_LIMIT_PARAGRAPHS = env.int("SPELUNKER_FILE_LIMIT_PARAGRAPHS", default=100_000)
FILE_LIMIT_ROWS = env.int("SPELUNKER_FILE_LIMIT_ROWS", default=100_000)
FILE_LIMIT_CELLS = env.int("SPELUNKER_FILE_LIMIT_CELLS", default=1_000_000)
# Elements of an HTML document (each costs the parser about 0.1 ms, so the limit bounds it to seconds).
FILE_LIMIT_HTML_ELEMENTS = env.int("SPELUNKER_FILE_LIMIT_HTML_ELEMENTS", default=50_000)
# Name of an active chat model that re-orders the best search results; empty = no re-ranking.
SEARCH_RERANK_MODEL = env.str("SEARCH_RERANK_MODEL", default="")
# The vector index files every process of this machine memory-maps (solution_library/services/search_index.py).
# A local disk: each machine keeps its own copy, brought up to date from the database.
SEARCH_INDEX_DIR = Path(env.str("SPELUNKER_SEARCH_INDEX_DIR", default=str(VAR_DIR / "search-index")))
# Index segments of at least this many chunks are approximate (inverted lists, a search reads
# a small part of them); smaller ones are scored exactly. Exact scoring of 100,000 chunks already
# meets the 10 ms aim (docs/benchmarks.md), so libraries up to 200,000 chunks keep recall 1.0.
SEARCH_INDEX_APPROXIMATE_FROM = env.int("SPELUNKER_SEARCH_INDEX_APPROXIMATE_FROM", default=200_000)

# --- Email (notifications: assignments, reminders, mentions) ---------------------
# EMAIL_URL picks the backend: the console under `make run` (messages are printed by the worker),
# smtp:// or smtp+tls:// (STARTTLS) or smtp+ssl:// with user:password@host:port in production.
# Emails are sent by a worker, never in a request, so an unreachable server only delays them.
# Django's own defaults stay for what the URL leaves out (no user: no login).
vars().update({k: v for k, v in env.email_url("EMAIL_URL", default="consolemail://").items() if v is not None})
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Spelunker <spelunker@localhost>")
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
# A transient failure (server down, 4xx, timeout) is retried this many times, after base·2^n seconds at most
# (full jitter), capped; a refusal (5xx) or the last failure marks the email failed, shown to staff.
EMAIL_MAX_RETRIES = env.int("EMAIL_MAX_RETRIES", default=6)
EMAIL_RETRY_BASE_SECONDS = env.int("EMAIL_RETRY_BASE_SECONDS", default=30)
EMAIL_RETRY_MAX_SECONDS = env.int("EMAIL_RETRY_MAX_SECONDS", default=3600)
# Where the links in emails point (the public address of the site).
SPELUNKER_SITE_URL = env.str("SPELUNKER_SITE_URL", default="http://127.0.0.1:8000")
# An assignee is reminded this many days before the question's due date.
ASSIGNMENT_REMIND_DAYS = env.int("ASSIGNMENT_REMIND_DAYS", default=1)

# --- Trust center (trust_center/): the public pages prospects read without signing in
# Where they live: <TRUST_CENTER_PATH><the center's slug>/ (a path without a leading slash, ending in one).
TRUST_CENTER_PATH = env.str("TRUST_CENTER_PATH", default="trust/")
# What one visitor address may do per hour on one center (counted on the visitor log).
TRUST_CENTER_REQUESTS_PER_HOUR = env.int("TRUST_CENTER_REQUESTS_PER_HOUR", default=5)
TRUST_CENTER_QUESTIONS_PER_HOUR = env.int("TRUST_CENTER_QUESTIONS_PER_HOUR", default=5)
TRUST_CENTER_SEARCHES_PER_HOUR = env.int("TRUST_CENTER_SEARCHES_PER_HOUR", default=60)

# --- Links and limits shown in the UI --------------------------------------
# Not FLOWER_URL: Flower reads every FLOWER_* variable as its own option.
FLOWER_URL = env.str("SPELUNKER_FLOWER_URL", default="http://127.0.0.1:5555")

# --- Logging: one JSON object per line, with task and job context ----------
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"task_context": {"()": "spelunker.logging.TaskContextFilter"}},
    "formatters": {"json": {"()": "spelunker.logging.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["task_context"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "celery": {"level": CELERY_LOGGING_LEVEL, "propagate": True},
        "django.db.backends": {"level": "INFO"},
    },
}
