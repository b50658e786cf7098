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

from ..models import RFP, QuestionImport

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


def answer_with_sources(answer) -> str:
    """The text that goes into the questionnaire's text cell: the answer, then where it comes from."""
    if answer is None or not answer.final_answer.strip():
        return ""
    sources = _sources(answer)
    return f"{answer.final_answer}\n\nSources: {sources}" if sources else answer.final_answer


def dropdown_options(workbook, sheet, coordinate: str) -> list[str]:
    """The options of the dropdown on a cell, when it has one (inline list or a range of cells)."""
    for validation in sheet.data_validations.dataValidation:
        if validation.type != "list" or coordinate not in validation.sqref:
            continue
        formula = (validation.formula1 or "").strip()
        if formula.startswith('"'):
            return [v.strip() for v in formula.strip('"').split(",")]
        return _range_values(workbook, sheet, formula)
    return []


def _range_values(workbook, sheet, formula: str) -> list[str]:
    name = formula.lstrip("=")
    if name in workbook.defined_names:
        name = workbook.defined_names[name].attr_text
    target_sheet, _, cells = name.rpartition("!")
    target = workbook[target_sheet.strip("'")] if target_sheet.strip("'") in workbook.sheetnames else sheet
    try:
        return [str(c.value) for row in target[cells.replace("$", "")] for c in row if c.value is not None]
    except (ValueError, KeyError, TypeError):  # a reference openpyxl cannot resolve: write the plain word
        return []


CHOICE_WORDS = {"yes": ("yes", "y", "true", "compliant", "implemented"), "no": ("no", "n", "false", "non-compliant"),
                "na": ("n/a", "na", "not applicable")}
CHOICE_LABELS = {"yes": "Yes", "no": "No", "na": "N/A"}


def choice_value(choice: str, allowed: list[str]) -> str:
    """The dropdown's own spelling of Yes / No / N/A (e.g. "Y", "Compliant"), else the plain word."""
    for option in allowed:
        if option.strip().lower() in CHOICE_WORDS[choice]:
            return option
    for option in allowed:
        if option.strip().lower().startswith(CHOICE_WORDS[choice][0]):
            return option
    return CHOICE_LABELS[choice]


def _write(sheet, coordinate: str, value: str) -> None:
    """Write into the cell. A merged box holds its value in its first cell: a mapped cell inside
    someone else's box (the question's, the row above's) is left alone rather than overwrite it."""
    cell = sheet[coordinate]
    if isinstance(cell, MergedCell):
        return
    cell.value = safe_cell(value)
    if "\n" in cell.value:
        alignment = copy(cell.alignment)
        alignment.wrap_text = True
        cell.alignment = alignment


def _added_text_column(sheet, header_row: int | None, added: dict) -> int:
    """A sheet mapped without a text column gets one after its last column (with a header), once."""
    if sheet.title not in added:
        added[sheet.title] = sheet.max_column + 1
        if header_row:
            sheet.cell(row=header_row, column=added[sheet.title], value=WRITE_BACK_HEADER).font = Font(bold=True)
    return added[sheet.title]


def export_into_source_workbook(rfp: RFP) -> tuple[bytes, str]:
    """A copy of the client's workbook with each final answer in its mapped cells; nothing else changes."""
    record = source_workbook_import(rfp)
    if record is None:
        raise LookupError("This RFP's questions did not come from an XLSX workbook.")
    with record.file.open("rb") as handle:
        workbook = load_workbook(io.BytesIO(handle.read()), keep_vba=record.original_name.lower().endswith(".xlsm"))
    header_rows = {s["name"]: s.get("header_row") for s in record.mapping.get("sheets", [])}
    questions = rfp.questions.filter(source_import=record, source_row__isnull=False).select_related("answer")
    added: dict[str, int] = {}
    for question in questions.order_by("order", "pk"):
        if question.sheet not in workbook.sheetnames:
            continue
        sheet, answer = workbook[question.sheet], getattr(question, "answer", None)
        cells = question.answer_cells
        if answer is not None and answer.choice and cells.get("choice"):
            allowed = dropdown_options(workbook, sheet, cells["choice"])
            _write(sheet, cells["choice"], choice_value(answer.choice, allowed))
        text = answer_with_sources(answer)
        if not text:
            continue  # an unanswered question leaves whatever the client put in its cell
        text_cell = cells.get("text") or sheet.cell(
            row=question.source_row, column=_added_text_column(sheet, header_rows.get(question.sheet), added)).coordinate
        _write(sheet, text_cell, text)
    return _save(workbook), record.original_name or "questions.xlsx"
