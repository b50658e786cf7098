"""Export answers: a fresh XLSX or CSV, or the client's own workbook with the answers written back.

Every cell a user or a model wrote is defused against formula injection: a
spreadsheet must never execute `=HYPERLINK(...)` that came from an answer.
"""
import csv
import io

from openpyxl import Workbook, load_workbook
from openpyxl.styles import Alignment, Font

from ..models import RFP, QuestionImport
from .importing import ANSWER_HEADERS, normalize_header

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
COLUMNS = ["Section", "Number", "Question", "Final answer", "Sources", "Review verdict", "Review feedback", "Review score"]
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
    for letter, width in zip("ABCDEFGH", (18, 8, 60, 80, 40, 16, 50, 10)):
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


def _answer_column(sheet, header_row: int | None) -> int:
    """The sheet's own answer/response column if it has one, else a new column after the last."""
    if header_row:
        for cell in sheet[header_row]:
            if any(name in normalize_header(cell.value) for name in ANSWER_HEADERS):
                return cell.column
    column = sheet.max_column + 1
    if header_row:
        sheet.cell(row=header_row, column=column, value=WRITE_BACK_HEADER).font = Font(bold=True)
    return column


def export_into_source_workbook(rfp: RFP) -> tuple[bytes, str]:
    """A copy of the client's workbook with each final answer in the question's row."""
    record = source_workbook_import(rfp)
    if record is None:
        raise LookupError("This RFP's questions did not come from an XLSX workbook.")
    with record.file.open("rb") as handle:
        workbook = load_workbook(io.BytesIO(handle.read()))
    sheet = workbook[record.sheet_name] if record.sheet_name in workbook.sheetnames else workbook.active
    questions = list(rfp.questions.filter(source_import=record, source_row__isnull=False).select_related("answer"))
    column = _answer_column(sheet, record.header_row)
    for question in questions:
        answer = getattr(question, "answer", None)
        cell = sheet.cell(row=question.source_row, column=column, value=safe_cell(answer.final_answer if answer else ""))
        cell.alignment = Alignment(wrap_text=True, vertical="top")
    return _save(workbook), record.original_name or "questions.xlsx"
