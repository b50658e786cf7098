"""PDF questionnaires: a fillable form's text fields, or a text PDF's numbered questions, as a sheet.

- A PDF with form fields becomes the sheet "Form fields": one row per text
  field, in reading order (page, then top to bottom, left to right); row N is
  field N - 1 (row 1 is the header; the last column shows the field's name). The question is the field's tooltip (what
  a screen reader says), else the nearest line of text above the field. The
  export fills those fields in a copy of the file.
- A PDF without fields becomes the sheet "PDF text": its numbered lines (a
  wrapped question's next lines joined to it) under the short unnumbered lines
  that head them. It has no place for answers: its answers go out as a fresh
  DOCX or XLSX with the same numbers.
"""

import io
from dataclasses import dataclass

from pypdf import PdfReader, PdfWriter
from pypdf.errors import LimitReachedError

from core.file_limits import (
    CHARACTERS,
    PDF_PAGES,
    FileLimitExceeded,
    Tally,
    check_pdf_page,
    pdf_limit_message,
    pdf_reading_limits,
    refuse_over,
    reraise_memory_error,
)
from core.refusals import refusal

from .analysis import NUMBERED_LINE
from .sheets import Sheet

FORM_SHEET = "Form fields"
TEXT_SHEET = "PDF text"
FORM_HEADERS = ("No.", "Question", "Response", "Field")
TEXT_HEADERS = ("Section", "No.", "Question")
MAX_HEADING_CHARS = 80


class PdfQuestionnaireError(ValueError):
    """The PDF cannot be read as a questionnaire (the message says what to do)."""


def open_pdf(data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):  # an owner password alone still opens with ""
            raise PdfQuestionnaireError(
                "The PDF is password-protected. Open it with its password, save or print it as a PDF without a password "
                "and upload that."
            )
        len(reader.pages)  # reading the page tree is what fails on a broken file
    except PdfQuestionnaireError:
        raise
    except LimitReachedError as exc:
        raise PdfQuestionnaireError(pdf_limit_message(exc)) from exc
    except Exception as exc:  # pypdf raises many types for a broken file
        reraise_memory_error(exc)
        raise refusal(
            PdfQuestionnaireError,
            "The PDF is damaged and cannot be read. Open it in a PDF reader, save it again as PDF and upload that.",
            exc,
        ) from exc
    return reader


# --- form fields ------------------------------------------------------------------------------------


@dataclass
class FormField:
    name: str  # fully qualified, as pypdf fills it
    tooltip: str
    page: int
    top: float
    left: float
    value: str


def _qualified_name(widget) -> str:
    parts, node = [], widget
    while node is not None:
        if "/T" in node:
            parts.append(str(node["/T"]))
        node = node.get("/Parent").get_object() if "/Parent" in node else None
    return ".".join(reversed(parts))


def _inherited(widget, key: str):
    node = widget
    while node is not None:
        if key in node:
            return node[key]
        node = node.get("/Parent").get_object() if "/Parent" in node else None
    return None


def text_fields(reader: PdfReader) -> list[FormField]:
    """Every text field's widget, in reading order (a field shown twice counts once, where it first appears)."""
    fields, seen = [], set()
    for number, page in enumerate(reader.pages):
        for annotation in page.get("/Annots") or []:
            widget = annotation.get_object()
            if widget.get("/Subtype") != "/Widget" or _inherited(widget, "/FT") != "/Tx":
                continue
            name = _qualified_name(widget)
            if not name or name in seen:
                continue
            seen.add(name)
            left, bottom, right, top = (float(v) for v in widget.get("/Rect", [0, 0, 0, 0]))
            fields.append(
                FormField(
                    name,
                    str(_inherited(widget, "/TU") or ""),
                    number,
                    max(top, bottom),
                    min(left, right),
                    str(_inherited(widget, "/V") or ""),
                )
            )
    return sorted(fields, key=lambda f: (f.page, -f.top, f.left))


def _page_lines(page) -> list[tuple[float, str]]:
    """(baseline height, text) of a page's lines, as drawn."""
    pieces: list[tuple[float, str]] = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            pieces.append((round(tm[5] * cm[3] + cm[5], 1), text))

    page.extract_text(visitor_text=visit)
    lines: dict[float, list[str]] = {}
    for height, text in pieces:
        lines.setdefault(height, []).append(text)
    return [(height, " ".join("".join(parts).split())) for height, parts in lines.items()]


def _label_above(lines: list[tuple[float, str]], field: FormField) -> str:
    above = [(height, text) for height, text in lines if height >= field.top - 2 and text]
    return min(above, key=lambda line: line[0])[1] if above else ""


def _form_sheet(reader: PdfReader, fields: list[FormField]) -> Sheet:
    sheet = Sheet(name=FORM_SHEET)
    sheet.cells[1] = dict(enumerate(FORM_HEADERS, start=1))
    lines = {}
    for row, field in enumerate(fields, start=2):
        question = field.tooltip
        if not question:
            if field.page not in lines:
                lines[field.page] = _page_lines(reader.pages[field.page])
            question = _label_above(lines[field.page], field)
        numbered = NUMBERED_LINE.match(question)
        number, text = (numbered.group(1), numbered.group(2)) if numbered else ("", question)
        # The field's name on every row: a label-only field ("Company name") is a place to fill, not a heading.
        sheet.cells[row] = {c: v for c, v in {1: number, 2: text, 3: field.value, 4: field.name}.items() if v}
    return sheet


# --- text ----------------------------------------------------------------------------------------------


def _text_sheet(reader: PdfReader) -> Sheet:
    sheet = Sheet(name=TEXT_SHEET)
    sheet.cells[1] = dict(enumerate(TEXT_HEADERS, start=1))
    section, current, row, tally = "", None, 1, Tally()
    for page in reader.pages:
        check_pdf_page(page)
        text = page.extract_text() or ""
        tally.add(CHARACTERS, len(text))
        for line in (" ".join(raw.split()) for raw in text.splitlines()):
            if not line:
                current = None
                continue
            numbered = NUMBERED_LINE.match(line)
            if numbered:
                row += 1
                current = {1: section, 2: numbered.group(1), 3: numbered.group(2)}
                sheet.cells[row] = {c: v for c, v in current.items() if v}
            elif current is not None and not current[3].endswith(("?", ".", ":")):
                current[3] = f"{current[3]} {line}"  # the question wraps onto this line
                sheet.cells[row][3] = current[3]
            elif len(line) <= MAX_HEADING_CHARS and not line.endswith((".", ",", ";")):
                section, current = line, None
    return sheet


def read_pdf(data: bytes) -> list[Sheet]:
    """The PDF's sheet, read under pypdf's limits set from ours (core.file_limits); its pages counted first."""
    with pdf_reading_limits():
        reader = open_pdf(data)
        refuse_over(PDF_PAGES, len(reader.pages))
        try:
            fields = text_fields(reader)
            return [_form_sheet(reader, fields)] if fields else [_text_sheet(reader)]
        except FileLimitExceeded:
            raise
        except LimitReachedError as exc:
            raise PdfQuestionnaireError(pdf_limit_message(exc)) from exc
        except Exception as exc:  # pypdf parses lazily: a broken page or field fails here, with many exception types
            reraise_memory_error(exc)
            raise refusal(
                PdfQuestionnaireError,
                "Part of the PDF is damaged and cannot be read. Open it in a PDF reader, save it again as PDF and "
                "upload that.",
                exc,
            ) from exc


# --- filling the form --------------------------------------------------------------------------------


class PdfFormWriter:
    """A copy of the stored PDF with its text fields filled; everything else is copied as it was."""

    def __init__(self, data: bytes):
        reader = open_pdf(data)
        self.fields = text_fields(reader)
        self.writer = PdfWriter(clone_from=reader)
        self.values: dict[str, str] = {}

    def write(self, sheet: str, coordinate: str, answer: str) -> tuple[bool, str]:
        index = int("".join(c for c in coordinate if c.isdigit())) - 2
        if sheet != FORM_SHEET or not 0 <= index < len(self.fields):
            return False, f"{sheet} {coordinate} (no such field)"
        field = self.fields[index]
        self.values[field.name] = answer
        return True, f"form field “{field.name}” (page {field.page + 1})"

    def save(self) -> bytes:
        if self.values:
            self.writer.update_page_form_field_values(None, self.values, auto_regenerate=False)
            self.writer.set_need_appearances_writer(True)  # readers redraw the filled fields
        buffer = io.BytesIO()
        self.writer.write(buffer)
        return buffer.getvalue()
