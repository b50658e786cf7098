import pytest

from tests.passwords import use_fast_hashing
from tests.s3 import S3Media
from tests.workers import ALL_QUEUES, Worker


@pytest.fixture(autouse=True)
def empty_cache():
    """Every test starts with an empty Memcached, as on a new machine.

    Nothing an earlier test cached (sessions, locks, throttles) may decide a
    later test's outcome; the second, reversed pass of `make test` shows it.
    """
    from django.core.cache import cache

    from jobs import live_status

    cache.clear()
    live_status._local.clear()  # the web process's own copies of status entries (a new process has none)


@pytest.fixture(scope="session")
def purged_broker():
    """Start the session with empty queues: nothing left from an earlier run."""
    from spelunker.celery import app

    with app.connection_for_write() as conn:
        for queue in app.conf.task_queues:
            bound = queue.bind(conn.default_channel)
            bound.declare()
            bound.purge()


def pytest_configure(config):
    from django.conf import settings

    use_fast_hashing(settings)


# A test is marked by what it uses, so that `-m` (and make test's lanes, bin/test-stack) finds it even when its
# module forgot the marker: Chromium makes it a browser test, a real worker process an integration test.
MARKED_BY_FIXTURE = {
    "browser": "browser",
    "celery_worker_process": "integration",
    "make_worker": "integration",
}


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m selection reads the markers
def pytest_collection_modifyitems(items):
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in item.fixturenames and item.get_closest_marker(marker) is None:
                item.add_marker(marker)


def _uses_the_database(item: pytest.Item) -> bool:
    return item.get_closest_marker("django_db") is not None or bool({"db", "transactional_db"} & set(item.fixturenames))


def session_uses_the_database(session: pytest.Session) -> bool:
    """pytest-django creates the test database only when a collected test uses it: a run of database-free tests
    alone has none, and a session fixture must not write to the database the settings name."""
    return any(_uses_the_database(item) for item in session.items)


@pytest.fixture(scope="session", autouse=True)
def offline_embedding_default(request, django_db_setup, django_db_blocker):
    """The suite embeds with the offline baseline (fast, deterministic, what most tests were written for).

    A fresh install's default is all-MiniLM-L6-v2 (llm_manager migration 0002_local_minilm_default);
    tests/llm_manager/test_local_default.py covers that default, its fallback and
    its vectors, and a test that wants it makes it the default itself.
    """
    from llm_manager.models import LLMModel
    from llm_manager.services import make_default

    if not session_uses_the_database(request.session):
        return
    with django_db_blocker.unblock():
        offline = LLMModel.objects.filter(api__kind="offline", model_type=LLMModel.TYPE_EMBEDDING).first()
        if offline:
            make_default(offline)


@pytest.fixture(scope="session")
def session_mail_server():
    """A real SMTP server on loopback for the whole session; every worker started after it sends mail there.

    Retries are quick here (the same backoff formula, smaller numbers), so an outage test takes seconds.
    """
    import os

    from tests.mail_server import MailServer

    server = MailServer().start()
    os.environ.update(
        {
            "EMAIL_URL": server.url,
            "EMAIL_RETRY_BASE_SECONDS": "1",
            "EMAIL_RETRY_MAX_SECONDS": "2",
            "EMAIL_MAX_RETRIES": "8",
        }
    )
    yield server
    server.stop()


@pytest.fixture
def mail_server(session_mail_server):
    """The session's SMTP server, running and with no messages yet for this test."""
    session_mail_server.start()
    session_mail_server.clear()
    return session_mail_server


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker, purged_broker, session_mail_server):
    """One real worker for the session, serving every queue, on the test database (its mail goes to mail_server)."""
    with django_db_blocker.unblock():
        worker = Worker().start()
    yield worker
    worker.stop()


@pytest.fixture
def unreachable_broker():
    """Point this process's Celery app at a port nobody listens on: every publish is refused for real.

    The app's connection and producer pools are set aside (not closed: kombu
    keeps them in a global registry) and put back afterwards, or earlier by
    calling the function the fixture gives (the broker is back).
    """
    from spelunker.celery import app

    original = (app.conf.broker_write_url, app._pool, app.amqp._producer_pool)

    def broker_is_back():
        app.conf.broker_write_url, app._pool, app.amqp._producer_pool = original

    app.conf.broker_write_url = "amqp://nobody:nothing@127.0.0.1:1//"  # what publishing connects to
    app._pool = app.amqp._producer_pool = None  # rebuilt lazily from the refused URL
    yield broker_is_back
    broker_is_back()


@pytest.fixture
def live_worker(celery_worker_process, transactional_db):
    """Use in integration tests: a real worker and committed (visible) data."""
    return celery_worker_process


@pytest.fixture
def make_worker(transactional_db, purged_broker):
    """Start extra workers (e.g. to kill one); all are stopped after the test."""
    started = []

    def start(**kwargs) -> Worker:
        worker = Worker(**kwargs).start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
def queue_to_own_workers(celery_worker_process):
    """Call with a queue name: the shared session worker leaves it, so the case's own workers get its messages."""
    from spelunker.celery import app

    left = []

    def leave(queue: str) -> None:
        app.control.cancel_consumer(queue, destination=[celery_worker_process.name], reply=True)
        left.append(queue)

    yield leave
    for queue in left:
        app.control.add_consumer(queue, destination=[celery_worker_process.name], reply=True)


@pytest.fixture
def s3_media(settings):
    """Media in the test stack's S3 server for this test (its own key prefix), in this process."""
    media = S3Media()
    media.use_in(settings)
    return media


@pytest.fixture
def s3_worker(s3_media, queue_to_own_workers, make_worker):
    """A real worker of every queue whose media is the same S3 storage (the session worker steps aside)."""
    for queue in ALL_QUEUES.split(","):
        queue_to_own_workers(queue)
    return make_worker(env=s3_media.env)


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user("staff", password="pw-staff-123", is_staff=True, is_superuser=True)


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client


@pytest.fixture
def user_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture(scope="session")
def fake_llm_server():
    """One fake OpenAI-compatible server on loopback for the whole session (llm_manager.testing)."""
    from llm_manager.testing.fake_openai import FakeOpenAI

    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def fake_llm(fake_llm_server):
    """The fake LLM server, reset to healthy defaults with an empty request log for each test.

    `.url` (ends in /v1), `.configure(latency_ms=, error_rate=, fault=, models=)`, `.requests`, `.reset()`;
    `llm_manager.testing.fixtures.register_fake_api(fake_llm)` points an LLMApi at it.
    """
    fake_llm_server.reset()
    yield fake_llm_server
    fake_llm_server.reset()


# --- Browser tests (Playwright driving Debian's Chromium) --------------------
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # A key or script scroll lands at once instead of animating over frames, whose pace a busy machine sets:
    # a test reads where a scroll ended, not how long the animation took.
    "--disable-smooth-scrolling",
]


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (never `playwright install`: /usr/bin/chromium)."""
    import os

    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls the
    # tests make between page actions are still synchronous and safe.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def logged_in_page(browser, live_server):
    """Call `logged_in_page(user, password)`: a fresh page signed in through the login form."""
    contexts = []

    def login(user, password: str):
        context = browser.new_context(
            base_url=live_server.url, accept_downloads=True, viewport={"width": 1280, "height": 900}
        )
        contexts.append(context)
        page = context.new_page()
        page.goto("/login/")
        page.fill("input[name=username]", user.get_username())
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/login/" not in url)
        return page

    yield login
    for context in contexts:
        context.close()
