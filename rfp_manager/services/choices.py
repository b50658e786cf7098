"""The Yes / No / N/A a questionnaire's choice column asks for, proposed from a drafted answer.

A guess is marked for review: only an answer that opens with the choice itself
("Yes, …", "No.", "N/A") is taken as sure. An answer that found no support in
the library gets no choice at all, and a review flag. A guess reads the sentence
that speaks to the question: an extractive draft quotes several passages, and a
"never" in a neighbouring sentence ("one tenant's key can never read another's")
says nothing about the question asked ("Is data encrypted at rest?").
"""
import re

from llm_manager.providers import grounding

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


def propose_choice(answer_text: str, question: str = "") -> tuple[str, bool]:
    """(choice, needs_review) for an answer's text; choice is "yes", "no", "na" or "" (none)."""
    text = answer_text.strip()
    for choice, pattern in EXPLICIT:
        if pattern.search(text):
            return choice, False
    if not text or UNSUPPORTED.search(text):
        return "", True
    deciding = _sentence_on_the_question(text, question)
    if NOT_APPLICABLE.search(deciding):
        return "na", True
    return ("no" if NEGATION.search(deciding) else "yes"), True


def _sentence_on_the_question(text: str, question: str) -> str:
    """The answer's sentence that holds most of the question's subject words (the whole text without a question)."""
    wanted = grounding.stems(question, subject_only=True)
    if not wanted:
        return text
    return max(grounding.sentences(text), key=lambda sentence: grounding.coverage(wanted, sentence))


def choice_fields(answer_text: str, question: str = "") -> dict:
    """The Answer fields a new draft sets (the responder calls this with its draft and the question)."""
    choice, needs_review = propose_choice(answer_text, question)
    return {"choice": choice, "choice_needs_review": needs_review}


def save_choice(answer, choice: str) -> None:
    """A person chose (or confirmed) the value: it is no longer a guess."""
    answer.choice, answer.choice_needs_review = choice, False
    answer.save(update_fields=["choice", "choice_needs_review"])
