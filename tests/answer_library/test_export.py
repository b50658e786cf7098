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


def test_an_exported_library_imports_back_through_the_answered_workbook_import(llm_api, user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from answer_library import tasks
    from answer_library.services import exporting, importing

    entries.save_entry(
        Entry(), user, "test", question="Do you encrypt data at rest?", answer_text="Yes, AES-256.", choice="yes"
    )
    entries.save_entry(Entry(), user, "test", question="How often are backups taken?", answer_text="Hourly.")
    exported = exporting.library_workbook()
    Entry.objects.all().delete()

    record = importing.prepare(SimpleUploadedFile("answer-library.xlsx", exported), user)
    tasks.batch_import_answered_workbook.apply(args=[importing.create_job(record, user).pk]).get()

    assert {(e.question, e.answer_text, e.choice) for e in Entry.objects.all()} == {
        ("Do you encrypt data at rest?", "Yes, AES-256.", "yes"),
        ("How often are backups taken?", "Hourly.", ""),
    }
