"""Citation numbers as a reader expects them: the sources an answer cites are [1], [2], … in the order it cites them.

A draft cites the passages of its prompt by their place in it, so it can read "[2]" alone or "[1] … [4]"; a
reader looks for the missing [1] or [3]. The cited passages are renumbered 1..n in order of first citation, in the
text and in the source list alike; the passages it does not cite follow, from n+1, in their own order.
"""

from .words import CITATION


def renumbered(text: str, passages: list[dict]) -> tuple[str, list[dict]]:
    """(text, passages) with the cited passages numbered 1..n as the text first cites them; each passage's "n" is
    its new number. A marker that names no passage is left as it is."""
    known = {p["n"] for p in passages}
    cited = list(dict.fromkeys(int(n) for n in CITATION.findall(text) if int(n) in known))
    order = cited + [p["n"] for p in passages if p["n"] not in cited]
    new_number = {old: new for new, old in enumerate(order, start=1)}
    text = CITATION.sub(lambda m: f"[{new_number.get(int(m[1]), m[1])}]", text)
    by_number = {p["n"]: p for p in passages}
    return text, [{**by_number[old], "n": new_number[old]} for old in order]
