"""Finding the entry that answers a question: the same hybrid as the document search, over entry wordings.

Each entry is indexed by its wordings (its question and the alternatives),
each embedded with the default embedding model. A question is ranked against
them twice — by meaning (cosine of the embeddings) and by words (BM25 over the
wordings' subject stems, the questionnaire's own phrasing left out as in the
document search) — and the two rankings are fused by reciprocal rank fusion
(`search.fuse`). Fusion orders candidates but cannot say "none of these": a
rank has no scale. So the fused head is scored by meaning — half the cosine of
each entry's closest wording, half its cosine to the entry as answered (question
and answer together: a near miss shares the entry's subject, not what its answer
says) — and the best is reused automatically only above MATCH_THRESHOLD (below it, the best
few above SUGGESTION_FLOOR are suggested to a person: `triage`), and only
when the entry names every figure the question names: the embedding puts
"Do you have a SOC 3 report?" at 0.86 beside "Do you have a SOC 2 Type II
report?", and "ISO 27701" at 0.95 beside "ISO 27001" — a number is how a
questionnaire names a standard, a version or a limit, and another number is
another question (the cut is by figures, not by a fitted score). Nor is a
candidate accepted that asks for another kind of thing (`asks_differ`): "How
long are backups retained?" (a duration) sits at 0.7 beside "How often are
backups taken?" (a frequency), and "Where are backups stored?" (a place) near
it too; reusing that entry's "Hourly incremental and daily full backups"
answers another question. Adding shared-word overlap to that score was measured and lost: it punishes the
synonyms a rewording is made of ("change" for "rotate") more than it stops
false matches. `make eval` measures recall@1 and false matches on its own set
(docs/quality.md, with the threshold sweep the value was chosen from).

Entries are few (thousands, not millions): the index is read from the
database, which every process shares, kept per process until a wording is
added or removed (a responder job asks once per question), and scored with numpy.
"""

import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max

from llm_manager import services as llm
from llm_manager.providers import grounding
from solution_library.services.search import fuse
from text import questions, words

from ..models import Entry, EntryPhrasing

# A match needs this cosine between the question and the entry's closest wording. Chosen by make eval
# (evaluation/library_entries.json) for all-MiniLM-L6-v2; cosines of other embedding models sit on other
# scales, so a deployment with another model sets ANSWER_LIBRARY_MATCH_THRESHOLD from its own sweep.
MATCH_THRESHOLD = settings.ANSWER_LIBRARY_MATCH_THRESHOLD
# Below the threshold, entries scoring at least this are suggested to a person, at most SUGGESTIONS of them.
SUGGESTION_FLOOR = settings.ANSWER_LIBRARY_SUGGESTION_FLOOR
SUGGESTIONS = settings.ANSWER_LIBRARY_SUGGESTIONS
CANDIDATES = 5
# A match is scored half by the closest wording of the entry's question and half by the entry as answered (its
# question with its answer). A near miss asks about the entry's subject but not what its answer says: "How long
# are backups retained?" is near "How often are backups taken?", less near "…? Hourly incremental and daily
# full backups." Chosen on the dev split of make eval's answer-library set (weights 0 to 1 by 0.1 with the
# threshold swept: 0.5 and 0.59 kept the most reworded questions at the fewest false matches, counted double).
WORDING_WEIGHT = 0.5
BM25_K1, BM25_B = 1.2, 0.75
# The kinds of thing asked that an entry's wordings can disagree on (text.questions reads what a question asks).
MATCHED_KINDS = frozenset(
    {questions.PERSON, questions.PLACE, questions.FREQUENCY, questions.TIME, questions.DURATION, questions.COUNT}
)


@dataclass(frozen=True)
class Match:
    entry: Entry
    # WORDING_WEIGHT × the question's cosine to the entry's closest wording + the rest × its cosine to the entry
    # as answered (answered_text)
    score: float
    wording: str


def subject_stems(text: str) -> set[str]:
    """The question's telling words, without "please describe", "your organisation" and the like."""
    return words.stems(words.QUESTIONNAIRE_PHRASES.sub(" ", text), subject_only=True)


# --- the index ------------------------------------------------------------------------------------


def answered_text(entry: Entry) -> str:
    """The entry as answered: its question followed by its answer."""
    return f"{entry.question}\n{entry.answer_text}"


def index_entry(entry: Entry) -> None:
    """Rewrite the entry's wordings and its answered text with fresh embeddings (on every save of an entry)."""
    model = llm.get_default_model("embedding")
    texts = [(EntryPhrasing.Kind.WORDING, t) for t in entry.phrasings] + [
        (EntryPhrasing.Kind.ANSWERED, answered_text(entry))
    ]
    vectors = llm.embed_texts([t for _, t in texts], model)
    entry.phrasing_rows.all().delete()
    EntryPhrasing.objects.bulk_create(
        [
            EntryPhrasing(entry=entry, kind=kind, text=t, embedding=v, embedding_model=model)
            for (kind, t), v in zip(texts, vectors)
        ]
    )


def _refresh_stale_embeddings(model) -> None:
    """Rows embedded with another model (the default changed) are embedded again, in one batch; entries indexed
    before answered texts were (their wordings only) get theirs."""
    usable = Entry.objects.usable()
    stale = list(EntryPhrasing.objects.filter(entry__in=usable).exclude(embedding_model=model))
    unanswered = list(
        usable.filter(phrasing_rows__isnull=False).exclude(phrasing_rows__kind=EntryPhrasing.Kind.ANSWERED).distinct()
    )
    if not stale and not unanswered:
        return
    texts = [r.text for r in stale] + [answered_text(e) for e in unanswered]
    vectors = llm.embed_texts(texts, model)
    for row, vector in zip(stale, vectors):
        row.embedding, row.embedding_model = vector, model
    EntryPhrasing.objects.bulk_update(stale, ["embedding", "embedding_model"])
    EntryPhrasing.objects.bulk_create(
        [
            EntryPhrasing(
                entry=e, kind=EntryPhrasing.Kind.ANSWERED, text=answered_text(e), embedding=v, embedding_model=model
            )
            for e, v in zip(unanswered, vectors[len(stale) :])
        ]
    )


@dataclass
class Index:
    entry_ids: list[int]  # one per wording
    texts: list[str]
    vectors: np.ndarray
    stems: list[set[str]]
    answered: dict[int, np.ndarray] = field(default_factory=dict)  # entry id → its answered text's vector

    @classmethod
    def load(cls, model, entries=None) -> "Index":
        _refresh_stale_embeddings(model)
        entries = Entry.objects.usable() if entries is None else entries
        rows = list(
            EntryPhrasing.objects.filter(entry__in=entries, embedding_model=model)
            .order_by("entry_id", "pk")
            .values_list("entry_id", "kind", "text", "embedding")
        )
        answered = {r[0]: np.asarray(r[3], dtype=np.float32) for r in rows if r[1] == EntryPhrasing.Kind.ANSWERED}
        rows = [r for r in rows if r[1] == EntryPhrasing.Kind.WORDING]
        vectors = np.asarray([r[3] for r in rows], dtype=np.float32) if rows else np.zeros((0, 1), dtype=np.float32)
        return cls([r[0] for r in rows], [r[2] for r in rows], vectors, [subject_stems(r[2]) for r in rows], answered)

    def idf(self) -> dict[str, float]:
        counts: dict[str, int] = {}
        for stems in self.stems:
            for s in stems:
                counts[s] = counts.get(s, 0) + 1
        n = len(self.stems)
        return {s: math.log(1 + (n - c + 0.5) / (c + 0.5)) for s, c in counts.items()}


_index_cache: dict[int, tuple[tuple, Index]] = {}
_index_lock = threading.Lock()


def _wordings_token() -> tuple:
    """Changes whenever a wording is written or deleted, or an entry saved (a retirement in the admin, say)."""
    wordings = EntryPhrasing.objects.aggregate(n=Count("id"), last=Max("id"))
    entries = Entry.objects.aggregate(n=Count("id"), changed=Max("updated_at"))
    return (*wordings.values(), *entries.values())


def current_index(model) -> Index:
    """The usable entries' index for `model`, read again only when the wordings changed.

    Not kept inside a transaction, whose rows may still be rolled back (as the lexical counts are not).
    """
    if transaction.get_connection().in_atomic_block:
        return Index.load(model)
    token = _wordings_token()
    with _index_lock:
        cached = _index_cache.get(model.pk)
        if cached and cached[0] == token:
            return cached[1]
    index = Index.load(model)  # may re-embed rows (ids, so the token, stay) or add answered texts (read again once)
    with _index_lock:
        _index_cache[model.pk] = (token, index)
    return index


class RecentIndex:
    """The usable entries' index for one batch job, whose freshness is checked at most every `max_age` seconds.

    current_index() checks the wordings' token (two aggregate queries) on every
    call; a responder job asks once per question, from several threads. An
    entry approved or retired while the job runs is seen by the questions that
    start at most `max_age` seconds later.
    """

    def __init__(self, model, max_age: float = 5.0):
        self.model = model
        self.max_age = max_age
        self._lock = threading.Lock()
        self._index: Index | None = None
        self._checked_at = 0.0

    def get(self) -> Index:
        with self._lock:
            if self._index is None or time.monotonic() - self._checked_at >= self.max_age:
                self._index = current_index(self.model)
                self._checked_at = time.monotonic()
            return self._index


# --- scoring --------------------------------------------------------------------------------------


def _bm25(query: set[str], index: Index, idf: dict[str, float]) -> list[float]:
    lengths = [len(s) or 1 for s in index.stems]
    average = sum(lengths) / len(lengths) if lengths else 1
    return [
        sum(
            idf.get(t, 0.0) * (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * length / average))
            for t in query & stems
        )
        for stems, length in zip(index.stems, lengths)
    ]


def _best_per_entry(index: Index, scores) -> list[tuple[int, float]]:
    """Entry ranking from wording scores: each entry ranked by its best wording."""
    best: dict[int, float] = {}
    for entry_id, score in zip(index.entry_ids, scores):
        if score > best.get(entry_id, float("-inf")):
            best[entry_id] = float(score)
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))


def match_score(cosine: float) -> float:
    return round(max(0.0, cosine), 4)


def ranked_matches(question: str, limit: int = CANDIDATES, *, index: Index | None = None, model=None) -> list[Match]:
    """The fused head of entries for the question, closest in meaning first (no threshold)."""
    model = model or llm.get_default_model("embedding")
    index = index or current_index(model)
    wanted = subject_stems(question)
    if not index.entry_ids or not question.strip():
        return []
    vector = llm.embed_remembered([question], model)[0]
    cosines = index.vectors @ vector
    by_meaning = _best_per_entry(index, cosines)
    fused = fuse([(by_meaning, 1.0), (_best_per_entry(index, _bm25(wanted, index, index.idf())), 1.0)])
    # A rewording made of synonyms shares no word with its entry: first by meaning, it has no lexical rank, and
    # entries with both ranks outscore it in the fusion. The nearest by meaning join the head for that reason.
    head = list(dict.fromkeys([e for e, _ in fused[:limit]] + [e for e, _ in by_meaning[:limit]]))
    entries = Entry.objects.in_bulk(head)
    matches = []
    for entry_id in head:
        cosine, wording = max(
            (float(cosines[i]), index.texts[i]) for i, e in enumerate(index.entry_ids) if e == entry_id
        )
        answered = index.answered.get(entry_id)
        answered_cosine = cosine if answered is None else float(answered @ vector)
        score = WORDING_WEIGHT * cosine + (1 - WORDING_WEIGHT) * answered_cosine
        matches.append(Match(entries[entry_id], match_score(score), wording))
    # The head re-ordered by meaning. Keeping the fused order among the entries above the threshold was
    # measured too, and lost (recall@1 0.887 against 0.925): crude stems split "retained" from "retention"
    # and shared words like "backups" then pick the wrong backup entry.
    return sorted(matches, key=lambda m: -m.score)


def figures_not_in_entry(question: str, entry: Entry) -> set[str]:
    """The figures the question names that none of the entry's wordings nor its answer does ("3" in "SOC 3")."""
    return grounding.figures(question) - grounding.figures(" ".join([*entry.phrasings, entry.answer_text]))


def asks_for(text: str) -> set[str]:
    """The kinds of thing a question asks for that entries are told apart by (none for a yes/no question)."""
    return set(questions.read(text).checkable & MATCHED_KINDS)


def asks_differ(question: str, entry: Entry) -> bool:
    """The question asks for some kinds of thing and each wording of the entry only for others: a near miss.

    Only known kinds can disagree: "What is your password rotation period?"
    (none) may well be answered by "How often must users change their
    passwords?", and "How long are backups kept?" by "How often are backups
    taken and how long are they kept?", while "How long are backups retained?"
    (a duration) is not answered by "How often are backups taken?" (a frequency).
    """
    wanted = asks_for(question)
    if not wanted:
        return False
    return all((kinds := asks_for(wording)) and not kinds & wanted for wording in entry.phrasings)


def admissible(question: str, matches: list[Match]) -> list[Match]:
    """The candidates the rules leave: each names every figure the question names and asks for the same kind of thing.

    One that names another figure answers about another standard, version or number, however near its wording
    is; one that asks for another kind of thing (a frequency for a duration: `asks_differ`) answers another question.
    """
    return [m for m in matches if not figures_not_in_entry(question, m.entry) and not asks_differ(question, m.entry)]


@dataclass(frozen=True)
class Triage:
    """What the library offers a question: an entry to reuse automatically, or entries a person may pick."""

    reuse: Match | None
    suggestions: list[Match]


def triage(
    question: str,
    *,
    threshold: float | None = None,
    floor: float | None = None,
    leave_out: frozenset[int] = frozenset(),
    index: Index | None = None,
    model=None,
) -> Triage:
    """Two tiers: the best admissible entry is reused when it scores at least `threshold` (where wrong reuse is
    rare); otherwise the best admissible entries scoring at least `floor` are suggestions, best first.

    The score can say "sure", not "no": the right entry is ranked first far more often than it clears the
    threshold (docs/quality.md), so below it a person picks. `leave_out`: entries a person rejected for this
    question — never reused for it nor suggested again.
    """
    threshold = MATCH_THRESHOLD if threshold is None else threshold
    floor = SUGGESTION_FLOOR if floor is None else floor
    ranked = ranked_matches(question, index=index, model=model)
    candidates = [m for m in admissible(question, ranked) if m.entry.pk not in leave_out]
    if candidates and candidates[0].score >= threshold:
        return Triage(candidates[0], [])
    return Triage(None, [m for m in candidates if m.score >= floor][:SUGGESTIONS])


def find_match(
    question: str, *, threshold: float | None = None, index: Index | None = None, model=None
) -> Match | None:
    """The entry that answers the question, when the nearest admissible entry is near enough; None sends it to the
    drafts (the next candidate may still match when the nearest is not admissible)."""
    return triage(question, threshold=threshold, index=index, model=model).reuse
