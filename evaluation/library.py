"""The answer library's match, measured: does a reworded question find its entry, does an unrelated one find none?

evaluation/library_entries.json holds approved entries (question and answer),
each with questions that ask the same thing in other words, and questions no
entry answers — most of them near misses, on an entry's topic on purpose ("How
long are backups retained?" beside "How often are backups taken?"). Every
question records its split (dev or test, see split.py). The entries
are written through the library's own service (save_entry, which indexes
their wordings) and every question goes through the responder's own
`find_match`; nothing here re-implements the match.

Issue 34 made the library two-tiered: it reuses an entry automatically only
when sure (`matching.triage` above MATCH_THRESHOLD) and otherwise suggests its
best entries to a person. So each question's offer is recorded too (the entry
reused, or the suggested ones), and `replay` asks one split's questions again,
in a fixed shuffled order, through the responder's own library door, with a
person who uses the right entry when it is suggested and rejects the others
(suggestions.use / reject, the product's own learning): does the library reuse
more, and no more wrongly, once it has learned from the choices?
"""

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBRARY_SET = HERE / "library_entries.json"


SWEEP = (0.45, 0.50, 0.55, 0.57, 0.59, 0.60, 0.65, 0.70)


@dataclass
class LibraryScore:
    model: str
    threshold: float
    entries: int
    split: str = "all"
    questions: list[tuple[str | None, str]] = field(default_factory=list)  # (right entry's set id or None, question)
    matches: dict[tuple[str, float], str | None] = field(default_factory=dict)  # (question, threshold) → matched id
    splits: dict[str, str] = field(default_factory=dict)  # question → its split
    # question → (the entry reused automatically or None, the entries suggested), at the configured tiers
    offers: dict[str, tuple[str | None, tuple[str, ...]]] = field(default_factory=dict)
    replays: dict[str, "Replay"] = field(default_factory=dict)  # split → its replay with learning

    def at(self, threshold: float) -> tuple[float, float]:
        """(recall@1, false-match rate) at `threshold`."""
        reworded = [(gold, q) for gold, q in self.questions if gold is not None]
        unrelated = [q for gold, q in self.questions if gold is None]
        found = sum(self.matches[(q, threshold)] == gold for gold, q in reworded)
        false = sum(self.matches[(q, threshold)] is not None for q in unrelated)
        return found / max(1, len(reworded)), false / max(1, len(unrelated))

    def for_split(self, split: str) -> "LibraryScore":
        """The same matches, scored on the questions of one split."""
        kept = {q for q, s in self.splits.items() if s == split}
        return LibraryScore(
            self.model,
            self.threshold,
            self.entries,
            split,
            [(gold, q) for gold, q in self.questions if q in kept],
            self.matches,
            self.splits,
            self.offers,
            self.replays,
        )

    @property
    def wrong_reuse(self) -> int:
        """Questions given a wrong entry automatically: a near miss reused, or a rewording given another entry."""
        return sum(self.offers[q][0] not in (gold, None) for gold, q in self.questions)

    @property
    def wrong_reuse_rate(self) -> float:
        return self.wrong_reuse / max(1, len(self.questions))

    @property
    def right_offered(self) -> int:
        """Reworded questions whose entry is reused automatically or among the suggestions."""
        return sum(gold == self.offers[q][0] or gold in self.offers[q][1] for gold, q in self.questions if gold)

    @property
    def right_offered_rate(self) -> float:
        return self.right_offered / max(1, self.reworded)

    @property
    def near_misses_suggested(self) -> int:
        """Questions no entry answers that get a suggestion (a person reads and rejects it)."""
        return sum(self.offers[q][0] is None and bool(self.offers[q][1]) for gold, q in self.questions if not gold)

    @property
    def wrong_entry(self) -> int:
        """Reworded questions matched to another entry: the worst miss, a wrong answer reused."""
        return sum(self.matches[(q, self.threshold)] not in (gold, None) for gold, q in self.questions if gold)

    @property
    def reworded(self) -> int:
        return sum(gold is not None for gold, _ in self.questions)

    @property
    def unrelated(self) -> int:
        return sum(gold is None for gold, _ in self.questions)

    @property
    def recall_at_1(self) -> float:
        return self.at(self.threshold)[0]

    @property
    def false_match_rate(self) -> float:
        return self.at(self.threshold)[1]

    @property
    def found_first(self) -> int:
        return round(self.recall_at_1 * self.reworded)

    @property
    def false_matches(self) -> int:
        return round(self.false_match_rate * self.unrelated)

    @property
    def misses(self) -> list[str]:
        return [
            f"{gold}: {q} (matched {self.matches[(q, self.threshold)] or 'nothing'})"
            for gold, q in self.questions
            if gold is not None and self.matches[(q, self.threshold)] != gold
        ]

    @property
    def wrong(self) -> list[str]:
        return [
            f"{q} → {self.matches[(q, self.threshold)]}"
            for gold, q in self.questions
            if gold is None and self.matches[(q, self.threshold)] is not None
        ]


@dataclass
class Replay:
    """One split's questions asked in order, a person deciding each suggestion, the library learning from it."""

    questions: int = 0
    reused_right: int = 0  # reused automatically, the right entry
    reused_wrong: int = 0  # reused automatically, a near miss or another entry
    picked: int = 0  # the right entry suggested, and used by the person
    rejected: int = 0  # suggestions the person rejected

    @property
    def wrong_reuse_rate(self) -> float:
        return self.reused_wrong / max(1, self.questions)


def replay_order(texts: list[str]) -> list[str]:
    """A fixed shuffle (by the SHA-256 of each text): rewordings of one entry and near misses interleave."""
    return sorted(texts, key=lambda t: hashlib.sha256(t.encode()).hexdigest())


def replay(data: dict, user, split: str) -> Replay:
    """Seed the entries afresh, then ask the split's questions in replay_order as an RFP's questions, through the
    responder's own library door (reuse.approved_answers().find); the person uses the right entry when suggested and
    rejects the others. The entries and the RFP are deleted after."""
    from answer_library.models import Entry
    from answer_library.services import suggestions
    from rfp_manager.models import RFP, Question
    from rfp_manager.reuse import approved_answers

    names = seed_entries(data, user)
    ids = {name: pk for pk, name in names.items()}
    gold = {r["question"]: item["id"] for item in data["entries"] for r in item["reworded"] if r["split"] == split}
    gold |= {u["question"]: None for u in data["unrelated"] if u["split"] == split}
    rfp = RFP.objects.create(name=f"Library replay ({split})", client="evaluation", owner=user)
    score = Replay()
    for order, text in enumerate(replay_order(list(gold))):
        question = Question.objects.create(
            rfp=rfp, number=str(order + 1), text=text, order=order, import_key=str(order)
        )
        reused = approved_answers().find(text, question_id=question.pk)
        score.questions += 1
        if reused is not None:
            right = names.get(reused.entry_id) == gold[text]
            score.reused_right += right
            score.reused_wrong += not right
            continue
        for suggestion in suggestions.pending(question.pk):
            if gold[text] is not None and suggestion.entry_id == ids[gold[text]]:
                score.picked += suggestions.use(question, suggestion.pk, user)
                break
            score.rejected += suggestions.reject(question, suggestion.pk, user)
    rfp.delete()
    Entry.objects.filter(pk__in=names).delete()
    return score


def load(path: Path = LIBRARY_SET) -> dict:
    return json.loads(path.read_text())


def seed_entries(data: dict, user) -> dict[int, str]:
    """The set's entries in the library, indexed with the default embedding model; {entry pk: set id}."""
    from answer_library.models import Entry
    from answer_library.services.entries import save_entry

    ids = {}
    for item in data["entries"]:
        entry = Entry.objects.filter(origin_key=f"eval:{item['id']}").first() or Entry(origin_key=f"eval:{item['id']}")
        entry = save_entry(entry, user, "evaluation set", question=item["question"], answer_text=item["answer"])
        ids[entry.pk] = item["id"]
    return ids


def evaluate_library(model, user, data: dict | None = None, replay_splits=("test", "dev")) -> LibraryScore:
    """Seed the entries (indexed with `model`, the default embedding model now) and match every question.

    Each question goes through the responder's own `find_match`, at the configured threshold and at each of
    the sweep's, and through `triage` for its offer. The score covers every split; `for_split` scores one.
    Then each of `replay_splits` is replayed with learning (`replay`).
    """
    from answer_library.models import Entry
    from answer_library.services.matching import MATCH_THRESHOLD, Index, find_match, triage

    data = data or load()
    names = seed_entries(data, user)
    index = Index.load(model)
    score = LibraryScore(model=model.name, threshold=MATCH_THRESHOLD, entries=len(names))
    questions = [(item["id"], r) for item in data["entries"] for r in item["reworded"]]
    questions += [(None, u) for u in data["unrelated"]]
    score.splits = {item["question"]: item["split"] for _, item in questions}
    for gold, question in ((gold, item["question"]) for gold, item in questions):
        for threshold in sorted({MATCH_THRESHOLD, *SWEEP}):
            match = find_match(question, threshold=threshold, index=index, model=model)
            score.matches[(question, threshold)] = names.get(match.entry.pk) if match else None
        offer = triage(question, index=index, model=model)
        score.offers[question] = (
            names[offer.reuse.entry.pk] if offer.reuse else None,
            tuple(names[m.entry.pk] for m in offer.suggestions),
        )
        score.questions.append((gold, question))
    # The drafts are measured next, from the documents: entries left here would answer some of them instead.
    Entry.objects.filter(pk__in=names).delete()
    if replay_splits:
        score.replays = {split: replay(data, user, split) for split in replay_splits}
    return score


def main() -> None:
    """`python -m evaluation.library`: the answer library's part of make eval alone (all-MiniLM-L6-v2), printed."""
    import tempfile

    from .run import setup_django

    with tempfile.TemporaryDirectory(prefix="spelunker-eval-library-") as folder:
        setup_django(folder)
        from django.contrib.auth import get_user_model

        from llm_manager.services import make_default

        from .measures import local_embedding_model
        from .report import DEV, TEST, _library_section

        model = local_embedding_model()
        make_default(model)
        user, _ = get_user_model().objects.get_or_create(username="evaluation")
        score = evaluate_library(model, user)
        print("\n".join(_library_section([score])))
        for split in (TEST, DEV):
            s = score.for_split(split)
            print(
                f"{split}: wrong reuse {s.wrong_reuse_rate:.3f}, recall kept {s.recall_at_1:.3f}, "
                f"right offered {s.right_offered_rate:.3f}"
            )


if __name__ == "__main__":
    main()
