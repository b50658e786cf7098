"""Fit the confidence map (rfp_manager/calibration.json) on the judged dev drafts: confidence as a share answered.

    .venv/bin/python -m evaluation.calibrate

Each dev draft of the judged set (evaluation/judged/: drafts the product
made, read and labelled; both samples, the first and judged/current/, the
drafts it makes now) is reviewed by today's reviewer (answering.judge);
each kind of raw confidence (answering.raw_review_score: the evidence, or the
word match with the question, × the verdict factor) is paired with whether its
label is `answers`, and an isotonic step map per kind from the one to the other
is fitted (calibration.isotonic) and written with its provenance. Test drafts
are never read here: make eval's reliability diagram on them checks the map.
The library comes from the dev loop's cached folder (evaluation/dev_loop.py).
Run it after any change to the reviewer: `make eval` fits the map again from
its own review of these drafts, and docs/quality.md says when it differs from
the committed one (tests/evaluation/test_quality_page.py then fails).
"""

import json
import sys

from .dev_loop import FOLDER, ROOT, remembered_embeddings
from .judged import ANSWERS
from .sources import MEASURED

DEV = "dev"

# The fewest drafts a step's share answered is read from: with 5, the top step held 7 dev drafts, all answers,
# and the RFP page said "100 %" for drafts of which 2 in 6 answered on test.
STEP_DRAFTS = 10


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
        "maps": fitted_maps(verdicts),
    }
    calibration.MAP_FILE.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


def fitted_maps(verdicts) -> dict[str, list[dict]]:
    """{kind of raw confidence: its step map} fitted on the dev drafts among the reviewer's verdicts
    (measures.JudgedVerdict): each draft's raw score of that kind paired with whether it is labelled answers.
    `make eval` fits them again from its own review, and its page says whether they are the committed maps."""
    from rfp_manager.services import calibration

    dev = [v for v in verdicts if v.split == DEV]
    return {
        kind: calibration.isotonic([(v.raw[kind], v.label == ANSWERS) for v in dev], least=STEP_DRAFTS)
        for kind in calibration.KINDS
        if all(kind in v.raw for v in dev)
    }


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
