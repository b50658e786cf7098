"""The answer library in Debian's Chromium: approve an answer, a second RFP reworded reuses it, export.

Live server, a real worker (the responder runs in it), the fake LLM server.
The screenshots of the library's pages are written to docs/img/ when
SPELUNKER_WRITE_DOCS=1, like the tour's.
"""

import io

import pytest
from openpyxl import load_workbook
from playwright.sync_api import expect

from answer_library.models import Entry
from rfp_manager.models import Answer
from tests.screenshots import shot

from .conftest import BACKUP_QUESTION, BACKUP_REWORDED, make_rfp

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def run_responder(page) -> None:
    page.click("#start-responder")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=90000)
    page.click("text=See the answers")


def test_approve_then_a_reworded_rfp_reuses_it_and_exports(
    logged_in_page, live_server, live_worker, library, user, fake_llm, tmp_path
):
    first = make_rfp(user, [BACKUP_QUESTION, "Which data centres host the service?"], name="First RFP")
    page = logged_in_page(user, "pw-alice-123")

    # Given the first RFP answered from the documents, a person approves one answer for the library.
    page.goto(f"{live_server.url}/rfps/{first.pk}/")
    run_responder(page)
    page.click(f"tr:has-text('{BACKUP_QUESTION}') a.approve-link")
    page.fill("#id_tags", "backup, operations")
    page.click("#approve-submit")
    page.wait_for_selector("text=Saved to the library as entry")
    entry = Entry.objects.get()

    # When a second RFP asks the same question in other words,
    page.goto(f"{live_server.url}/rfps/new/")
    page.fill("#id_name", "Second RFP")
    page.click("button.primary")
    page.wait_for_selector("h1:has-text('Second RFP')")
    page.fill(
        "#import textarea[name=text]",
        f"1. {BACKUP_REWORDED}\n2. How is customer data encrypted at rest and in transit?",
    )
    page.click("#import-submit")
    page.click("#confirm-import")
    page.wait_for_selector("text=Imported: 2 new")
    drafts_before = len(fake_llm.requests_to("/v1/chat/completions"))
    run_responder(page)

    # then its answer comes from the library, linked to the entry, and only the other question was drafted.
    row = page.locator(f"tr:has-text('{BACKUP_REWORDED}')")
    assert "From the library" in row.inner_text()
    assert row.locator(f"a[href='/answers/entries/{entry.pk}/']").count() == 1
    other = page.locator("tr:has-text('encrypted at rest and in transit')")
    assert "Drafted from the documents" in other.inner_text()
    assert len(fake_llm.requests_to("/v1/chat/completions")) - drafts_before == 1  # one draft, not two
    reused = Answer.objects.get(question__text=BACKUP_REWORDED)
    assert reused.library_entry_id == entry.pk
    shot(page, tmp_path, "answer-library-rfp")

    with page.expect_download() as download_info:
        page.click("#export-xlsx")
    rows = list(load_workbook(io.BytesIO(download_info.value.path().read_bytes())).active.iter_rows(values_only=True))
    exported = {r[2]: r[3] for r in rows[1:]}
    assert exported[BACKUP_REWORDED] == entry.answer_text

    # The library's own pages: the library, the entry with its use in the second RFP.
    page.goto(f"{live_server.url}/answers/")
    assert BACKUP_QUESTION in page.inner_text("#entries")
    shot(page, tmp_path, "answer-library")
    page.click(f"a[href='/answers/entries/{entry.pk}/']")
    assert "Second RFP" in page.inner_text("#where-used")
    shot(page, tmp_path, "answer-library-entry")

    # A conflicting entry, found by a scan started from the page (it runs in the worker, with progress).
    from answer_library.services.entries import save_entry

    save_entry(
        Entry(),
        user,
        "test",
        question="How often are backups taken, and how long are they retained?",
        answer_text="Backups are taken daily and kept for 90 days.",
        tags=["backup"],
    )
    page.goto(f"{live_server.url}/answers/findings/")
    page.click("#start-scan")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=60000)
    page.click("text=See them")
    expect(page.locator("#findings")).to_contain_text("Conflict")
    shot(page, tmp_path, "answer-library-findings")

    # The review queue, as the periodic task leaves it after the cited document changed.
    from answer_library.tasks import refresh_review_queue
    from solution_library.models import Document

    Document.objects.filter(pk=entry.sources[0]["document_id"]).update(content_hash="f" * 64)
    refresh_review_queue()
    page.goto(f"{live_server.url}/answers/review/")
    assert "changed since the answer was approved" in page.inner_text("#queue")
    shot(page, tmp_path, "answer-library-review")
