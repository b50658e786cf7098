"""The whole RFP journey in Debian's Chromium: live server, real worker, fake LLM server."""
import io

import pytest
from openpyxl import Workbook, load_workbook

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def questions_workbook(path):
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["Section", "No.", "Question"])
    sheet.append(["Security", "1", "How is customer data encrypted at rest and in transit?"])
    sheet.append(["Operations", "2", "How often are backups taken and how long are they kept?"])
    sheet.append(["Operations", "3", "Which data centres host the service?"])
    workbook.save(path)
    return path


def test_rfp_journey(logged_in_page, live_server, live_worker, library, user, tmp_path):
    url = live_server.url
    page = logged_in_page(user, "pw-alice-123")

    page.goto(f"{url}/rfps/new/")
    page.fill("#id_name", "Browser RFP")
    page.fill("#id_client", "Acme")
    page.click("button.primary")
    page.wait_for_selector("h1:has-text('Browser RFP')")

    page.set_input_files("#import input[name=file]", str(questions_workbook(tmp_path / "acme questions.xlsx")))
    page.click("#import-submit")
    page.wait_for_selector("#good-rows")
    page.screenshot(path=str(tmp_path / "preview.png"), full_page=True)
    page.click("#confirm-import")
    page.wait_for_selector("text=Imported: 3 new")

    page.click("#start-responder")
    page.wait_for_selector(".progress-block")
    page.evaluate("window.__noReload = true")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=60000)
    assert page.inner_text(".progress-block .pct") == "100%"
    assert page.evaluate("window.__noReload") is True  # the bar moved without a reload
    page.screenshot(path=str(tmp_path / "job.png"))

    page.click("text=See the answers")
    page.click("#start-reviewer")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=60000)
    page.click("text=See the answers")
    page.wait_for_selector("table.answers .badge-approved, table.answers .badge-needs_revision, table.answers .badge-rejected")

    with page.expect_download() as download_info:
        page.click("#export-xlsx")
    sheet = load_workbook(io.BytesIO(download_info.value.path().read_bytes())).active
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][:4] == ("Section", "Number", "Question", "Final answer")
    assert rows[1][2] == "How is customer data encrypted at rest and in transit?"
    assert "AES-256" in rows[1][3] and "Security handbook" in rows[1][4]
    assert rows[1][5] in ("Approved", "Needs revision", "Rejected")

    page.screenshot(path=str(tmp_path / "rfp.png"), full_page=True)
    page.click("tr:has-text('encrypted at rest') a.source-link >> nth=0")
    page.wait_for_load_state()
    assert "/library/chunks/" in page.url
    assert "AES-256" in page.inner_text("body")
