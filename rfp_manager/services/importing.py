"""Question import: parse XLSX, CSV or pasted text into a preview, then apply it.

Parsing never writes questions; it fills a QuestionImport row (good rows and
bad rows with their reason) that the user previews. Applying is idempotent:
each question has a stable key, so importing the same file twice updates the
same rows instead of adding copies.
"""
import csv
import hashlib
import io
import re
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from ..models import Question, QuestionImport

MAX_QUESTION_CHARS = 5000
HEADER_SCAN_ROWS = 10
QUESTION_HEADERS = ("question", "requirement", "query", "questions", "requirements", "description", "item")
SECTION_HEADERS = ("section", "category", "area", "topic", "chapter")
NUMBER_HEADERS = ("no", "no.", "#", "number", "num", "id", "ref", "reference", "question number", "question no", "item no")
ANSWER_HEADERS = ("answer", "response", "vendor response", "reply")


class QuestionImportError(ValueError):
    """The file cannot be read at all (as opposed to a bad row)."""


@dataclass
class ParsedTable:
    """What a parser found: the detected layout, good rows and bad rows."""

    rows: list[dict] = field(default_factory=list)
    bad_rows: list[dict] = field(default_factory=list)
    sheet_name: str = ""
    question_column: int | None = None
    header_row: int | None = None  # 1-based, None when the file has no header row


# --- layout detection --------------------------------------------------------

def normalize_header(value) -> str:
    return " ".join(str(value or "").strip().lower().replace("_", " ").split())


def _find_column(headers: list[str], names: tuple[str, ...], partial: bool = False) -> int | None:
    for i, h in enumerate(headers):
        if h in names:
            return i
    if partial:
        for i, h in enumerate(headers):
            if _looks_like_header(h) and any(name in h for name in names if len(name) > 3):
                return i
    return None


def _looks_like_header(h: str) -> bool:
    """Short, and not an id column ("Question ID" names the number, not the text)."""
    is_number = h in NUMBER_HEADERS or h.endswith((" id", " no", " no.", " number", " #", " ref"))
    return 0 < len(h.split()) <= 4 and not is_number


def _longest_text_column(rows: list[list]) -> int | None:
    """With no recognisable header, the questions are the column with the most text."""
    totals: dict[int, int] = {}
    for row in rows:
        for i, cell in enumerate(row):
            totals[i] = totals.get(i, 0) + len(str(cell or "").strip())
    return max(totals, key=totals.get) if totals and max(totals.values()) else None


@dataclass
class Layout:
    header_index: int | None  # index in the row list of the header row, None when headerless
    question: int
    section: int | None
    number: int | None
    answer: int | None = None


def detect_layout(rows: list[list]) -> Layout:
    """Find the header row and the question/section/number columns."""
    for index, row in enumerate(rows[:HEADER_SCAN_ROWS]):
        headers = [normalize_header(c) for c in row]
        question = _find_column(headers, QUESTION_HEADERS, partial=True)
        if question is not None:
            return Layout(
                header_index=index,
                question=question,
                section=_find_column(headers, SECTION_HEADERS, partial=True),
                number=_find_column(headers, NUMBER_HEADERS),
                answer=_find_column(headers, ANSWER_HEADERS, partial=True),
            )
    question = _longest_text_column(rows)
    if question is None:
        raise QuestionImportError("No question column found: the file has no text.")
    return Layout(header_index=None, question=question, section=None, number=None)


# --- rows → good/bad ---------------------------------------------------------

def _cell(row: list, index: int | None) -> str:
    if index is None or index >= len(row) or row[index] is None:
        return ""
    value = row[index]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return " ".join(str(value).split())


def question_key(section: str, number: str, text: str) -> str:
    """The stable identity of a question inside its RFP (what makes re-import idempotent)."""
    if number:
        return f"n:{section.lower()}|{number.lower().rstrip('.')}"[:300]
    digest = hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()[:32]
    return f"t:{digest}"


def rows_to_table(rows: list[list], first_row_number: int = 1) -> ParsedTable:
    """Turn raw rows into good rows (with their source row number) and bad rows with a reason."""
    layout = detect_layout(rows)
    table = ParsedTable(question_column=layout.question + 1)
    if layout.header_index is not None:
        table.header_row = first_row_number + layout.header_index
    start = 0 if layout.header_index is None else layout.header_index + 1
    seen: dict[str, int] = {}
    for offset, row in enumerate(rows[start:], start=start):
        row_number = first_row_number + offset
        if not any(_cell(row, i) for i in range(len(row))):
            continue  # blank lines are layout, not mistakes
        text = _cell(row, layout.question)
        section = _cell(row, layout.section)[:255]
        number = _cell(row, layout.number)[:50]
        _add_row(table, seen, row_number, section, number, text, unit="row")
    return table


def _add_row(table: ParsedTable, seen: dict, row_number: int, section: str, number: str, text: str, unit: str) -> None:
    """Keep a good question, or list the row with the reason it was left out (empty, too long, duplicate)."""
    reason = _row_problem(text)
    key = question_key(section, number, text) if not reason else ""
    if not reason and key in seen:
        reason = f"duplicate of {unit} {seen[key]}"
    if reason:
        table.bad_rows.append({"row": row_number, "reason": reason, "text": text[:200]})
        return
    seen[key] = row_number
    table.rows.append({"row": row_number, "section": section, "number": number, "text": text, "key": key})


def _row_problem(text: str) -> str:
    if not text:
        return "no question text"
    if len(text) > MAX_QUESTION_CHARS:
        return f"question longer than {MAX_QUESTION_CHARS} characters"
    if len(text) < 3:
        return "question too short"
    return ""


# --- parsers ------------------------------------------------------------------

def parse_xlsx(data: bytes) -> ParsedTable:
    """Read the first sheet that has a question column (most RFP workbooks have one)."""
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a non-workbook
        raise QuestionImportError(f"Not a readable XLSX workbook ({type(exc).__name__}).") from exc
    try:
        last_error = None
        for sheet in workbook.worksheets:
            try:
                rows = [list(r) for r in sheet.iter_rows(values_only=True)]
            except Exception as exc:  # a damaged sheet (truncated XML…) is unreadable, not a crash
                raise QuestionImportError(
                    f"Sheet “{sheet.title}” of the workbook cannot be read ({type(exc).__name__})."
                ) from exc
            try:
                table = rows_to_table(rows)
            except QuestionImportError as exc:
                last_error = exc
                continue
            if table.rows:
                table.sheet_name = sheet.title
                return table
        raise last_error or QuestionImportError("The workbook has no questions.")
    finally:
        workbook.close()


def _decode(data: bytes) -> str:
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding).replace("\x00", "")  # PostgreSQL stores no NUL in text or jsonb
        except UnicodeDecodeError:
            continue
    raise QuestionImportError("The CSV is neither UTF-8 nor Windows-1252 text.")


def parse_csv(data: bytes) -> ParsedTable:
    text = _decode(data)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [list(r) for r in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as exc:  # e.g. a field larger than the csv module's limit
        raise QuestionImportError(f"The CSV cannot be read: {exc}.") from exc
    if not rows:
        raise QuestionImportError("The CSV is empty.")
    return rows_to_table(rows)


NUMBERED_LINE = re.compile(r"^\s*(?:Q(?:uestion)?\s*)?(\d+(?:\.\d+)*)[.):]?\s+(\S.*)$", re.IGNORECASE)
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
        _add_row(table, seen, row_number, section, number, question, unit="line")
    if not table.rows and not table.bad_rows:
        raise QuestionImportError("The text has no questions.")
    return table


# --- the two steps the views call ------------------------------------------

def kind_for_filename(name: str) -> str:
    lowered = name.lower()
    if lowered.endswith((".xlsx", ".xlsm")):
        return QuestionImport.Kind.XLSX
    if lowered.endswith((".csv", ".tsv", ".txt")):
        return QuestionImport.Kind.CSV
    raise QuestionImportError("Upload an .xlsx or .csv file, or paste the questions as text.")


def prepare_import(rfp, user, *, upload=None, pasted_text: str = "") -> QuestionImport:
    """Parse an upload or pasted text into a previewable QuestionImport (no questions written)."""
    if upload is not None:
        kind = kind_for_filename(upload.name)
        data = upload.read()
        table = parse_xlsx(data) if kind == QuestionImport.Kind.XLSX else parse_csv(data)
        upload.seek(0)
    elif pasted_text.strip():
        kind, table = QuestionImport.Kind.TEXT, parse_text(pasted_text)
    else:
        raise QuestionImportError("Choose a file or paste some questions.")
    record = QuestionImport(
        rfp=rfp,
        kind=kind,
        original_name=upload.name[:255] if upload is not None else "",
        sheet_name=table.sheet_name,
        question_column=table.question_column,
        header_row=table.header_row,
        rows=table.rows,
        bad_rows=table.bad_rows,
        created_by=user,
    )
    if kind == QuestionImport.Kind.XLSX:
        record.file.save(upload.name, upload, save=False)  # kept for the write-back export
    record.save()
    return record


def preview(record: QuestionImport) -> list[dict]:
    """The good rows, each marked new or already present (so the user sees nothing duplicates)."""
    existing = set(record.rfp.questions.values_list("import_key", flat=True))
    return [{**row, "exists": row["key"] in existing} for row in record.rows]


def apply_import(record: QuestionImport) -> dict:
    """Write the good rows as questions; re-applying (or re-importing the file) updates in place."""
    with transaction.atomic():
        base_order = _next_order(record)
        created = updated = 0
        for position, row in enumerate(record.rows):
            _, was_created = Question.objects.update_or_create(
                rfp=record.rfp,
                import_key=row["key"],
                defaults=_question_values(record, row, base_order + position),
            )
            created += was_created
            updated += not was_created
        record.applied_at = record.applied_at or timezone.now()
        record.save(update_fields=["applied_at"])
    return {"created": created, "updated": updated, "rejected": len(record.bad_rows)}


def _next_order(record: QuestionImport) -> int:
    """New questions go after the ones already there, unless this file brought them."""
    others = record.rfp.questions.exclude(import_key__in=[r["key"] for r in record.rows])
    last = others.order_by("-order").values_list("order", flat=True).first()
    return 0 if last is None else last + 1


def _question_values(record: QuestionImport, row: dict, order: int) -> dict:
    values = {"section": row["section"], "number": row["number"], "text": row["text"], "order": order}
    if record.kind == QuestionImport.Kind.XLSX:
        values.update(source_import=record, source_row=row["row"])
    return values
