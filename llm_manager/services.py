"""The one door every LLM call goes through, and the validation of LLM APIs.

Other apps use only these functions:

    get_default_model(model_type) -> LLMModel
    embedding_fallback() -> EmbeddingFallback | None   (why the offline baseline stands in, if it does)
    embed_texts(texts, model=None) -> list[list[float]]   (L2-normalised)
    embed_remembered(texts, model=None) -> numpy array     (the same vectors, remembered by the process)
    word_alignment(queries, texts, model=None) -> numpy array | None   (word-by-word match; local models only)
    chat(messages, model=None, *, temperature=0.0, max_tokens=None) -> ChatResult
    concurrency_limit(model) -> int

Limits and the circuit breaker are applied inside (see guard.py) for every
network provider; the offline provider runs in-process and needs neither.
No Celery here: tasks.py wraps the validation functions.
"""

import logging
import math
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from jobs.models import ACTIVE_STATUSES, fail_stale_jobs
from text.words import QUESTIONNAIRE_WORDS, STOPWORDS

from .exceptions import LLMError, NoDefaultModel, TransientLLMError
from .guard import guarded_call, record_failure, record_success
from .models import LLMApi, LLMModel, ValidationRun
from .providers import ChatResult, ModelInfo, TokenVectors, get_provider

logger = logging.getLogger(__name__)

EMBED_BATCH_SIZE = 64
# An active validation run without an update for this long has nobody behind it
# (validate_single_api's hard limit is 6 minutes): a new Validate replaces it.
STALE_RUN_MINUTES = 10
# unmet_words: a question's word whose closest word piece of a draft is under this cosine is one the draft never
# speaks of. On dev's judged drafts the words a draft leaves out sit at 0.2-0.38 ("central" 0.32 for a draft on
# logging to stderr; "often" 0.28 for one on how backups are made), the words it says at 0.5 or more.
UNMET_BELOW = 0.4

__all__ = [
    "ChatResult",
    "LLMError",
    "NoDefaultModel",
    "TransientLLMError",
    "get_default_model",
    "embed_texts",
    "embed_remembered",
    "word_alignment",
    "chat",
    "concurrency_limit",
    "embedding_fallback",
    "model_problem",
]


# --- choosing a model ---------------------------------------------------------------------
def get_default_model(model_type: str) -> LLMModel:
    """The active system default of `model_type` ("chat" or "embedding") on an active API.

    A local model that cannot run here (package missing or damaged) gives way to
    the offline baseline's model of the same type: see embedding_fallback().
    """
    label = dict(LLMModel.TYPE_CHOICES).get(model_type, model_type).lower()
    model = LLMModel.objects.select_related("api").filter(model_type=model_type, is_system_default=True).first()
    if model is None:
        raise NoDefaultModel(f"No default {label} model is configured: choose one under LLMs in the admin")
    if not model.is_active or not model.api.is_active:
        raise NoDefaultModel(
            f"The default {label} model {model.name} ({model.api.name}) is inactive: activate it or choose another default"
        )
    problem = model_problem(model)
    if problem:
        stand_in = _offline_model(model_type)
        if stand_in is None:
            raise NoDefaultModel(f"The default {label} model cannot run: {problem}")
        logger.warning("Using %s instead of the default %s: %s", stand_in.name, model.name, problem)
        return stand_in
    return model


def model_problem(model: LLMModel, *, load: bool = True) -> str | None:
    """Why an in-process model cannot run on this machine (a missing or damaged package), or None.

    `load` loads it (once per process; what embedding with it would do next) so that
    damage only loading finds is caught too; without, only the package's files are
    checked, plus any failure to load seen by this process (for pages and /readyz).
    """
    if model.api.kind != LLMApi.KIND_LOCAL:
        return None
    from .providers import local

    problem = local.model_problem(model.name)
    if problem is None and load:
        try:
            local.encoder(model.name)
        except LLMError as exc:
            return str(exc)
    return problem


def _offline_model(model_type: str) -> LLMModel | None:
    return (
        LLMModel.objects.select_related("api")
        .filter(model_type=model_type, is_active=True, api__kind=LLMApi.KIND_OFFLINE, api__is_active=True)
        .order_by("pk")
        .first()
    )


@dataclass
class EmbeddingFallback:
    """The default embedding model cannot run here, and which model embeds meanwhile (None: nothing can)."""

    default: LLMModel
    problem: str
    stand_in: LLMModel | None


def embedding_fallback() -> EmbeddingFallback | None:
    """For the LLM page and /readyz: why the default embedding model is not the one in use, or None."""
    model = (
        LLMModel.objects.select_related("api")
        .filter(model_type=LLMModel.TYPE_EMBEDDING, is_system_default=True)
        .first()
    )
    problem = model_problem(model, load=False) if model else None
    if not problem:
        return None
    return EmbeddingFallback(model, problem, _offline_model(LLMModel.TYPE_EMBEDDING))


def concurrency_limit(model: LLMModel) -> int:
    """How many requests a batch job may have in flight on this model's API."""
    return max(1, model.api.max_concurrent_requests)


def _usable(model: LLMModel | None, model_type: str) -> LLMModel:
    model = model or get_default_model(model_type)
    if model.model_type != model_type:
        raise LLMError(f"{model.name} is a {model.model_type} model, not a {model_type} model")
    if not model.is_active or not model.api.is_active:
        raise LLMError(f"{model.name} ({model.api.name}) is inactive")
    return model


def _call(api: LLMApi, operation):
    """Run one provider operation, guarded unless it runs in-process."""
    if api.kind in LLMApi.IN_PROCESS_KINDS:
        return operation()
    with guarded_call(api):
        return operation()


# --- the contract ---------------------------------------------------------------------------
def embed_texts(texts: list[str], model: LLMModel | None = None) -> list[list[float]]:
    """Vectors for `texts`, in order, L2-normalised, in batches of EMBED_BATCH_SIZE."""
    if not texts:
        return []
    model = _usable(model, LLMModel.TYPE_EMBEDDING)
    provider = get_provider(model.api)
    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH_SIZE):
        batch = list(texts[start : start + EMBED_BATCH_SIZE])
        vectors += _call(model.api, lambda: provider.embed(model.name, batch, model.embedding_dimensions))  # noqa: B023 (called in this iteration)
    _check_dimensions(model, vectors)
    return [_l2_normalised(v) for v in vectors]


class _Remembered:
    """What a model made of each text, kept per process, least recently used out first, under everything that
    decides it: a model or endpoint edited in the admin (a new updated_at) is asked afresh."""

    def __init__(self, limit):
        self._limit = limit  # () -> how many texts to keep (read when needed: a setting may change in tests)
        self._store: OrderedDict[tuple, object] = OrderedDict()
        self._lock = threading.Lock()  # a batch job drafts several questions at once, in threads

    def of(self, texts: list[str], model: LLMModel, compute) -> dict[str, object]:
        """text → its value; `compute(new texts)` makes the values of the texts not kept, in order."""
        identity = (model.pk, model.updated_at, model.name, model.api.kind, model.api.base_url)
        with self._lock:
            known = {t: self._store[identity, t] for t in set(texts) if (identity, t) in self._store}
            for text in known:
                self._store.move_to_end((identity, text))
        new = [t for t in dict.fromkeys(texts) if t not in known]
        if new:
            known.update(zip(new, compute(new)))
            with self._lock:
                self._store.update(((identity, t), known[t]) for t in new)
                while len(self._store) > self._limit():
                    self._store.popitem(last=False)
        return known


# The same library passages and sentences come back in every draft and review of a batch.
_vectors = _Remembered(lambda: settings.EMBEDDING_VECTORS_REMEMBERED)
# A sentence's word vectors are some 30 of its vector's size (kept as float16): fewer sentences are kept.
_word_vectors = _Remembered(lambda: max(1, settings.EMBEDDING_VECTORS_REMEMBERED // 4))


def embed_remembered(texts: list[str], model: LLMModel | None = None) -> np.ndarray:
    """embed_texts' vectors for `texts` as rows of a float32 array; only texts this process has not embedded are sent."""
    model = _usable(model, LLMModel.TYPE_EMBEDDING)
    known = _vectors.of(texts, model, lambda new: np.asarray(embed_texts(new, model), dtype=np.float32))
    return np.stack([known[t] for t in texts]) if texts else np.empty((0, 0), dtype=np.float32)


def word_alignment(queries: list[str], texts: list[str], model: LLMModel | None = None) -> np.ndarray | None:
    """How closely each text meets each query word by word, 0..1, rows the queries; None when the model's
    provider gives only a vector per text (an embedding API: the local encoder gives its word vectors).

    Each content word piece of the query (not a stopword, not punctuation) takes its closest word piece of
    the text, by the cosine of the encoder's contextual vectors, and the query's score is their mean (late
    interaction, as ColBERT scores a passage). A sentence's one vector blurs what it says into its topic, so
    a general sentence on the question's topic can be as close to it as the sentence that states what it
    asks; word by word, a sentence scores high only by meeting each thing the question names.
    """
    known = _word_vectors_of([*queries, *texts], model)
    return None if known is None else _align_words([known[q] for q in queries], [known[t] for t in texts])


def unmet_words(query: str, text: str, model: LLMModel | None = None, below: float = UNMET_BELOW) -> list[str] | None:
    """The query's words that no word of the text comes close to (closest cosine under `below`; a split word's
    pieces averaged), least met first: what a person reads as "the draft never speaks of it" — "central" in "Can log
    messages be sent to a central log server?" for a draft on writing logs to stderr. None as word_alignment.
    Stopwords and the questionnaire's own words ("describe", "your organisation") are never listed."""
    known = _word_vectors_of([query, text], model)
    if known is None:
        return None
    asked, said = known[query], known[text]
    if not len(said.pieces):
        return []
    closest = (asked.vectors.astype(np.float32) @ said.vectors.astype(np.float32).T).max(axis=1)
    spelled: dict[int, str] = {}
    scores: dict[int, list[float]] = {}
    for piece, word, score in zip(asked.pieces, _word_of_each_piece(asked.pieces), closest):
        spelled[word] = spelled.get(word, "") + piece.removeprefix("##")
        scores.setdefault(word, []).append(float(score))
    met: dict[str, float] = {}
    for word, spelling in spelled.items():
        if _carries_meaning(spelling) and spelling not in QUESTIONNAIRE_WORDS:
            met[spelling] = min(met.get(spelling, 1.0), float(np.mean(scores[word])))
    return [spelling for spelling, score in sorted(met.items(), key=lambda w: w[1]) if score < below]


def _word_vectors_of(texts: list[str], model: LLMModel | None) -> dict | None:
    """{text: its word vectors (TokenVectors)}, remembered across drafts; None when the model's provider gives only a
    vector per text (an embedding API)."""
    model = _usable(model, LLMModel.TYPE_EMBEDDING)
    if not gives_word_vectors(model):
        return None
    provider = get_provider(model.api)
    return _word_vectors.of(texts, model, lambda new: _half(provider.token_vectors(model.name, new)))


def gives_word_vectors(model: LLMModel | None = None) -> bool:
    """Whether the embedding model's provider gives a vector per word piece (the local encoder), not only per text."""
    model = _usable(model, LLMModel.TYPE_EMBEDDING)
    return get_provider(model.api).gives_word_vectors


def _align_words(queries: list[TokenVectors], texts: list[TokenVectors]) -> np.ndarray:
    """word_alignment's scores from the word vectors of the queries and the texts."""
    scores = np.zeros((len(queries), len(texts)), dtype=np.float32)
    filled = [i for i, text in enumerate(texts) if len(text.pieces)]
    if not filled:
        return scores
    pieces = np.concatenate([texts[i].vectors for i in filled]).astype(np.float32)
    starts = np.cumsum([0] + [len(texts[i].pieces) for i in filled[:-1]])
    for row, query in enumerate(queries):
        rows, weights = _content_rows(query)
        closest = np.maximum.reduceat(rows @ pieces.T, starts, axis=1)
        scores[row, filled] = weights @ closest / weights.sum() if len(closest) else 0.0
    return scores


def _half(found: list[TokenVectors]) -> list[TokenVectors]:
    return [TokenVectors(t.pieces, np.asarray(t.vectors, dtype=np.float16)) for t in found]


def _content_rows(query: TokenVectors) -> tuple[np.ndarray, np.ndarray]:
    """(vectors, weights) of the query's word pieces that carry meaning; all of them when none does ("How is it
    done?"). Each word counts once: a word the encoder splits ("penetration": "pen", "##et", "##ration", where
    "##" marks a piece's place in the word) shares its weight among its pieces."""
    words = _word_of_each_piece(query.pieces)
    keep = [i for i, piece in enumerate(query.pieces) if _carries_meaning(piece)] or list(range(len(query.pieces)))
    _, word_of, pieces_of_word = np.unique(words[keep], return_inverse=True, return_counts=True)
    return query.vectors[keep].astype(np.float32), 1.0 / pieces_of_word[word_of]


def _word_of_each_piece(pieces: list[str]) -> np.ndarray:
    """Each word piece's word, numbered from 0: a piece marked "##" continues the word before it."""
    return np.maximum(np.cumsum([not piece.startswith("##") for piece in pieces]) - 1, 0)


def _carries_meaning(piece: str) -> bool:
    return piece.removeprefix("##").isalnum() and piece not in STOPWORDS


def chat(
    messages: list[dict], model: LLMModel | None = None, *, temperature: float = 0.0, max_tokens: int | None = None
) -> ChatResult:
    model = _usable(model, LLMModel.TYPE_CHAT)
    provider = get_provider(model.api)
    return _call(model.api, lambda: provider.chat(model.name, messages, temperature=temperature, max_tokens=max_tokens))


def _check_dimensions(model: LLMModel, vectors: list[list[float]]) -> None:
    """Learn the dimension on first use; refuse vectors that would not match the stored ones."""
    sizes = {len(v) for v in vectors}
    if len(sizes) != 1:
        raise LLMError(f"{model.api.name} returned vectors of different lengths for {model.name}")
    size = sizes.pop()
    if model.embedding_dimensions is None:
        LLMModel.objects.filter(pk=model.pk, embedding_dimensions__isnull=True).update(embedding_dimensions=size)
        model.embedding_dimensions = size
    elif size != model.embedding_dimensions:
        raise LLMError(
            f"{model.name} on {model.api.name} returned {size}-dimensional vectors, "
            f"but the model is recorded with {model.embedding_dimensions}"
        )


def _l2_normalised(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector


# --- validation -------------------------------------------------------------------------------
@dataclass
class SyncCounts:
    created: int = 0
    updated: int = 0
    deactivated: int = 0


@dataclass
class ValidationOutcome:
    """What validating one API found. `transient` says whether trying again later may help."""

    api_id: int
    api_name: str
    success: bool
    error: str = ""
    transient: bool = False
    retry_after: float | None = None
    sync: SyncCounts = field(default_factory=SyncCounts)

    def as_dict(self) -> dict:
        return asdict(self)


def validate_api(api_id: int) -> ValidationOutcome:
    """List the API's models, sync them, and record its health. Never raises for an API failure."""
    api = LLMApi.objects.get(pk=api_id)
    context = {"api_id": api.pk}
    try:
        infos = _list_models_for_validation(api)
    except LLMError as exc:
        transient = isinstance(exc, TransientLLMError)
        _record_validation_failure(api, str(exc), transient)
        logger.warning("Validation of %s failed: %s", api.name, exc, extra={**context, "transient": transient})
        return ValidationOutcome(api.pk, api.name, False, str(exc), transient, getattr(exc, "retry_after", None))
    counts = sync_models(api, infos)
    LLMApi.objects.filter(pk=api.pk).update(last_validated_at=timezone.now())
    logger.info("Validated %s: %s", api.name, asdict(counts), extra=context)
    return ValidationOutcome(api.pk, api.name, True, sync=counts)


def _list_models_for_validation(api: LLMApi) -> list[ModelInfo]:
    """Validation is the health check itself, so it bypasses the open circuit (and may close it)."""
    provider = get_provider(api)
    if api.kind in LLMApi.IN_PROCESS_KINDS:
        infos = provider.list_models()
        record_success(api)
        return infos
    with guarded_call(api, check_circuit=False):
        return provider.list_models()


def _record_validation_failure(api: LLMApi, error: str, transient: bool) -> None:
    """A failed validation always marks the API unhealthy; guard.record_failure already counted it."""
    LLMApi.objects.filter(pk=api.pk).update(
        health_status=LLMApi.HEALTH_UNHEALTHY, last_validated_at=timezone.now(), last_error=error[:2000]
    )
    if api.kind in LLMApi.IN_PROCESS_KINDS:  # in-process providers never go through the guard
        record_failure(api, error, transient=transient)


@transaction.atomic
def sync_models(api: LLMApi, infos: list[ModelInfo]) -> SyncCounts:
    """Create new models, update changed ones, deactivate vanished ones. Idempotent.

    The model type is taken from the listing only when a model is first seen:
    /v1/models rarely says it, so an admin's correction must survive.
    """
    counts = SyncCounts()
    existing = {m.name: m for m in LLMModel.objects.select_for_update().filter(api=api)}
    for info in infos:
        model = existing.get(info.name)
        if model is None:
            LLMModel.objects.create(
                api=api,
                name=info.name,
                model_type=info.model_type,
                context_window=info.context_window,
                embedding_dimensions=info.embedding_dimensions,
            )
            counts.created += 1
        elif _apply_listing(model, info):
            model.save()
            counts.updated += 1
    vanished = [m.pk for name, m in existing.items() if m.is_active and name not in {i.name for i in infos}]
    counts.deactivated = LLMModel.objects.filter(pk__in=vanished).update(is_active=False)
    return counts


def _apply_listing(model: LLMModel, info: ModelInfo) -> bool:
    """Copy what the listing says onto the row; True if anything changed."""
    changed = False
    wanted = {
        "is_active": True,
        "context_window": info.context_window,
        "embedding_dimensions": info.embedding_dimensions,
    }
    for attribute, value in wanted.items():
        if value is not None and getattr(model, attribute) != value:
            setattr(model, attribute, value)
            changed = True
    return changed


def validate_apis_for_run(run: ValidationRun, api_ids: list[int], on_transient=None) -> dict:
    """Validate each API in turn, writing progress onto the run. Returns the task's result figures.

    `on_transient(outcome)` lets the caller schedule a later retry for an API that failed transiently.
    """
    run.set_counts(total_items=len(api_ids))
    outcomes = []
    for api_id in api_ids:
        outcome = validate_api(api_id)
        outcomes.append(outcome)
        if not outcome.success:
            run.add_error(outcome.api_name, outcome.error + (" (transient)" if outcome.transient else ""))
            if outcome.transient and on_transient:
                on_transient(outcome)
        run.set_counts(**_run_counts(outcomes, len(api_ids)))
    return summarise(outcomes)


def _run_counts(outcomes: list[ValidationOutcome], total: int) -> dict:
    """Absolute values from the outcomes so far (a re-run writes the same numbers)."""
    return {
        "total_items": total,
        "processed_items": len(outcomes),
        "successful_items": sum(o.success for o in outcomes),
        "failed_items": sum(not o.success for o in outcomes),
        "models_created": sum(o.sync.created for o in outcomes),
        "models_updated": sum(o.sync.updated for o in outcomes),
        "models_deactivated": sum(o.sync.deactivated for o in outcomes),
    }


def summarise(outcomes: list[ValidationOutcome]) -> dict:
    """The validation tasks' result: APIs tested, successful and failed, models synced, and one detail per API."""
    return {
        "tested": len(outcomes),
        "successful": sum(o.success for o in outcomes),
        "failed": sum(not o.success for o in outcomes),
        "models_created": sum(o.sync.created for o in outcomes),
        "models_updated": sum(o.sync.updated for o in outcomes),
        "models_deactivated": sum(o.sync.deactivated for o in outcomes),
        "details": [
            {"api_id": o.api_id, "api": o.api_name, "success": o.success, "error": o.error, "transient": o.transient}
            for o in outcomes
        ],
    }


def get_or_create_validation_run(api: LLMApi, user=None) -> tuple[ValidationRun, bool]:
    """The API's active validation run, or a new pending one. Returns (run, created); the caller dispatches a new one.

    The API's row is locked until the caller's transaction ends, so a double
    click finds the active run instead of writing a second.
    """
    with transaction.atomic():
        LLMApi.objects.select_for_update().filter(pk=api.pk).first()  # serialise concurrent clicks
        active_runs = ValidationRun.objects.filter(api=api, status__in=ACTIVE_STATUSES)
        # A hard time limit or a lost message leaves a row active with nobody behind it.
        fail_stale_jobs(active_runs, after_minutes=STALE_RUN_MINUTES)
        active = active_runs.first()
        if active:
            return active, False
        return ValidationRun.objects.create(api=api, started_by=user, total_items=1), True


def active_api_ids() -> list[int]:
    return list(LLMApi.objects.filter(is_active=True).order_by("name").values_list("pk", flat=True))


def never_validated_apis():
    """Active APIs that no validation has looked at yet: their health would read "Unknown"."""
    return LLMApi.objects.filter(is_active=True, last_validated_at__isnull=True, validation_runs__isnull=True)


def make_default(model: LLMModel) -> None:
    """Make `model` the system default of its type (one statement per step keeps the constraint satisfied)."""
    with transaction.atomic():
        LLMModel.objects.filter(model_type=model.model_type, is_system_default=True).exclude(pk=model.pk).update(
            is_system_default=False
        )
        LLMModel.objects.filter(pk=model.pk).update(is_system_default=True, is_active=True)
