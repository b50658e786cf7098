"""The answer library's match, measured: does a reworded question find its entry, does an unrelated one find none?

evaluation/library_entries.json holds approved entries (question and answer),
each with questions that ask the same thing in other words, and questions no
entry answers — most of them near misses, on an entry's topic on purpose ("How
long are backups retained?" beside "How often are backups taken?"). Every
question records its split (dev or test, see split.py). The entries
are written through the library's own service (save_entry, which indexes
their wordings) and every question goes through the responder's own
`find_match`; nothing here re-implements the match.
"""

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
        )

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
    """Seed the entries (indexed with `model`, the default embedding model now) and match every question.

    Each question goes through the responder's own `find_match`, at the configured threshold and at each of
    the sweep's. The score covers every split; `for_split` scores one.
    """
    from answer_library.models import Entry
    from answer_library.services.matching import MATCH_THRESHOLD, Index, find_match

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
        score.questions.append((gold, question))
    # The drafts are measured next, from the documents: entries left here would answer some of them instead.
    Entry.objects.filter(pk__in=names).delete()
    return score
