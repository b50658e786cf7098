"""What goes back to the client: the user's export choices, the clean answer text, and the export report.

Every writer of a client's file (the workbook write-back here, a Word or PDF
questionnaire elsewhere) asks the same three questions and answers them with
these functions, so the choices page and the report read the same for every
format:

- `ExportChoices.from_params(request.GET)`: which answers go out (by default only
  approved or human-edited ones; never a placeholder or a rejected draft), where
  the citations go (nowhere in the answer cell; optionally a column, or a
  companion sheet/CSV), and whether the report is added to the file.
- `outgoing(answer, choices)`: the answer's text with no citation marker and no
  source list, or the reason it stays out.
- `ExportReport`: every question's outcome (written where, left empty and why,
  values normalised), shown before the download and optionally added to the file.
"""

import re
from dataclasses import dataclass, field

from ..models import Answer, Question
from . import choices as choice_rules
from .answering import NOT_ENOUGH_INFORMATION

ANSWERS = {
    "approved": "Approved or edited by a person (recommended)",
    "drafts": "Every draft that is not rejected and not a placeholder",
}
CITATIONS = {
    "none": "Nowhere (the client sees only the answers)",
    "column": "In a column of the questionnaire that I pick",
    "companion": "On a separate “Sources” sheet (and as a CSV download)",
}
# A marker "[1]", "[1, 3]" or "[2–4]" with the space before it; then a trailing "Sources: …" (own line or sentence).
MARKER = re.compile(r"\s*\[\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*\]")
SOURCE_BLOCK = re.compile(r"(?:\n\s*|(?<=[.!?\]])\s+)(sources?|references?)\s*:.*\Z", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ExportChoices:
    answers: str = "approved"
    citations: str = "none"
    citation_column: str = ""  # a column letter, or "" for a new column after each sheet's table
    report_sheet: bool = False

    @classmethod
    def from_params(cls, params) -> "ExportChoices":
        """From a query string; anything unknown falls back to the safe default."""
        column = (params.get("citation_column") or "").strip().upper()
        return cls(
            answers=params.get("answers") if params.get("answers") in ANSWERS else "approved",
            citations=params.get("citations") if params.get("citations") in CITATIONS else "none",
            citation_column=column if re.fullmatch(r"[A-Z]{1,3}", column) else "",
            report_sheet=params.get("report_sheet") in ("1", "on", "true"),
        )

    def as_params(self) -> dict:
        return {
            "answers": self.answers,
            "citations": self.citations,
            "citation_column": self.citation_column,
            "report_sheet": "1" if self.report_sheet else "",
        }


def clean_text(text: str) -> str:
    """The answer as the client reads it: no citation markers, no list of sources."""
    text = SOURCE_BLOCK.sub("", text or "")
    return "\n".join(MARKER.sub("", line).rstrip() for line in text.strip().splitlines()).strip()


def is_placeholder(text: str) -> bool:
    return bool(NOT_ENOUGH_INFORMATION.search(text or ""))


@dataclass
class Outgoing:
    text: str = ""  # empty when the answer stays out
    reason: str = ""  # why it stays out


def outgoing(answer: Answer | None, export_choices: ExportChoices) -> Outgoing:
    """The clean text that goes into the client's file for this answer, or why nothing does."""
    if answer is None or not answer.final_answer.strip():
        return Outgoing(reason="no answer yet")
    if is_placeholder(answer.final_answer):
        return Outgoing(reason="the library has no supporting content (placeholder): an expert must answer")
    edited = bool(answer.final_text.strip())
    if not edited and answer.review_verdict == Answer.Verdict.REJECTED:
        return Outgoing(reason="rejected by the reviewer")
    if export_choices.answers == "approved" and not edited and answer.review_verdict != Answer.Verdict.APPROVED:
        state = answer.get_review_verdict_display().lower() if answer.review_verdict else "not reviewed"
        return Outgoing(reason=f"draft {state}: only approved or edited answers were chosen")
    text = clean_text(answer.final_answer)
    return Outgoing(text=text) if text else Outgoing(reason="nothing left once the citation markers are removed")


def sources_text(answer: Answer | None) -> str:
    """Where an answer comes from, for a citations column or the companion sheet."""
    if answer is None:
        return ""
    passages = answer.cited_passages or answer.citations
    return "; ".join(f"{p['document_title']} (passage {p['chunk_id']})" for p in passages)


def choice_value(
    question: Question, answer: Answer | None, options: list[str] | None, text: str
) -> tuple[str, str, str]:
    """(value to write, why it stays empty, what was normalised) for the question's choice cell.

    `options` is the cell's own drop-down (None: the cell has none, the plain word is written)."""
    if not text:
        return "", "", ""  # the answer stays out: its reason is already reported
    if not choice_rules.is_closed_question(question.text):
        return "", "open question: a Yes/No choice does not answer it", ""
    if answer is None or not answer.choice:
        return "", "no Yes/No/N/A chosen for this answer", ""
    label = choice_rules.MEANING_LABELS[answer.choice]
    if options is None:
        return label, "", ""
    value, note = choice_rules.option_for(answer.choice, options, text)
    if not value:
        return "", note, ""
    return value, "", (f"“{label}” → “{value}”" + (f" ({note})" if note else "")) if value != label else ""


def answered_name(original: str, suffix: str) -> str:
    """The download's name: the client's own, "-answered", with the suffix of what it is."""
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in original.rsplit(".", 1)[0])[:60] or "questions"
    return f"{stem}-answered.{suffix}"


@dataclass
class ReportLine:
    question: str  # its label and the start of its text
    where: str  # "Interview!F18", "table 2, row 3" — whatever the format calls a place
    outcome: str  # written | empty | normalised
    detail: str = ""


@dataclass
class ExportReport:
    """What the export did, question by question (shown before the download; optionally a sheet of the file)."""

    lines: list[ReportLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # file-wide facts (citations column taken, sheet added …)

    def add(self, question: Question, where: str, outcome: str, detail: str = "") -> None:
        name = question.number if question.number and not question.number[0].isdigit() else question.label
        self.lines.append(ReportLine(f"{name} {question.text[:80]}", where, outcome, detail))

    def count(self, outcome: str) -> int:
        return sum(1 for line in self.lines if line.outcome == outcome)

    @property
    def count_written(self) -> int:
        return self.count("written")

    @property
    def count_normalised(self) -> int:
        return self.count("normalised")

    @property
    def count_empty(self) -> int:
        return self.count("empty")

    @property
    def empty_reasons(self) -> list[tuple[str, int]]:
        """Why cells stayed empty, most frequent first."""
        reasons: dict[str, int] = {}
        for line in self.lines:
            if line.outcome == "empty":
                reasons[line.detail] = reasons.get(line.detail, 0) + 1
        return sorted(reasons.items(), key=lambda item: -item[1])

    def rows(self) -> list[list[str]]:
        """The report as a table (the sheet added to the file, a CSV)."""
        return [["Question", "Where", "Outcome", "Detail"]] + [
            [line.question, line.where, line.outcome, line.detail] for line in self.lines
        ]
