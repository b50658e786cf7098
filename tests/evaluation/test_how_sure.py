"""docs/quality.md's "How sure" section: issue 33's aims on test as counts with 95% Wilson intervals."""

import pytest

from evaluation import report
from evaluation.judged import ANSWERS, DOES_NOT_ANSWER, NO_ANSWER_IN_LIBRARY
from evaluation.measures import DraftScore, JudgedVerdict, KeyFactScore, ReviewerScore, TeamView, score_judged
from evaluation.metrics import wilson_interval


@pytest.mark.parametrize(
    ("successes", "total", "low", "high"),
    [
        (8, 14, 0.3259, 0.7862),  # the textbook Wilson interval (Newcombe 1998, method 3)
        (0, 20, 0.0, 0.1611),  # no success still leaves room for some
        (14, 14, 0.7847, 1.0),
        (41, 105, 0.3026, 0.4861),
    ],
)
def test_the_wilson_interval_of_a_small_sample(successes, total, low, high):
    assert wilson_interval(successes, total) == pytest.approx((low, high), abs=1e-4)


def test_an_empty_sample_says_nothing():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def _team(no_answer: int, approved: int) -> TeamView:
    return TeamView(100, 40, 20, 60, wrong_document=17, wrong_document_approved=1, without_answer=60,
                    without_answer_approved=6, no_answer=no_answer, no_answer_approved=approved)  # fmt: skip


def _figures(stated: int, no_answer_approved: int) -> dict:
    return {
        "key_facts": {"test": KeyFactScore(questions=105, stated=stated, no_support=3)},
        "team": {"test": _team(20, no_answer_approved)},
        "draft_scores": {"test": DraftScore(10, 7, 20, 105, 80, near_misses=20, near_misses_flagged=6)},
        "reviewer": {"test": ReviewerScore(correct_judged=83, correct_approved=23)},
    }


def _judged() -> dict:
    verdicts = (
        [JudgedVerdict("test", ANSWERS, True, 0.9)] * 8
        + [JudgedVerdict("test", DOES_NOT_ANSWER, True, 0.9)] * 6
        + [JudgedVerdict("test", DOES_NOT_ANSWER, False, 0.1)] * 30
        + [JudgedVerdict("test", NO_ANSWER_IN_LIBRARY, False, 0.0)] * 10
    )
    return score_judged(verdicts)


def test_each_aim_is_a_count_its_interval_and_whether_the_aim_lies_outside_it():
    runs = {"SQLite": _figures(41, 2), "PostgreSQL": _figures(45, 6)}
    rows = {line.split(" | ")[0].lstrip("| "): line for line in report._how_sure_section(runs, _judged(), None)}

    assert rows["drafts state the key fact"] == (
        "| drafts state the key fact | ≥ 0.60 | 41 of 105: 0.390 (0.30–0.49) | 45 of 105: 0.429 (0.34–0.52) "
        "| missed beyond chance |"
    )
    # the owners' held-out aim on the same drafts (40 of 100 hold the answer here): 0.45 lies inside the interval
    assert rows["held-out aim: drafts hold the answer"] == (
        "| held-out aim: drafts hold the answer | ≥ 0.45 | 40 of 100: 0.400 (0.31–0.50) | 40 of 100: 0.400 (0.31–0.50) "
        "| within chance of the aim |"
    )
    # 1 of 17 approved: the interval's top (0.27) is under the at-most aim on both databases
    assert rows["drafts citing no answering document, approved"].endswith("| met beyond chance |")
    # 18 of 20 not approved on one database, 14 of 20 on the other: 0.8 sits inside the first interval
    assert "18 of 20: 0.900 (0.70–0.97) | 14 of 20: 0.700 (0.48–0.85)" in rows["near misses with no approved draft"]
    assert rows["near misses with no approved draft"].endswith("| within chance of the aim |")
    assert rows['near misses drafted as "no supporting content" (recall)'] == (
        '| near misses drafted as "no supporting content" (recall) | ≥ 0.70 | 6 of 20: 0.300 (0.15–0.52) '
        "| 6 of 20: 0.300 (0.15–0.52) | missed beyond chance |"
    )
    assert rows["correct drafts the reviewer approves"].endswith("| missed beyond chance |")
    # the judged drafts are measured once, on the first database
    assert rows["judged drafts: approved drafts labelled answers"] == (
        "| judged drafts: approved drafts labelled answers | ≥ 0.90 | 8 of 14: 0.571 (0.33–0.79) | – "
        "| missed beyond chance |"
    )
    assert "30 of 36: 0.833" in rows["judged drafts: does_not_answer flagged"]
    assert rows["judged drafts: no_answer_in_library flagged"].endswith(
        "10 of 10: 1.000 (0.72–1.00) | – | within chance of the aim |"
    )
    assert not any(row.startswith("| judged drafts, second sample") for row in rows.values())
