"""A Word questionnaire in Debian's Chromium: upload, preview and mapping, import, export report, download.

The screenshots (preview, export report) are written to docs/img/ when
SPELUNKER_WRITE_DOCS=1, like the tour's.
"""

import io

import pytest
from docx import Document

from rfp_manager.models import RFP, Answer
from rfp_manager.testing import approved_by, verdict_on
from tests.screenshots import shot

from ..questionnaires import word_fixtures

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def test_word_questionnaire_preview_import_and_answered_download(logged_in_page, live_server, user, tmp_path):
    rfp = RFP.objects.create(name="City of Example RFP", owner=user)
    source = tmp_path / "city questionnaire.docx"
    source.write_bytes(word_fixtures.table_questionnaire())
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"{live_server.url}/rfps/{rfp.pk}/")

    # The preview: the cover table left out with its reason, the question table's columns and first rows.
    page.set_input_files("#import input[name=file]", str(source))
    page.click("#import-submit")
    page.wait_for_selector("#confirm-import:has-text('Import 4 questions')")
    assert "no question-like column" in page.inner_text("#sheet-0 .sheet-reason")
    assert page.input_value("#sheet-1 select[data-column=C]") == "text"
    assert "text C3" in page.inner_text("#sheet-1 .first-rows")
    assert "section heading" in page.inner_text("#bad-rows")
    shot(page, tmp_path, "word-import-preview")
    page.click("#confirm-import")
    page.wait_for_selector("text=Imported: 4 new")

    # Two answers are ready to send (one approved, one edited); the other two are not.
    questions = {q.number: q for q in rfp.questions.all()}
    Answer.objects.create(
        question=questions["AC-1"],
        draft_text="Through single sign-on [1].",
        **approved_by(user, "Through single sign-on [1]."),
    )
    Answer.objects.create(
        question=questions["DP-1"], draft_text="AES-256 [1].", final_text="AES-256 at rest, TLS 1.3 in transit."
    )
    Answer.objects.create(question=questions["DP-2"], draft_text="Hourly [1].", **verdict_on("rejected", "Hourly [1]."))
    page.reload()
    page.click("#export-document")
    page.wait_for_selector("#export-report")
    assert "2 of 4 answers will be written" in page.inner_text("#export-summary")
    assert page.locator("#export-report tr.written").count() == 2
    shot(page, tmp_path, "word-export-report")

    with page.expect_download() as download_info:
        page.click("#download-document")
    assert download_info.value.suggested_filename == "city-questionnaire-answered.docx"
    table = Document(io.BytesIO(download_info.value.path().read_bytes())).tables[1]
    assert [table.cell(row, 2).text for row in (2, 3, 5, 6)] == [
        "Through single sign-on.",
        "",
        "AES-256 at rest, TLS 1.3 in transit.",
        "",
    ]
