"""The Yes / No / N/A a questionnaire's choice column asks for, proposed from a drafted answer.

A guess is marked for review: only an answer that opens with the choice itself
("Yes, …", "No.", "N/A") is taken as sure. An answer that found no support in
the library gets no choice at all, and a review flag.
"""
import re

EXPLICIT = [
    ("na", re.compile(r"^\W*(n/?a|not applicable)\b", re.IGNORECASE)),
    ("yes", re.compile(r"^\W*yes\b", re.IGNORECASE)),
    ("no", re.compile(r"^\W*no\b(?!\s+(?:passage|supporting|content|information))", re.IGNORECASE)),
]
UNSUPPORTED = re.compile(
    r"\b(no (passage|supporting content|information)|not enough information|cannot (be )?answer|does not answer)\b",
    re.IGNORECASE,
)
NOT_APPLICABLE = re.compile(r"\b(not applicable|does not apply)\b", re.IGNORECASE)
NEGATION = re.compile(r"\b(do(es)? not|don't|doesn't|is not|are not|isn't|aren't|never|not (currently|yet|supported|offered|available))\b",
                      re.IGNORECASE)


def propose_choice(answer_text: str) -> tuple[str, bool]:
    """(choice, needs_review) for an answer's text; choice is "yes", "no", "na" or "" (none)."""
    text = answer_text.strip()
    for choice, pattern in EXPLICIT:
        if pattern.search(text):
            return choice, False
    if not text or UNSUPPORTED.search(text):
        return "", True
    if NOT_APPLICABLE.search(text):
        return "na", True
    return ("no" if NEGATION.search(text) else "yes"), True


def choice_fields(answer_text: str) -> dict:
    """The Answer fields a new draft sets (the responder calls this with its draft)."""
    choice, needs_review = propose_choice(answer_text)
    return {"choice": choice, "choice_needs_review": needs_review}


def save_choice(answer, choice: str) -> None:
    """A person chose (or confirmed) the value: it is no longer a guess."""
    answer.choice, answer.choice_needs_review = choice, False
    answer.save(update_fields=["choice", "choice_needs_review"])
