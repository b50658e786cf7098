"""Question import: a questionnaire file (XLSX, CSV, DOCX, PDF) or pasted text into a preview, then into questions.

A file goes through three steps:
`analysis` proposes a mapping (which sheets, header rows, column roles), the
user may correct it in the preview (`remap`), and the rows it selects (the row
walk in `questionnaires.row_walk`) become questions that keep their place: sheet, row, ID and the cells their answers go
into. Parsing never writes questions; applying is idempotent: each question
has a stable key (its sheet and ID, else its sheet and text), so importing the
same file twice updates the same rows instead of adding copies.
"""

from collections import Counter
from contextlib import contextmanager

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.file_limits import FileLimitExceeded, check_archive
from core.storage import save_or_refuse
from jobs.models import ACTIVE_STATUSES
from questionnaires import analysis, pdf, sheets, word
from questionnaires.row_walk import QuestionImportError, extract, parse_text

from ..models import RFP, ImportFormat, Question, QuestionImport, QuestionImportJob

IMPORT_BATCH = 500
PREVIEW_ROWS_PER_SHEET = 5
ANALYSIS_STEPS = 3  # read the file, analyse its sheets, select the questions: a job's items


# --- the steps the views call ------------------------------------------------------------


def kind_for_filename(name: str) -> str:
    lowered = name.lower()
    if lowered.endswith((".xlsx", ".xlsm")):
        return QuestionImport.Kind.XLSX
    if lowered.endswith((".csv", ".tsv", ".txt")):
        return QuestionImport.Kind.CSV
    if lowered.endswith((".docx", ".docm")):
        return QuestionImport.Kind.DOCX  # a .docm is refused when read, with what to do
    if lowered.endswith(".pdf"):
        return QuestionImport.Kind.PDF
    if lowered.endswith(".xls"):
        raise QuestionImportError(
            "Legacy .xls files cannot be read. Open it in Excel and save it as .xlsx, then upload that."
        )
    if lowered.endswith(".doc"):
        raise QuestionImportError(
            "Legacy .doc files cannot be read. Open it in Word and save it as .docx, then upload that."
        )
    raise QuestionImportError("Upload an .xlsx, .csv, .docx or .pdf file, or paste the questions as text.")


def check_upload(data: bytes, kind: str, name: str = "") -> None:
    """The checks that cost milliseconds whatever the file, made in the upload request before anything reads it:
    what a package declares it unpacks to (core.file_limits), encrypted, legacy or macro-enabled files."""
    with _as_import_error():
        check_archive(data)
        if kind == QuestionImport.Kind.DOCX:
            word.check_docx_bytes(data, name)
        else:
            sheets.check_questionnaire_bytes(data, name)


def read_sheets(data: bytes, kind: str, name: str = "") -> list[sheets.Sheet]:
    """The file as sheets: a workbook's own, a CSV as one, a Word document's tables and numbered questions, a PDF's.

    Rows, cells and text are counted as they are read, and refused over their limits (core.file_limits)."""
    check_upload(data, kind, name)
    with _as_import_error():
        if kind == QuestionImport.Kind.DOCX:
            return word.read_docx(data, name)
        if kind == QuestionImport.Kind.PDF:
            return pdf.read_pdf(data)
        return sheets.read_workbook(data) if kind == QuestionImport.Kind.XLSX else sheets.read_csv(data)


@contextmanager
def _as_import_error():
    try:
        yield
    except (sheets.SheetReadError, word.WordReadError, pdf.PdfQuestionnaireError, FileLimitExceeded) as exc:
        raise QuestionImportError(str(exc)) from exc


def _no_questions_message(mapping: dict) -> str:
    if not mapping["sheets"]:
        return (
            "No questions were found: the document has no table and no numbered questions. Questions are read from "
            "a table with a question column, or from numbered paragraphs each followed by an empty paragraph or a "
            "“Response:” line. Check that this is the questionnaire itself, or paste its questions as text."
        )
    reasons = "; ".join(f"“{s['name'] or 'the file'}” {_why_no_questions(s)}" for s in mapping["sheets"])
    return (
        f"No questions were found in this file ({reasons}). Check that this is the questionnaire itself, with its "
        "questions in one column under a heading; if it is, paste its questions as text (one per line) instead."
    )


def _why_no_questions(sheet: dict) -> str:
    """A sheet left out, in the words of someone who looked at it (the analysis's own reason is for the mapping)."""
    if sheet.get("header_row") is not None and sheet.get("last_row", 0) <= sheet["header_row"]:
        return "has column headings but no rows under them"
    if sheet["reason"] == "no question-like column":
        return "has no column of questions"
    return f"was left out ({sheet['reason']})"


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
        record.original_name = upload.name[:255]
        analyse_file(record, upload.read())
        upload.seek(0)
        # Kept for remapping and the write-back export.
        save_or_refuse(record.file, upload.name, upload, QuestionImportError)
    elif pasted_text.strip():
        record.kind, table = QuestionImport.Kind.TEXT, parse_text(pasted_text)
        record.rows, record.bad_rows = table.rows, table.bad_rows
    else:
        raise QuestionImportError("Choose a file or paste some questions.")
    record.save()
    return record


def analyse_file(record: QuestionImport, data: bytes, step=lambda number: None) -> None:
    """Read the file into the import's mapping and rows (not saved). `step(n)` is told as each step begins."""
    step(1)
    workbook = read_sheets(data, record.kind, record.original_name)
    step(2)
    record.mapping, record.mapping_source, record.fingerprint = propose_mapping(workbook)
    step(3)
    table = extract(workbook, record.mapping)
    if record.kind == QuestionImport.Kind.XLSX:
        record.lost_features = sheets.features_lost_on_save(data)
    record.rows, record.bad_rows = table.rows, table.bad_rows


# --- a file too large to read in the request: read by a job ----------------------------------------


def inline_max_bytes() -> int:
    return settings.QUESTION_IMPORT_INLINE_MAX_KB * 1024


def read_in_a_job(upload) -> bool:
    """Whether the upload is large enough that reading it belongs in a job (the request must answer at once)."""
    return upload is not None and upload.size > inline_max_bytes()


def store_for_analysis(rfp, user, upload) -> QuestionImport:
    """Keep the file on an import with nothing read yet, after the checks that cost milliseconds (check_upload).

    Its QuestionImportJob (`create_analysis_job`) reads it; the preview opens when that job completes."""
    record = QuestionImport(rfp=rfp, created_by=user, kind=kind_for_filename(upload.name))
    record.original_name = upload.name[:255]
    check_upload(upload.read(), record.kind, upload.name)
    upload.seek(0)
    save_or_refuse(record.file, upload.name, upload, QuestionImportError)
    record.save()
    return record


def create_analysis_job(record: QuestionImport, user, changes: dict | None = None) -> QuestionImportJob:
    """The job row that reads the import's file (and applies `changes` to its mapping, if given), written before its
    task is queued. The database refuses a second active one for the same import (the duplicate-job guard): that
    one is returned instead."""
    try:
        with transaction.atomic():  # a savepoint: the IntegrityError must not poison the caller's transaction
            return QuestionImportJob.objects.create(
                question_import=record, started_by=user, total_items=ANALYSIS_STEPS, changes=changes or {}
            )
    except IntegrityError:
        return record.analysis_jobs.get(status__in=ACTIVE_STATUSES)


def run_analysis_job(job: QuestionImportJob) -> dict:
    """Read the import's stored file with progress (and apply the job's mapping correction); the same rows however
    often it runs.

    Raises QuestionImportError (the file is refused, with what to do) for the task to fail the job with."""
    record = job.question_import

    def step(number: int) -> None:  # told as each step begins
        job.set_counts(processed_items=number - 1)

    if job.changes:
        remap(record, step=step, **job.changes)
    else:
        with record.file.open("rb") as handle:
            data = handle.read()
        analyse_file(record, data, step=step)
        record.save(update_fields=["mapping", "mapping_source", "fingerprint", "lost_features", "rows", "bad_rows"])
    job.set_counts(processed_items=ANALYSIS_STEPS, successful_items=ANALYSIS_STEPS)
    return {"questions": len(record.rows), "rejected": len(record.bad_rows)}


def remap_in_a_job(record: QuestionImport) -> bool:
    """Whether reading the import's file again for a correction of its mapping belongs in a job (as its upload did)."""
    return bool(record.file) and record.file.size > inline_max_bytes()


def _load_sheets(record: QuestionImport) -> list[sheets.Sheet]:
    with record.file.open("rb") as handle:
        return read_sheets(handle.read(), record.kind, record.original_name)


def remap(
    record: QuestionImport,
    sheet_index: int,
    *,
    include=None,
    header_row=None,
    column=None,
    role=None,
    step=lambda number: None,
) -> QuestionImport:
    """One correction of the mapping (a sheet in or out, its header row, a column's role), re-read at once.

    Reads the whole file: for one above the inline threshold (`remap_in_a_job`) a QuestionImportJob calls this."""
    step(1)
    workbook = _load_sheets(record)
    step(2)
    mapping = record.mapping
    spec = mapping["sheets"][sheet_index]
    if header_row is not None and header_row != spec["header_row"]:
        spec.update(
            {
                k: v
                for k, v in analysis.analyse_sheet(workbook[sheet_index], header_row).items()
                if k in ("header_row", "headers", "roles")
            }
        )
    if include is not None:
        spec["include"] = include
    if column is not None and role in analysis.ROLES:
        roles = {c: r for c, r in spec["roles"].items() if c != str(column)}
        if role in ("question", "id"):  # one question and one ID column per sheet: the new one replaces the old
            roles = {c: r for c, r in roles.items() if r != role}
        if role != "ignore":
            roles[str(column)] = role
        spec["roles"] = dict(sorted(roles.items(), key=lambda item: int(item[0])))
    step(3)
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
        summaries.append(
            {
                "index": index,
                "spec": spec,
                "questions": kept[name],
                "skipped": skipped[name],
                "columns": [
                    {
                        "number": c,
                        "letter": sheets.column_letter(c),
                        "header": headers.get(str(c), ""),
                        "role": spec["roles"].get(str(c), "ignore"),
                        "note": spec.get("notes", {}).get(str(c), ""),
                    }
                    for c in columns
                ],
                "first_rows": [r for r in record.rows if r["sheet"] == name][:PREVIEW_ROWS_PER_SHEET],
            }
        )
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
    values = {
        "section": row["section"],
        "number": row["number"],
        "text": row["text"],
        "order": order,
        "sheet": row.get("sheet", ""),
        "answer_cells": row.get("cells", {}),
    }
    if record.kind in QuestionImport.FILE_KINDS_WITH_PLACES:
        values.update(source_import=record, source_row=row["row"])
    return values
