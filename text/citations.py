"""Citation numbers as a reader expects them: the sources an answer cites are [1], [2], … in the order it cites them.

A draft cites the passages of its prompt by their place in it, so it can read "[2]" alone or "[1] … [4]"; a
reader looks for the missing [1] or [3]. The cited passages are renumbered 1..n in order of first citation, in the
text and in the source list alike; the passages it does not cite follow, from n+1, in their own order.

A person inserting a sentence in the editor cites its source under the number it has among the draft's passages, or
the next free one; `closing_gaps` then moves it down to the first number only an uncited passage holds.
"""

import bisect

from .words import CITATION


def renumbered(text: str, passages: list[dict]) -> tuple[str, list[dict]]:
    """(text, passages) with the cited passages numbered 1..n as the text first cites them; each passage's "n" is
    its new number. A marker that names no passage is left as it is."""
    known = {p["n"] for p in passages}
    cited = list(dict.fromkeys(int(n) for n in CITATION.findall(text) if int(n) in known))
    order = cited + [p["n"] for p in passages if p["n"] not in cited]
    new_number = {old: new for new, old in enumerate(order, start=1)}
    text = _with_markers_renumbered(text, new_number)
    by_number = {p["n"]: p for p in passages}
    return text, [{**by_number[old], "n": new_number[old]} for old in order]


def closing_gaps(text: str, passages: list[dict]) -> tuple[str, list[dict]]:
    """(text, passages) where a source a person inserted ("inserted") under a number past an uncited passage's takes
    that lower number, and the uncited passage takes its, in the order the text first cites them: the answer reads
    [1], [2], [3], not [1], [2], [6]. An uncited passage's number is in no text, so only the inserted source's markers
    change; the draft's own citations keep the numbers its text shows."""
    free = sorted(p["n"] for p in passages if not p.get("cited"))
    inserted = {p["n"] for p in passages if p.get("cited") and p.get("inserted")}
    new_number: dict[int, int] = {}
    for n in dict.fromkeys(int(n) for n in CITATION.findall(text)):
        if n in inserted and free and free[0] < n:
            lower = free.pop(0)
            new_number[n], new_number[lower] = lower, n
            bisect.insort(free, n)
    if not new_number:
        return text, passages
    text = _with_markers_renumbered(text, new_number)
    return text, sorted(({**p, "n": new_number.get(p["n"], p["n"])} for p in passages), key=lambda p: p["n"])


def _with_markers_renumbered(text: str, new_number: dict[int, int]) -> str:
    """The text with each marker [n] read as [new_number[n]]; a marker the map does not name stays."""
    return CITATION.sub(lambda m: f"[{new_number.get(int(m[1]), m[1])}]", text)
