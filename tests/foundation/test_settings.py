"""Pin the delivery guarantees (as OpenContracts does): loosening one is a decision, not an accident."""

from django.conf import settings

from spelunker.celery import app


def test_json_is_the_only_serializer():
    assert app.conf.accept_content == ["json"]
    assert app.conf.task_serializer == "json"
    assert app.conf.result_serializer == "json"


def test_at_least_once_delivery():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.worker_cancel_long_running_tasks_on_connection_loss is True
    assert app.conf.broker_connection_retry_on_startup is True
    assert app.conf.broker_transport_options.get("confirm_publish") is True


def test_time_limits_and_result_expiry():
    assert app.conf.task_soft_time_limit == 1800
    assert app.conf.task_time_limit == 2100
    assert app.conf.task_time_limit > app.conf.task_soft_time_limit
    assert app.conf.result_expires == 3600
    assert app.conf.result_backend.startswith("rpc://")
    assert app.conf.timezone == settings.TIME_ZONE


def test_events_for_flower_and_beat_from_database():
    assert app.conf.worker_send_task_events is True
    assert app.conf.task_send_sent_event is True
    assert app.conf.beat_scheduler == "django_celery_beat.schedulers:DatabaseScheduler"
    assert not app.conf.beat_schedule, "periodic schedules live in django-celery-beat tables, not code"


def test_routes_send_each_kind_of_work_to_its_queue():
    router = app.amqp.router

    def queue_of(name):
        return router.route({}, name)["queue"].name

    assert app.conf.task_default_queue == "default"
    assert queue_of("solution_library.embed_document") == "embedding"
    assert queue_of("solution_library.embed_documents_batch") == "embedding"
    assert queue_of("rfp_manager.batch_generate_responder_answers") == "batch"
    assert queue_of("rfp_manager.batch_generate_reviewer_answers") == "batch"
    assert queue_of("llm_manager.validate_all_llm_apis") == "default"
    assert queue_of("solution_library.sync_documentation_source") == "default"


def test_cache_degrades_instead_of_hanging():
    cache = settings.CACHES["default"]
    assert cache["BACKEND"] == "spelunker.cache.PersistentPyMemcacheCache"
    assert cache["OPTIONS"]["connect_timeout"] <= 1
    assert cache["OPTIONS"]["timeout"] <= 1
    assert cache["OPTIONS"]["ignore_exc"] is True


def test_every_registered_task_is_namespaced():
    app.loader.import_default_modules()
    # Tasks the tests define for themselves (tests/…) are not the product's.
    ours = [
        name
        for name, task in app.tasks.items()
        if not name.startswith("celery.") and not task.__module__.startswith("tests.")
    ]
    assert ours, "no tasks registered"
    apps = {"spelunker", "llm_manager", "solution_library", "rfp_manager", "answer_library", "teamwork", "trust_center"}
    assert all(name.split(".")[0] in apps and name.count(".") == 1 for name in ours), ours
