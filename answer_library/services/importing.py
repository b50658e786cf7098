"""Seeding the library from an answered questionnaire, through the questionnaire import's own mapping.

The workbook is analysed exactly as an RFP's questionnaire is (the same
analysis, the same remembered formats, the same row walk); the answer of each
question is read from the cells the mapping gives it (its "choice" and "text"
columns). A job then writes one entry per answered row, keyed by the file and
the row's question key, so a second run (or a re-delivered task) updates the
same entries instead of adding new ones.
"""

from contextlib import contextmanager

from django.contrib.auth import get_user_model
from django.db import transaction

from core.excerpts import excerpt
from core.storage import save_or_refuse
from questionnaires import row_walk
from questionnaires.analysis import cell_text
from questionnaires.sheets import CELL_REF, column_index
from rfp_manager.services import importing as questionnaire

from ..models import Entry, LibraryImport, LibraryJob
from .entries import default_review_by, save_entry
from .exporting import COLUMNS as LIBRARY_COLUMNS

# A workbook this library exported (exporting.library_workbook) is read by its own columns, not a mapping.
LIBRARY_WORKBOOK = "library"

CHOICE_WORDS = {
    "yes": "yes",
    "y": "yes",
    "true": "yes",
    "compliant": "yes",
    "implemented": "yes",
    "no": "no",
    "n": "no",
    "false": "no",
    "non-compliant": "no",
    "n/a": "na",
    "na": "na",
    "not applicable": "na",
}


class LibraryImportError(ValueError):
    """Why a file cannot be imported into the library; shown to the user."""


def _cell(workbook, sheet_name: str, coordinate: str) -> str:
    match = CELL_REF.fullmatch(coordinate or "")
    sheet = next((s for s in workbook if s.name == sheet_name), None)
    if not match or sheet is None:
        return ""
    return cell_text(sheet.value(int(match.group(2)), column_index(match.group(1))))


def answered_rows(workbook, mapping: dict) -> tuple[list[dict], list[dict]]:
    """(rows with an answer, rows left out with the reason): the questionnaire's rows plus their answer cells."""
    table = row_walk.extract(workbook, mapping)
    rows, skipped = [], list(table.bad_rows)
    for row in table.rows:
        cells = row.get("cells", {})
        text = _cell(workbook, row["sheet"], cells.get("text", ""))
        raw_choice = _cell(workbook, row["sheet"], cells.get("choice", ""))
        choice = CHOICE_WORDS.get(raw_choice.strip().lower(), "")
        if not text and not choice:
            skipped.append(
                {
                    "sheet": row["sheet"],
                    "row": row["row"],
                    "reason": "no answer in this row",
                    "text": excerpt(row["text"], 200),
                }
            )
            continue
        rows.append({**row, "answer": text or raw_choice, "choice": choice})
    return rows, skipped


def _header(sheet) -> list[str]:
    return [cell_text(sheet.value(1, column)) for column in range(1, len(LIBRARY_COLUMNS) + 1)]


def library_rows(sheet) -> list[dict]:
    """The rows of an exported library sheet, each as an answered row with its other wordings and owner."""
    choices = {"yes": "yes", "no": "no", "n/a": "na"}
    rows = []
    for number in range(2, sheet.max_row + 1):
        cells = dict(
            zip(LIBRARY_COLUMNS, (cell_text(sheet.value(number, c)) for c in range(1, len(LIBRARY_COLUMNS) + 1)))
        )
        if not cells["Question"] or not cells["Answer"]:
            continue
        rows.append(
            {
                "sheet": sheet.name,
                "row": number,
                "key": f"entry-{cells['Entry'] or number}",
                "text": cells["Question"],
                "answer": cells["Answer"],
                "choice": choices.get(cells["Choice"].lower(), ""),
                "alternatives": [line.strip() for line in cells["Alternate wordings"].splitlines() if line.strip()],
                "owner": cells["Owner"],
            }
        )
    return rows


@contextmanager
def _as_library_error():
    try:
        yield
    except questionnaire.QuestionImportError as exc:
        raise LibraryImportError(str(exc)) from exc


def read_in_a_job(upload) -> bool:
    """Whether the upload is too large to read inside the request: the questionnaire import's own threshold."""
    return questionnaire.read_in_a_job(upload)


def prepare(upload, user, *, tags=(), owner=None, review_by=None, read: bool = True) -> LibraryImport:
    """Analyse an answered workbook into a previewable LibraryImport (no entries written yet).

    With `read=False` (a file `read_in_a_job`) only the checks that cost milliseconds are made before the file is
    stored: a reading job (`create_job(record, user, LibraryJob.READ)`) fills the mapping and rows."""
    with _as_library_error():
        kind = questionnaire.kind_for_filename(upload.name)  # .xlsx or .csv, else a reason
    record = LibraryImport(
        original_name=upload.name[:255],
        kind=kind,
        tags=list(tags),
        owner=owner or user,
        review_by=review_by,
        created_by=user,
    )
    data = upload.read()
    if read:
        read_rows(record, data)
    else:
        with _as_library_error():
            questionnaire.check_upload(data, kind, upload.name)
    upload.seek(0)
    save_or_refuse(record.file, upload.name, upload, LibraryImportError)
    record.save()
    return record


def read_rows(record: LibraryImport, data: bytes) -> None:
    """The file's mapping and its answered rows onto the record (not saved); LibraryImportError if it has none.

    A library's own export keeps what the mapping would lose: the other wordings and the owner."""
    with _as_library_error():
        workbook = questionnaire.read_sheets(data, record.kind, record.original_name)
        exported = next((sheet for sheet in workbook if _header(sheet) == LIBRARY_COLUMNS), None)
        if exported is not None:
            record.mapping, record.mapping_source = {}, LIBRARY_WORKBOOK
            record.rows, record.skipped = library_rows(exported), []
        else:
            record.mapping, record.mapping_source, _ = questionnaire.propose_mapping(workbook)
            record.rows, record.skipped = answered_rows(workbook, record.mapping)
    if not record.rows:
        raise LibraryImportError(
            "No answered question was found: the mapping needs an answer column "
            "(a Yes/No or a response column) with answers filled in."
        )


def run_read_job(job: LibraryJob) -> dict:
    """Read the stored file of a large upload into its preview; the same rows however often it runs.

    Raises LibraryImportError (the file is refused, with what to do) for the task to fail the job with."""
    record = job.library_import
    with record.file.open("rb") as handle:
        read_rows(record, handle.read())
    record.save(update_fields=["mapping", "mapping_source", "rows", "skipped"])
    job.set_counts(processed_items=1, successful_items=1)
    return {"rows": len(record.rows), "skipped": len(record.skipped)}


def create_job(record: LibraryImport, user, job_type: str = LibraryJob.IMPORT) -> LibraryJob:
    """The job row, written before its task is queued: the file's import (one item per row), or its reading."""
    items = len(record.rows) if job_type == LibraryJob.IMPORT else 1
    with transaction.atomic():
        return LibraryJob.objects.create(job_type=job_type, library_import=record, started_by=user, total_items=items)


def reading_job(record: LibraryImport) -> LibraryJob | None:
    """The job that read the file (None when it was read in the upload request)."""
    return record.jobs.filter(job_type=LibraryJob.READ).order_by("-pk").first()


def origin_key(record: LibraryImport, row: dict) -> str:
    return f"import:{record.pk}:{row['key']}"[:300]


def import_row(record: LibraryImport, row: dict, user) -> Entry:
    """One answered row as an entry; the same row again updates its entry only when the answer differs."""
    key = origin_key(record, row)
    values = {"question": " ".join(row["text"].split()), "answer_text": row["answer"], "choice": row["choice"]}
    if row.get("alternatives"):
        values["alternatives"] = row["alternatives"]
    entry = Entry.objects.filter(origin_key=key).first()
    if entry is not None and all(getattr(entry, k) == v for k, v in values.items()):
        return entry  # a re-run: nothing to write, no new version
    if entry is None:
        entry = Entry(
            origin=Entry.Origin.IMPORT,
            origin_key=key,
            tags=record.tags,
            owner=_owner(row.get("owner", "")) or record.owner,
            review_by=record.review_by,
            origin_label=f"{record.original_name}, {row['sheet'] or 'sheet'} row {row['row']}"[:300],
        )
    entry.review_by = entry.review_by or default_review_by()
    return save_entry(entry, user, f"Imported from {record.original_name}", **values)


def _owner(username: str):
    """The exported owner when this install has a user by that name (a team moving its library keeps its owners)."""
    return get_user_model().objects.filter(username=username).first() if username else None


def run_import_job(job: LibraryJob) -> dict:
    """Write the file's entries, one row at a time, with exact progress; stops at a cancel."""
    record = job.library_import
    imported = failed = 0
    for position, row in enumerate(record.rows, start=1):
        if position % 10 == 1 and job.stop_reason():
            break
        try:
            import_row(record, row, job.started_by)
            imported += 1
        except Exception as exc:  # one row's failure is recorded; the import goes on
            failed += 1
            job.add_error(f"{row['sheet']} row {row['row']}", f"{type(exc).__name__}: {exc}", save=False)
        job.set_counts(processed_items=position, successful_items=imported, failed_items=failed, errors=job.errors)
    entries = Entry.objects.filter(origin_key__startswith=f"import:{record.pk}:").count()
    job.summary = {"entries": entries, "skipped_rows": len(record.skipped)}
    job.save(update_fields=["summary", "updated_at"])
    return {"imported": imported, "failed": failed, "entries": entries}
