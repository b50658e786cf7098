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


@dataclass
class LibraryScore:
    model: str
    entries: int
    reworded: int
    found_first: int  # reworded questions whose match is their own entry
    unrelated: int
    false_matches: int  # unrelated questions that matched an entry
    misses: list[str] = field(default_factory=list)  # "entry id: question" not matched to its entry
    wrong: list[str] = field(default_factory=list)  # "question → entry id" for false matches

    @property
    def recall_at_1(self) -> float:
        return self.found_first / self.reworded if self.reworded else 0.0

    @property
    def false_match_rate(self) -> float:
        return self.false_matches / self.unrelated if self.unrelated else 0.0


def load(path: Path = LIBRARY_SET) -> dict:
    return json.loads(path.read_text())


def seed_entries(data: dict, user) -> dict[int, str]:
    """The set's entries in the library (created once, re-indexed on each call); {entry pk: set id}."""
    from answer_library.models import Entry
    from answer_library.services.entries import save_entry

    ids = {}
    for item in data["entries"]:
        entry = Entry.objects.filter(origin_key=f"eval:{item['id']}").first() or Entry(origin_key=f"eval:{item['id']}")
        entry = save_entry(entry, user, "evaluation set", question=item["question"], answer_text=item["answer"])
        ids[entry.pk] = item["id"]
    return ids


def evaluate_library(model, user, data: dict | None = None) -> LibraryScore:
    """Seed the entries (indexed with `model`, the default embedding model now) and score every question."""
    from answer_library.services.matching import Index, find_match

    data = data or load()
    names = seed_entries(data, user)
    index = Index.load(model)
    score = LibraryScore(model=model.name, entries=len(names), reworded=0, found_first=0,
                         unrelated=len(data["unrelated"]), false_matches=0)
    for item in data["entries"]:
        for question in item["reworded"]:
            score.reworded += 1
            match = find_match(question, index=index, model=model)
            if match and names.get(match.entry.pk) == item["id"]:
                score.found_first += 1
            else:
                score.misses.append(f"{item['id']}: {question}")
    for question in data["unrelated"]:
        match = find_match(question, index=index, model=model)
        if match:
            score.false_matches += 1
            score.wrong.append(f"{question} → {names.get(match.entry.pk)}")
    return score
