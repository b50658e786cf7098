"""Answers into the client's own Word or PDF file, with a report; and a fresh Word file of the answers.

The client's file is the stored upload of the import its questions came from.
Each question kept its place (a sheet and a cell, see `word` and `pdf`); the
export opens a copy, writes each clean answer at its place, and saves once at
the end: an error anywhere leaves nothing half-written. The report, shown
before the download, says for every question what was written where, or why
its place stays empty.
"""
import io
from dataclasses import dataclass

from docx import Document

from ..models import RFP, QuestionImport
from .client_text import clean_client_text, why_left_empty
from .pdf import PdfFormWriter
from .word import WordWriter

DOCUMENT_KINDS = (QuestionImport.Kind.DOCX, QuestionImport.Kind.PDF)
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
CONTENT_TYPES = {QuestionImport.Kind.DOCX: DOCX_TYPE, QuestionImport.Kind.PDF: "application/pdf"}


@dataclass
class ReportLine:
    """One question in the export report."""

    label: str
    question: str
    written: bool
    where: str
    why_empty: str = ""
    choice: str = ""  # the Yes / No / N/A written into the row's choice cell, and where; or why not


def source_document_import(rfp: RFP) -> QuestionImport | None:
    """The latest applied Word or fillable-PDF import whose questions are still here with a place for their answer."""
    imports = rfp.imports.filter(kind__in=DOCUMENT_KINDS, applied_at__isnull=False).exclude(file="")
    for record in imports.order_by("-applied_at"):
        if rfp.questions.filter(source_import=record).exclude(answer_cells={}).exists():
            return record
    return None


def _writer(record: QuestionImport):
    with record.file.open("rb") as handle:
        data = handle.read()
    return WordWriter(data, record.original_name) if record.kind == QuestionImport.Kind.DOCX else PdfFormWriter(data)


def export_into_source_document(rfp: RFP) -> tuple[bytes, QuestionImport, list[ReportLine]]:
    """A copy of the client's document with each clean answer at its place; the report of what went where."""
    record = source_document_import(rfp)
    if record is None:
        raise LookupError("This RFP's questions did not come from a Word document or a fillable PDF.")
    writer = _writer(record)
    questions = rfp.questions.filter(source_import=record).select_related("answer").order_by("order", "pk")
    report = [_place(writer, question, getattr(question, "answer", None)) for question in questions]
    return writer.save(), record, report


def _place(writer, question, answer) -> ReportLine:
    """Write one question's clean answer (and its choice, in a Word table) at its place; say what happened."""
    place, choice_place = question.answer_cells.get("text"), question.answer_cells.get("choice")
    text = clean_client_text(answer)
    line = ReportLine(question.label, question.text, written=False, where="")
    if not place:
        line.why_empty = "no answer place mapped for this question"
    elif text is None:
        line.why_empty = why_left_empty(answer)
    else:
        line.written, line.where = writer.write(question.sheet, place, text)
        line.why_empty = "" if line.written else "the client's own text is in that place (left as it was)"
    if choice_place and text is not None and answer.choice and isinstance(writer, WordWriter):
        written, where = writer.write_choice(question.sheet, choice_place, answer.choice)
        line.choice = f"{answer.get_choice_display()} in {where}" if written else f"not written: {where}"
    return line


def answered_name(original: str, suffix: str) -> str:
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in original.rsplit(".", 1)[0])[:60] or "questions"
    return f"{stem}-answered.{suffix}"


# --- a fresh Word file --------------------------------------------------------------------------------

def export_docx(rfp: RFP) -> bytes:
    """The questions with their numbers and sections, each followed by its clean answer (or left empty)."""
    document = Document()
    document.add_heading(rfp.name, level=0)
    section = None
    for question in rfp.questions.select_related("answer").order_by("order", "pk"):
        if question.section != section:
            section = question.section
            if section:
                document.add_heading(section, level=1)
        asked = document.add_paragraph().add_run(f"{question.number} {question.text}" if question.number else question.text)
        asked.bold = True
        document.add_paragraph(clean_client_text(getattr(question, "answer", None)) or "")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
