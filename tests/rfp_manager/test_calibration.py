"""Confidence as a share answered: the isotonic map fitted on labelled drafts, and the committed map read back."""

import json

import pytest

from rfp_manager.services import calibration


def test_the_fitted_map_pools_what_would_go_down_and_counts_every_draft():
    points = [(0.1, False), (0.2, True), (0.3, False), (0.6, True), (0.7, True), (0.9, False)]
    steps = calibration.isotonic(points)

    shares = [s["answered"] for s in steps]
    assert shares == sorted(shares)  # monotone: a higher raw score never means a smaller share answered
    assert sum(s["drafts"] for s in steps) == len(points)
    assert steps[0] == {"up_to": 0.1, "answered": round(1 / 3, 3), "drafts": 1, "answers": 0}
    assert steps[1] == {"up_to": 0.3, "answered": 0.5, "drafts": 2, "answers": 1}  # 0.2 answered, 0.3 not: pooled


def test_a_share_is_read_by_the_rule_of_succession_and_stays_in_order():
    """12 of 12 answered is not "every such draft answers": the page would say 100 % from twelve drafts."""
    points = [(i / 100, False) for i in range(40)] + [(0.5 + i / 100, True) for i in range(12)]
    low, high = calibration.isotonic(points, least=10)

    assert (low["answers"], low["drafts"], low["answered"]) == (0, 40, round(1 / 42, 3))
    assert (high["answers"], high["drafts"], high["answered"]) == (12, 12, round(13 / 14, 3))
    # a block of few drafts is drawn further towards one half than a larger one: pooled with it where that would
    # put it above (0 of 2 reads 0.25; 1 of 99 above it, 0.02), kept apart where the order holds
    (pooled,) = calibration.isotonic([(0.1, False)] * 2 + [(0.2, True)] + [(0.3, False)] * 98)
    assert pooled == {"up_to": 0.3, "answered": round(2 / 103, 3), "drafts": 101, "answers": 1}
    apart = calibration.isotonic([(0.1, False)] * 40 + [(0.2, True)] + [(0.3, False)] * 49)
    assert [(s["answers"], s["drafts"]) for s in apart] == [(0, 40), (1, 50)]


@pytest.mark.parametrize("kind", [calibration.EVIDENCE, calibration.WORD_MATCH])
def test_each_committed_map_says_where_it_comes_from_and_is_what_confidence_shows(kind):
    record = json.loads(calibration.MAP_FILE.read_text())
    assert "dev drafts of evaluation/judged/" in record["from"] and record["fitted_by"]
    steps = record["maps"][kind]
    for step in steps:
        assert calibration.calibrated(step["up_to"], kind) == step["answered"]
    raws = [i / 100 for i in range(101)]
    shown = [calibration.calibrated(raw, kind) for raw in raws]
    assert shown == sorted(shown) and set(shown) <= {s["answered"] for s in steps}


def test_the_two_kinds_of_raw_score_are_read_on_their_own_maps():
    """A word match of 0.7 is a middling draft; the same evidence share is a strong one: one map would misread one."""
    maps = json.loads(calibration.MAP_FILE.read_text())["maps"]
    assert maps[calibration.EVIDENCE] != maps[calibration.WORD_MATCH]
    raws = [i / 100 for i in range(101)]
    assert [calibration.calibrated(r, calibration.EVIDENCE) for r in raws] != [
        calibration.calibrated(r, calibration.WORD_MATCH) for r in raws
    ]


def test_a_step_of_too_few_drafts_is_pooled_with_its_neighbour():
    points = [(0.1, False), (0.2, False), (0.3, True), (0.4, False), (0.5, True), (0.6, True), (0.95, True)]
    alone = calibration.isotonic(points)
    assert (alone[-1]["answers"], alone[-1]["drafts"]) == (3, 3)  # the top block: 0.5, 0.6, 0.95

    steps = calibration.isotonic(points, least=3)

    assert all(step["drafts"] >= 3 for step in steps)
    assert sum(s["drafts"] for s in steps) == len(points)
    shares = [s["answered"] for s in steps]
    assert shares == sorted(shares)
    assert steps[0] == {"up_to": 0.4, "answered": round(2 / 6, 3), "drafts": 4, "answers": 1}  # 0.1, 0.2 then 0.3, 0.4
    assert steps[-1] == {"up_to": 0.95, "answered": 0.8, "drafts": 3, "answers": 3}
