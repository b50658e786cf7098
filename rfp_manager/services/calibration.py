"""Confidence that means something: the share of such drafts that answered, read from drafts people labelled.

A raw confidence sorts drafts but has no meaning of its own. It is read from
one of two things, each scaled by the review's verdict (answering.raw_review_score):
the retrieval evidence (EVIDENCE), or, with an embedding model that gives word
vectors, how closely the reviewed text meets the question word by word
(WORD_MATCH). calibration.json holds a map per kind that turns a raw score into
"this share of drafts with such a raw score answered the question": fitted by
`python -m evaluation.calibrate` on the dev drafts of the judged set
(evaluation/judged/, each read and labelled), as an isotonic (monotone, step)
map, and committed with where it came from; `make eval` fits it again from its
own review of those drafts and says on docs/quality.md whether it is the same. With no map (a fresh checkout
before the fit), the raw score is shown as it is.
"""

import bisect
import json
from functools import cache
from pathlib import Path

MAP_FILE = Path(__file__).resolve().parent.parent / "calibration.json"
EVIDENCE, WORD_MATCH = "evidence", "word_match"  # what a raw confidence is read from: each kind has its own map
KINDS = (EVIDENCE, WORD_MATCH)


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
    return _read(uppers, shares, raw)


def share_at(steps: list[dict], raw: float) -> float:
    """The share answered that a fitted step map (isotonic's) gives a raw score: how a map is scored before it is
    committed."""
    return _read([s["up_to"] for s in steps], [s["answered"] for s in steps], raw)


def _read(uppers, shares, raw: float) -> float:
    return shares[min(bisect.bisect_left(uppers, raw), len(shares) - 1)]


def isotonic(points: list[tuple[float, bool]], least: int = 1) -> list[dict]:
    """The monotone step map from raw score to share answered (pool-adjacent-violators), one step per block:
    {"up_to": the block's highest raw score, "answered": its share answered, "drafts": how many it holds,
    "answers": how many of them answered}.

    `least`: a block of fewer drafts is pooled with its neighbour below (the first, with the one above): at the
    ends, pool-adjacent-violators leaves blocks of one or two drafts, and "100 % answered" read from one
    draft is not a share. Pooling neighbours keeps the map monotone.
    A block's share is read by the rule of succession, (answered + 1) / (drafts + 2): 12 drafts of 12 answered
    read 0.93, as a sample never shows that every draft like them answers (nor that none does).
    """
    blocks: list[list[float]] = []  # [highest raw score, answered, drafts]
    for raw, answered in sorted(points):
        blocks.append([raw, float(answered), 1.0])
        while len(blocks) > 1 and _share(blocks[-2]) >= _share(blocks[-1]):
            _pool(blocks, len(blocks) - 2)
    while len(blocks) > 1 and (small := _first(len(blocks), lambda i: blocks[i][2] < least)) is not None:
        _pool(blocks, max(small - 1, 0))
    # by the rule of succession a smaller block is drawn further towards one half: pooled while that breaks the order
    while (drawn := _first(len(blocks) - 1, lambda i: _succession(blocks[i]) > _succession(blocks[i + 1]))) is not None:
        _pool(blocks, drawn)
    return [
        {"up_to": round(b[0], 3), "answered": round(_succession(b), 3), "drafts": int(b[2]), "answers": int(b[1])}
        for b in blocks
    ]


def _share(block: list[float]) -> float:
    return block[1] / block[2]


def _succession(block: list[float]) -> float:
    """A block's share answered by the rule of succession: (answered + 1) / (drafts + 2)."""
    return (block[1] + 1) / (block[2] + 2)


def _pool(blocks: list[list[float]], i: int) -> None:
    """Blocks i and i + 1 made one."""
    below, above = blocks[i], blocks[i + 1]
    blocks[i : i + 2] = [[above[0], below[1] + above[1], below[2] + above[2]]]


def _first(count: int, holds) -> int | None:
    return next((i for i in range(count) if holds(i)), None)
