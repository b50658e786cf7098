"""What goes back to the client, on the demo questionnaire, in Debian's Chromium (issue 35).

The demo RFP's 30 questions come from the demo's own client workbook (demo/services/workbook.py), drafted and
judged "supported" as a responder and a reviewer leave them. Only what a person approved (or wrote) goes out
with the recommended choice; a placeholder never does, under either choice; the report says so cell by cell.

The screenshots are written to docs/img/ when SPELUNKER_WRITE_DOCS=1 (else to the test's tmp_path).
"""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from docx import Document
from openpyxl import load_workbook

from demo.services.workbook import build_workbook, read_demo_rfp
from jobs.models import JobStatus
from rfp_manager.models import RFP, Answer, RFPBatchJob
from rfp_manager.services import choices, importing, workflow
from rfp_manager.testing import verdict_on
from tests.screenshots import shot

pytestmark = [pytest.mark.browser]

PLACEHOLDER = "TODO: confirm figures with the sustainability team [1]."


def demo_rfp(user) -> RFP:
    """The demo questionnaire imported as the demo loader imports it, every question drafted and judged supported."""
    demo = read_demo_rfp()
    rfp = RFP.objects.create(name=demo.name, client=demo.client, owner=user)
    upload = SimpleUploadedFile(demo.filename, build_workbook(demo))
    importing.apply_import(importing.prepare_import(rfp, user, upload=upload))
    for question in rfp.questions.all():
        said = f"Orrery meets requirement {question.number} in full, as its security whitepaper describes"
        draft = f"{said} [1]."
        passage = {"n": 1, "chunk_id": 1, "document_id": 1, "document_title": "Orrery security whitepaper"}
        Answer.objects.create(
            question=question,
            draft_text=draft,
            citations=[{**passage, "text": f"{said}.", "score": 0.9, "cited": True}],
            generated_at=timezone.now(),
            review_score=0.9,
            **verdict_on("approved", draft),
            **choices.choice_fields(draft, question.text),
        )
    workflow.sync_status(rfp.questions.all())
    # The responder that drafted them has finished: the reviewer may run again.
    RFPBatchJob.objects.create(
        rfp=rfp, job_type="responder", status=JobStatus.COMPLETED, started_by=user, question_ids=[]
    )
    return rfp


def box(page, locator) -> dict:
    """The element's box in page coordinates (what a clipped screenshot takes), from the top of the page."""
    page.evaluate("window.scrollTo(0, 0)")
    return locator.bounding_box()


def download(page, selector: str) -> bytes:
    with page.expect_download() as info:
        page.click(selector)
    return info.value.path().read_bytes()


def answered_cells(rfp, content: bytes) -> dict[str, str | None]:
    """Each question's text cell in the client's workbook that came back: number → value."""
    sheet = load_workbook(io.BytesIO(content))["Questionnaire"]
    return {q.number: sheet[q.answer_cells["text"]].value for q in rfp.questions.all()}


def answers_in_docx(content: bytes) -> dict[str, str]:
    """The fresh Word file: each question's paragraph ("A.1 Describe …") and the answer paragraph after it."""
    paragraphs = [p.text for p in Document(io.BytesIO(content)).paragraphs]
    return {
        text.split()[0]: paragraphs[i + 1]
        for i, text in enumerate(paragraphs[:-1])
        if text[:1].isalpha() and text[1:2] == "." and text.split()[0][2:].isdigit()
    }


def test_an_answer_edited_to_a_placeholder_is_rejected_and_never_sent(
    logged_in_page, live_worker, llm_api, user, tmp_path
):
    rfp = demo_rfp(user)
    assert rfp.questions.count() == 30
    question = rfp.questions.get(number="B.1")
    page = logged_in_page(user, "pw-alice-123")

    # A person writes a note to the team in place of the answer, and saves it.
    page.goto(f"/rfps/questions/{question.pk}/answer/")
    page.fill("textarea[name=final_text]", PLACEHOLDER)
    page.click("#answer-form button[type=submit]")
    page.wait_for_selector("text=Saved the final answer to")

    # The reviewer judges it: rejected (the row and the editor say it in the reviewer's words).
    page.click("#start-reviewer")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=120_000)
    page.goto(f"/rfps/{rfp.pk}/?q=B.1")
    row = page.locator(f"#q{question.pk}")
    row.locator(".verdict-tag.verdict-rejected").wait_for()
    assert "Reviewer: rejected" in row.inner_text() and "Approved by" not in row.inner_text()
    shot(page, tmp_path, "client-file-row-rejected", clip=box(page, row), full_page=True)
    page.goto(f"/rfps/questions/{question.pk}/answer/")
    assert "Reviewer: rejected" in page.inner_text(".verdict")
    assert "leaves it out — placeholder (TODO)" in page.inner_text("#for-client")
    shot(page, tmp_path, "client-file-editor", full_page=False)

    # Neither choice sends it: the cell stays empty and the report says why.
    cell = f"Questionnaire!{question.answer_cells['text']}"
    for which in ("approved", "drafts"):
        page.goto(f"/rfps/{rfp.pk}/export-workbook/?answers={which}")
        line = page.locator("#report-lines tr", has=page.locator(f"td:text-is('{cell}')"))
        assert "placeholder (TODO): a person must write the answer" in line.inner_text(), which
        assert answered_cells(rfp, download(page, "#download-workbook"))["B.1"] is None, which
        docx = page.request.get(f"/rfps/{rfp.pk}/export.docx?answers={which}").body()
        assert answers_in_docx(docx)["B.1"] == "", which


def test_eight_of_thirty_approved_by_a_person_and_the_recommended_export_writes_exactly_those(
    logged_in_page, live_server, transactional_db, user, tmp_path
):
    rfp = demo_rfp(user)
    approved = list(rfp.questions.order_by("order")[:8])
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"/rfps/{rfp.pk}/?sort=document")
    assert (
        page.locator(".workspace-progress p strong").first.inner_text() == "0% approved"
    )  # 30 supported by the reviewer: no approval
    for question in approved:
        page.click(f"#q{question.pk} .approve-button")
        page.locator(f"#q{question.pk} .approval").wait_for()
    first = page.locator(f"#q{approved[0].pk}")
    assert "Approved by alice" in first.inner_text() and "Reviewer: supported" in first.inner_text()
    assert first.locator(".choice").count() == 0  # "Describe your company …" takes no Yes / No
    shot(page, tmp_path, "client-file-row-approved", clip=box(page, first), full_page=True)

    numbers = {q.number for q in approved}
    page.click("#export-workbook")  # the recommended choice by default
    page.wait_for_selector("#export-report")
    text_cells = {f"Questionnaire!{q.answer_cells['text']}": q.number for q in rfp.questions.all()}
    outcomes = {
        text_cells[where]: outcome
        for where, outcome in zip(
            page.locator("#report-lines td:nth-child(2)").all_inner_texts(),
            page.locator("#report-lines td:nth-child(3)").all_inner_texts(),
        )
        if where in text_cells
    }
    assert {n for n, outcome in outcomes.items() if outcome == "written"} == numbers and len(outcomes) == 30
    shot(page, tmp_path, "client-file-report")
    cells = answered_cells(rfp, download(page, "#download-workbook"))
    assert {n for n, value in cells.items() if value} == numbers  # the file matches the report
    assert all(
        cells[n] == f"Orrery meets requirement {n} in full, as its security whitepaper describes." for n in numbers
    )
    page.goto(f"/rfps/{rfp.pk}/")
    docx = answers_in_docx(download(page, "#export-docx"))
    assert {n for n, text in docx.items() if text} == numbers and len(docx) == 30

    # Every draft: all 30 go out, and the report names the 22 no person approved.
    page.goto(f"/rfps/{rfp.pk}/export-workbook/?answers=drafts")
    assert page.inner_text("#unapproved-answers").startswith("22 answers written that no person approved")
    cells = answered_cells(rfp, download(page, "#download-workbook"))
    assert all(cells.values()) and len(cells) == 30
