"""The library exports as a workbook: a team's answer bank, every usable entry with its wordings and sources."""

import io

import pytest
from openpyxl import load_workbook

from answer_library.models import Entry
from answer_library.services import entries

pytestmark = pytest.mark.django_db


def test_the_library_exports_its_usable_entries_as_a_workbook(llm_api, user, user_client):
    kept = entries.save_entry(
        Entry(owner=user),
        user,
        "test",
        question="How often are backups taken?",
        alternatives=["How frequently do you back up data?", "What is the backup schedule?"],
        answer_text='=HYPERLINK("http://evil") hourly',
        choice="yes",
        sources=[{"document_title": "Backup policy"}, {"document_title": "Backup policy"}, {"document_title": "DR"}],
    )
    entries.save_entry(Entry(), user, "test", question="Retired one?", answer_text="Gone.", status=Entry.Status.RETIRED)

    response = user_client.get("/answers/export.xlsx")

    rows = list(load_workbook(io.BytesIO(response.content)).active.iter_rows(values_only=True))
    assert rows[0][:7] == ("Question", "Alternate wordings", "Answer", "Choice", "Owner", "Last approved", "Citations")
    assert len(rows) == 2  # the retired entry stays out
    question, wordings, answer, choice, owner, approved, citations, pk = rows[1]
    assert (question, choice, owner, pk) == (kept.question, "Yes", "alice", kept.pk)
    assert wordings.splitlines() == kept.alternatives
    assert answer.startswith("'=")  # defused: a spreadsheet shows it as text, never runs it
    assert approved == f"{kept.approved_at:%Y-%m-%d}" and citations == "Backup policy; DR"


def test_an_exported_library_imports_back_with_its_wordings_and_owners_and_its_conflicts_reach_review(
    llm_api, user, django_user_model
):
    """A team moving its answer bank in on day one: every entry comes back whole, and an entry that contradicts
    one already in the library (another retention period) is found by the scan the import queues."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from answer_library import tasks
    from answer_library.models import Finding, LibraryJob
    from answer_library.services import exporting, importing

    entries.save_entry(
        Entry(owner=user),
        user,
        "test",
        question="Do you encrypt data at rest?",
        alternatives=["Is stored data encrypted?"],
        answer_text="Yes, AES-256.",
        choice="yes",
    )
    entries.save_entry(Entry(owner=user), user, "test", question="How long are backups kept?", answer_text="35 days.")
    exported = exporting.library_workbook()
    Entry.objects.all().delete()
    importer = django_user_model.objects.create_user("bob", password="x")
    entries.save_entry(
        Entry(owner=importer), importer, "test", question="How long are backups kept?", answer_text="90 days."
    )

    record = importing.prepare(SimpleUploadedFile("answer-library.xlsx", exported), importer)
    assert record.mapping_source == importing.LIBRARY_WORKBOOK and len(record.rows) == 2
    tasks.batch_import_answered_workbook.apply(args=[importing.create_job(record, importer).pk]).get()

    imported = {e.question: e for e in Entry.objects.filter(origin=Entry.Origin.IMPORT)}
    encrypted = imported["Do you encrypt data at rest?"]
    assert (encrypted.answer_text, encrypted.choice, encrypted.alternatives) == (
        "Yes, AES-256.",
        "yes",
        ["Is stored data encrypted?"],
    )
    assert {e.owner for e in imported.values()} == {user}  # the exported owner, who exists here
    scan = LibraryJob.objects.get(job_type=LibraryJob.CONFLICTS)
    tasks.batch_find_duplicates_and_conflicts.apply(args=[scan.pk]).get()
    conflict = Finding.objects.get(kind=Finding.Kind.CONFLICT)
    assert {conflict.first.answer_text, conflict.second.answer_text} == {"35 days.", "90 days."}
