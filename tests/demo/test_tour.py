"""The README's five-step tour on the demo data, in Chromium, taking the README's screenshots.

The screenshots in docs/img/ come from this test, so they show the app as it is:
`SPELUNKER_WRITE_DOCS=1 make test PYTEST_ARGS="tests/demo/test_tour.py"` writes them there
(tests/screenshots.py); a normal run keeps them in the test's own folder, out of the tree.
"""

import pytest
from openpyxl import load_workbook

from llm_manager.models import LLMModel
from solution_library.models import Document, ReviewStatus, SyncJob
from tests.screenshots import shot
from tests.workers import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.integration]

OWN_DOCUMENT = """# Orrery customer references

Fenmoor Water Authority, Harrowgate Borough Council and North Vale Fire and Rescue Service agreed to act as
references for Orrery. Each can describe its migration, its retention schedules and its experience of support.
"""


def wait_for_status(page, filename: str, status: str) -> None:
    page.wait_for_function(
        f"() => document.querySelector('li[data-filename=\"{filename}\"]')?.dataset.status === '{status}'",
        timeout=60_000,
    )


def test_five_step_tour_on_the_demo_data(
    live_worker, fresh_install_models, load_demo, staff_user, logged_in_page, tmp_path
):
    """With a fresh install's models: the screenshots show what `make run`'s demo shows."""
    assert LLMModel.objects.get(model_type="embedding", is_system_default=True).name == "all-MiniLM-L6-v2"
    page = logged_in_page(staff_user, "pw-staff-123")
    page.goto("/")
    page.wait_for_selector("#next-steps")
    assert "manage.py load_demo" in page.inner_text("#next-steps")
    shot(page, tmp_path, "home-empty", clip={"x": 0, "y": 0, "width": 1280, "height": 640})
    load_demo()

    # 1. Upload: a document of your own joins the demo library and is processed live.
    own = tmp_path / "Orrery_customer_references.md"
    own.write_text(OWN_DOCUMENT)
    page.goto("/library/")
    page.set_input_files("#file-input", [str(own)])
    wait_for_status(page, own.name, "pending_review")
    page.locator("#documents").get_by_text("Orrery customer references").wait_for()
    shot(page, tmp_path, "tour-1-upload", full_page=False)

    # 2. Search: the best passages for a question, from every format.
    page.fill("input[name=q]", "How often are encryption keys rotated?")
    page.click("form.search-bar button")
    first = page.locator("article.result").first
    # The result shows the sentence that answers (a snippet around it), not the passage's first lines.
    assert (
        "Orrery security whitepaper" in first.inner_text()
        and "rotated automatically every 12 months" in first.inner_text()
    )
    shot(page, tmp_path, "tour-2-search", full_page=False)

    # 3. Import an RFP: the client's workbook (offered by the demo) into a new RFP, with a preview.
    workbook = tmp_path / "Eastbrook_records_platform_RFP.xlsx"
    workbook.write_bytes(page.request.get("/demo/rfp-workbook.xlsx").body())
    page.goto("/rfps/new/")
    page.fill("#id_name", "Eastbrook records platform")
    page.fill("#id_client", "Eastbrook County Council")
    page.click("button.primary")
    page.set_input_files("#import input[name=file]", str(workbook))
    page.click("#import-submit")
    page.wait_for_selector("#confirm-import")
    shot(page, tmp_path, "tour-3-import", full_page=False)
    page.click("#confirm-import")
    page.wait_for_selector("text=Imported:")

    # 4. Run the responder, with the reviewer chained, and watch the progress.
    page.check("#review-when-done")
    page.click("#start-responder")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=120_000)
    page.click("#chained-reviewer")  # appears in the live block when the responder completes
    page.wait_for_selector("h1:has-text('Reviewer job')")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=120_000)
    assert page.inner_text(".progress-block .pct") == "100%"
    shot(page, tmp_path, "tour-4-progress", clip={"x": 0, "y": 0, "width": 1280, "height": 420})

    # 5. Export: the answers, reviewed, back into a copy of the client's workbook.
    page.click("text=See the answers")
    page.wait_for_selector("table.answers .verdict-tag")
    shot(page, tmp_path, "tour-5-answers", full_page=False)
    page.click("#export-workbook")  # first what goes into the client's file, and the report of it
    page.wait_for_selector("#export-report")
    with page.expect_download() as download:
        page.click("#download-workbook")
    download.value.save_as(tmp_path / "answered.xlsx")  # kept with the test's files (pytest --basetemp) to open
    exported = load_workbook(tmp_path / "answered.xlsx")
    assert exported.sheetnames == ["Instructions", "Questionnaire"]

    # The home page after the tour: what it says once there is something to say.
    # The sync first: until it completes it may still add documents, which start out processing.
    wait_for(lambda: SyncJob.objects.filter(status="completed").exists(), timeout=60, message="the docs sync")
    wait_for(
        lambda: not Document.objects.filter(review_status=ReviewStatus.PROCESSING).exists(),
        timeout=60,
        message="every document processed",
    )
    page.goto("/")
    page.click("#check-workers")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=30_000)
    page.goto("/")
    page.wait_for_selector("#status-workers .queue-ok >> nth=2")
    assert "0 processing" in page.inner_text("#status-library")
    shot(page, tmp_path, "home")

    # Every job of the tour on one page, grouped; the finished ones link to their own pages.
    page.goto("/jobs/")
    finished = page.locator("#group-finished tbody tr")
    kinds = set(finished.evaluate_all("rows => rows.map(r => r.dataset.kind)"))
    assert {"document", "sync", "rfp_batch", "system_check"} <= kinds, kinds
    assert page.locator("#group-needs_attention").get_attribute("data-count") == "0"
    shot(page, tmp_path, "jobs", clip={"x": 0, "y": 0, "width": 1280, "height": 720})
