"""The dev / test split of the evaluation set, made once and recorded in the data files.

    .venv/bin/python -m evaluation.split

Every question in questions.json and library_entries.json carries "split":
"dev" (constants, word lists and thresholds may be tuned on it) or "test" (only
reported, in docs/quality.md). This command gives a split to the questions that
have none and never changes one already recorded, so the split is made once and
new questions join it without moving the old ones.

The rule, deterministic and stratified:
- questions of origin "v1" — the first set, on which the questionnaire word
  list, EVIDENCE_THRESHOLD, the reviewer's thresholds and
  ANSWER_LIBRARY_MATCH_THRESHOLD were chosen — are all dev: a figure on them
  reports a fit, not the product;
- every question is grouped into a stratum (kind of question × the family of
  the documents that answer it; for the answer library: reworded question or
  question no entry answers) and ordered within it by the SHA-256 of its text
  when the split is given; a question without a split at the 1st, 4th, 7th…
  place goes to dev, the others to test. The v1 questions keep their places in
  that order (and stay dev), so a stratum's share of new dev questions is about,
  not exactly, a third.
"""

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.json"
LIBRARY_SET = HERE / "library_entries.json"
SPLITS = ("dev", "test")
DEV_EVERY = 3  # one question in three of each stratum is dev


def document_family(name: str) -> str:
    """'owasp-logging' → 'owasp', 'debian-handbook-backup' → 'debian': who published the document."""
    return name.split("-", 1)[0]


def assign(items: Iterable[dict], stratum: Callable[[dict], str], key: Callable[[dict], str]) -> int:
    """Give a split to each item without one (in place); the number of items given one."""
    strata = defaultdict(list)
    for item in items:
        if item.get("origin") == "v1":
            item.setdefault("split", "dev")
        strata[stratum(item)].append(item)
    given = 0
    for members in strata.values():
        members.sort(key=lambda item: hashlib.sha256(key(item).encode()).hexdigest())
        for position, item in enumerate(members):
            if "split" not in item:
                item["split"] = "dev" if position % DEV_EVERY == 0 else "test"
                given += 1
    return given


def question_stratum(item: dict) -> str:
    families = sorted({document_family(name) for name in item["relevant"]})
    return f"{item['kind']}:{'+'.join(families)}"


def split_questions(questions: list[dict]) -> int:
    return assign(questions, question_stratum, key=lambda item: item["question"])


def split_library(data: dict) -> int:
    reworded = [r for entry in data["entries"] for r in entry["reworded"]]
    return assign(reworded, lambda _: "reworded", key=lambda item: item["question"]) + assign(
        data["unrelated"], lambda _: "unrelated", key=lambda item: item["question"]
    )


def _write_questions(questions: list[dict]) -> None:
    """One question a line, so that a diff shows which question changed."""
    lines = ",\n".join("  " + json.dumps(q, ensure_ascii=False) for q in questions)
    QUESTIONS.write_text("[\n" + lines + "\n]\n")


def _write_library(data: dict) -> None:
    def entry(item: dict) -> str:
        head = json.dumps({k: item[k] for k in ("id", "question", "answer")}, ensure_ascii=False)[:-1]
        reworded = ",\n      ".join(json.dumps(r, ensure_ascii=False) for r in item["reworded"])
        return f'    {head}, "reworded": [\n      {reworded}]}}'

    LIBRARY_SET.write_text(
        '{\n  "about": '
        + json.dumps(data["about"], ensure_ascii=False)
        + ',\n  "entries": [\n'
        + ",\n".join(entry(item) for item in data["entries"])
        + '\n  ],\n  "unrelated": [\n'
        + ",\n".join("    " + json.dumps(u, ensure_ascii=False) for u in data["unrelated"])
        + "\n  ]\n}\n"
    )


def main() -> None:
    questions = json.loads(QUESTIONS.read_text())
    library = json.loads(LIBRARY_SET.read_text())
    given = split_questions(questions), split_library(library)
    _write_questions(questions)
    _write_library(library)
    print(f"split given to {given[0]} questions and {given[1]} answer-library questions")


if __name__ == "__main__":
    main()
