"""Fit the confidence map (rfp_manager/calibration.json) on the judged dev drafts: confidence as a share answered.

    .venv/bin/python -m evaluation.calibrate

Each dev draft of the judged set (evaluation/judged/: drafts the product
made, read and labelled; both samples, the first and judged/current/, the drafts it makes now) is reviewed by today's reviewer (answering.judge);
each kind of raw confidence (answering.raw_review_score: the evidence, or the
word match with the question, × the verdict factor) is paired with whether its
label is `answers`, and an isotonic step map per kind from the one to the other
is fitted (calibration.isotonic) and written with its provenance. Test drafts
are never read here: make eval's reliability diagram on them checks the map.
The library comes from the dev loop's cached folder (evaluation/dev_loop.py).
"""

import json
import subprocess
import sys

from .dev_loop import FOLDER, ROOT, remembered_embeddings

# The fewest drafts a step's share answered is read from: with 5, the top step held 7 dev drafts, all answers,
# and the RFP page said "100 %" for drafts of which 2 in 6 answered on test.
STEP_DRAFTS = 10


def main() -> None:
    from .run import setup_django

    setup_django(str(FOLDER))
    if not (FOLDER / "names.json").exists():
        raise SystemExit("Run python -m evaluation.dev_loop once first: it ingests the library.")
    with remembered_embeddings(FOLDER / "vectors.pickle"):
        points = judged_points()
    from rfp_manager.services import calibration

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    record = {
        "fitted_by": "python -m evaluation.calibrate",
        "from": f"{len(points[calibration.EVIDENCE])} dev drafts of evaluation/judged/ (labels.json and "
        "current/labels.json), reviewed at "
        f"commit {commit.stdout.strip()} plus the working tree; answered = labelled answers",
        "maps": {kind: calibration.isotonic(each, least=STEP_DRAFTS) for kind, each in points.items()},
    }
    calibration.MAP_FILE.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


def judged_points() -> dict[str, list[tuple[float, bool]]]:
    """{kind of raw confidence: (raw confidence after review, labelled answers) per judged dev draft}; 0 for
    "no supporting content". The dev loop's library is embedded by the local encoder: both kinds are read."""
    from django.contrib.auth import get_user_model

    from llm_manager import services as llm
    from llm_manager.services import get_default_model
    from rfp_manager.services import calibration
    from rfp_manager.services.answering import judge, raw_confidence, raw_review_score

    from .dataset import load_questions
    from .judged import ANSWERS, current_sample, load_judged
    from .measures import question_rows

    judged = [d for d in [*load_judged(), *load_judged(*current_sample())] if d.split == "dev"]
    user, _ = get_user_model().objects.get_or_create(username="evaluation")
    rows = question_rows([q for q in load_questions(split="dev") if q.id in {d.question_id for d in judged}], user)
    chat = get_default_model("chat")
    if not llm.gives_word_vectors():
        raise SystemExit("The dev loop's default embedding model gives no word vectors: run it with the local encoder.")
    points = {calibration.EVIDENCE: [], calibration.WORD_MATCH: []}
    for draft in judged:
        evidence = word_match = 0.0
        if not draft.needs_expert:
            row = rows[draft.question_id]
            verdict = judge(row, draft.text, list(draft.passages), model=chat)["verdict"]
            evidence = raw_confidence(draft.evidence, verdict)
            word_match, _ = raw_review_score(row, draft.text, draft.evidence, verdict)
        points[calibration.EVIDENCE].append((evidence, draft.label == ANSWERS))
        points[calibration.WORD_MATCH].append((word_match, draft.label == ANSWERS))
    return points


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
