import pytest

from tests.workers import Worker


@pytest.fixture(scope="session")
def purged_broker():
    """Start the session with empty queues: nothing left from an earlier run."""
    from spelunker.celery import app

    with app.connection_for_write() as conn:
        for queue in app.conf.task_queues:
            bound = queue.bind(conn.default_channel)
            bound.declare()
            bound.purge()


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker, purged_broker):
    """One real worker for the session, serving every queue, on the test database."""
    with django_db_blocker.unblock():
        worker = Worker().start()
    yield worker
    worker.stop()


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
