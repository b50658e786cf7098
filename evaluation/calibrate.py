"""Fit the confidence map (rfp_manager/calibration.json) on the judged dev drafts: confidence as a share answered.

    .venv/bin/python -m evaluation.calibrate

Each dev draft of the judged set (evaluation/judged/: drafts the product
made, read and labelled; both samples, the first and judged/current/, the
drafts it makes now) is reviewed by today's reviewer (answering.judge);
each kind of raw confidence (answering.raw_review_score: the evidence, or the
word match with the question, × the verdict factor) is paired with whether its
label is `answers`, and an isotonic step map per kind from the one to the other
is fitted (calibration.isotonic) and written with its provenance. The fewest
drafts a step is read from is chosen per kind by cross-validation on the dev
questions. Test drafts
are never read here: make eval's reliability diagram on them checks the map.
The library comes from the dev loop's cached folder (evaluation/dev_loop.py).
Run it after any change to the reviewer: `make eval` fits the map again from
its own review of these drafts, and docs/quality.md says when it differs from
the committed one (tests/evaluation/test_quality_page.py then fails).
"""

import json
import random
import sys
from collections import defaultdict
from statistics import mean

from .dev_loop import FOLDER, ROOT, remembered_embeddings
from .judged import ANSWERS
from .sources import MEASURED

DEV = "dev"

# The fewest drafts a step's share is read from, for each kind of map, is one of these, chosen by cross-validation
# on the dev drafts (chosen_step_size): fewer lets a step follow a handful of drafts, more blurs steps that differ.
STEP_SIZES = (1, 3, 5, 8, 10, 15, 20, 30)
FOLDS, SHUFFLES = 5, 20


def main() -> None:
    from .run import setup_django

    setup_django(str(FOLDER))
    if not (FOLDER / "names.json").exists():
        raise SystemExit("Run python -m evaluation.dev_loop once first: it ingests the library.")
    with remembered_embeddings(FOLDER / "vectors.pickle"):
        verdicts = judged_dev_verdicts()
    from rfp_manager.services import calibration

    commit = MEASURED.commit(ROOT)  # marked when a measured file differs from it
    record = {
        "fitted_by": "python -m evaluation.calibrate",
        "from": f"{len(verdicts)} dev drafts of evaluation/judged/ (labels.json and current/labels.json), reviewed "
        f"at commit {commit}; answered = labelled answers",
        **fitted(verdicts),
    }
    calibration.MAP_FILE.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


def fitted(verdicts) -> dict:
    """{"fewest_drafts_per_step": {kind: the size chosen}, "maps": {kind: its step map}}, fitted on the dev drafts
    among the reviewer's verdicts (measures.JudgedVerdict): each draft's raw score of that kind paired with whether it
    is labelled answers. `make eval` fits them again from its own review, and its page says whether they are the
    committed ones."""
    from rfp_manager.services import calibration

    dev = [v for v in verdicts if v.split == DEV]
    by_kind = {kind: _points_by_question(dev, kind) for kind in calibration.KINDS if all(kind in v.raw for v in dev)}
    least = {kind: chosen_step_size(questions) for kind, questions in by_kind.items()}
    return {
        "fewest_drafts_per_step": least,
        "maps": {
            kind: calibration.isotonic([point for question in questions for point in question], least=least[kind])
            for kind, questions in by_kind.items()
        },
    }


def _points_by_question(verdicts, kind: str) -> list[list[tuple[float, bool]]]:
    """(raw score of this kind, labelled answers) of each verdict, grouped by question, in the questions' order."""
    by_question = defaultdict(list)
    for v in verdicts:
        by_question[v.question].append((v.raw[kind], v.label == ANSWERS))
    return [by_question[question] for question in sorted(by_question)]


def chosen_step_size(questions: list[list[tuple[float, bool]]]) -> int:
    """The size in STEP_SIZES whose maps give held-out drafts the shares closest to their labels; on a tie (to four
    decimals), the larger: a share read from more drafts."""
    errors = {least: cross_validated_error(questions, least) for least in STEP_SIZES}
    return min(STEP_SIZES, key=lambda least: (round(errors[least], 4), -least))


def cross_validated_error(questions: list[list[tuple[float, bool]]], least: int) -> float:
    """The mean squared error (Brier score) of the share answered that a map fitted on four fifths of the questions
    gives each draft of the other fifth, against 1 for answers and 0 otherwise, over SHUFFLES shuffles of the
    questions. A question's drafts stay in one fold: its two samples' drafts are alike, and a map must not be scored
    on the drafts it was fitted on."""
    from rfp_manager.services import calibration

    errors = []
    for shuffle in range(SHUFFLES):
        order = random.Random(shuffle).sample(questions, len(questions))
        for fold in range(FOLDS):
            held = [point for question in order[fold::FOLDS] for point in question]
            kept = [point for i, question in enumerate(order) if i % FOLDS != fold for point in question]
            steps = calibration.isotonic(kept, least=least)
            errors += [(calibration.share_at(steps, raw) - answered) ** 2 for raw, answered in held]
    return mean(errors)


def judged_dev_verdicts() -> list:
    """Today's reviewer (answering.judge) on the dev drafts of both judged samples (the first, and judged/current/,
    the drafts the product makes now). The dev loop's library is embedded by the local encoder: both kinds of raw
    score are read."""
    from django.contrib.auth import get_user_model

    from llm_manager import services as llm
    from llm_manager.services import get_default_model

    from .dataset import load_questions
    from .judged import current_sample, load_judged
    from .measures import judge_stored_drafts

    if not llm.gives_word_vectors():
        raise SystemExit("The dev loop's default embedding model gives no word vectors: run it with the local encoder.")
    judged = [d for d in [*load_judged(), *load_judged(*current_sample())] if d.split == DEV]
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    return judge_stored_drafts(judged, load_questions(split=DEV), get_default_model("chat"), user)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
