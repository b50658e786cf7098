"""Answers into the client's own Word or PDF file, with a report; and a fresh Word file of the answers.

The client's file is the stored upload of the import its questions came from.
Each question kept its place (a sheet and a cell, see `word` and `pdf`); the
export opens a copy, writes each clean answer at its place, and saves once at
the end: an error anywhere leaves nothing half-written. The report, shown
before the download, says for every question what was written where, or why
its place stays empty. Which answers go out, their clean text and the choice
written for them are the workbook export's rules (`deliverable`), so every
format sends the same.
"""

import io
from dataclasses import dataclass

from docx import Document

from questionnaires.pdf import PdfFormWriter
from questionnaires.word import WordWriter

from ..models import RFP, QuestionImport
from . import deliverable

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
    unapproved: bool = False  # written, though no person approved or wrote it (the "every draft" choice)
    guessed: bool = False  # the choice written was read from the draft, and no person chose it


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


def export_into_source_document(
    rfp: RFP, chosen: deliverable.ExportChoices
) -> tuple[bytes, QuestionImport, list[ReportLine]]:
    """A copy of the client's document with each chosen answer, clean, at its place; the report of what went where."""
    record = source_document_import(rfp)
    if record is None:
        raise LookupError("This RFP's questions did not come from a Word document or a fillable PDF.")
    writer = _writer(record)
    questions = (
        rfp.questions.filter(source_import=record).select_related(*deliverable.ANSWER_PEOPLE).order_by("order", "pk")
    )
    report = [_place(writer, question, getattr(question, "answer", None), chosen) for question in questions]
    return writer.save(), record, report


def _place(writer, question, answer, chosen: deliverable.ExportChoices) -> ReportLine:
    """Write one question's clean answer (and its choice, in a Word table) at its place; say what happened."""
    place, choice_place = question.answer_cells.get("text"), question.answer_cells.get("choice")
    out = deliverable.outgoing(answer, chosen)
    line = ReportLine(question.label, question.text, written=False, where="")
    if not place:
        line.why_empty = "no answer place mapped for this question"
    elif not out.text:
        line.why_empty = out.reason
    else:
        line.written, line.where = writer.write(question.sheet, place, out.text)
        line.unapproved = line.written and out.unapproved
        line.why_empty = "" if line.written else "the client's own text is in that place (left as it was)"
    if choice_place and isinstance(writer, WordWriter):
        line.choice, line.guessed = _place_choice(writer, question, answer, choice_place, out.text)
    return line


def _place_choice(writer: WordWriter, question, answer, place: str, text: str) -> tuple[str, bool]:
    """The choice written into the row's choice cell and where (or why it stays empty), for the report; and
    whether what was written is a guess from the draft that no person chose."""
    options = writer.choice_options(question.sheet, place)
    value, why_empty, normalised = deliverable.choice_value(question, answer, options, text)
    if not value:
        return (f"left empty: {why_empty}" if why_empty else ""), False
    written, where = writer.write_choice(question.sheet, place, value)
    if not written:
        return f"not written: {where}", False
    guessed = deliverable.choice_is_guessed(answer)
    notes = deliverable.notes_text(normalised, deliverable.GUESSED_NOTE if guessed else "")
    return f"{value} in {where}" + (f" ({notes})" if notes else ""), guessed


# --- a fresh Word file --------------------------------------------------------------------------------


def export_docx(rfp: RFP, chosen: deliverable.ExportChoices) -> bytes:
    """The questions with their numbers and sections, each followed by its chosen answer, clean (or left empty)."""
    document = Document()
    document.add_heading(rfp.name, level=0)
    section = None
    for question in rfp.questions.select_related(*deliverable.ANSWER_PEOPLE).order_by("order", "pk"):
        if question.section != section:
            section = question.section
            if section:
                document.add_heading(section, level=1)
        asked = document.add_paragraph().add_run(
            f"{question.number} {question.text}" if question.number else question.text
        )
        asked.bold = True
        document.add_paragraph(deliverable.outgoing(getattr(question, "answer", None), chosen).text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
