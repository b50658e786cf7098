"""Export answers: a fresh XLSX or CSV, or the client's own workbook with the answers written back.

Every cell a user or a model wrote is defused against formula injection: a
spreadsheet must never execute `=HYPERLINK(...)` that came from an answer.
"""
import csv
import io
from copy import copy

from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import MergedCell
from openpyxl.styles import Alignment, Font
from openpyxl.utils import column_index_from_string

from ..models import RFP, QuestionImport
from . import deliverable, dropdowns

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
COLUMNS = ["Section", "Number", "Question", "Final answer", "Sources", "Review verdict", "Review feedback", "Review score",
           "Choice"]
WRITE_BACK_HEADER = "Answer (Spelunker)"


def safe_cell(value) -> str:
    """Prefix a ' to text a spreadsheet would read as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_TRIGGERS) else text


def _sources(answer) -> str:
    passages = answer.cited_passages or answer.citations
    return "; ".join(f"[{p['n']}] {p['document_title']} (passage {p['chunk_id']})" for p in passages)


def answer_rows(rfp: RFP) -> list[list[str]]:
    rows = []
    for question in rfp.questions.select_related("answer").order_by("order", "pk"):
        answer = getattr(question, "answer", None)
        rows.append([
            question.section, question.number, question.text,
            answer.final_answer if answer else "",
            _sources(answer) if answer else "",
            answer.get_review_verdict_display() if answer and answer.review_verdict else "",
            answer.review_feedback if answer else "",
            "" if not answer or answer.review_score is None else f"{answer.review_score:.2f}",
            answer.get_choice_display() if answer and answer.choice else "",
        ])
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
    for letter, width in zip("ABCDEFGHI", (18, 8, 60, 80, 40, 16, 50, 10, 8)):
        sheet.column_dimensions[letter].width = width
    for row in sheet.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    return _save(workbook)


def _save(workbook) -> bytes:
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def source_workbook_import(rfp: RFP) -> QuestionImport | None:
    """The latest applied XLSX import whose questions are still here: the workbook to write back into."""
    imports = rfp.imports.filter(kind=QuestionImport.Kind.XLSX, applied_at__isnull=False).exclude(file="")
    for record in imports.order_by("-applied_at"):
        if rfp.questions.filter(source_import=record).exists():
            return record
    return None


def _write(sheet, coordinate: str, value: str) -> bool:
    """Write into the cell. A merged box holds its value in its first cell: a mapped cell inside
    someone else's box (the question's, the row above's) is left alone rather than overwrite it."""
    cell = sheet[coordinate]
    if isinstance(cell, MergedCell):
        return False
    cell.value = safe_cell(value)
    if "\n" in cell.value:
        alignment = copy(cell.alignment)
        alignment.wrap_text = True
        cell.alignment = alignment
    return True


class _Writer:
    """One export into a copy of the client's workbook: writes only what its drop-downs allow, and reports."""

    def __init__(self, workbook, data: bytes, header_rows: dict, export_choices: deliverable.ExportChoices):
        self.workbook, self.header_rows, self.choices = workbook, header_rows, export_choices
        self.dropdowns = dropdowns.Dropdowns(data)
        self.report = deliverable.ExportReport()
        self.added_columns: dict[tuple[str, str], int] = {}  # (sheet, header) → the column added after its table

    def put(self, question, sheet, coordinate: str, value: str, normalised: str = "") -> None:
        """Write one value, unless the cell's own list forbids it or it lies inside another cell's merged box."""
        try:
            options = self.dropdowns.options(sheet.title, coordinate)
        except dropdowns.UnreadableList as exc:
            return self.report.add(question, f"{sheet.title}!{coordinate}", "empty",
                                   f"the cell's drop-down cannot be read ({exc}): choose the value in Excel")
        if options is not None and value not in options:
            return self.report.add(question, f"{sheet.title}!{coordinate}", "empty",
                                   "the cell's drop-down does not allow this text")
        if not _write(sheet, coordinate, value):
            return self.report.add(question, f"{sheet.title}!{coordinate}", "empty", "the cell lies inside a merged box")
        self.report.add(question, f"{sheet.title}!{coordinate}", "normalised" if normalised else "written", normalised)

    def choice(self, question, sheet, coordinate: str, answer, text: str) -> None:
        where = f"{sheet.title}!{coordinate}"
        try:
            options = self.dropdowns.options(sheet.title, coordinate)
        except dropdowns.UnreadableList as exc:
            if text:
                self.report.add(question, where, "empty", f"the cell's drop-down cannot be read ({exc}): choose the value in Excel")
            return
        value, why_empty, normalised = deliverable.choice_value(question, answer, options, text)
        if value:
            self.put(question, sheet, coordinate, value, normalised)
        elif why_empty:
            self.report.add(question, where, "empty", why_empty)

    def added_column(self, sheet, header: str) -> int:
        """A column after the sheet's last one (with a header), added once per sheet and purpose."""
        key = (sheet.title, header)
        if key not in self.added_columns:
            self.added_columns[key] = sheet.max_column + 1
            header_row = self.header_rows.get(sheet.title)
            if header_row:
                sheet.cell(row=header_row, column=self.added_columns[key], value=header).font = Font(bold=True)
        return self.added_columns[key]

    def question(self, question) -> list[str] | None:
        """Write one question's cells; returns its companion row (sheet, row, ID, question, sources) when answered."""
        sheet, answer = self.workbook[question.sheet], getattr(question, "answer", None)
        cells, out = question.answer_cells, deliverable.outgoing(answer, self.choices)
        if out.text:
            text_cell = cells.get("text") or sheet.cell(
                row=question.source_row, column=self.added_column(sheet, WRITE_BACK_HEADER)).coordinate
            self.put(question, sheet, text_cell, out.text)
        else:  # the client's cell keeps whatever the client put there
            where = cells.get("text") or f"row {question.source_row}"
            self.report.add(question, f"{sheet.title}!{where}", "empty", out.reason)
        if cells.get("choice"):
            self.choice(question, sheet, cells["choice"], answer, out.text)
        sources = deliverable.sources_text(answer) if out.text else ""
        if sources and self.choices.citations == "column":
            column = (column_index_from_string(self.choices.citation_column) if self.choices.citation_column
                      else self.added_column(sheet, SOURCES_HEADER))
            cell = sheet.cell(row=question.source_row, column=column)
            if cell.value not in (None, ""):
                self.report.add(question, f"{sheet.title}!{cell.coordinate}", "empty",
                                "the citations column holds the client's content here: sources not written")
            else:
                self.put(question, sheet, cell.coordinate, sources)
        return [question.sheet, str(question.source_row), question.number, question.text, sources] if sources else None

    def free_sheet_name(self, title: str) -> str:
        """A name the client's workbook does not use yet."""
        name, n = title, 2
        while name in self.workbook.sheetnames:
            name, n = f"{title} {n}", n + 1
        return name

    def add_table_sheet(self, name: str, rows: list[list[str]]) -> None:
        """A sheet of our own at the end of the workbook, its first row in bold."""
        sheet = self.workbook.create_sheet(name)
        for row in rows:
            sheet.append([safe_cell(v) for v in row])
        for cell in sheet[1]:
            cell.font = Font(bold=True)


SOURCES_HEADER = "Sources (Spelunker)"
COMPANION_HEADER = ["Sheet", "Row", "ID", "Question", "Sources"]


def export_into_source_workbook(rfp: RFP, export_choices: deliverable.ExportChoices | None = None
                                ) -> tuple[bytes, str, deliverable.ExportReport]:
    """A copy of the client's workbook with each outgoing answer in its mapped cells; nothing else changes.

    Returns the file, its original name and the report of what was written where, and what stayed empty and why."""
    export_choices = export_choices or deliverable.ExportChoices()
    record = source_workbook_import(rfp)
    if record is None:
        raise LookupError("This RFP's questions did not come from an XLSX workbook.")
    with record.file.open("rb") as handle:
        data = handle.read()
    workbook = load_workbook(io.BytesIO(data))
    header_rows = {s["name"]: s.get("header_row") for s in record.mapping.get("sheets", [])}
    writer = _Writer(workbook, data, header_rows, export_choices)
    questions = rfp.questions.filter(source_import=record, source_row__isnull=False).select_related("answer")
    companion = [COMPANION_HEADER]
    for question in questions.order_by("order", "pk"):
        if question.sheet in workbook.sheetnames:
            companion += [row for row in [writer.question(question)] if row]
    if export_choices.citations == "companion":
        name = writer.free_sheet_name("Sources")
        writer.report.notes.append(f"The sources of {len(companion) - 1} answers are on the added sheet “{name}”.")
        writer.add_table_sheet(name, companion)
    if export_choices.report_sheet:
        name = writer.free_sheet_name("Export report")
        writer.report.notes.append(f"This report is the added sheet “{name}”.")
        writer.add_table_sheet(name, writer.report.rows())
    return dropdowns.keep_x14_validations(data, _save(workbook)), record.original_name or "questions.xlsx", writer.report


def sources_csv(rfp: RFP, export_choices: deliverable.ExportChoices) -> bytes:
    """The companion CSV: each outgoing answer's question and where its answer comes from."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["Sheet", "Row", "ID", "Question", "Sources"])
    for question in rfp.questions.select_related("answer").order_by("order", "pk"):
        answer = getattr(question, "answer", None)
        if deliverable.outgoing(answer, export_choices).text:
            writer.writerow([safe_cell(v) for v in (question.sheet, question.source_row or "", question.number,
                                                     question.text, deliverable.sources_text(answer))])
    return buffer.getvalue().encode("utf-8-sig")
