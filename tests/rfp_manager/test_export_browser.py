"""The export choices and report in Debian's Chromium, on a multi-sheet vendor assessment (issue 20).

The screenshot is written to docs/img/ when SPELUNKER_WRITE_DOCS=1 (else to the test's tmp_path).
"""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import load_workbook

from rfp_manager.models import RFP, Answer
from rfp_manager.services import importing
from rfp_manager.testing import approved_by, verdict_on
from tests.screenshots import shot

from ..questionnaires import workbooks
from .test_questionnaires import CITATION

pytestmark = [pytest.mark.browser]

ANSWERS = {  # number → (draft, choice, who vouches: a person's approval or the reviewer's verdict, edited text)
    "COMP-01": ("Acme is a private company founded in 2009 [1].", "yes", "person", ""),
    "COMP-02": ("Yes, a team of six [1].", "yes", "person", ""),
    "DATA-01": ("Yes, AES-256 at rest [1].", "yes", "person", ""),
    "DATA-02": ("N/A: no data is transferred [2].", "na", "", "N/A: no institutional data is transferred [2]."),
    "DATA-03": ("Partially: only backups [1].", "partly", "person", ""),
    "DATA-04": ("No supporting content in the library answers this question.", "", "person", ""),
    "APPL-01": ("Partially, for the main product [1].", "partly", "person", ""),
    "APPL-02": ("Yes [3].", "yes", "rejected", ""),
    "APPL-03": ("Defects are fixed within 30 days [1].", "", "approved", ""),  # supported by the reviewer only
}


def test_export_choices_and_report_then_download(logged_in_page, live_server, transactional_db, user, tmp_path):
    rfp = RFP.objects.create(name="University assessment", owner=user)
    data, _ = workbooks.vendor_assessment()
    importing.apply_import(importing.prepare_import(rfp, user, upload=SimpleUploadedFile("assessment.xlsx", data)))
    for number, (draft, choice, vouched, edited) in ANSWERS.items():
        shown = edited or draft
        Answer.objects.create(
            question=rfp.questions.get(number=number),
            draft_text=draft,
            choice=choice,
            final_text=edited,
            citations=[CITATION],
            **(approved_by(user, shown) if vouched == "person" else verdict_on(vouched, shown) if vouched else {}),
        )

    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"{live_server.url}/rfps/{rfp.pk}/")
    page.click("#export-workbook")
    page.wait_for_selector("#export-report")
    page.check("input[name=citations][value=companion]")
    page.check("input[name=report_sheet]")
    page.click("#update-report")
    page.wait_for_selector("#download-sources")
    reasons = page.inner_text("#empty-reasons")
    assert "open question: a Yes/No choice does not answer it" in reasons
    assert "rejected by the reviewer" in reasons and "placeholder" in reasons
    assert "no person approved it (reviewer: supported)" in reasons  # APPL-03: a verdict is no approval
    assert page.locator("#report-lines tr.outcome-normalised").count() == 1  # Partly → "Partially" (the x14 list)
    shot(page, tmp_path, "export-choices")

    with page.expect_download() as download:
        page.click("#download-workbook")
    result = load_workbook(io.BytesIO(download.value.path().read_bytes()))
    assert result.sheetnames[-2:] == ["Sources", "Export report"]
    assert (result["Data"]["C4"].value, result["Data"]["D4"].value) == ("Yes", "Yes, AES-256 at rest.")
    assert (result["Application"]["C4"].value, result["Application"]["C5"].value) == ("Partially", None)
    assert result["Data"]["D8"].value is None  # the placeholder stays out
