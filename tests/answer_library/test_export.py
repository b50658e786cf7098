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
