"""Confidence that means something: the share of such drafts that answered, read from drafts people labelled.

A raw confidence sorts drafts but has no meaning of its own. It is read from
one of two things, each scaled by the review's verdict (answering.raw_review_score):
the retrieval evidence (EVIDENCE), or, with an embedding model that gives word
vectors, how closely the reviewed text meets the question word by word
(WORD_MATCH). calibration.json holds a map per kind that turns a raw score into
"this share of drafts with such a raw score answered the question": fitted by
`python -m evaluation.calibrate` on the dev drafts of the judged set
(evaluation/judged/, each read and labelled), as an isotonic (monotone, step)
map, and committed with where it came from. With no map (a fresh checkout
before the fit), the raw score is shown as it is.
"""

import bisect
import json
from functools import cache
from pathlib import Path

MAP_FILE = Path(__file__).resolve().parent.parent / "calibration.json"
EVIDENCE, WORD_MATCH = "evidence", "word_match"  # what a raw confidence is read from: each kind has its own map


@cache
def _steps(kind: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(upper raw scores, shares answered) of the fitted map's steps for `kind`, in order; empty without one."""
    if not MAP_FILE.exists():
        return (), ()
    steps = json.loads(MAP_FILE.read_text())["maps"].get(kind, [])
    return tuple(s["up_to"] for s in steps), tuple(s["answered"] for s in steps)


def calibrated(raw: float, kind: str = EVIDENCE) -> float:
    """The share of the labelled drafts with a raw confidence like `raw`, of this kind, that answered their question."""
    uppers, shares = _steps(kind)
    if not uppers:
        return raw
    return shares[min(bisect.bisect_left(uppers, raw), len(shares) - 1)]


def isotonic(points: list[tuple[float, bool]], least: int = 1) -> list[dict]:
    """The monotone step map from raw score to share answered (pool-adjacent-violators), one step per block:
    {"up_to": the block's highest raw score, "answered": its share answered, "drafts": how many it holds}.

    `least`: a block of fewer drafts is pooled with its neighbour below (the first, with the one above): at the
    ends, pool-adjacent-violators leaves blocks of one or two drafts, and "100 % answered" read from one
    draft is not a share. Pooling neighbours keeps the map monotone.
    """
    blocks: list[list[float]] = []  # [highest raw score, answered, drafts]
    for raw, answered in sorted(points):
        blocks.append([raw, float(answered), 1.0])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]:
            top, below = blocks.pop(), blocks.pop()
            blocks.append([top[0], below[1] + top[1], below[2] + top[2]])
    while len(blocks) > 1 and (small := next((i for i, b in enumerate(blocks) if b[2] < least), None)) is not None:
        low = max(small - 1, 0)
        below, above = blocks[low], blocks[low + 1]
        blocks[low : low + 2] = [[above[0], below[1] + above[1], below[2] + above[2]]]
    return [{"up_to": round(b[0], 3), "answered": round(b[1] / b[2], 3), "drafts": int(b[2])} for b in blocks]
