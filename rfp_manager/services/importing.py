"""Question import: a questionnaire file (XLSX, CSV) or pasted text into a preview, then into questions.

A file goes through three steps (see DESIGN.md, "Real inputs, measured answers"):
`analysis` proposes a mapping (which sheets, header rows, column roles), the
user may correct it in the preview (`remap`), and the rows it selects become
questions that keep their place: sheet, row, ID and the cells their answers go
into. Parsing never writes questions; applying is idempotent: each question
has a stable key (its sheet and ID, else its sheet and text), so importing the
same file twice updates the same rows instead of adding copies.
"""
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from spelunker.storage import save_or_refuse

from ..models import RFP, ImportFormat, Question, QuestionImport
from . import analysis, sheets
from .analysis import cell_text, normalize_header

MAX_QUESTION_CHARS = 5000
IMPORT_BATCH = 500
PREVIEW_ROWS_PER_SHEET = 5
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


def _add_row(table: ParsedTable, seen: dict, row_number: int, section: str, number: str, text: str, *,
             unit: str, scope: str, place: dict | None = None) -> dict | None:
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
    row = {**_where(place, row_number), "section": section, "number": number, "text": text, "key": key,
           "cells": place.get("cells", {})}
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
            sheet=sheet, header_row=header_row, question=question,
            id=(by_role["id"] or [None])[0], sections=by_role["section"],
            choice=(by_role["choice"] or [None])[0], text=(by_role["text"] or [None])[0],
            header_labels={normalize_header(h) for h in headers.values()}, domain=domain, ignored=ignored,
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
    if code and name and set(texts) == {plan.id, plan.question} and not re.search(r"\d", code) \
            and len(name) <= 80 and not analysis.looks_like_question(name):
        return True
    if len(texts) != 1:
        return False
    (column, text), = texts.items()
    if column == plan.id and " " not in text:
        return False  # an ID alone on its row is a question that lost its text, not a heading
    if len(text) > 150 or text.replace(".", "").isdigit():
        return False
    return column != plan.question or (typical >= 2 and not analysis.looks_like_question(text))


def sheet_rows(plan: SheetPlan, table: ParsedTable, seen: dict) -> None:
    """Walk a sheet below its header: questions, and every other row with why it is not one."""
    sheet = plan.sheet
    typical = analysis.typical_filled_cells(sheet, plan.header_row, plan.question)
    heading, ended, previous = plan.domain, False, None
    # A section column written once per group (or merged over it, which keeps the value in the first row only)
    # holds for the rows below until the next value.
    sections = dict.fromkeys(plan.sections, "")

    def skip(row, reason, text=""):
        table.bad_rows.append({"sheet": sheet.name, "row": row, "reason": reason, "text": text[:200]})

    for row in sorted(r for r in sheet.cells if r > plan.header_row):
        texts = {c: t for c, t in ((c, cell_text(v)) for c, v in sheet.cells[row].items() if c not in plan.ignored) if t}
        if not texts:
            continue
        question = texts.get(plan.question, "")
        number = texts.get(plan.id, "")[:50] if plan.id else ""
        joined = " ".join(texts.values())
        if ended:
            skip(row, "below the end of the questions", joined)
        elif not re.search(r"\d", number) and any(FOOTER.search(t) for t in texts.values()) \
                and not analysis.looks_like_question(question):
            ended = True
            skip(row, "end of the questions or copyright notice", joined)
        elif _is_banner(plan, texts):
            heading = next((t for c, t in sorted(texts.items()) if normalize_header(t) not in plan.header_labels), heading)
            previous = None
            skip(row, "repeated header row (banner)", joined)
        elif DELETED.match(question):
            previous = None
            skip(row, "deleted requirement", question)
        elif plan.id and not number and previous and previous["row"] == row - 1 and set(texts) == {plan.question}:
            previous["text"] = f"{previous['text']}\n{question}"[:MAX_QUESTION_CHARS]
            skip(row, f"criteria of the question in row {previous['row']} (joined to it)", question)
        elif _is_heading(plan, texts, typical):
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
            table.bad_rows.append({"sheet": sheet.name, "row": 0, "reason": "no column is mapped as the question", "text": ""})
            continue
        sheet_rows(plan, table, seen={})
    return table


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
        _add_row(table, seen, row_number, section, number, question, unit="line", scope=section)
    if not table.rows and not table.bad_rows:
        raise QuestionImportError("The text has no questions.")
    return table


# --- the steps the views call ------------------------------------------------------------

def kind_for_filename(name: str) -> str:
    lowered = name.lower()
    if lowered.endswith((".xlsx", ".xlsm")):
        return QuestionImport.Kind.XLSX
    if lowered.endswith((".csv", ".tsv", ".txt")):
        return QuestionImport.Kind.CSV
    if lowered.endswith(".xls"):
        raise QuestionImportError("Legacy .xls files cannot be read. Open it in Excel and save it as .xlsx, then upload that.")
    raise QuestionImportError("Upload an .xlsx or .csv file, or paste the questions as text.")


def read_sheets(data: bytes, kind: str, name: str = "") -> list[sheets.Sheet]:
    try:
        sheets.check_questionnaire_bytes(data, name)
        return sheets.read_workbook(data) if kind == QuestionImport.Kind.XLSX else sheets.read_csv(data)
    except sheets.SheetReadError as exc:
        raise QuestionImportError(str(exc)) from exc


def _no_questions_message(mapping: dict) -> str:
    reasons = "; ".join(f"“{s['name'] or 'the file'}”: {s['reason']}" for s in mapping["sheets"])
    return (f"No sheet has a question-like column ({reasons}). Check that this is the questionnaire itself; if it is, "
            "paste its questions as text (one per line) instead.")


def propose_mapping(workbook: list[sheets.Sheet]) -> tuple[dict, str, str]:
    """The mapping to start from: the one saved for this structure, else the analysis. Returns it, its source, the fingerprint."""
    proposed = analysis.analyse(workbook)
    structure = analysis.fingerprint(workbook, proposed)
    saved = ImportFormat.objects.filter(fingerprint=structure).first()
    if saved is not None:
        return saved.mapping, QuestionImport.MappingSource.SAVED, structure
    if not any(s["include"] for s in proposed["sheets"]):
        raise QuestionImportError(_no_questions_message(proposed))
    return proposed, QuestionImport.MappingSource.PROPOSED, structure


def prepare_import(rfp, user, *, upload=None, pasted_text: str = "") -> QuestionImport:
    """Analyse an upload (or parse pasted text) into a previewable QuestionImport (no questions written)."""
    record = QuestionImport(rfp=rfp, created_by=user)
    if upload is not None:
        record.kind = kind_for_filename(upload.name)
        data = upload.read()
        workbook = read_sheets(data, record.kind, upload.name)
        record.mapping, record.mapping_source, record.fingerprint = propose_mapping(workbook)
        table = extract(workbook, record.mapping)
        if record.kind == QuestionImport.Kind.XLSX:
            record.lost_features = sheets.features_lost_on_save(data)
        record.original_name = upload.name[:255]
        upload.seek(0)
        # Kept for remapping and the write-back export.
        save_or_refuse(record.file, upload.name, upload, QuestionImportError)
    elif pasted_text.strip():
        record.kind, table = QuestionImport.Kind.TEXT, parse_text(pasted_text)
    else:
        raise QuestionImportError("Choose a file or paste some questions.")
    record.rows, record.bad_rows = table.rows, table.bad_rows
    record.save()
    return record


def _load_sheets(record: QuestionImport) -> list[sheets.Sheet]:
    with record.file.open("rb") as handle:
        return read_sheets(handle.read(), record.kind, record.original_name)


def remap(record: QuestionImport, sheet_index: int, *, include=None, header_row=None, column=None, role=None) -> QuestionImport:
    """One correction of the mapping (a sheet in or out, its header row, a column's role), re-read at once."""
    workbook = _load_sheets(record)
    mapping = record.mapping
    spec = mapping["sheets"][sheet_index]
    if header_row is not None and header_row != spec["header_row"]:
        spec.update({k: v for k, v in analysis.analyse_sheet(workbook[sheet_index], header_row).items()
                     if k in ("header_row", "headers", "roles")})
    if include is not None:
        spec["include"] = include
    if column is not None and role in analysis.ROLES:
        roles = {c: r for c, r in spec["roles"].items() if c != str(column)}
        if role in ("question", "id"):  # one question and one ID column per sheet: the new one replaces the old
            roles = {c: r for c, r in roles.items() if r != role}
        if role != "ignore":
            roles[str(column)] = role
        spec["roles"] = dict(sorted(roles.items(), key=lambda item: int(item[0])))
    table = extract(workbook, mapping)
    record.mapping, record.rows, record.bad_rows = mapping, table.rows, table.bad_rows
    record.mapping_source = QuestionImport.MappingSource.EDITED
    record.save(update_fields=["mapping", "rows", "bad_rows", "mapping_source"])
    return record


def sheet_summaries(record: QuestionImport) -> list[dict]:
    """Per sheet of the mapping: included or why not, counts, its first questions and skipped rows."""
    kept = Counter(row["sheet"] for row in record.rows)
    skipped = Counter(row["sheet"] for row in record.bad_rows)
    summaries = []
    for index, spec in enumerate(record.mapping.get("sheets", [])):
        name = spec["name"]
        headers = spec["headers"]
        columns = sorted({*map(int, headers), *map(int, spec["roles"])})
        summaries.append({
            "index": index, "spec": spec, "questions": kept[name], "skipped": skipped[name],
            "columns": [{"number": c, "letter": sheets.column_letter(c), "header": headers.get(str(c), ""),
                         "role": spec["roles"].get(str(c), "ignore"), "note": spec.get("notes", {}).get(str(c), "")}
                        for c in columns],
            "first_rows": [r for r in record.rows if r["sheet"] == name][:PREVIEW_ROWS_PER_SHEET],
        })
    return summaries


def preview(record: QuestionImport) -> list[dict]:
    """The good rows, each marked new or already present (so the user sees nothing duplicates)."""
    existing = set(record.rfp.questions.values_list("import_key", flat=True))
    return [{**row, "exists": row["key"] in existing} for row in record.rows]


def remember_format(record: QuestionImport) -> None:
    """The next file of this structure starts from this mapping (one click for the tenth of a kind)."""
    if record.fingerprint:
        ImportFormat.objects.update_or_create(
            fingerprint=record.fingerprint,
            defaults={"mapping": record.mapping, "example_name": record.original_name, "saved_by": record.created_by},
        )


def apply_import(record: QuestionImport) -> dict:
    """Write the good rows as questions; re-applying (or re-importing the file) updates in place.

    In bulk: a 10,000-question workbook is applied within one request (a row-by-row
    update_or_create took about 90 s there). The unique (rfp, import_key) constraint keeps a
    concurrent or repeated apply from doubling questions."""
    with transaction.atomic():
        # Two applies to one RFP at once (a double click) would both insert the same new keys.
        RFP.objects.select_for_update().filter(pk=record.rfp_id).values_list("pk", flat=True).get()
        new, changed = _questions_to_write(record)
        Question.objects.bulk_create(new, batch_size=IMPORT_BATCH)
        if changed:
            fields = list(_question_values(record, record.rows[0], 0))
            Question.objects.bulk_update(changed, fields=fields, batch_size=IMPORT_BATCH)
        record.applied_at = record.applied_at or timezone.now()
        record.save(update_fields=["applied_at"])
        remember_format(record)
    return {"created": len(new), "updated": len(changed), "rejected": len(record.bad_rows)}


def _questions_to_write(record: QuestionImport) -> tuple[list[Question], list[Question]]:
    """New questions, and the RFP's questions this file brings again, updated in memory.

    New questions go after the ones already there, unless this file brought them. The RFP's
    questions are read whole rather than filtered by key: an IN list of 10,000 keys passes
    SQLite's limit on query parameters."""
    keys = {row["key"] for row in record.rows}
    current = list(record.rfp.questions.all())
    existing = {q.import_key: q for q in current if q.import_key in keys}
    base_order = max((q.order for q in current if q.import_key not in keys), default=-1) + 1
    new, changed = [], []
    for position, row in enumerate(record.rows):
        values = _question_values(record, row, base_order + position)
        question = existing.get(row["key"])
        if question is None:
            new.append(Question(rfp=record.rfp, import_key=row["key"], **values))
            continue
        for name, value in values.items():
            setattr(question, name, value)
        changed.append(question)
    return new, changed


def _question_values(record: QuestionImport, row: dict, order: int) -> dict:
    values = {"section": row["section"], "number": row["number"], "text": row["text"], "order": order,
              "sheet": row.get("sheet", ""), "answer_cells": row.get("cells", {})}
    if record.kind in (QuestionImport.Kind.XLSX, QuestionImport.Kind.CSV):  # a file the answers can go back into
        values.update(source_import=record, source_row=row["row"])
    return values
