"""The Yes / No / Partly / N/A a questionnaire's choice column asks for, proposed from a drafted answer.

A guess is marked for review: only an answer that opens with the choice itself
("Yes, …", "No.", "N/A") is taken as sure. An answer that found no support in
the library gets no choice at all, and a review flag. A guess reads the sentence
that speaks to the question: an extractive draft quotes several passages, and a
"never" in a neighbouring sentence ("one tenant's key can never read another's")
says nothing about the question asked ("Is data encrypted at rest?").
"""

import re

from llm_manager.providers import grounding
from text.words import stems

EXPLICIT = [
    ("na", re.compile(r"^\W*(n/?a|not applicable)\b", re.IGNORECASE)),
    ("partly", re.compile(r"^\W*(partially|partly|in part)\b", re.IGNORECASE)),
    ("yes", re.compile(r"^\W*yes\b", re.IGNORECASE)),
    ("no", re.compile(r"^\W*no\b(?!\s+(?:passage|supporting|content|information))", re.IGNORECASE)),
]
UNSUPPORTED = re.compile(
    r"\b(no (passage|supporting content|information)|not enough information|cannot (be )?answer|does not answer)\b",
    re.IGNORECASE,
)
NOT_APPLICABLE = re.compile(r"\b(not applicable|does not apply)\b", re.IGNORECASE)
NEGATION = re.compile(
    r"\b(do(es)? not|don't|doesn't|is not|are not|isn't|aren't|never|not (currently|yet|supported|offered|available))\b",
    re.IGNORECASE,
)


def propose_choice(answer_text: str, question: str = "") -> tuple[str, bool]:
    """(choice, needs_review) for an answer's text; choice is "yes", "no", "partly", "na" or "" (none)."""
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
    wanted = stems(question, subject_only=True)
    if not wanted:
        return text
    return max(grounding.sentences(text), key=lambda sentence: grounding.coverage(wanted, sentence))


def choice_fields(answer_text: str, question: str) -> dict:
    """The Answer fields a new draft sets (the responder calls this with its draft and the question).

    An open question ("Describe your company …") gets no choice at all, not a guessed "Yes"."""
    if not is_closed_question(question):
        return {"choice": "", "choice_needs_review": False}
    choice, needs_review = propose_choice(answer_text, question)
    return {"choice": choice, "choice_needs_review": needs_review}


def save_choice(answer, choice: str) -> None:
    """A person chose (or confirmed) the value: it is no longer a guess."""
    answer.choice, answer.choice_needs_review = choice, False
    answer.save(update_fields=["choice", "choice_needs_review"])


# --- closed questions, and the meaning of a drop-down's options ---------------------------------------

# A closed question opens with an auxiliary verb ("Do you …", "Is …") or states a requirement to comply with
# ("Verify that …", "… shall …"); "Describe your company" or "How often …" is open and gets no Yes.
CLOSED_OPENINGS = frozenset(
    "do does did is are was were has have had can could will would should shall may must verify confirm ensure".split()
)
REQUIREMENT = re.compile(r"\b(shall|must)\b", re.IGNORECASE)
FIRST_WORD = re.compile(r"[a-z']+")


def is_closed_question(text: str) -> bool:
    """A question a choice (Yes / No / Partly / N/A) can answer."""
    words = FIRST_WORD.findall(text.lower())
    if words[:1] == ["please"]:
        words = words[1:]
    return bool(words) and (words[0] in CLOSED_OPENINGS or bool(REQUIREMENT.search(text)))


def takes_choice(question) -> bool:
    """Whether a question gets a Yes / No / Partly / N/A anywhere (proposed, shown, exported): only when it is
    worded as a closed question. A questionnaire's choice column runs down every row, "Describe …" included,
    so the column alone does not make a question closed."""
    return is_closed_question(question.text)


# What each option of a list means, tested in this order: "Not applicable" is not "No", "Non-compliant" and
# "Not implemented" are not "compliant"/"implemented", "Partially implemented" is not "implemented".
OPTION_MEANINGS = [
    ("na", re.compile(r"^(n/?a|not applicable|does not apply|not relevant)\b")),
    ("partly", re.compile(r"^(partial|partly|in part|in progress|some\b)|\bpartial(ly)?\b")),
    ("no", re.compile(r"^(no|n|false|non[- ]?compliant|not (implemented|compliant|in place|supported|met))\b")),
    ("yes", re.compile(r"^(yes|y|true|compliant|implemented|fully|in place|supported|met|agree)\b")),
]
MEANING_LABELS = {"yes": "Yes", "no": "No", "partly": "Partly", "na": "N/A"}


def option_meaning(option: str) -> str:
    """ "yes", "no", "partly", "na" or "" for an option of a drop-down list."""
    lowered = " ".join(option.lower().split())
    return next((meaning for meaning, pattern in OPTION_MEANINGS if pattern.search(lowered)), "")


def option_for(meaning: str, options: list[str], answer_text: str = "") -> tuple[str, str]:
    """(the list's own wording of the meaning, a note for the report) — ("", why) when the list has none.

    Graded lists (SAMM: "No", "Yes, for one metrics category", "Yes, for two …") have several options of one
    meaning: the one sharing most words with the answer is taken, else the first (the least it claims)."""
    candidates = [o for o in options if option_meaning(o) == meaning]
    if not candidates:
        return "", f"the cell's list has no option meaning “{MEANING_LABELS[meaning]}”"
    if len(candidates) == 1:
        return candidates[0], ""
    said = stems(answer_text)
    best = max(candidates, key=lambda o: (len(said & stems(o)), -candidates.index(o)))
    return (
        best,
        f"one of {len(candidates)} options meaning “{MEANING_LABELS[meaning]}”, chosen by the answer's wording: check it",
    )
