"""The row walk: the rows a mapping selects from a questionnaire's sheets, or from pasted text, as questions.

Each question row keeps its place (sheet, row, the cells its answers go into)
and a stable key (its sheet and ID, else its sheet and text), so importing the
same file twice finds the same questions. Every row that is not a question is
listed with the reason (empty, too long, a duplicate, a heading, a banner, a
footer), which the preview shows. Nothing here writes: the caller decides what
becomes a question.
"""

import hashlib
import re
from dataclasses import dataclass, field

from . import analysis, sheets
from .analysis import NUMBERED_LINE, cell_text, normalize_header

MAX_QUESTION_CHARS = 5000
DELETED = re.compile(r"^\[?\s*deleted\b", re.IGNORECASE)
FOOTER = re.compile(
    r"^(end of (the )?(standard|questionnaire|document|survey|questions|assessment|sheet)\b|copyright\b|\(c\)\s*\d{4}|©)"
    r"|all rights reserved",
    re.IGNORECASE,
)


class QuestionImportError(ValueError):
    """The file cannot be read at all (as opposed to a bad row)."""


@dataclass
class ParsedTable:
    """What the mapping selected: good rows and the rows left out, each with its reason."""

    rows: list[dict] = field(default_factory=list)
    bad_rows: list[dict] = field(default_factory=list)


def question_key(scope: str, number: str, text: str) -> str:
    """The stable identity of a question inside its RFP (what makes re-import idempotent).

    `scope` is the sheet for a file (the same ID or wording on two sheets are two
    questions) and the section for pasted text (where numbering restarts per section).
    """
    if number:
        return f"n:{scope.lower()}|{number.lower().rstrip('.')}"[:300]
    digest = hashlib.sha256(f"{scope.lower()}|{' '.join(text.lower().split())}".encode()).hexdigest()[:32]
    return f"t:{digest}"


def _add_row(
    table: ParsedTable,
    seen: dict,
    row_number: int,
    section: str,
    number: str,
    text: str,
    *,
    unit: str,
    scope: str,
    place: dict | None = None,
) -> dict | None:
    """Keep a good question, or list the row with the reason it was left out (empty, too long, duplicate)."""
    place = place or {}
    reason = _row_problem(text)
    key = question_key(scope, number, text) if not reason else ""
    if not reason and key in seen:
        reason = f"duplicate of {unit} {seen[key]}"
    if reason:
        table.bad_rows.append({**_where(place, row_number), "reason": reason, "text": text[:200]})
        return None
    seen[key] = row_number
    row = {
        **_where(place, row_number),
        "section": section,
        "number": number,
        "text": text,
        "key": key,
        "cells": place.get("cells", {}),
    }
    table.rows.append(row)
    return row


def _where(place: dict, row_number: int) -> dict:
    return {"sheet": place.get("sheet", ""), "row": row_number}


def _row_problem(text: str) -> str:
    if not text:
        return "no question text"
    if len(text) > MAX_QUESTION_CHARS:
        return f"question longer than {MAX_QUESTION_CHARS} characters"
    if len(text) < 3:
        return "question too short"
    return ""


# --- a mapped sheet → rows ---------------------------------------------------------------


@dataclass
class SheetPlan:
    """One included sheet's mapping, resolved to columns."""

    sheet: sheets.Sheet
    header_row: int
    question: int
    id: int | None
    sections: list[int]
    choice: int | None
    text: int | None
    header_labels: set[str]
    domain: str  # the question column's header when it names a domain instead of saying "Question"
    ignored: set[int]  # hidden helper columns and cells right of the table: they make no row a question or not

    @classmethod
    def from_spec(cls, sheet: sheets.Sheet, spec: dict) -> "SheetPlan | None":
        roles = {int(c): r for c, r in spec["roles"].items()}
        by_role = {role: [c for c, r in sorted(roles.items()) if r == role] for role in analysis.ROLES}
        if not by_role["question"]:
            return None
        header_row = spec.get("header_row") or 0
        question = by_role["question"][0]
        headers = {c: cell_text(v) for c, v in sheet.cells.get(header_row, {}).items()}
        domain = headers.get(question, "") if analysis.names_a_domain(headers.get(question, "")) else ""
        table_end = max([*headers, *roles]) if headers else sheet.max_column
        ignored = (sheet.hidden_columns - set(roles)) | set(range(table_end + 1, sheet.max_column + 1))
        return cls(
            sheet=sheet,
            header_row=header_row,
            question=question,
            id=(by_role["id"] or [None])[0],
            sections=by_role["section"],
            choice=(by_role["choice"] or [None])[0],
            text=(by_role["text"] or [None])[0],
            header_labels={normalize_header(h) for h in headers.values()},
            domain=domain,
            ignored=ignored,
        )

    def cells_for(self, row: int) -> dict:
        cells = {}
        if self.choice:
            cells["choice"] = f"{sheets.column_letter(self.choice)}{row}"
        if self.text:
            cells["text"] = f"{sheets.column_letter(self.text)}{row}"
        return cells


def _is_banner(plan: SheetPlan, texts: dict) -> bool:
    """The header's labels repeated further down (a banner opening the next block)."""
    repeated = [c for c, t in texts.items() if c != plan.question and normalize_header(t) in plan.header_labels]
    return bool(repeated) and normalize_header(texts.get(plan.question, "")) in plan.header_labels | {""}


def _is_heading(plan: SheetPlan, texts: dict, typical: float) -> bool:
    """A heading alone on its row (often merged across the table), or a section code and name
    ("DOCU | Documentation") where IDs and questions go: it opens a section."""
    code = texts.get(plan.id, "") if plan.id else ""
    name = texts.get(plan.question, "")
    if (
        code
        and name
        and set(texts) == {plan.id, plan.question}
        and not re.search(r"\d", code)
        and len(name) <= 80
        and not analysis.looks_like_question(name)
    ):
        return True
    if len(texts) != 1:
        return False
    ((column, text),) = texts.items()
    if column == plan.id and " " not in text:
        return False  # an ID alone on its row is a question that lost its text, not a heading
    if len(text) > 150 or text.replace(".", "").isdigit():
        return False
    return column != plan.question or (typical >= 2 and not analysis.looks_like_question(text))


def sheet_rows(plan: SheetPlan, table: ParsedTable, seen: dict) -> None:
    """Walk a sheet below its header: questions, and every other row with why it is not one."""
    sheet = plan.sheet
    typical = analysis.typical_filled_cells(sheet, plan.header_row, plan.question)
    heading, ended, previous = plan.domain or sheet.heading, False, None
    # A section column written once per group (or merged over it, which keeps the value in the first row only)
    # holds for the rows below until the next value.
    sections = dict.fromkeys(plan.sections, "")

    def skip(row, reason, text=""):
        table.bad_rows.append({"sheet": sheet.name, "row": row, "reason": reason, "text": text[:200]})

    for row in sorted(r for r in sheet.cells if r > plan.header_row):
        texts = {
            c: t for c, t in ((c, cell_text(v)) for c, v in sheet.cells[row].items() if c not in plan.ignored) if t
        }
        if not texts:
            continue
        question = texts.get(plan.question, "")
        number = texts.get(plan.id, "")[:50] if plan.id else ""
        joined = " ".join(texts.values())
        if ended:
            skip(row, "below the end of the questions", joined)
        elif (
            not re.search(r"\d", number)
            and any(FOOTER.search(t) for t in texts.values())
            and not analysis.looks_like_question(question)
        ):
            ended = True
            skip(row, "end of the questions or copyright notice", joined)
        elif _is_banner(plan, texts):
            heading = next(
                (t for c, t in sorted(texts.items()) if normalize_header(t) not in plan.header_labels), heading
            )
            previous = None
            skip(row, "repeated header row (banner)", joined)
        elif DELETED.match(question):
            previous = None
            skip(row, "deleted requirement", question)
        elif plan.id and not number and previous and previous["row"] == row - 1 and set(texts) == {plan.question}:
            previous["text"] = f"{previous['text']}\n{question}"[:MAX_QUESTION_CHARS]
            skip(row, f"criteria of the question in row {previous['row']} (joined to it)", question)
        elif row in sheet.heading_rows or _is_heading(plan, texts, typical):
            heading = (texts.get(plan.question) or next(iter(texts.values())))[:255]
            previous = None
            skip(row, "section heading", heading)
        else:
            sections.update({c: texts[c] for c in plan.sections if texts.get(c)})
            section = " › ".join(v for v in sections.values() if v)[:255] or heading
            place = {"sheet": sheet.name, "cells": plan.cells_for(row)}
            previous = _add_row(table, seen, row, section, number, question, unit="row", scope=sheet.name, place=place)


def extract(workbook: list[sheets.Sheet], mapping: dict) -> ParsedTable:
    """The questions a mapping selects from the sheets (the preview and the import use the same)."""
    table = ParsedTable()
    for sheet, spec in zip(workbook, mapping["sheets"]):
        if not spec["include"]:
            continue
        plan = SheetPlan.from_spec(sheet, spec)
        if plan is None:
            table.bad_rows.append(
                {"sheet": sheet.name, "row": 0, "reason": "no column is mapped as the question", "text": ""}
            )
            continue
        sheet_rows(plan, table, seen={})
    return table


SECTION_LINE = re.compile(r"^\s*(?:#+\s*|section\s*[:\-]?\s*)(\S.*)$", re.IGNORECASE)


def parse_text(text: str) -> ParsedTable:
    """One question per line; `# Title` or `Section: Title` lines open a section; "1.2 Text" keeps 1.2."""
    table = ParsedTable()
    section = ""
    seen: dict[str, int] = {}
    for row_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        heading = SECTION_LINE.match(line)
        if heading:
            section = heading.group(1).strip()[:255]
            continue
        numbered = NUMBERED_LINE.match(line)
        number, question = (numbered.group(1), numbered.group(2)) if numbered else ("", line)
        question = " ".join(question.split())
        _add_row(table, seen, row_number, section, number, question, unit="line", scope=section)
    if not table.rows and not table.bad_rows:
        raise QuestionImportError("The text has no questions.")
    return table
