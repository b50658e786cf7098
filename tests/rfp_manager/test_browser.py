"""The whole RFP journey in Debian's Chromium: live server, real worker, fake LLM server."""

import io

import pytest
from openpyxl import Workbook, load_workbook

from llm_manager import services as llm
from rfp_manager.models import Answer
from rfp_manager.services import answering
from solution_library.testing import add_library_document
from text.words import CITATION

from ..samples import sample_questionnaire
from .conftest import make_rfp

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
    page.wait_for_selector("table.answers .verdict-tag")

    with page.expect_download() as download_info:
        page.click("#export-xlsx")
    sheet = load_workbook(io.BytesIO(download_info.value.path().read_bytes())).active
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][:4] == ("Section", "Number", "Question", "Final answer")
    assert rows[1][2] == "How is customer data encrypted at rest and in transit?"
    assert "AES-256" in rows[1][3] and "Security handbook" in rows[1][4]
    assert rows[1][5] in ("Supported", "Needs revision", "Rejected")  # the reviewer's verdict, never "Approved"

    page.screenshot(path=str(tmp_path / "rfp.png"), full_page=True)
    page.click("tr:has-text('encrypted at rest') a.source-link >> nth=0")
    page.wait_for_load_state()
    assert "/library/chunks/" in page.url
    assert "AES-256" in page.inner_text("body")


def mapping_workbook(path):
    """Two domain sheets after a cover sheet; the answer column's header is one the analysis cannot place."""
    workbook = Workbook()
    cover = workbook.active
    cover.title = "Cover"
    cover["A1"] = "Acme supplier questionnaire: answer on the domain sheets."
    for name, questions in [
        (
            "Security",
            [
                "How is customer data encrypted at rest and in transit?",
                "How is access to production systems controlled?",
            ],
        ),
        (
            "Operations",
            ["How often are backups taken and how long are they kept?", "Which data centres host the service?"],
        ),
    ]:
        sheet = workbook.create_sheet(name)
        sheet.append(["ID", "Question", "Yes/No", "Supplier statement"])
        for number, question in enumerate(questions, start=1):
            sheet.append([f"{name[:3].upper()}-{number}", question])
    workbook.save(path)
    return path


# Runs in the page: the moment the preview that leaves a sheet out is swapped in (before the
# browser runs anything else), choose "text" for column D of the first domain sheet, as a quick
# user or a script would. A control htmx has not bound yet ignores the change.
CHANGE_ROLE_AS_SOON_AS_SWAPPED = """() => {
    const observer = new MutationObserver(() => {
        const confirm = document.querySelector('#confirm-import');
        if (!confirm || !confirm.textContent.includes('Import 2 questions')) return;
        observer.disconnect();
        const role = document.querySelector('#sheet-1 select[data-column=D]');
        role.value = 'text';
        role.dispatchEvent(new Event('change', {bubbles: true}));
    });
    observer.observe(document.body, {childList: true, subtree: true});
}"""


def test_a_mapping_change_made_as_the_preview_is_swapped_in_is_not_lost(logged_in_page, live_server, user, tmp_path):
    from rfp_manager.models import RFP

    # Given the mapping step of a two-sheet workbook,
    rfp = RFP.objects.create(name="Quick mapping RFP", owner=user)
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"{live_server.url}/rfps/{rfp.pk}/")
    page.set_input_files("#import input[name=file]", str(mapping_workbook(tmp_path / "supplier.xlsx")))
    page.click("#import-submit")
    page.wait_for_selector("#confirm-import:has-text('Import 4 questions')")

    # when a column's role is changed in the same instant the previous change's preview arrives,
    page.evaluate(CHANGE_ROLE_AS_SOON_AS_SWAPPED)
    page.select_option("#sheet-2 select.sheet-include", "0")

    # then that change is applied too.
    page.wait_for_selector("#sheet-1 .first-rows td:has-text('text D2')")


def test_mapping_step_exclude_a_sheet_change_a_role_import_answer_export(
    logged_in_page, live_server, live_worker, library, user, tmp_path
):
    from rfp_manager.models import RFP

    rfp = RFP.objects.create(name="Mapping RFP", owner=user)
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"{live_server.url}/rfps/{rfp.pk}/")
    page.set_input_files("#import input[name=file]", str(mapping_workbook(tmp_path / "supplier.xlsx")))
    page.click("#import-submit")
    page.wait_for_selector("#confirm-import:has-text('Import 4 questions')")

    # Leave the Operations sheet out: the counts follow without a reload.
    page.evaluate("window.__noReload = true")
    page.select_option("#sheet-2 select.sheet-include", "0")
    page.wait_for_selector("#confirm-import:has-text('Import 2 questions')")
    # "Supplier statement" is where the answer goes: say so.
    page.select_option("#sheet-1 select[data-column=D]", "text")
    page.wait_for_selector("#sheet-1 .first-rows td:has-text('text D2')")
    assert page.evaluate("window.__noReload") is True
    page.screenshot(path=str(tmp_path / "mapping.png"), full_page=True)
    print("mapping screenshot:", tmp_path / "mapping.png")

    page.click("#confirm-import")
    page.wait_for_selector("text=Imported: 2 new")
    page.click("#start-responder")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=60000)
    page.click("text=See the answers")
    # Before the download: the choices and the report. The drafts are not reviewed yet: send them anyway.
    from rfp_manager.services.deliverable import MARKER, clean_text

    page.click("#export-workbook")
    page.wait_for_selector("#export-report")
    page.check("input[name=answers][value=drafts]")
    page.click("#update-report")
    page.wait_for_selector("#report-lines td:has-text('Security!D2')")
    assert "open question: a Yes/No choice does not answer it" in page.inner_text("#empty-reasons")
    page.screenshot(path=str(tmp_path / "export.png"), full_page=True)
    print("export screenshot:", tmp_path / "export.png")
    with page.expect_download() as download_info:
        page.click("#download-workbook")
    exported = load_workbook(io.BytesIO(download_info.value.path().read_bytes()))
    assert exported.sheetnames == ["Cover", "Security", "Operations"]
    security = exported["Security"]
    answers = {q.number: q.answer for q in rfp.questions.select_related("answer")}
    assert set(answers) == {"SEC-1", "SEC-2"}
    for row, number in ((2, "SEC-1"), (3, "SEC-2")):
        # The answer without its citation markers and sources; no Yes/No for a "How is …" question.
        assert security[f"D{row}"].value == clean_text(answers[number].final_answer)
        assert not MARKER.search(security[f"D{row}"].value) and "Sources" not in security[f"D{row}"].value
        assert security[f"C{row}"].value is None
    assert exported["Operations"]["D2"].value is None  # the sheet left out stays as it was


PREVIEW_HEIGHT_LIMIT = 4000  # px at 1280 wide; the whole list of 90 questions made it about 23,000


def test_the_preview_of_a_90_question_workbook_is_compact_and_keeps_every_question(
    logged_in_page, live_server, live_worker, user, tmp_path
):
    from rfp_manager.models import RFP

    rfp = RFP.objects.create(name="SAMM self-assessment", owner=user)
    page = logged_in_page(user, "pw-alice-123")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/rfps/{rfp.pk}/")
    samm = tmp_path / "SAMM_spreadsheet.xlsx"
    samm.write_bytes(sample_questionnaire("SAMM_spreadsheet.xlsx"))
    page.set_input_files("#import input[name=file]", str(samm))
    page.click("#import-submit")
    # Above the inline threshold: a worker reads it while the page shows its progress, then opens the preview.
    page.wait_for_selector("#import-reading, #confirm-import")
    page.screenshot(path=str(tmp_path / "samm-reading.png"), full_page=True)
    print("SAMM reading screenshot:", tmp_path / "samm-reading.png")
    page.wait_for_selector("#confirm-import:has-text('Import 90 questions')", timeout=60_000)
    page.screenshot(path=str(tmp_path / "samm-preview.png"), full_page=True)
    print("SAMM preview screenshot:", tmp_path / "samm-preview.png")

    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= PREVIEW_HEIGHT_LIMIT, f"the preview is {height} px tall"
    # Nothing is left out of the page: every question is in the list, which scrolls in its own area.
    assert page.locator("#good-rows tbody tr").count() == 90
    questions = page.locator("#good-rows-area")
    assert questions.evaluate("area => area.scrollHeight > area.clientHeight")
    questions.focus()  # a keyboard user scrolls it too
    page.keyboard.press("End")
    assert questions.evaluate("area => area.scrollTop + area.clientHeight >= area.scrollHeight - 1")


def test_a_question_answered_before_its_document_was_ready_is_redrafted_from_the_rfp_page(
    logged_in_page, live_server, live_worker, library, user
):
    """Answered while its document was still processing, "How long are audit logs kept?" got "no supporting
    content". Once the document is ready the RFP page says so, and one click drafts the answer from it."""
    rfp = make_rfp(user, ["How long are audit logs kept?"])
    question = rfp.questions.get()
    assert answering.generate_answer(question, model=llm.get_default_model("chat")).needs_expert
    add_library_document("Logging standard", "Audit logs are kept for 13 months, then deleted.", user)

    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"{live_server.url}/rfps/{rfp.pk}/")
    offer = page.inner_text("#library-grew")
    assert "1 question got “no supporting content” before 1 library document became ready" in offer
    page.uncheck("#library-grew input[name=review_when_done]")
    page.click("#redraft-no-support")
    page.wait_for_selector(".progress-block[data-status=completed]", timeout=60000)
    answer = Answer.objects.get(question=question)
    assert "13 months" in answer.draft_text and not answer.needs_expert
    page.goto(f"{live_server.url}/rfps/{rfp.pk}/")
    assert page.locator("#library-grew").count() == 0


def test_a_sentence_the_editor_offers_beside_the_draft_is_inserted_with_its_citation(
    logged_in_page, live_server, library, user, tmp_path
):
    """The draft quotes the AES-256 sentence; the key-management sentence the editor offers beside it goes into the
    final answer with the number its passage has among the draft's, and the save marks that passage cited."""
    keys = add_library_document(
        "Key management", "Customer data keys are held in a hardware security module and rotated every year.", user
    )
    rfp = make_rfp(user, ["How is customer data encrypted at rest and in transit?"])
    question = rfp.questions.get()
    draft = answering.generate_answer(question, model=llm.get_default_model("chat"))
    offered = "Customer data keys are held in a hardware security module and rotated every year."
    assert offered not in draft.draft_text and offered in [m["text"] for m in draft.may_answer]

    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"{live_server.url}/rfps/questions/{question.pk}/answer/")
    page.fill("textarea[name=final_text]", "AES-256 at rest and TLS 1.3 in transit [1].")
    insert = page.locator(f"#may-answer .may-answer-item:has-text('{offered}') .insert-source")
    insert.click()
    key_chunks = set(keys.chunks.values_list("pk", flat=True))
    (listed,) = [c for c in draft.citations if c.get("chunk_id") in key_chunks]
    assert not listed["cited"]  # among the draft's passages, not quoted
    # the marker inside the sentence, before its full stop, as the drafts place theirs
    assert page.input_value("textarea[name=final_text]").endswith(f"{offered.removesuffix('.')} [{listed['n']}].")
    page.screenshot(path=str(tmp_path / "may-answer.png"), full_page=True)
    page.click("button:has-text('Save final answer')")
    page.wait_for_selector("text=Saved the final answer")
    saved = Answer.objects.get(question=question)
    assert len(saved.citations) == len(draft.citations)  # no source listed twice
    (inserted,) = [c for c in saved.citations if c.get("chunk_id") in key_chunks]
    assert inserted["cited"] and saved.final_text.endswith(f"{offered.removesuffix('.')} [{inserted['n']}].")
    shown = sorted({int(n) for n in CITATION.findall(saved.final_text)})
    assert shown == list(range(1, len(shown) + 1))  # the inserted source closed any gap: [1], [2], never [1], [4]
