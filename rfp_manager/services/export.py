"""Export answers: a fresh XLSX or CSV (the team's working table: sources, verdicts), or the client's own
workbook or CSV with the answers written back — the deliverable, built with services/deliverable.py: only
the answers chosen, clean (no citation markers, no placeholders), choices only from each cell's own
drop-down (questionnaires/dropdowns.py), and a report of every cell written or left empty.

Every cell a user or a model wrote is defused against formula injection: a
spreadsheet must never execute `=HYPERLINK(...)` that came from an answer.
"""

import csv
import io
from copy import copy

from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import MergedCell
from openpyxl.styles import Alignment, Font
from openpyxl.utils import column_index_from_string, get_column_letter
from openpyxl.utils.cell import coordinate_to_tuple

from questionnaires import dropdowns, sheets

from ..models import RFP, QuestionImport
from . import deliverable
from .choices import takes_choice

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
COLUMNS = [
    "Section",
    "Number",
    "Question",
    "Final answer",
    "Sources",
    "Reviewer verdict",
    "Reviewer feedback",
    "Confidence",
    "Approval (a person)",
    "Goes to the client",
    "Choice",
]
WRITE_BACK_HEADER = "Answer (Spelunker)"
DEFAULT_COLUMN_WIDTH = 8.43  # Excel's, in characters, for a column the workbook gives no width


def safe_cell(value) -> str:
    """Prefix a ' to text a spreadsheet would read as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_TRIGGERS) else text


def _sources(answer) -> str:
    passages = answer.cited_passages or answer.citations
    return "; ".join(f"[{p['n']}] {p['document_title']}" for p in passages)


def _verdict(answer) -> str:
    if not answer or not answer.review_verdict:
        return ""
    return answer.get_review_verdict_display() + (
        " (stale: the answer changed since)" if answer.review_is_stale else ""
    )


def answer_rows(rfp: RFP) -> list[list[str]]:
    """The team's working table: every answer with its sources, the reviewer's verdict, the person's approval,
    and whether the recommended client export sends it (deliverable.outgoing) — or why not."""
    recommended = deliverable.ExportChoices()
    rows = []
    for question in rfp.questions.select_related(*deliverable.ANSWER_PEOPLE).order_by("order", "pk"):
        answer = getattr(question, "answer", None)
        out = deliverable.outgoing(answer, recommended)
        rows.append(
            [
                question.section,
                question.number,
                question.text,
                answer.final_answer if answer else "",
                _sources(answer) if answer else "",
                _verdict(answer),
                answer.review_feedback if answer else "",
                "" if not answer or answer.confidence is None else f"{answer.confidence:.2f}",  # the page's number
                deliverable.person_behind(answer) if answer else "",
                "yes" if out.text else f"no: {out.reason}",
                answer.get_choice_display() if answer and answer.choice and takes_choice(question) else "",
            ]
        )
    return [[safe_cell(v) for v in row] for row in rows]


def export_csv(rfp: RFP) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    writer.writerows(answer_rows(rfp))
    return buffer.getvalue().encode("utf-8-sig")  # the BOM makes Excel read UTF-8


def export_xlsx(rfp: RFP) -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Answers"
    sheet.append(COLUMNS)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in answer_rows(rfp):
        sheet.append(row)
    for letter, width in zip("ABCDEFGHIJK", (18, 8, 60, 80, 40, 16, 50, 10, 24, 40, 8)):
        sheet.column_dimensions[letter].width = width
    for row in sheet.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    return _save(workbook)


def _save(workbook) -> bytes:
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def source_file_import(rfp: RFP) -> QuestionImport | None:
    """The latest applied file import (XLSX or CSV) whose questions are still here: the file to write back into."""
    kinds = (QuestionImport.Kind.XLSX, QuestionImport.Kind.CSV)
    imports = rfp.imports.filter(kind__in=kinds, applied_at__isnull=False).exclude(file="")
    for record in imports.order_by("-applied_at"):
        if rfp.questions.filter(source_import=record).exists():
            return record
    return None


class WorkbookCopy:
    """A copy of the client's XLSX, written through openpyxl; its drop-downs read from the original's XML."""

    def __init__(self, data: bytes):
        self.original, self.workbook = data, load_workbook(io.BytesIO(data))
        self.dropdowns = dropdowns.Dropdowns(data)
        self._boxes: dict[str, dict[tuple[int, int], object]] = {}  # per sheet: a merged box by its first cell

    def has_sheet(self, name: str) -> bool:
        return name in self.workbook.sheetnames

    def options(self, sheet: str, coordinate: str) -> list[str] | None:
        return self.dropdowns.options(sheet, coordinate)

    def value(self, sheet: str, coordinate: str):
        return self.workbook[sheet][coordinate].value

    def write(self, sheet: str, coordinate: str, value: str) -> bool:
        """Write into the cell. A merged box holds its value in its first cell: a mapped cell inside
        someone else's box (the question's, the row above's) is left alone rather than overwrite it."""
        cell = self.workbook[sheet][coordinate]
        if isinstance(cell, MergedCell):
            return False
        cell.value = safe_cell(value)
        if "\n" in cell.value or len(cell.value) > self._width(sheet, cell):
            alignment = copy(cell.alignment)
            alignment.wrap_text = True
            cell.alignment = alignment
        return True

    def _width(self, sheet: str, cell) -> float:
        """How many characters the cell shows on one line: its column's width (Excel's unit is about one
        character), or its merged box's columns together. A longer answer is wrapped inside the cell, where
        left unwrapped it ran on as one line over the client's next columns."""
        worksheet = self.workbook[sheet]
        if sheet not in self._boxes:  # read once per sheet, not once per answer written
            self._boxes[sheet] = {(r.min_row, r.min_col): r for r in worksheet.merged_cells.ranges}
        box = self._boxes[sheet].get((cell.row, cell.column))  # a written cell is never inside a box (write())
        first, last = (box.min_col, box.max_col) if box else (cell.column, cell.column)
        default = worksheet.sheet_format.defaultColWidth or DEFAULT_COLUMN_WIDTH
        widths = (worksheet.column_dimensions.get(get_column_letter(c)) for c in range(first, last + 1))
        return sum(dimension.width if dimension and dimension.width else default for dimension in widths)

    def new_column(self, sheet: str, header_row: int | None, header: str) -> int:
        column = self.workbook[sheet].max_column + 1
        if header_row:
            self.workbook[sheet].cell(row=header_row, column=column, value=header).font = Font(bold=True)
        return column

    def add_table(self, title: str, rows: list[list[str]]) -> str:
        """A sheet of our own at the end of the workbook (a name the client's does not use), first row in bold."""
        name, n = title, 2
        while name in self.workbook.sheetnames:
            name, n = f"{title} {n}", n + 1
        sheet = self.workbook.create_sheet(name)
        for row in rows:
            sheet.append([safe_cell(v) for v in row])
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        return f"the added sheet “{name}”"

    def save(self) -> bytes:
        return dropdowns.keep_x14_validations(self.original, _save(self.workbook))


class CsvCopy:
    """A copy of the client's CSV, same delimiter; a CSV has no drop-downs and no sheets to add."""

    def __init__(self, data: bytes):
        self.rows, self.delimiter = sheets.csv_rows(data)

    def has_sheet(self, name: str) -> bool:
        return name == ""

    def options(self, sheet: str, coordinate: str) -> None:
        return None

    def _place(self, coordinate: str) -> tuple[int, int]:
        row, column = coordinate_to_tuple(coordinate)
        while len(self.rows) < row:
            self.rows.append([])
        self.rows[row - 1] += [""] * (column - len(self.rows[row - 1]))
        return row - 1, column - 1

    def value(self, sheet: str, coordinate: str):
        row, column = self._place(coordinate)
        return self.rows[row][column]

    def write(self, sheet: str, coordinate: str, value: str) -> bool:
        row, column = self._place(coordinate)
        self.rows[row][column] = safe_cell(value)
        return True

    def new_column(self, sheet: str, header_row: int | None, header: str) -> int:
        column = max(len(r) for r in self.rows) + 1
        if header_row:
            self.write(sheet, f"{get_column_letter(column)}{header_row}", header)
        return column

    def add_table(self, title: str, rows: list[list[str]]) -> str:
        return f"the “{title}” CSV download (a CSV has no sheets)"

    def save(self) -> bytes:
        buffer = io.StringIO()
        csv.writer(buffer, delimiter=self.delimiter).writerows(self.rows)
        return buffer.getvalue().encode("utf-8-sig")


class _Writer:
    """One export into a copy of the client's file: writes only what its drop-downs allow, and reports."""

    def __init__(self, target, header_rows: dict, export_choices: deliverable.ExportChoices):
        self.target, self.header_rows, self.choices = target, header_rows, export_choices
        self.report = deliverable.ExportReport()
        self.added_columns: dict[tuple[str, str], int] = {}  # (sheet, header) → the column added after its table

    @staticmethod
    def where(sheet: str, coordinate: str) -> str:
        return f"{sheet}!{coordinate}" if sheet else coordinate

    def _options(self, question, sheet: str, coordinate: str) -> tuple[list[str] | None, bool]:
        """The cell's list (None: no list), and False when it has one that cannot be read (reported)."""
        try:
            return self.target.options(sheet, coordinate), True
        except dropdowns.UnreadableList as exc:
            self.report.add(
                question,
                self.where(sheet, coordinate),
                "empty",
                f"the cell's drop-down cannot be read ({exc}): choose the value in Excel",
            )
            return None, False

    def put(
        self,
        question,
        sheet: str,
        coordinate: str,
        value: str,
        normalised: str = "",
        unapproved: bool = False,
        guessed: bool = False,
    ) -> None:
        """Write one value, unless the cell's own list forbids it or it lies inside another cell's merged box."""
        options, readable = self._options(question, sheet, coordinate)
        if not readable:
            return
        where = self.where(sheet, coordinate)
        if options is not None and value not in options:
            return self.report.add(question, where, "empty", "the cell's drop-down does not allow this text")
        if not self.target.write(sheet, coordinate, value):
            return self.report.add(question, where, "empty", "the cell lies inside a merged box")
        note = deliverable.notes_text(
            normalised or (deliverable.UNAPPROVED_NOTE if unapproved else ""),
            deliverable.GUESSED_NOTE if guessed else "",
        )
        self.report.add(question, where, "normalised" if normalised else "written", note, unapproved, guessed)

    def choice(self, question, sheet: str, coordinate: str, answer, text: str) -> None:
        if not text:
            return  # the answer stays out: its text cell's line says why
        options, readable = self._options(question, sheet, coordinate)
        if not readable:
            return
        value, why_empty, normalised = deliverable.choice_value(question, answer, options, text)
        if value:
            self.put(question, sheet, coordinate, value, normalised, guessed=deliverable.choice_is_guessed(answer))
        else:
            self.report.add(question, self.where(sheet, coordinate), "empty", why_empty)

    def added_column(self, sheet: str, header: str) -> int:
        """A column after the sheet's last one (with a header), added once per sheet and purpose."""
        if (sheet, header) not in self.added_columns:
            self.added_columns[(sheet, header)] = self.target.new_column(sheet, self.header_rows.get(sheet), header)
        return self.added_columns[(sheet, header)]

    def question(self, question) -> list[str] | None:
        """Write one question's cells; returns its companion row (sheet, row, ID, question, sources) when answered."""
        sheet, answer = question.sheet, getattr(question, "answer", None)
        cells, out = question.answer_cells, deliverable.outgoing(answer, self.choices)
        if out.text:
            text_cell = (
                cells.get("text")
                or f"{get_column_letter(self.added_column(sheet, WRITE_BACK_HEADER))}{question.source_row}"
            )
            self.put(question, sheet, text_cell, out.text, unapproved=out.unapproved)
        else:  # the client's cell keeps whatever the client put there
            self.report.add(
                question, self.where(sheet, cells.get("text") or f"row {question.source_row}"), "empty", out.reason
            )
        if cells.get("choice"):
            self.choice(question, sheet, cells["choice"], answer, out.text)
        sources = deliverable.sources_text(answer) if out.text else ""
        if sources and self.choices.citations == "column":
            column = (
                column_index_from_string(self.choices.citation_column)
                if self.choices.citation_column
                else self.added_column(sheet, SOURCES_HEADER)
            )
            coordinate = f"{get_column_letter(column)}{question.source_row}"
            if self.target.value(sheet, coordinate) not in (None, ""):
                self.report.add(
                    question,
                    self.where(sheet, coordinate),
                    "empty",
                    "the citations column holds the client's content here: sources not written",
                )
            else:
                self.put(question, sheet, coordinate, sources)
        return [question.sheet, str(question.source_row), question.number, question.text, sources] if sources else None


SOURCES_HEADER = "Sources (Spelunker)"
COMPANION_HEADER = ["Sheet", "Row", "ID", "Question", "Sources"]


def export_into_source_file(
    rfp: RFP, export_choices: deliverable.ExportChoices | None = None
) -> tuple[bytes, str, deliverable.ExportReport]:
    """A copy of the client's workbook (or CSV) with each outgoing answer in its mapped cells; nothing else changes.

    Returns the file, its original name and the report of what was written where, and what stayed empty and why."""
    export_choices = export_choices or deliverable.ExportChoices()
    record = source_file_import(rfp)
    if record is None:
        raise LookupError("This RFP's questions did not come from an XLSX workbook or a CSV file.")
    with record.file.open("rb") as handle:
        data = handle.read()
    target = WorkbookCopy(data) if record.kind == QuestionImport.Kind.XLSX else CsvCopy(data)
    header_rows = {s["name"]: s.get("header_row") for s in record.mapping.get("sheets", [])}
    writer = _Writer(target, header_rows, export_choices)
    questions = rfp.questions.filter(source_import=record, source_row__isnull=False).select_related(
        *deliverable.ANSWER_PEOPLE
    )
    companion = [COMPANION_HEADER]
    for question in questions.order_by("order", "pk"):
        if target.has_sheet(question.sheet):
            companion += [row for row in [writer.question(question)] if row]
    if export_choices.citations == "companion":
        where = target.add_table("Sources", companion)
        writer.report.notes.append(f"The sources of {len(companion) - 1} answers are on {where}.")
    if export_choices.report_sheet:
        writer.report.notes.append(f"This report is {target.add_table('Export report', writer.report.rows())}.")
    return target.save(), record.original_name or "questions.xlsx", writer.report


def sources_csv(rfp: RFP, export_choices: deliverable.ExportChoices) -> bytes:
    """The companion CSV: each outgoing answer's question and where its answer comes from."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["Sheet", "Row", "ID", "Question", "Sources"])
    for question in rfp.questions.select_related(*deliverable.ANSWER_PEOPLE).order_by("order", "pk"):
        answer = getattr(question, "answer", None)
        if deliverable.outgoing(answer, export_choices).text:
            writer.writerow(
                [
                    safe_cell(v)
                    for v in (
                        question.sheet,
                        question.source_row or "",
                        question.number,
                        question.text,
                        deliverable.sources_text(answer),
                    )
                ]
            )
    return buffer.getvalue().encode("utf-8-sig")
