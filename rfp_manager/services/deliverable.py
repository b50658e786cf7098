"""What goes back to the client: the user's export choices, the clean answer text, and the export report.

Every writer of a client's file (the workbook write-back here, a Word or PDF
questionnaire elsewhere) asks the same three questions and answers them with
these functions, so the choices page and the report read the same for every
format:

- `ExportChoices.from_params(request.GET)`: which answers go out (by default only
  those a person approved or wrote; never a placeholder or a rejected text), where
  the citations go (nowhere in the answer cell; optionally a column, or a
  companion sheet/CSV), and whether the report is added to the file.
- `outgoing(answer, choices)`: THE rule for what goes to the client: the answer's
  text with no citation marker and no source list, or the reason it stays out;
  and, under "every draft", that no person approved it.
- `ExportReport`: every question's outcome (written where, left empty and why,
  values normalised), shown before the download and optionally added to the file.
"""

import re
from dataclasses import dataclass, field

from django.utils import timezone

from core.excerpts import excerpt

from ..models import Answer, Question
from . import choices as choice_rules
from .answering import NOT_ENOUGH_INFORMATION

ANSWERS = {
    "approved": "Approved or written by a person (recommended)",
    "drafts": "Every draft that is not rejected and not a placeholder",
}
CITATIONS = {
    "none": "Nowhere (the client sees only the answers)",
    "column": "In a column of the questionnaire that I pick",
    "companion": "On a separate “Sources” sheet (and as a CSV download)",
}
# A marker "[1]", "[1, 3]" or "[2–4]" with the space before it; then a trailing "Sources: …" (own line or
# sentence, or the whole text).
MARKER = re.compile(r"\s*\[\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*\]")
SOURCE_BLOCK = re.compile(r"(?:\A\s*|\n\s*|(?<=[.!?\]])\s+)(sources?|references?)\s*:.*\Z", re.IGNORECASE | re.DOTALL)


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


# What is never sent, whoever approved it: a note to the team, a template's gap, the responder's "no support".
PLACEHOLDERS = [
    ("TODO", re.compile(r"\bTODO\b", re.IGNORECASE)),
    ("TBD", re.compile(r"\bTB[DC]\b", re.IGNORECASE)),
    ("XXX", re.compile(r"\bXXX+\b", re.IGNORECASE)),
    ("[insert …]", re.compile(r"[\[<{]\s*insert\b", re.IGNORECASE)),
    ("lorem ipsum", re.compile(r"\blorem\b", re.IGNORECASE)),
    ("no supporting content", NOT_ENOUGH_INFORMATION),
]
# What outgoing() reads of an answer's people: select_related(*ANSWER_PEOPLE) on a queryset of questions.
ANSWER_PEOPLE = ("answer", "answer__approved_by", "answer__edited_by")
EMPTY_SHELL = "only citation markers or a list of sources"


def placeholder_in(text: str) -> str:
    """The kind of placeholder the text is or holds ("" for none); an empty citation shell ("[1]", "Sources:")."""
    found = next((name for name, pattern in PLACEHOLDERS if pattern.search(text or "")), "")
    if found or not (text or "").strip():
        return found
    return "" if re.search(r"\w", clean_text(text)) else EMPTY_SHELL


@dataclass
class Outgoing:
    text: str = ""  # empty when the answer stays out
    reason: str = ""  # why it stays out
    unapproved: bool = False  # written under "every draft", though no person approved or wrote it
    awaits_approval: bool = False  # left out of the recommended file only because no person has approved it yet


def person_behind(answer: Answer) -> str:
    """Who vouches for the text shown now: "approved by casey, 27 Nov", "written by casey, 27 Nov", "chosen from the
    answer library by casey, 27 Nov", or "".

    Picking a library entry among the suggestions for this question is a person's reading of the question beside an
    approved answer: it vouches for the text as writing it does (a contributor's pick goes out as their edit would),
    while the owner's approval stays a step of its own.
    """
    if answer.is_approved:
        return f"approved by {_name(answer.approved_by)}, {_day(answer.approved_at)}"
    if answer.library_chosen_by_id and answer.library_entry_id and not answer.final_text:
        return f"chosen from the answer library by {_name(answer.library_chosen_by)}, {_day(answer.generated_at)}"
    if answer.final_text.strip():  # only a person writes final_text (answering.save_final_text)
        who = _name(answer.edited_by) if answer.edited_by_id else "a person"
        return f"written by {who}" + (f", {_day(answer.edited_at)}" if answer.edited_at else "")
    return ""


def _name(user) -> str:
    return user.get_username() if user else "a former user"


def _day(moment) -> str:
    """ "27 Nov", in the site's time zone."""
    local = timezone.localtime(moment)
    return f"{local.day} {local:%b}"


def outgoing(answer: Answer | None, export_choices: ExportChoices) -> Outgoing:
    """The clean text that goes into the client's file for this answer, or why nothing does. The one rule:

    - never a placeholder (PLACEHOLDERS, an empty citation shell), whoever approved it;
    - never a text the reviewer rejected, unless a person approved that very text after all;
    - "approved" (recommended): only a text a person approved or wrote — the reviewer's verdict is no
      approval, and an edit or a redraft since the approval makes it stale (Answer.is_approved);
    - "drafts": every other text too, marked `unapproved` so the report names it.
    """
    if answer is None or not answer.final_answer.strip():
        return Outgoing(reason="no answer yet")
    placeholder = placeholder_in(answer.final_answer)
    if placeholder:
        return Outgoing(reason=f"placeholder ({placeholder}): a person must write the answer")
    vouched = person_behind(answer)
    if answer.review_is_current and answer.review_verdict == Answer.Verdict.REJECTED and not answer.is_approved:
        return Outgoing(reason="rejected by the reviewer, and no person approved it")
    if export_choices.answers == "approved" and not vouched:
        return Outgoing(
            reason=f"{_unapproved_state(answer)}: only answers a person approved or wrote were chosen",
            awaits_approval=not answer.approved_at,
        )
    text = clean_text(answer.final_answer)
    return Outgoing(text=text, unapproved=not vouched)


def _unapproved_state(answer: Answer) -> str:
    """ "no person approved it (reviewer: supported)" — what the answer is, in the report's words."""
    if answer.approved_at:
        return "its approval is stale (the answer changed since)"
    verdict = answer.get_review_verdict_display().lower() if answer.review_is_current else "not reviewed"
    return f"no person approved it (reviewer: {verdict})"


UNAPPROVED_NOTE = "no person approved this answer"
GUESSED_NOTE = "guessed from the draft: no person chose it"


def choice_is_guessed(answer: Answer | None) -> bool:
    """Whether the answer's Yes/No/N/A was read from its draft and no person chose or confirmed it (the page's
    "choice to check"): the report says so beside the cell (GUESSED_NOTE), as approving the text does not check
    its choice."""
    return bool(answer and answer.choice and answer.choice_needs_review)


def notes_text(*notes: str) -> str:
    """A report line's notes, the empty ones left out: "“N/A” → “Not applicable”; guessed from the draft: …"."""
    return "; ".join(note for note in notes if note)


def sources_text(answer: Answer | None) -> str:
    """Where an answer comes from, for a citations column or the companion sheet: each document once, by the
    title a reader knows it by (a passage's database id means nothing to a client)."""
    if answer is None:
        return ""
    passages = answer.cited_passages or answer.citations
    return "; ".join(dict.fromkeys(p["document_title"] for p in passages))


def choice_value(
    question: Question, answer: Answer | None, options: list[str] | None, text: str
) -> tuple[str, str, str]:
    """(value to write, why it stays empty, what was normalised) for the question's choice cell.

    `options` is the cell's own drop-down (None: the cell has none, the plain word is written)."""
    if not text:
        return "", "", ""  # the answer stays out: its reason is already reported
    if not choice_rules.takes_choice(question):
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


REPORT_QUESTION_CHARS = 80  # of a question's text in the report: enough to know it beside its label


@dataclass
class ReportLine:
    question: str  # its label and the start of its text
    where: str  # "Interview!F18", "table 2, row 3" — whatever the format calls a place
    outcome: str  # written | empty | normalised
    detail: str = ""
    unapproved: bool = False  # written, though no person approved or wrote it (the "every draft" choice)
    guessed: bool = False  # a Yes/No/N/A written as read from the draft, that no person chose


@dataclass
class ExportReport:
    """What the export did, question by question (shown before the download; optionally a sheet of the file)."""

    lines: list[ReportLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # file-wide facts (citations column taken, sheet added …)

    def add(
        self,
        question: Question,
        where: str,
        outcome: str,
        detail: str = "",
        unapproved: bool = False,
        guessed: bool = False,
    ) -> None:
        name = question.number if question.number and not question.number[0].isdigit() else question.label
        asked = f"{name} {excerpt(question.text, REPORT_QUESTION_CHARS)}"
        self.lines.append(ReportLine(asked, where, outcome, detail, unapproved, guessed))

    @property
    def unapproved(self) -> list[str]:
        """The answers written that no person approved or wrote (each named once, in file order)."""
        return list(dict.fromkeys(line.question for line in self.lines if line.unapproved))

    @property
    def guessed(self) -> list[str]:
        """The questions whose Yes/No/N/A is written as guessed from the draft, that no person chose (in file order)."""
        return list(dict.fromkeys(line.question for line in self.lines if line.guessed))

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
