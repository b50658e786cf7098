"""A small, fast run of `make eval`'s measures on the test database: the pipeline holds together."""

import pytest
from django.db import connection

from evaluation.dataset import document_paths, ingest, load_questions
from evaluation.judged import JudgedDraft
from evaluation.library import evaluate_library
from evaluation.library import load as load_library_set
from evaluation.measures import (
    FAULT_KINDS,
    draft_answers,
    evaluate_retrieval,
    evaluate_reviewer,
    judge_stored_drafts,
    score_drafts,
    score_key_facts,
    team_view,
    word_overlap,
)
from evaluation.report import render

DOCUMENTS = {
    "debian-handbook-backup",
    "debian-handbook-quotas",
    "postgresql-ddl-rowsecurity",
    "postgresql-ssl-tcp",
    "owasp-file-upload",
}


@pytest.fixture
def subset(offline_embedding, db):
    questions = [q for q in load_questions() if q.relevant & DOCUMENTS or q.id in {"N01", "N08"}]
    return questions, ingest(document_paths(DOCUMENTS))


def test_eval_measures_a_small_subset_end_to_end(subset, offline_embedding, user):
    from llm_manager.services import get_default_model

    questions, names = subset
    assert {q.split for q in questions} == {"dev", "test"}
    retrieval = evaluate_retrieval(questions, names, offline_embedding)
    overlap = word_overlap(questions, names, offline_embedding)
    chat = get_default_model("chat")
    drafts = draft_answers(questions, names, chat, user)
    reviewer = evaluate_reviewer(drafts, names, offline_embedding, chat, user)
    draft_scores = {split: score_drafts(drafts, split) for split in ("dev", "test")}

    assert list(retrieval)[0].startswith("BM25 baseline") and list(retrieval)[-1].startswith("Hybrid")
    assert all(0 <= s.recall_at_5 <= 1 and 0 <= s.ndcg_at_10 <= 1 for m in retrieval.values() for s in m.values())
    hybrid = list(retrieval.values())[-1]
    assert hybrid["test"].questions + hybrid["dev"].questions == sum(q.answerable for q in questions)
    assert hybrid["test"].recall_at_5 >= 0.75  # a passage of the right document in the top five
    assert overlap.keys() == {q.id for q in questions if q.answerable} and all(0 <= v <= 1 for v in overlap.values())
    assert any(v > 0 for v in overlap.values())
    assert draft_scores["dev"].flagged_correctly == 2  # both off-topic questions the library cannot answer
    judged = sum(r.correct_judged for r in reviewer.values())
    assert judged > 0 and sum(r.planted for r in reviewer.values()) >= 2 * judged
    assert set(reviewer["test"].faults) == set(FAULT_KINDS)
    library = evaluate_library(offline_embedding, user, _small_library_set())
    assert library.recall_at_1 == 1.0 and library.false_match_rate == 0.0  # each entry's own wording finds it
    judged = judge_stored_drafts([_stored(d) for d in drafts], questions, chat, user)
    assert len(judged) == len(drafts) and any(v.approved for v in judged)
    assert not any(v.approved for v, d in zip(judged, drafts, strict=True) if d.needs_expert)
    figures = {
        "vendor": connection.vendor,
        "retrieval": retrieval,
        "overlap": overlap,
        "library": [library],
        "drafts": drafts,
        "draft_scores": draft_scores,
        "key_facts": {split: score_key_facts(drafts, split) for split in ("dev", "test")},
        "reviewer": reviewer,
        "team": {split: team_view(drafts, split) for split in ("dev", "test")},
        "judged": judged,
        "documents": {"HTML": 4, "Markdown": 1},
        "questions": questions,
        "models": ("m", "c"),
        "seconds": 1,
    }
    other_database = {**figures, "judged": None}
    report = render(runs={"SQLite": figures, "PostgreSQL": other_database}, seconds=2)
    assert (
        "| hybrid recall@5" in report
        and "| fault (test) | database | planted" in report
        and "## Answer library" in report
    )
    assert "source hash `" in report
    assert "| drafts state the key fact ≥ 0.6" in report and "## Drafts that state the key fact" in report
    assert "| held-out aim: drafts citing no answering document, approved ≤ 30% |" in report
    assert "## What a team sees after review" in report
    assert "## Word overlap" in report and "| test | client-worded (v3) |" in report
    assert "## Reviewer on the judged drafts" in report and "| does_not_answer |" in report
    assert "| target | test SQLite | test PostgreSQL | met |" in report and "Measured once, on SQLite" in report
    assert f"| {list(retrieval)[0]} | PostgreSQL | " in report  # each method's row per database


def _stored(draft) -> JudgedDraft:
    """A fresh draft as the judged set stores one, labelled by its kind alone (the labels are not under test)."""
    label = "answers" if draft.question.answerable else "no_answer_in_library"
    return JudgedDraft(
        f"{draft.question.id}:x",
        draft.question.id,
        draft.question.split,
        "x",
        draft.text,
        draft.needs_expert,
        draft.evidence,
        tuple(draft.passages),
        label,
    )


def _small_library_set() -> dict:
    """Three entries asked in their own words (as test questions), and two questions none answers."""
    data = load_library_set()
    entries = [dict(item, reworded=[{"question": item["question"], "split": "test"}]) for item in data["entries"][:3]]
    return {"entries": entries, "unrelated": [u for u in data["unrelated"] if u["origin"] == "v1"][:2]}
