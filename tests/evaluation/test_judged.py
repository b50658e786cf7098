"""The judged set's bookkeeping and the reviewer's scores on it, on fixed tiny inputs."""

import json
import random
from dataclasses import replace

import pytest

from evaluation.judged import kept_drafts, load_judged
from evaluation.measures import JudgedVerdict, reliability, score_judged
from evaluation.report import plot_reliability, reliability_samples


def _verdict(label: str, approved: bool, confidence: float = 0.5, split: str = "test") -> JudgedVerdict:
    return JudgedVerdict(split, label, approved, confidence)


def test_approved_precision_is_the_share_of_approved_drafts_labelled_answers():
    verdicts = [
        _verdict("answers", True),
        _verdict("answers", True),
        _verdict("answers", False),
        _verdict("partly", True),  # approved but not an answer: lowers the precision
        _verdict("does_not_answer", False),
        _verdict("answers", True, split="dev"),  # another split: not counted in test
    ]
    test = score_judged(verdicts)["test"]
    assert (test.approved, test.approved_answers) == (3, 2)
    assert test.approved_precision == pytest.approx(2 / 3)
    assert score_judged(verdicts)["dev"].approved_precision == 1.0


def test_flag_rates_count_the_drafts_of_a_label_the_reviewer_did_not_approve():
    verdicts = [
        _verdict("does_not_answer", False),
        _verdict("does_not_answer", False),
        _verdict("does_not_answer", False),
        _verdict("does_not_answer", True),
        _verdict("no_answer_in_library", True),
        _verdict("no_answer_in_library", False),
    ]
    test = score_judged(verdicts)["test"]
    assert test.labelled("does_not_answer") == 4 and test.flagged("does_not_answer") == 3
    assert test.flag_rate("does_not_answer") == 0.75
    assert test.flag_rate("no_answer_in_library") == 0.5
    assert test.flag_rate("partly") == 0.0 and test.approved_precision == 0.0  # nothing labelled, nothing approved


def test_the_confidence_auc_is_the_share_of_answer_and_other_pairs_the_confidence_puts_in_order():
    verdicts = [
        _verdict("answers", True, 0.9),
        _verdict("answers", True, 0.4),
        _verdict("partly", True, 0.4),  # a tie with the second answer: half a pair
        _verdict("does_not_answer", False, 0.1),
    ]
    # pairs (answer, other): 0.9 > 0.4, 0.9 > 0.1, 0.4 = 0.4, 0.4 > 0.1
    assert score_judged(verdicts)["test"].confidence_auc == pytest.approx(3.5 / 4)
    reversed_ = [_verdict("answers", True, 0.1), _verdict("partly", True, 0.9)]
    assert score_judged(reversed_)["test"].confidence_auc == 0.0
    assert score_judged([_verdict("answers", True)])["test"].confidence_auc == 0.0  # nothing to sort against


def test_reliability_bins_hold_each_confidence_once_with_their_share_of_answers():
    verdicts = [
        _verdict("answers", True, 0.95),
        _verdict("partly", True, 0.85),
        _verdict("answers", True, 1.0),  # the top bin holds 1.0
        _verdict("does_not_answer", False, 0.0),
        _verdict("answers", False, 0.1),
    ]
    bins = reliability(verdicts, bins=((0.0, 0.5), (0.5, 1.01)))
    assert [(b.low, b.high, b.drafts, b.answers) for b in bins] == [(0.0, 0.5, 2, 1), (0.5, 1.0, 3, 2)]
    assert bins[1].share_answers == pytest.approx(2 / 3)
    assert bins[1].mean_confidence == pytest.approx((0.95 + 0.85 + 1.0) / 3)
    assert reliability([], bins=((0.0, 1.01),))[0].share_answers == 0.0


def _row(key: str, variant: str, text: str, question_id: str = "Q1") -> dict:
    return {
        "key": key,
        "question_id": question_id,
        "split": "dev",
        "variant": variant,
        "text": text,
        "needs_expert": False,
        "evidence": 0.4,
        "citations": [{"n": 1, "document": "d", "text": "passage", "cited": True}],
    }


def test_an_offline_draft_is_kept_only_where_it_differs_from_the_local_models():
    local = [_row("Q1:minilm", "all-MiniLM-L6-v2", "A [1]."), _row("Q2:minilm", "all-MiniLM-L6-v2", "B [1].", "Q2")]
    offline = [_row("Q1:offline", "offline-embed-v1", "A [1]."), _row("Q2:offline", "offline-embed-v1", "C [1].", "Q2")]
    assert [row["key"] for row in kept_drafts(offline, local)] == ["Q1:minilm", "Q2:minilm", "Q2:offline"]


def test_load_judged_joins_labels_to_drafts_and_refuses_an_unknown_label(tmp_path):
    drafts, labels = tmp_path / "drafts.json", tmp_path / "labels.json"
    drafts.write_text(json.dumps([_row("Q1:minilm", "all-MiniLM-L6-v2", "A [1]."), _row("Q2:minilm", "x", "B", "Q2")]))
    labels.write_text(json.dumps({"Q1:minilm": {"label": "partly", "why": "one part of two"}}))
    (judged,) = load_judged(drafts, labels)  # Q2 has no label yet: left out
    assert (judged.key, judged.label, judged.text, judged.passages[0]["text"]) == (
        "Q1:minilm",
        "partly",
        "A [1].",
        "passage",
    )
    labels.write_text(json.dumps({"Q1:minilm": {"label": "answered", "why": "typo"}}))
    with pytest.raises(ValueError, match="unknown label"):
        load_judged(drafts, labels)


def test_the_reliability_diagram_is_a_png_with_a_panel_for_each_judged_sample(tmp_path):
    """make eval plots both samples' verdicts (the second, of the drafts the product makes now, beside the first):
    one 500-pixel-wide panel each."""
    first = [_verdict("answers", True, 0.9), _verdict("partly", False, 0.3, split="dev")]
    current = [_verdict("does_not_answer", True, 0.6), _verdict("answers", False, 0.2, split="dev")]
    samples = reliability_samples({"judged": first, "judged_current": current})
    assert list(samples.values()) == [first, current]
    path = tmp_path / "reliability.png"
    plot_reliability(samples, path)
    png = path.read_bytes()
    assert png.startswith(b"\x89PNG")
    assert int.from_bytes(png[16:20], "big") == 1000  # IHDR width: two panels of 5 inches at 100 dpi
    assert list(reliability_samples({"judged": first, "judged_current": None}).values()) == [first]


def test_every_draft_of_the_second_sample_is_labelled_and_an_unanswerable_questions_by_its_kind():
    """The second sample (judged/current/) is labelled whole, and by the guide's first rule: a question the library
    cannot answer is no_answer_in_library whatever its draft says."""
    from evaluation.judged import current_sample

    drafts_path, labels_path = current_sample()
    drafts = json.loads(drafts_path.read_text())
    labels = json.loads(labels_path.read_text())
    assert {row["key"] for row in drafts} == set(labels)
    kinds = {q["id"]: q["kind"] for q in json.loads((drafts_path.parents[2] / "questions.json").read_text())}
    for row in drafts:
        unanswerable = kinds[row["question_id"]] != "answerable"
        assert (labels[row["key"]]["label"] == "no_answer_in_library") == unanswerable, row["key"]
        assert labels[row["key"]]["why"].strip(), row["key"]


def test_the_second_samples_section_says_which_drafts_it_judges():
    from evaluation.report import CURRENT_SAMPLE_COMMIT, judged_lines

    verdicts = [_verdict("answers", True, 0.9), _verdict("partly", False, 0.3, split="dev")]
    first, current = judged_lines(verdicts), judged_lines(verdicts, current=True)
    assert first[0] == "## Reviewer on the judged drafts" and "13b44de" in first[2]
    assert current[0].startswith("## Reviewer on the judged drafts, second sample")
    assert CURRENT_SAMPLE_COMMIT in current[2] and "judged/current/drafts.json" in current[2]
    assert "- Of the drafts the reviewer approves, labelled answers: test 1 of 1 (100.0%)" in "\n".join(current)


def _scored(split: str, label: str, evidence: float, word_match: float, question: str = "q") -> JudgedVerdict:
    return JudgedVerdict(split, label, False, 0.0, {"evidence": evidence, "word_match": word_match}, question)


def _numbered(verdicts: list[JudgedVerdict]) -> list[JudgedVerdict]:
    return [replace(v, question=f"{v.split}-{i}") for i, v in enumerate(verdicts)]


def test_the_map_is_fitted_on_the_dev_drafts_only_and_the_page_says_when_the_committed_one_differs(
    tmp_path, monkeypatch
):
    from evaluation.calibrate import fitted
    from evaluation.report import MAP_IS_CURRENT, _map_check
    from rfp_manager.services import calibration

    dev = _numbered([_scored("dev", "answers", 0.9, 0.8)] * 12 + [_scored("dev", "does_not_answer", 0.1, 0.2)] * 30)
    test = _numbered([_scored("test", "does_not_answer", 0.95, 0.9)] * 20)  # would pull the top step down if read
    fit = fitted(dev + test)
    assert fit == fitted(dev)
    maps = fit["maps"]
    assert [(s["answers"], s["drafts"]) for s in maps["word_match"]] == [(0, 30), (12, 12)]
    assert maps["word_match"][-1]["answered"] == round(13 / 14, 3)

    map_file = tmp_path / "calibration.json"
    monkeypatch.setattr(calibration, "MAP_FILE", map_file)
    map_file.write_text(json.dumps({"fitted_by": "python -m evaluation.calibrate", "from": "42 dev drafts", **fit}))
    said = "\n".join(_map_check(dev + test))
    assert MAP_IS_CURRENT in said
    assert f"evidence {fit['fewest_drafts_per_step']['evidence']}, word match" in said

    reviewer_changed = _numbered([_scored("dev", "answers", 0.9, 0.3)] * 12) + dev[12:]
    said = "\n".join(_map_check(reviewer_changed))
    assert MAP_IS_CURRENT not in said and "NOT the same map" in said and "python -m evaluation.calibrate" in said


def test_the_fewest_drafts_a_step_is_read_from_is_chosen_by_cross_validation_over_questions():
    """Labels that do not follow the raw score: only a map of few, wide steps holds on drafts it was not fitted on."""
    from evaluation.calibrate import STEP_SIZES, chosen_step_size

    draw = random.Random(1)
    noise = [[(raw, answered)] for raw, answered in ((draw.random(), draw.random() < 0.5) for _ in range(80))]
    assert chosen_step_size(noise) == max(STEP_SIZES)

    # eight answers, all above sixty non-answers: a step of eight drafts holds, and wider steps would bury it
    signal = [[(0.1 + i / 1000, False)] for i in range(60)] + [[(0.9 + i / 1000, True)] for i in range(8)]
    assert chosen_step_size(signal) <= 8


def test_a_questions_drafts_are_never_scored_by_a_map_fitted_on_its_other_drafts():
    """One question holds every answer: held out whole, the map fitted on the rest has never seen an answer."""
    from evaluation.calibrate import cross_validated_error

    one_answered = [[(0.9, True)] * 10] + [[(0.1 + i / 100, False)] for i in range(10)]
    assert cross_validated_error(one_answered, least=1) > 0.3  # scored on its own twins, it would be near 0
