"""A small, fast run of `make eval`'s measures on the test database: the pipeline holds together."""
import pytest

from evaluation.dataset import document_paths, ingest, load_questions
from evaluation.library import evaluate_library
from evaluation.library import load as load_library_set
from evaluation.measures import draft_answers, evaluate_retrieval, evaluate_reviewer, score_drafts
from evaluation.report import render

DOCUMENTS = {"debian-handbook-backup", "debian-handbook-quotas", "postgresql-ddl-rowsecurity", "postgresql-ssl-tcp"}


@pytest.fixture
def subset(offline_embedding, db):
    questions = [q for q in load_questions() if q.relevant & DOCUMENTS or q.id in {"N01", "N08"}]
    return questions, ingest(document_paths(DOCUMENTS))


def test_eval_measures_a_small_subset_end_to_end(subset, offline_embedding, user):
    from llm_manager.services import get_default_model

    questions, names = subset
    retrieval = evaluate_retrieval(questions, names, offline_embedding)
    chat = get_default_model("chat")
    drafts = draft_answers(questions, names, chat, user)
    reviewer = evaluate_reviewer(drafts, chat, user)
    draft_score = score_drafts(drafts)

    assert list(retrieval)[0].startswith("BM25 baseline") and list(retrieval)[-1].startswith("Hybrid")
    assert all(0 <= s.recall_at_5 <= 1 and 0 <= s.ndcg_at_10 <= 1 for s in retrieval.values())
    assert list(retrieval.values())[-1].recall_at_5 >= 0.75  # a passage of the right document in the top five
    assert draft_score.flagged_correctly == 2  # both questions the library cannot answer
    assert reviewer.correct_judged > 0 and reviewer.planted >= 2 * reviewer.correct_judged
    library = evaluate_library(offline_embedding, user, _small_library_set())
    assert library.recall_at_1 == 1.0 and library.false_match_rate == 0.0  # each entry's own wording finds it
    report = render(retrieval=retrieval, library=[library], drafts=drafts, draft_score=draft_score, reviewer=reviewer,
                    documents=len(names), questions=questions, models=("m", "c"), seconds=1)
    assert "| hybrid recall@5" in report and "planted fault" in report and "## Answer library" in report


def _small_library_set() -> dict:
    """Three entries asked in their own words, and two questions none answers."""
    data = load_library_set()
    entries = [dict(item, reworded=[item["question"]]) for item in data["entries"][:3]]
    return {"entries": entries, "unrelated": data["unrelated"][:2]}
