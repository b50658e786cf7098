"""Each web process loads the embedding model as it starts, not on a person's first search (about 3 s each)."""

import runpy
import threading
from pathlib import Path

import pytest

from llm_manager.models import LLMApi, LLMModel
from llm_manager.providers import local
from solution_library.services.search import warm_up

GUNICORN_CONF = Path(__file__).resolve().parents[2] / "spelunker" / "gunicorn_conf.py"


@pytest.fixture
def unloaded_local_model(monkeypatch):
    """A fresh install's default, the local MiniLM model (llm_manager migration 0002_local_minilm_default), not loaded in this process."""
    api, _ = LLMApi.objects.get_or_create(name="Local models", defaults={"kind": LLMApi.KIND_LOCAL})
    model, _ = LLMModel.objects.get_or_create(
        api=api, name="all-MiniLM-L6-v2", defaults={"model_type": "embedding", "embedding_dimensions": 384}
    )
    LLMModel.objects.filter(model_type="embedding").update(is_system_default=False)
    LLMModel.objects.filter(pk=model.pk).update(is_system_default=True, is_active=True)
    monkeypatch.setattr(local, "_encoders", {})
    return model


def loaded() -> bool:
    return bool(local._encoders)


@pytest.mark.django_db
def test_warm_up_loads_the_default_embedding_model(unloaded_local_model):
    assert not loaded()
    assert warm_up() is not None
    assert loaded()


@pytest.mark.django_db(transaction=True)
def test_each_web_process_warms_the_search_in_the_background_as_it_starts(unloaded_local_model):
    runpy.run_path(str(GUNICORN_CONF))["post_worker_init"](worker=None)
    [thread] = [t for t in threading.enumerate() if t.name == "search-warm-up"]
    thread.join(timeout=120)
    assert loaded()


@pytest.mark.django_db
def test_a_failed_warm_up_is_logged_never_raised(unloaded_local_model, caplog):
    LLMModel.objects.update(is_system_default=False)
    assert warm_up() is None
    assert "The search could not be warmed up" in caplog.text
