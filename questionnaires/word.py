"""Word questionnaires: read a DOCX into sheets the analysis maps, and write answers back into a copy.

A Word questionnaire holds its questions in two shapes, and each becomes a
sheet, so the same analysis, preview and mapping serve Word and Excel:

- every top-level **table** is a sheet "Table N": its rows and grid columns are
  the sheet's (a merged cell counts once, in its first grid column); a row that
  is one cell across the table is a section heading, and the heading above the
  table names its section;
- the **numbered questions** of the body (Word list numbering or a typed "1.2")
  followed by an answer slot (an empty paragraph or a "Response:" line), or
  worded as questions, become the sheet "Numbered questions" with the columns
  Section (the heading above), No., Question and Response; its row N is the
  body paragraph N - 1 (row 1 is that header).

A place is thus a sheet and a cell ("Table 2" C5, "Numbered questions" D14),
like a workbook's; the write-back re-reads the same stored file and finds the
same cell or paragraph. Only the runs of the answer slots change: styles,
numbering, headers, footers, section properties and every other part of the
package are written back as they were.
"""

import io
import re
import zipfile
from dataclasses import dataclass

from docx import Document
from docx.oxml import OxmlElement
from docx.oxml.ns import nsmap, qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from core.file_limits import FileLimitExceeded, check_word_body, reraise_memory_error
from core.refusals import refusal

from .analysis import NUMBERED_LINE, looks_like_question
from .sheets import ENCRYPTED, LEGACY, Sheet, column_index, column_letter, ole_container

BODY_SHEET = "Numbered questions"
BODY_HEADERS = ("Section", "No.", "Question", "Response")
RESPONSE_LABEL = re.compile(
    r"^\s*((?:vendor |supplier |bidder |your )?(?:response|answer|reply)\s*[:\-–]?)\s*(.*)$", re.IGNORECASE | re.DOTALL
)
# What a client leaves in an answer slot for the respondent to overwrite.
PLACEHOLDER = re.compile(
    r"^[\s_.…\-–\[\]()<>]*$|^\[.*\]$|^<.*>$|click or tap here to enter text|^(insert|enter|type|add) (your )?(response|answer|text)"
    r"|^(vendor|supplier|bidder) to complete|^to be completed|^tbc$|^response here",
    re.IGNORECASE,
)
MACRO_PARTS = ("word/vbaProject.bin",)
ROMAN = (
    ("m", 1000),
    ("cm", 900),
    ("d", 500),
    ("cd", 400),
    ("c", 100),
    ("xc", 90),
    ("l", 50),
    ("xl", 40),
    ("x", 10),
    ("ix", 9),
    ("v", 5),
    ("iv", 4),
    ("i", 1),
)


class WordReadError(ValueError):
    """The file cannot be read as a Word questionnaire (the message says what to do)."""


# --- opening the file ------------------------------------------------------------------------


def check_docx_bytes(data: bytes, name: str) -> None:
    """Refuse, with what to do, a file that is not a plain readable .docx."""
    container = ole_container(data)
    if container == ENCRYPTED:
        raise WordReadError(
            "The document is password-protected (encrypted). Open it in Word, remove the password "
            "(File › Info › Protect Document › Encrypt with Password, clear it), save and upload it again."
        )
    if container == LEGACY:
        raise WordReadError(
            "This is a legacy Word 97–2003 (.doc) file. Open it in Word and save it as .docx, then upload that."
        )
    if name.lower().endswith((".docm", ".dotm")) or _has_macros(data):
        raise WordReadError(
            "The document is macro-enabled (.docm). Macros are not imported or sent back: open it in Word, "
            "save it as “Word Document (.docx)” and upload that."
        )


def _has_macros(data: bytes) -> bool:
    try:
        return any(n in MACRO_PARTS for n in zipfile.ZipFile(io.BytesIO(data)).namelist())
    except zipfile.BadZipFile:
        return False


def open_docx(data: bytes, name: str = ""):
    check_docx_bytes(data, name)
    try:
        return Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises many types for a broken package
        reraise_memory_error(exc)
        raise refusal(
            WordReadError,
            "The document is damaged or is not a Word .docx file. Open it in Word, save it again as .docx and "
            "upload that.",
            exc,
        ) from exc


# --- tables ------------------------------------------------------------------------------------


def grid_cells(row) -> dict[int, object]:
    """A table row's cells by 1-based grid column; a merged cell only at its first column."""
    cells, column, seen = {}, row.grid_cols_before, set()
    for cell in row.cells:
        column += 1
        if id(cell._tc) not in seen:
            seen.add(id(cell._tc))
            cells[column] = cell
    return cells


def _table_sheet(number: int, table: Table, heading: str) -> Sheet:
    sheet = Sheet(name=f"Table {number}", heading=heading)
    width = len(table.columns)
    above: dict[int, object] = {}
    for row_number, row in enumerate(table.rows, start=1):
        cells = grid_cells(row)
        values = {}
        for column, cell in cells.items():
            text = cell.text.strip()
            # A vertically merged cell repeats in every row it spans: its value belongs to the first.
            if text and above.get(column) is not cell._tc and not PLACEHOLDER.search(text):
                values[column] = text
        above = {c: cell._tc for c, cell in cells.items()}
        for column, cell in cells.items():
            items = list_items(content_control(cell._tc))
            if items:  # a drop-down content control: the analysis reads it as the row's choice cell
                sheet.list_validations.append((f"{column_letter(column)}{row_number}", ",".join(items)))
        if values:
            sheet.cells[row_number] = values
        if width > 1 and len(cells) == 1 and row.cells and row.cells[0].grid_span >= width:
            sheet.heading_rows.add(row_number)
    return sheet


# --- numbered questions in the body ---------------------------------------------------------------


class ListNumbers:
    """The numbers Word shows before list paragraphs (they are not in the text): counted in document order."""

    def __init__(self, document):
        self.levels: dict[str, dict[int, tuple[int, str, str]]] = {}  # numId → level → (start, numFmt, lvlText)
        self.counters: dict[str, dict[int, int]] = {}
        try:
            numbering = document.part.numbering_part.element
        except (KeyError, NotImplementedError):
            return
        abstract = {a.get(qn("w:abstractNumId")): self._levels(a) for a in numbering.findall(qn("w:abstractNum"))}
        for num in numbering.findall(qn("w:num")):
            reference = num.find(qn("w:abstractNumId"))
            levels = dict(abstract.get(reference.get(qn("w:val")) if reference is not None else "", {}))
            for override in num.findall(qn("w:lvlOverride")):
                start = override.find(qn("w:startOverride"))
                level = int(override.get(qn("w:ilvl")))
                if start is not None and level in levels:
                    levels[level] = (int(start.get(qn("w:val"))), *levels[level][1:])
            self.levels[num.get(qn("w:numId"))] = levels

    @staticmethod
    def _levels(abstract) -> dict[int, tuple[int, str, str]]:
        levels = {}
        for level in abstract.findall(qn("w:lvl")):

            def value(tag, default):
                element = level.find(qn(tag))  # noqa: B023 (value() is called in this iteration only)
                return element.get(qn("w:val")) if element is not None else default

            levels[int(level.get(qn("w:ilvl")))] = (
                int(value("w:start", "1")),
                value("w:numFmt", "decimal"),
                value("w:lvlText", ""),
            )
        return levels

    def label(self, paragraph: Paragraph) -> str:
        """The paragraph's list number ("3", "2.1", "b") or "" (not a numbered list item, or a bullet)."""
        num_id, level = _numbering_of(paragraph)
        levels = self.levels.get(num_id)
        if not levels or level not in levels:
            return ""
        counters = self.counters.setdefault(num_id, {})
        counters[level] = counters.get(level, levels[level][0] - 1) + 1
        for deeper in [k for k in counters if k > level]:
            del counters[deeper]
        _, fmt, text = levels[level]
        if fmt in ("bullet", "none") or not text:
            return ""
        for shown in range(level + 1):
            value = counters.get(shown, levels.get(shown, (1,))[0])
            text = text.replace(f"%{shown + 1}", _formatted(value, levels.get(shown, (1, "decimal"))[1]))
        return text.strip().rstrip(".):").strip()


def _numbering_of(paragraph: Paragraph) -> tuple[str, int]:
    """(numId, level) from the paragraph's own properties, else from its style's."""
    for holder in (paragraph._p.pPr, _style_ppr(paragraph)):
        num_pr = holder.find(qn("w:numPr")) if holder is not None else None
        if num_pr is not None and num_pr.find(qn("w:numId")) is not None:
            level = num_pr.find(qn("w:ilvl"))
            return num_pr.find(qn("w:numId")).get(qn("w:val")), int(level.get(qn("w:val"))) if level is not None else 0
    return "", 0


def _style_ppr(paragraph: Paragraph):
    style = paragraph.style
    return style.element.pPr if style is not None and style.element is not None else None


def _formatted(value: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter"):
        letter = chr(ord("a") + (value - 1) % 26)
        return letter.upper() if fmt == "upperLetter" else letter
    if fmt in ("lowerRoman", "upperRoman"):
        roman, rest = "", value
        for symbol, amount in ROMAN:
            while rest >= amount:
                roman, rest = roman + symbol, rest - amount
        return roman.upper() if fmt == "upperRoman" else roman
    return str(value)


def is_heading(paragraph: Paragraph) -> bool:
    name = paragraph.style.name if paragraph.style is not None else ""
    return name.startswith("Heading") or name == "Title"


@dataclass
class BodyQuestion:
    paragraph_index: int  # among the document's body paragraphs
    section: str
    number: str
    text: str
    slot_text: str  # what its answer slot holds now ("Response:", a placeholder, "")


def _body_blocks(document):
    """The body's paragraphs (with their index among body paragraphs) and tables, in order."""
    index = 0
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            yield index, block
            index += 1
        else:
            yield None, block


CONTENT_TAGS = (qn("w:p"), qn("w:tbl"), qn("w:sdt"), qn("w:sectPr"))


def answer_slot(question: Paragraph):
    """What right after a question takes its answer, with the text it holds now: a paragraph that is
    empty, a placeholder or a "Response:" line, or a (non drop-down) content control; else (None, "")."""
    following = question._p.getnext()
    while following is not None and following.tag not in CONTENT_TAGS:  # bookmarks, proofing marks
        following = following.getnext()
    if following is None:
        return None, ""
    if following.tag == qn("w:sdt"):
        return (following, "") if not list_items(following) else (None, "")
    if following.tag != qn("w:p"):
        return None, ""
    paragraph = Paragraph(following, question._parent)
    if is_heading(paragraph) or _numbering_of(paragraph)[0]:
        return None, ""
    text = paragraph.text.strip()
    label = RESPONSE_LABEL.match(text)
    if not text or PLACEHOLDER.search(text) or (label and (not label.group(2) or PLACEHOLDER.search(label.group(2)))):
        return paragraph, text
    return None, ""


def body_questions(document) -> list[BodyQuestion]:
    """Numbered paragraphs followed by an answer slot, or worded as questions; headings give sections."""
    numbers = ListNumbers(document)
    found, section = [], ""
    for index, block in _body_blocks(document):
        if index is None:
            continue
        text = " ".join(block.text.split())
        if is_heading(block):
            section = text[:255] if text else section
            continue
        number, question = numbers.label(block), text
        typed = NUMBERED_LINE.match(text)
        if not number and typed:
            number, question = typed.group(1), typed.group(2).strip()
        if not number or not question:
            continue
        slot, slot_text = answer_slot(block)
        if slot is not None or looks_like_question(question):
            found.append(BodyQuestion(index, section, number, question, slot_text))
    return found


def _body_sheet(questions: list[BodyQuestion]) -> Sheet:
    sheet = Sheet(name=BODY_SHEET)
    sheet.cells[1] = dict(enumerate(BODY_HEADERS, start=1))
    for question in questions:
        row = {1: question.section, 2: question.number, 3: question.text, 4: question.slot_text}
        sheet.cells[question.paragraph_index + 2] = {c: v for c, v in row.items() if v}
    return sheet


def read_docx(data: bytes, name: str = "") -> list[Sheet]:
    """The sheets of a Word questionnaire: each top-level table, then the numbered questions of the body."""
    document = open_docx(data, name)
    try:
        check_word_body(document.element.body)
        return _document_sheets(document)
    except FileLimitExceeded:
        raise
    except Exception as exc:  # a package that opens but holds XML python-docx cannot follow (a bad span, a lost style)
        reraise_memory_error(exc)
        raise refusal(
            WordReadError,
            "Part of the document is damaged and cannot be read. Open it in Word, save it again as .docx and "
            "upload that.",
            exc,
        ) from exc


def _document_sheets(document) -> list[Sheet]:
    sheets, heading = [], ""
    for index, block in _body_blocks(document):
        if index is not None:
            heading = " ".join(block.text.split())[:255] if is_heading(block) and block.text.strip() else heading
        else:
            sheets.append(_table_sheet(len(sheets) + 1, block, heading))
    questions = body_questions(document)
    if questions:
        sheets.append(_body_sheet(questions))
    return sheets


# --- content controls (Word's form fields) -----------------------------------------------------------

CONTROLS = etree.XPath(".//w:sdt", namespaces=nsmap)
LIST_ITEMS = etree.XPath("./w:sdtPr/w:dropDownList/w:listItem | ./w:sdtPr/w:comboBox/w:listItem", namespaces=nsmap)
PLACEHOLDER_FLAG = etree.XPath("./w:sdtPr/w:showingPlcHdr", namespaces=nsmap)


def content_control(element):
    """The first content control (w:sdt) inside a cell or paragraph, or None."""
    found = CONTROLS(element)
    return found[0] if found else None


def list_items(sdt) -> list[str]:
    """The display texts of a drop-down or combo-box content control ([] for any other kind)."""
    if sdt is None:
        return []
    return [item.get(qn("w:displayText")) or item.get(qn("w:value")) or "" for item in LIST_ITEMS(sdt)]


def fill_content_control(sdt, text: str) -> None:
    """Replace a content control's content (its grey placeholder included) with the text, in one plain run."""
    content = sdt.find(qn("w:sdtContent"))
    paragraphs = content.findall(qn("w:p"))
    holder = paragraphs[0] if paragraphs else content  # a block control holds paragraphs, an inline one runs
    for child in list(content if not paragraphs else holder):
        if child.tag != qn("w:pPr"):
            child.getparent().remove(child)
    for extra in paragraphs[1:]:
        content.remove(extra)
    run = OxmlElement("w:r")
    for number, line in enumerate(text.split("\n")):
        if number:
            run.append(OxmlElement("w:br"))
        piece = OxmlElement("w:t")
        piece.text = line
        piece.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        run.append(piece)
    holder.append(run)
    for flag in PLACEHOLDER_FLAG(sdt):
        flag.getparent().remove(flag)


# --- writing answers back ---------------------------------------------------------------------------


def write_into_slot(paragraph: Paragraph, answer: str) -> None:
    """Put the answer in the slot paragraph, after its "Response:" label when it has one (or into
    its content control); the paragraph's style, numbering and properties stay, and so does the
    label's formatting."""
    control = content_control(paragraph._p)
    if control is not None and not list_items(control):
        fill_content_control(control, answer)
        return
    label = RESPONSE_LABEL.match(paragraph.text.strip())
    keep = len(label.group(1)) if label else 0
    kept = 0
    for run in list(paragraph.runs):
        if kept >= keep:
            run._r.getparent().remove(run._r)
            continue
        if kept + len(run.text) > keep:
            run.text = run.text[: keep - kept]
        kept += len(run.text)
    _add_answer_run(paragraph, (" " if keep else "") + answer)


def _add_answer_run(paragraph: Paragraph, text: str) -> None:
    """One run holding the answer; line breaks become Word line breaks, not new paragraphs."""
    run = paragraph.add_run()
    for number, line in enumerate(text.split("\n")):
        if number:
            run.add_break()
        run.add_text(line)


def paragraph_after(paragraph: Paragraph, answer: str) -> Paragraph:
    """A new paragraph right after the question (the document had no slot), in the body text style."""
    new = paragraph._p.makeelement(qn("w:p"), {})
    paragraph._p.addnext(new)
    added = Paragraph(new, paragraph._parent)
    _add_answer_run(added, answer)
    return added


def write_cell(cell, answer: str) -> bool:
    """Write into a table's answer cell unless the client's own text is there; False when left alone."""
    text = cell.text.strip()
    if text and not PLACEHOLDER.search(text):
        return False
    control = content_control(cell._tc)
    if control is not None and not list_items(control):
        fill_content_control(control, answer)
        return True
    first, *others = cell.paragraphs
    for extra in others:  # placeholder paragraphs beyond the first
        extra._p.getparent().remove(extra._p)
    write_into_slot(first, answer)
    return True


class WordWriter:
    """A copy of the stored document, written place by place, saved once at the end (never half-written)."""

    def __init__(self, data: bytes, name: str = ""):
        self.document = open_docx(data, name)
        self.tables = self.document.tables
        self.paragraphs = self.document.paragraphs

    def write(self, sheet: str, coordinate: str, answer: str) -> tuple[bool, str]:
        """(written, where) for one answer at its mapped place."""
        if sheet == BODY_SHEET:
            return self._write_body(int(coordinate.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) - 2, answer)
        cell, where = self._cell(sheet, coordinate)
        if cell is None:
            return False, where
        return write_cell(cell, answer), where

    def choice_options(self, sheet: str, coordinate: str) -> list[str] | None:
        """The items of the choice cell's drop-down (a content control), or None when it has none."""
        cell, _ = self._cell(sheet, coordinate)
        items = list_items(content_control(cell._tc)) if cell is not None else []
        return items or None

    def write_choice(self, sheet: str, coordinate: str, value: str) -> tuple[bool, str]:
        """A choice into a table's choice cell: into its drop-down when it has one (`value` is then one of its
        items, see `choice_options`), else as the cell's text."""
        cell, where = self._cell(sheet, coordinate)
        if cell is None:
            return False, where
        control = content_control(cell._tc)
        if list_items(control):
            fill_content_control(control, value)
            return True, where
        return write_cell(cell, value), where

    def _cell(self, sheet: str, coordinate: str):
        match = re.fullmatch(r"([A-Z]+)(\d+)", coordinate)
        column, row = column_index(match.group(1)), int(match.group(2))
        number = int(sheet.rsplit(" ", 1)[-1])
        where = f"{sheet}, row {row}, column {column_letter(column)}"
        cell = grid_cells(self.tables[number - 1].rows[row - 1]).get(column)
        return cell, where if cell is not None else f"{where} (no cell there)"

    def _write_body(self, index: int, answer: str) -> tuple[bool, str]:
        question = self.paragraphs[index]
        slot, _ = answer_slot(question)
        if isinstance(slot, Paragraph):
            write_into_slot(slot, answer)
            return True, f"paragraph {index + 2} (after the question)"
        if slot is not None:
            fill_content_control(slot, answer)
            return True, f"the content control after the question (paragraph {index + 1})"
        paragraph_after(question, answer)
        return True, f"a new paragraph after the question (paragraph {index + 1})"

    def save(self) -> bytes:
        buffer = io.BytesIO()
        self.document.save(buffer)
        return buffer.getvalue()
