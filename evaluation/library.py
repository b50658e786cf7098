"""The answer library's match, measured: does a reworded question find its entry, does an unrelated one find none?

evaluation/library_entries.json holds approved entries (question and answer),
each with questions that ask the same thing in other words, and questions no
entry answers — some of them close to an entry's topic on purpose. The entries
are written through the library's own service (save_entry, which indexes
their wordings) and every question goes through the responder's own
`find_match`; nothing here re-implements the match.
"""
import json
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBRARY_SET = HERE / "library_entries.json"


SWEEP = (0.45, 0.50, 0.55, 0.57, 0.60, 0.65, 0.70)


@dataclass
class LibraryScore:
    model: str
    threshold: float
    entries: int
    # (set id of the right entry or None for an unrelated question, set id of the best entry, its score, question)
    tops: list[tuple[str | None, str | None, float, str]] = field(default_factory=list)

    def _counts(self, threshold: float) -> tuple[int, int, int, int]:
        reworded = [t for t in self.tops if t[0] is not None]
        unrelated = [t for t in self.tops if t[0] is None]
        found = sum(1 for gold, best, score, _ in reworded if best == gold and score >= threshold)
        false = sum(1 for _, best, score, _ in unrelated if best is not None and score >= threshold)
        return found, len(reworded), false, len(unrelated)

    def at(self, threshold: float) -> tuple[float, float]:
        """(recall@1, false-match rate) had the threshold been `threshold`."""
        found, reworded, false, unrelated = self._counts(threshold)
        return found / max(1, reworded), false / max(1, unrelated)

    @property
    def reworded(self) -> int:
        return self._counts(self.threshold)[1]

    @property
    def found_first(self) -> int:
        return self._counts(self.threshold)[0]

    @property
    def unrelated(self) -> int:
        return self._counts(self.threshold)[3]

    @property
    def false_matches(self) -> int:
        return self._counts(self.threshold)[2]

    @property
    def recall_at_1(self) -> float:
        return self.at(self.threshold)[0]

    @property
    def false_match_rate(self) -> float:
        return self.at(self.threshold)[1]

    @property
    def misses(self) -> list[str]:
        return [f"{gold}: {q}" for gold, best, score, q in self.tops
                if gold is not None and (best != gold or score < self.threshold)]

    @property
    def wrong(self) -> list[str]:
        return [f"{q} → {best} ({score:.2f})" for gold, best, score, q in self.tops
                if gold is None and best is not None and score >= self.threshold]


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


def evaluate_library(model, user, data: dict | None = None) -> LibraryScore:
    """Seed the entries (indexed with `model`, the default embedding model now) and score every question.

    The best entry of each question comes from the responder's own `ranked_matches`; whether it is a match
    is `find_match`'s rule (score ≥ MATCH_THRESHOLD), applied here so the sweep can show other thresholds too.
    """
    from answer_library.models import Entry
    from answer_library.services.matching import MATCH_THRESHOLD, Index, find_match, ranked_matches

    data = data or load()
    names = seed_entries(data, user)
    index = Index.load(model)
    score = LibraryScore(model=model.name, threshold=MATCH_THRESHOLD, entries=len(names))
    questions = [(item["id"], q) for item in data["entries"] for q in item["reworded"]]
    questions += [(None, q) for q in data["unrelated"]]
    for gold, question in questions:
        best = next(iter(ranked_matches(question, index=index, model=model)), None)
        score.tops.append((gold, names.get(best.entry.pk) if best else None, best.score if best else 0.0, question))
        # The figures must be find_match's own: check that the rule above is the one it applies.
        matched = find_match(question, index=index, model=model)
        assert (matched is not None) == (best is not None and best.score >= MATCH_THRESHOLD), question
    # The drafts are measured next, from the documents: entries left here would answer some of them instead.
    Entry.objects.filter(pk__in=names).delete()
    return score
