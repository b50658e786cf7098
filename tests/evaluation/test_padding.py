"""make eval counts the sentences a draft quotes from a document the question does not list: padding beside the
answer (issue 33: never splice in a sentence about another subject)."""

from evaluation.dataset import EvalQuestion
from evaluation.measures import Draft, quoted_elsewhere, score_drafts

NAMES = {10: "backup-policy", 20: "logging-guide"}
CITATIONS = [{"n": 1, "document_id": 10, "cited": True}, {"n": 2, "document_id": 20, "cited": True}]
TEXT = "Backups are kept for 90 days [1]. Logs must be protected from tampering [2]. Both apply [1][2]."


def _draft(text: str, relevant: str) -> Draft:
    question = EvalQuestion("Q1", "How long are backups kept?", frozenset({relevant}), split="dev")
    sentences, elsewhere = quoted_elsewhere(text, CITATIONS, NAMES, question.relevant)
    return Draft(
        question,
        text,
        CITATIONS,
        False,
        0.5,
        0.5,
        cites_relevant=elsewhere < sentences,
        sentences=sentences,
        sentences_elsewhere=elsewhere,
    )


def test_a_sentence_citing_only_a_document_the_question_does_not_list_is_quoted_from_elsewhere():
    assert quoted_elsewhere(TEXT, CITATIONS, NAMES, frozenset({"backup-policy"})) == (3, 1)
    assert quoted_elsewhere(TEXT, CITATIONS, NAMES, frozenset({"logging-guide"})) == (3, 1)
    assert quoted_elsewhere(TEXT, CITATIONS, NAMES, frozenset({"access-policy"})) == (3, 3)


def test_padding_is_counted_in_the_drafts_that_answer_from_a_listed_document():
    padded = _draft(TEXT, "backup-policy")
    clean = _draft("Backups are kept for 90 days [1].", "backup-policy")
    wrong_document = _draft(TEXT, "access-policy")  # cites nothing it lists: counted as a wrong document instead
    score = score_drafts([padded, clean, wrong_document], "dev")
    assert (score.grounded_in_relevant, score.sentences, score.sentences_elsewhere, score.padded) == (2, 4, 1, 1)
