"""What of an answer may go into the client's own file (issue 20, point 1).

Only an approved or human-edited answer goes out, and without its citation
markers; a placeholder, a rejected draft or an unreviewed one leaves its place
empty, and the export report says why. (The XLSX export's choices of which
answers go out are being built beside this; the two are to become one: the
Word and PDF writers use only the functions of this module.)
"""
import re

from llm_manager.providers.grounding import CITATION

from . import export
from .answering import says_no_support

SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?)])")


def why_left_empty(answer) -> str:
    """Why this answer does not go to the client ("" when it does); worded like the workbook export's report."""
    if answer is None or not answer.final_answer.strip():
        return "no answer yet"
    if says_no_support(answer.final_answer) or (answer.needs_expert and not answer.final_text):
        return "the library has no supporting content (placeholder): an expert must answer"
    if answer.review_verdict == answer.Verdict.REJECTED and not answer.final_text:
        return "rejected by the reviewer"
    if not answer.final_text and answer.review_verdict != answer.Verdict.APPROVED:
        state = answer.get_review_verdict_display().lower() if answer.review_verdict else "not reviewed"
        return f"draft {state}: only approved or edited answers go out"
    return ""


def clean_client_text(answer) -> str | None:
    """The clean text for the client of this answer, or None (then `why_left_empty` says why)."""
    if why_left_empty(answer):
        return None
    text = CITATION.sub(" ", answer.final_answer)
    lines = (SPACE_BEFORE_PUNCTUATION.sub(r"\1", " ".join(line.split())) for line in text.splitlines())
    return "\n".join(lines).strip() or None


def choice_label(choice: str) -> str:
    """Yes / No / N/A as a plain word (a cell without a list of its own)."""
    return export.CHOICE_LABELS[choice]


def choice_from_list(choice: str, items: list[str]) -> str | None:
    """The item of a drop-down that says the answer's Yes / No / N/A, or None when none of them does."""
    value = export.choice_value(choice, items)
    return value if value in items else None
