"""all-MiniLM-L6-v2 as a fresh install's default embedding model, and what happens when its package is broken.

The real model package (requirements-models.txt) is installed with the venv;
its vectors are compared with sentence-transformers' own, stored by
bench/bench_encoder.py --write-test-vectors (PyTorch is never installed here).
A broken package is a real damaged copy of the model folder the loader is
pointed at (LOCAL_MODEL_FOLDERS), not a patch of our code.
"""

import importlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from django.apps import apps
from django.test import override_settings
from django.urls import reverse

from llm_manager import services
from llm_manager.models import LLMApi, LLMModel
from llm_manager.providers import local

MODEL = "all-MiniLM-L6-v2"
REFERENCE = json.loads((Path(__file__).parent / "minilm_reference_vectors.json").read_text())
migration = importlib.import_module("llm_manager.migrations.0002_local_minilm_default")


def installed_folder() -> Path:
    folder = local.model_folder(MODEL)
    assert folder is not None and local.model_problem(MODEL) is None, "make venv installs requirements-models.txt"
    return folder


def minilm() -> LLMModel:
    return LLMModel.objects.select_related("api").get(api__kind=LLMApi.KIND_LOCAL, name=MODEL)


def offline_embedding() -> LLMModel:
    return LLMModel.objects.get(api__kind=LLMApi.KIND_OFFLINE, model_type=LLMModel.TYPE_EMBEDDING)


@pytest.fixture
def damaged_copy(tmp_path):
    """A copy of the installed model folder, for a test to damage; the loader is pointed at it."""
    copy = tmp_path / "model"
    shutil.copytree(installed_folder(), copy)
    with override_settings(LOCAL_MODEL_FOLDERS={MODEL: str(copy)}):
        yield copy


def test_the_encoder_matches_sentence_transformers_vectors():
    encoder = local.BertEncoder(installed_folder())
    ours = encoder.embed(REFERENCE["sentences"])
    cosines = (ours * np.asarray(REFERENCE["vectors"], dtype=np.float32)).sum(axis=1)
    assert cosines.min() >= 0.999, cosines


@pytest.mark.django_db
def test_a_fresh_install_embeds_with_minilm():
    """Migration 0007 on the fresh-install state: the offline baseline is the default and nothing is embedded."""
    services.make_default(offline_embedding())
    migration.register_local_default(apps, None)
    migration.register_local_default(apps, None)  # idempotent
    default = services.get_default_model(LLMModel.TYPE_EMBEDDING)
    assert (default.name, default.api.kind, default.embedding_dimensions) == (MODEL, LLMApi.KIND_LOCAL, 384)
    assert LLMApi.objects.filter(kind=LLMApi.KIND_LOCAL).count() == 1
    first, second, third = services.embed_texts(REFERENCE["sentences"][:3])
    assert np.dot(first, REFERENCE["vectors"][0]) >= 0.999
    # A real model, unlike the offline hashes: retention and frequency of backups are near, encryption is not.
    assert np.dot(second, third) > np.dot(second, first) + 0.3


@pytest.mark.django_db
def test_an_install_with_an_embedded_library_keeps_its_default(offline_embedding_with_a_document):
    migration.register_local_default(apps, None)
    assert services.get_default_model(LLMModel.TYPE_EMBEDDING).name == "offline-embed-v1"
    assert minilm().is_system_default is False


@pytest.fixture
def offline_embedding_with_a_document(db):
    from solution_library.services.documents import process_document, store_upload

    services.make_default(offline_embedding())
    with override_settings(AUTO_EMBED_DOCUMENTS=False):
        document = store_upload("policy.txt", b"Backups are taken every night and kept for 35 days.").document
    assert process_document(document.pk).success


def damage_weights(folder: Path) -> None:
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:10_000_000])  # an interrupted copy


def damage_by_losing_a_tensor(folder: Path) -> None:
    """A well-formed weights file without one layer's tensor: only loading it finds out."""
    from tests.llm_manager.test_local_embeddings import write_safetensors

    tensors = local.read_safetensors(folder / "model.safetensors")
    del tensors["encoder.layer.3.output.dense.weight"]
    write_safetensors(folder / "model.safetensors", tensors)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "damage, reason",
    [
        (damage_weights, "bytes of weights where its header describes"),
        (lambda folder: (folder / "vocab.txt").unlink(), "vocab.txt missing"),
        (lambda folder: shutil.rmtree(folder), "missing"),
        (damage_by_losing_a_tensor, "loading it failed (KeyError"),
    ],
)
def test_a_damaged_package_is_reported_and_the_offline_baseline_stands_in(
    damage, reason, damaged_copy, client, staff_user
):
    from solution_library.services.search import search_passages

    services.make_default(minilm())
    damage(damaged_copy)
    default = services.get_default_model(LLMModel.TYPE_EMBEDDING)  # loads the model: damage only loading finds too
    assert default == offline_embedding()
    assert len(services.embed_texts(["How long are backups kept?"])[0]) == 384
    assert search_passages("How long are backups kept?") == []  # an empty library answers, nothing raises
    problem = services.embedding_fallback().problem
    assert problem.startswith(f"{MODEL} is damaged") or "missing" in problem
    assert reason in problem

    ready = client.get("/readyz")
    assert ready.status_code == 200  # the app still answers: a warning, not unreadiness
    assert ready.json()["embedding_model"] == f"warning: {problem}; embedding with offline-embed-v1 meanwhile"

    client.force_login(staff_user)
    page = client.get(reverse("llm_manager:index")).content.decode()
    assert f"The default embedding model {MODEL} cannot run on this machine" in page
    assert "offline-embed-v1 (Offline baseline) embeds" in page
    assert "Traceback" not in page


@pytest.mark.django_db
def test_validating_the_local_api_with_a_damaged_package_says_why(damaged_copy):
    damage_weights(damaged_copy)
    outcome = services.validate_api(minilm().api_id)
    assert not outcome.success and "model.safetensors holds" in outcome.error
    assert minilm().is_active  # the model stays registered: repairing the package brings it back
    assert LLMApi.objects.get(kind=LLMApi.KIND_LOCAL).health_status == LLMApi.HEALTH_UNHEALTHY


@pytest.mark.django_db
def test_a_healthy_package_is_not_reported(client, staff_user):
    services.make_default(minilm())
    assert services.embedding_fallback() is None
    assert "embedding_model" not in client.get("/readyz").json()
    client.force_login(staff_user)
    assert "cannot run on this machine" not in client.get(reverse("llm_manager:index")).content.decode()


def test_the_warning_is_visible_on_the_llm_page(transactional_db, damaged_copy, logged_in_page, staff_user, tmp_path):
    """In Debian's Chromium: the warning box above the API list (its screenshot: llm-embedding-fallback.png)."""
    from tests.llm_manager.conftest import run_data_migration

    run_data_migration("0001_squashed", "create_offline_baseline")  # a transactional test may have emptied them
    migration.register_local_default(apps, None)
    services.make_default(minilm())
    damage_weights(damaged_copy)

    page = logged_in_page(staff_user, "pw-staff-123")
    page.goto(reverse("llm_manager:index"))
    warning = page.locator("#embedding-fallback")
    assert warning.is_visible()
    assert "offline-embed-v1 (Offline baseline) embeds meanwhile" in " ".join(warning.inner_text().split())
    assert page.locator("text=Local models (in-process, from installed packages)").is_visible()
    page.screenshot(path=str(tmp_path / "llm-embedding-fallback.png"), full_page=True)
