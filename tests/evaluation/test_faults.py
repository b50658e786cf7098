"""The reviewer's faults are built by the evaluation's own rules, not with the reviewer's code."""

from evaluation.dataset import EvalQuestion
from evaluation.measures import NEIGHBOUR, Draft, _neighbour, changed_figure_or_negation


def test_the_first_figure_outside_a_citation_is_changed():
    assert (
        changed_figure_or_negation("Daily backups are kept [2] for 15 days [1].")
        == "Daily backups are kept [2] for 30 days [1]."
    )
    assert changed_figure_or_negation("A session lasts 1 hour [3].") == "A session lasts 3 hour [3]."


def test_without_a_figure_the_first_verb_is_negated_or_its_negation_removed():
    assert changed_figure_or_negation("Keys are stored apart [1].") == "Keys are not stored apart [1]."
    assert changed_figure_or_negation("Tokens can be reused [1].") == "Tokens cannot be reused [1]."
    assert changed_figure_or_negation("The log is not rotated [1].") == "The log is rotated [1]."
    assert changed_figure_or_negation("Cookies SHALL be tagged [1].") == "Cookies SHALL NOT be tagged [1]."
    assert (
        changed_figure_or_negation("They can't keep it, so it is moved [1].")
        == "They can't keep it, so it is not moved [1]."
    )
    assert changed_figure_or_negation("Hashes, salts and peppers [1].") is None


def _draft(qid: str, topic: str, relevant: set[str]) -> Draft:
    return Draft(
        EvalQuestion(qid, f"question {qid}", frozenset(relevant), topic=topic),
        f"answer {qid} [1].",
        [{"n": 1, "text": "t", "cited": True}],
        needs_expert=False,
        confidence=0.5,
        evidence=0.5,
    )


def test_the_neighbour_is_the_next_question_on_the_same_topic_answered_from_other_documents():
    drafts = [
        _draft("a", "keys", {"k1"}),
        _draft("b", "keys", {"k1"}),
        _draft("c", "logs", {"l1"}),
        _draft("d", "keys", {"k2"}),
    ]
    assert _neighbour(drafts[0], drafts, 0).question.id == "d"  # b shares a's documents: it may answer a
    assert _neighbour(drafts[3], drafts, 3).question.id == "a"
    assert _neighbour(drafts[2], drafts, 2) is None  # nothing else on its topic: no fault of this kind
    assert NEIGHBOUR.startswith("a neighbouring question")
