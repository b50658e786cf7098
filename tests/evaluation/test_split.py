"""The evaluation set and its dev/test split, recorded once in the data files."""

import copy
import json
from collections import Counter, defaultdict

from evaluation.dataset import document_paths, load_questions
from evaluation.split import (
    DEV_EVERY,
    LIBRARY_SET,
    QUESTIONS,
    SPLITS,
    question_stratum,
    split_library,
    split_questions,
)


def test_the_set_is_large_real_and_mixed():
    questions = load_questions()
    documents = {p.stem: p for p in document_paths()}
    assert len(questions) >= 150
    assert len(documents) >= 40 and {p.suffix for p in documents.values()} == {".html", ".md", ".pdf", ".docx"}
    assert sum(q.kind == "near_miss" for q in questions) >= 25
    assert all(q.relevant <= documents.keys() for q in questions), "a question lists a document not shipped"
    assert all(q.answerable == (q.kind == "answerable") for q in questions)
    sources = (QUESTIONS.parent / "documents" / "SOURCES.md").read_text()
    assert all(prefix in sources for prefix in {name.split("-")[0] for name in documents})
    converted = [p.stem for p in documents.values() if p.suffix in {".pdf", ".docx"}]
    assert all(stem in sources for stem in converted), "a conversion is not recorded"


def test_every_question_has_its_split_recorded_and_none_is_left_to_give():
    data = json.loads(QUESTIONS.read_text())
    library = json.loads(LIBRARY_SET.read_text())
    assert all(q["split"] in SPLITS for q in data)
    assert split_questions(copy.deepcopy(data)) == 0 and split_library(copy.deepcopy(library)) == 0


def test_questions_tuned_on_before_the_split_are_all_dev():
    data = json.loads(QUESTIONS.read_text())
    assert all(q["split"] == "dev" for q in data if q["origin"] == "v1")
    library = json.loads(LIBRARY_SET.read_text())
    items = [r for e in library["entries"] for r in e["reworded"]] + library["unrelated"]
    assert all(item["split"] == "dev" for item in items if item["origin"] == "v1")


def test_the_new_questions_are_split_about_one_in_three_to_dev_and_test_holds_the_most_of_each_stratum():
    """Every third place of a stratum goes to dev; places held by questions split earlier stay as they were
    (split.py), so a batch added later is only about a third dev overall, and a stratum of one is dev."""
    strata = defaultdict(Counter)
    for q in json.loads(QUESTIONS.read_text()):
        if q["origin"] != "v1":
            strata[question_stratum(q)][q["split"]] += 1
    dev = sum(counts["dev"] for counts in strata.values())
    assert 0.25 <= dev / sum(sum(counts.values()) for counts in strata.values()) <= 0.42
    for stratum, counts in strata.items():
        if sum(counts.values()) >= 2 * DEV_EVERY:
            assert counts["test"] >= counts["dev"], stratum
    test = Counter(q.kind for q in load_questions(split="test"))
    assert test["answerable"] >= 50 and test["near_miss"] >= 15


def test_a_new_question_gets_a_split_and_the_recorded_ones_do_not_move():
    data = json.loads(QUESTIONS.read_text())
    recorded = {q["id"]: q["split"] for q in data}
    data.append(
        {
            "id": "X1",
            "question": "Is there a new question?",
            "relevant": ["owasp-logging"],
            "kind": "answerable",
            "topic": "logging",
            "origin": "v3",
        }
    )
    assert split_questions(data) == 1
    assert data[-1]["split"] in SPLITS
    assert {q["id"]: q["split"] for q in data[:-1]} == recorded


def test_answer_library_near_misses_sit_beside_an_entry_they_must_not_match():
    library = json.loads(LIBRARY_SET.read_text())
    entries = {e["id"]: e for e in library["entries"]}
    near = [u for u in library["unrelated"] if u["near"]]
    assert len(near) >= 20 and all(u["near"] in entries for u in near)
    assert any(u["question"] == "How long are backups retained?" and u["near"] == "backup-frequency" for u in near)
    assert not any(e["question"] == "How long are backups retained?" for e in entries.values())
    assert Counter(u["split"] for u in near)["test"] >= 10
