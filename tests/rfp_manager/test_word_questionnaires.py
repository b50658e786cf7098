"""Word and PDF questionnaires: imported through the same preview and mapping, answers written back at their place.

Every round trip goes through the views (upload, preview, apply, export report,
download) and reopens the download with python-docx or pypdf: each answer is
where it belongs, and every other part of the file is unchanged (compared as
canonical XML, element by element).
"""

import io
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from docx import Document
from docx.oxml.ns import nsmap, qn
from lxml import etree
from openpyxl import load_workbook
from pypdf import PdfReader, PdfWriter

from rfp_manager.models import RFP, Answer, Question, QuestionImport
from rfp_manager.services import deliverable, document_export
from rfp_manager.testing import approved_by, verdict_on

from ..questionnaires import word_fixtures

pytestmark = pytest.mark.django_db


@pytest.fixture
def rfp(user):
    return RFP.objects.create(name="City RFP", owner=user)


def import_file(client, rfp, name: str, data: bytes) -> QuestionImport:
    """Upload, look at the preview, confirm: what a user does."""
    response = client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": SimpleUploadedFile(name, data)})
    assert response.status_code == 302, response.content.decode()[:2000]
    record = QuestionImport.objects.get(rfp=rfp)
    assert client.get(reverse("rfp_manager:import_preview", args=[record.pk])).status_code == 200
    client.post(reverse("rfp_manager:import_preview", args=[record.pk]))
    return record


def answer(rfp, number: str, approved: bool = False, **fields) -> Answer:
    """An answer; `approved`: by a person (the RFP's owner); a `review_verdict` is on the text it shows."""
    shown = fields.get("final_text") or fields.get("draft_text", "")
    if approved:
        fields.update(approved_by(rfp.owner, shown))
    if fields.get("review_verdict"):
        fields.update(verdict_on(fields["review_verdict"], shown))
    return Answer.objects.create(question=Question.objects.get(rfp=rfp, number=number), **fields)


def download_document(client, rfp, **choices) -> tuple[bytes, str]:
    """The export report page and the download, with the export choices (the defaults when none)."""
    report = client.get(reverse("rfp_manager:export_document", args=[rfp.pk]), choices)
    assert report.status_code == 200
    response = client.get(reverse("rfp_manager:export_document_download", args=[rfp.pk]), choices)
    assert response.status_code == 200
    return response.content, report.content.decode()


# --- comparing two DOCX packages --------------------------------------------------------------------


def canonical(element) -> bytes:
    return etree.tostring(element, method="c14n")


def assert_other_parts_unchanged(original: bytes, exported: bytes) -> None:
    """Styles, numbering, headers, footers, settings, relationships…: every part but the body, as XML."""
    before, after = zipfile.ZipFile(io.BytesIO(original)), zipfile.ZipFile(io.BytesIO(exported))
    assert set(before.namelist()) == set(after.namelist())
    for name in before.namelist():
        if name == "word/document.xml":
            continue
        old, new = before.read(name), after.read(name)
        if name.endswith((".xml", ".rels")):
            assert canonical(etree.fromstring(old)) == canonical(etree.fromstring(new)), name
        else:
            assert old == new, name


def body(data: bytes):
    return Document(io.BytesIO(data)).element.body


def changed_cells(original: bytes, exported: bytes) -> dict[tuple[int, int, int], object]:
    """The table cells (table, row, cell) whose XML differs; every other body element must be identical."""
    changed = {}
    before, after = list(body(original)), list(body(exported))
    assert [e.tag for e in before] == [e.tag for e in after]
    table = -1
    for old, new in zip(before, after):
        if old.tag != qn("w:tbl"):
            assert canonical(old) == canonical(new)
            continue
        table += 1
        assert canonical(old.find(qn("w:tblPr"))) == canonical(new.find(qn("w:tblPr")))
        for r, (old_row, new_row) in enumerate(zip(old.findall(qn("w:tr")), new.findall(qn("w:tr")))):
            old_cells, new_cells = old_row.findall(qn("w:tc")), new_row.findall(qn("w:tc"))
            assert len(old_cells) == len(new_cells)
            for c, (old_cell, new_cell) in enumerate(zip(old_cells, new_cells)):
                if canonical(old_cell) != canonical(new_cell):
                    assert canonical(old_cell.find(qn("w:tcPr"))) == canonical(new_cell.find(qn("w:tcPr")))
                    changed[(table, r, c)] = new_cell
    return changed


def properties(paragraph) -> bytes:
    found = paragraph.find(qn("w:pPr"))
    return b"" if found is None else canonical(found)


def cell_text(tc) -> str:
    return "\n".join(
        "".join(t.text or "" if t.tag == qn("w:t") else "\n" for t in p.iter(qn("w:t"), qn("w:br")))
        for p in tc.findall(qn("w:p"))
    )


# --- a question / response table --------------------------------------------------------------------------


def test_table_questionnaire_round_trip(rfp, user_client):
    original = word_fixtures.table_questionnaire()
    record = import_file(user_client, rfp, "city questionnaire.docx", original)

    # Given: the cover table left out, the four questions with their IDs, sections and response cells.
    sheets = {s["name"]: s for s in record.mapping["sheets"]}
    assert not sheets["Table 1"]["include"] and sheets["Table 2"]["include"]
    questions = list(rfp.questions.order_by("order").values_list("number", "section", "sheet", "answer_cells"))
    assert questions == [
        ("AC-1", "A. Access control", "Table 2", {"text": "C3"}),
        ("AC-2", "A. Access control", "Table 2", {"text": "C4"}),
        ("DP-1", "B. Data protection", "Table 2", {"text": "C6"}),
        ("DP-2", "B. Data protection", "Table 2", {"text": "C7"}),
    ]
    # Approved with citations; edited by a person; a placeholder; rejected.
    answer(
        rfp,
        "AC-1",
        draft_text="Access is granted through single sign-on [1] and revoked the same day [2].",
        approved=True,
    )
    answer(rfp, "AC-2", draft_text="Yes [1].", final_text="Yes, for every administrator account.")
    answer(rfp, "DP-1", draft_text="No supporting content in the library answers this question.", needs_expert=True)
    answer(rfp, "DP-2", draft_text="Backups are hourly [1].", review_verdict="rejected")

    exported, report = download_document(user_client, rfp)

    # Then: the two answers in their response cells, clean; every other cell and part as it was.
    changed = changed_cells(original, exported)
    assert {place: cell_text(tc) for place, tc in changed.items()} == {
        (1, 2, 2): "Access is granted through single sign-on and revoked the same day.",
        (1, 3, 2): "Yes, for every administrator account.",
    }
    assert_other_parts_unchanged(original, exported)
    table = Document(io.BytesIO(exported)).tables[1]
    assert table.cell(5, 2).text == "[Insert response]" and table.cell(6, 2).text == ""  # left as the client had them
    # And the report says what went where and why the rest is empty.
    assert "2 of 4 answers will be written" in report
    assert "Table 2, row 3, column C" in report and "Table 2, row 4, column C" in report
    assert "placeholder (no supporting content)" in report and "rejected by the reviewer" in report
    # The report's per-cell outcome is the file's, cell by cell.
    _, _, lines = document_export.export_into_source_document(rfp, deliverable.ExportChoices())
    assert {line.where for line in lines if line.written} == {
        f"Table {t + 1}, row {r + 1}, column {chr(ord('A') + c)}" for t, r, c in changed
    }


# --- numbered questions in the body -------------------------------------------------------------------------


def test_numbered_questionnaire_round_trip(rfp, user_client):
    original = word_fixtures.numbered_questionnaire()
    import_file(user_client, rfp, "hosting rfp.docx", original)

    # Given: Word's own list numbers (continued across the headings), the typed 3.1, headings as sections.
    assert list(rfp.questions.order_by("order").values_list("number", "section", "text")) == [
        ("1", "1 General", "Describe your company and the services you offer."),
        ("2", "1 General", "Which data centres host the service?"),
        ("3", "2 Operations", "How often are backups taken and how long are they kept?"),
        ("4", "2 Operations", "What support hours and response times do you offer?"),
        ("3.1", "3 Contacts", "Provide the name of your security officer."),
    ]
    answer(rfp, "1", draft_text="Acme runs managed hosting for public bodies [1].", approved=True)
    answer(rfp, "2", draft_text="Frankfurt [1].", final_text="Frankfurt and Dublin [1].")
    answer(rfp, "3", draft_text="Hourly, kept 35 days [1].")  # not reviewed yet: stays out
    answer(rfp, "4", draft_text="Around the clock [2].\nSeverity one within an hour [3].", approved=True)
    answer(rfp, "3.1", draft_text="", final_text="Jane Doe, CISO")

    exported, report = download_document(user_client, rfp)

    before, after = list(body(original)), list(body(exported))
    assert len(before) == len(after)  # every question had its slot: nothing inserted
    changed = {i: new for i, (old, new) in enumerate(zip(before, after)) if canonical(old) != canonical(new)}
    paragraphs = Document(io.BytesIO(exported)).paragraphs
    texts = {i: paragraphs[i].text for i in changed}
    assert texts == {
        6: "Acme runs managed hosting for public bodies.",
        8: "Response: Frankfurt and Dublin.",
        13: "Response: Around the clock.\nSeverity one within an hour.",
        16: "Jane Doe, CISO",
    }
    for i in changed:  # the slot keeps its paragraph properties (style, spacing)
        assert properties(before[i]) == properties(after[i])
    assert [r.bold for r in paragraphs[8].runs] == [True, None]  # the bold "Response:" label stays bold, the answer not
    assert paragraphs[11].text == ""  # question 3's slot: not approved, left empty
    assert_other_parts_unchanged(original, exported)
    assert "no person approved it (reviewer: not reviewed): only answers a person approved or wrote" in report

    # Chosen on the export page: every draft that is not rejected nor a placeholder goes out, question 3's too.
    exported, report = download_document(user_client, rfp, answers="drafts")
    assert Document(io.BytesIO(exported)).paragraphs[11].text == "Hourly, kept 35 days."
    assert "5 of 5 answers will be written" in report


def test_a_numbered_question_without_a_slot_gets_a_new_paragraph_after_it(rfp, user_client):
    document = Document()
    for question in (
        "What is your uptime commitment?",
        "Which certifications do you hold?",
        "How do you report incidents?",
    ):
        document.add_paragraph(question, style="List Number")
    document.add_paragraph("Signature: ________")
    buffer = io.BytesIO()
    document.save(buffer)
    import_file(user_client, rfp, "no slots.docx", buffer.getvalue())
    answer(rfp, "2", draft_text="ISO 27001 [1].", approved=True)

    exported, report = download_document(user_client, rfp)

    assert [p.text for p in Document(io.BytesIO(exported)).paragraphs] == [
        "What is your uptime commitment?",
        "Which certifications do you hold?",
        "ISO 27001.",
        "How do you report incidents?",
        "Signature: ________",
    ]
    assert "a new paragraph after the question" in report


def test_a_content_control_after_a_numbered_question_takes_its_answer(rfp, user_client):
    from docx.oxml import parse_xml

    document = Document()
    questions = ("What is your uptime commitment?", "Which certifications do you hold?", "How do you report incidents?")
    for question in questions:
        asked = document.add_paragraph(question, style="List Number")
        asked._p.addnext(parse_xml(word_fixtures._text_control(block=True)))
    buffer = io.BytesIO()
    document.save(buffer)
    original = buffer.getvalue()
    import_file(user_client, rfp, "controls in the body.docx", original)
    assert list(rfp.questions.order_by("order").values_list("number", flat=True)) == ["1", "2", "3"]
    answer(rfp, "2", draft_text="ISO 27001 [1].", approved=True)

    exported, report = download_document(user_client, rfp)

    before, after = list(body(original)), list(body(exported))
    changed = [i for i, (old, new) in enumerate(zip(before, after)) if canonical(old) != canonical(new)]
    assert len(before) == len(after) and changed == [3]  # question 2's control, nothing else
    assert "".join(etree.XPath(".//w:t/text()", namespaces=nsmap)(after[3])) == "ISO 27001."
    assert not etree.XPath(".//w:showingPlcHdr", namespaces=nsmap)(after[3])
    assert "the content control after the question" in report


# --- PDF -------------------------------------------------------------------------------------------------------


def test_fillable_pdf_round_trip(rfp, user_client):
    original = word_fixtures.fillable_pdf()
    import_file(user_client, rfp, "form.pdf", original)
    assert list(rfp.questions.order_by("order").values_list("number", "text", "answer_cells")) == [
        ("", "Company name", {"text": "C2"}),
        *[(n, q, {"text": f"C{int(n) + 2}"}) for n, q in word_fixtures.PDF_QUESTIONS],
    ]
    answer(rfp, "1", draft_text="AES-256 at rest [1] and TLS 1.3 in transit [1].", approved=True)
    answer(rfp, "3", draft_text="Frankfurt and Dublin.", final_text="Frankfurt and Dublin.")
    answer(rfp, "2", draft_text="Hourly [1].", review_verdict="needs_revision")

    exported, report = download_document(user_client, rfp)

    reader = PdfReader(io.BytesIO(exported))
    values = {name: field.get("/V", "") for name, field in reader.get_fields().items()}
    assert values == {
        "company": "",
        "answer_1": "AES-256 at rest and TLS 1.3 in transit.",
        "answer_2": "",
        "answer_3": "Frankfurt and Dublin.",
    }
    assert reader.trailer["/Root"]["/AcroForm"]["/NeedAppearances"]
    assert reader.pages[0].extract_text() == PdfReader(io.BytesIO(original)).pages[0].extract_text()
    assert "form field “answer_1” (page 1)" in report and "2 of 4 answers will be written" in report


def test_text_pdf_imports_numbered_questions_and_exports_them_with_the_same_numbers(rfp, user_client):
    record = import_file(user_client, rfp, "questions.pdf", word_fixtures.text_pdf())
    expected = [
        ("1.1", "Security", "How is customer data encrypted at rest and in transit?"),
        ("1.2", "Security", "Describe how access to production systems is granted and revoked for administrators."),
        ("2.1", "Operations", "How often are backups taken and how long are they kept?"),
        ("2.2", "Operations", "Which data centres host the service?"),
    ]
    assert list(rfp.questions.order_by("order").values_list("number", "section", "text")) == expected
    answer(rfp, "1.1", draft_text="AES-256 at rest [1].", approved=True)
    # A text PDF has no place for answers: no write-back, a fresh DOCX or XLSX instead.
    assert user_client.get(reverse("rfp_manager:export_document", args=[rfp.pk])).status_code == 404
    assert record.kind == "pdf"

    docx = Document(io.BytesIO(user_client.get(reverse("rfp_manager:export_docx", args=[rfp.pk])).content))
    texts = [(p.style.name, p.text) for p in docx.paragraphs]
    assert texts[1:] == [
        ("Heading 1", "Security"),
        ("Normal", f"1.1 {expected[0][2]}"),
        ("Normal", "AES-256 at rest."),
        ("Normal", f"1.2 {expected[1][2]}"),
        ("Normal", ""),
        ("Heading 1", "Operations"),
        ("Normal", f"2.1 {expected[2][2]}"),
        ("Normal", ""),
        ("Normal", f"2.2 {expected[3][2]}"),
        ("Normal", ""),
    ]
    sheet = load_workbook(io.BytesIO(user_client.get(reverse("rfp_manager:export_xlsx", args=[rfp.pk])).content)).active
    assert [row[1] for row in sheet.iter_rows(min_row=2, values_only=True)] == ["1.1", "1.2", "2.1", "2.2"]


# --- bad input -----------------------------------------------------------------------------------------------


def encrypted(data: bytes) -> bytes:
    from msoffcrypto.format.ooxml import OOXMLFile

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(data)).encrypt("secret", out)
    return out.getvalue()


def with_macros(data: bytes) -> bytes:
    """The same document with a VBA project inside (what Word saves as .docm)."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item.filename))
        target.writestr("word/vbaProject.bin", b"\0" * 64)
    return out.getvalue()


def no_questions_docx() -> bytes:
    document = Document()
    document.add_heading("Meeting notes", level=1)
    document.add_paragraph("We met on Tuesday and agreed the plan.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def password_pdf() -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(word_fixtures.fillable_pdf())))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("locked.docx", encrypted(word_fixtures.table_questionnaire()), "password-protected"),
        ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, "save it as .docx"),
        ("renamed.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, "legacy Word 97–2003"),
        ("broken.docx", word_fixtures.table_questionnaire()[:3000], "is not a Word .docx file"),
        ("macros.docm", word_fixtures.table_questionnaire(), "macro-enabled"),
        ("macros inside.docx", with_macros(word_fixtures.table_questionnaire()), "macro-enabled"),
        ("notes.docx", no_questions_docx(), "No questions were found"),
        ("locked.pdf", password_pdf(), "The PDF is password-protected"),
        ("broken.pdf", b"%PDF-1.7\n" + b"garbage" * 100, "The PDF is damaged and cannot be read"),
    ],
    ids=[
        "encrypted-docx",
        "legacy-doc",
        "doc-renamed-docx",
        "corrupt-docx",
        "docm",
        "vba-in-docx",
        "no-questions",
        "encrypted-pdf",
        "corrupt-pdf",
    ],
)
def test_bad_documents_get_a_message_that_says_what_to_do(rfp, user_client, name, data, message):
    response = user_client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": SimpleUploadedFile(name, data)})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not QuestionImport.objects.exists()


def test_an_unreadable_stored_document_gives_a_message_not_a_half_written_file(rfp, user_client):
    record = import_file(user_client, rfp, "city questionnaire.docx", word_fixtures.table_questionnaire())
    answer(rfp, "AC-1", draft_text="Through single sign-on.", approved=True)
    with record.file.open("wb") as handle:
        handle.write(b"PK\x03\x04 not a document any more")

    response = user_client.get(reverse("rfp_manager:export_document_download", args=[rfp.pk]))

    assert response.status_code == 400 and "is not a Word .docx file" in response.content.decode()
    assert "attachment" not in response.get("Content-Disposition", "")


# --- Word's own form fields (content controls) ------------------------------------------------------------------


def test_content_controls_take_the_answer_and_an_item_of_their_own_drop_down(rfp, user_client):
    original = word_fixtures.content_control_questionnaire()
    record = import_file(user_client, rfp, "compliance.docx", original)
    table = next(s for s in record.mapping["sheets"] if s["include"])
    assert table["roles"] == {"1": "id", "2": "question", "3": "choice", "4": "text"}  # the drop-downs say "choice"
    # R1's Yes was read from its draft and nobody checked it: written, and the report says whose it is
    answer(rfp, "R1", draft_text="Yes, with AES-256 [1].", approved=True, choice="yes", choice_needs_review=True)
    answer(
        rfp,
        "R2",
        draft_text="Not applicable: no card data is processed [2].",
        final_text="Not applicable: no card data is processed.",
        choice="na",
    )
    answer(rfp, "R3", draft_text="We triage within an hour [1].", choice="yes")  # unreviewed: nothing goes out

    exported, report = download_document(user_client, rfp)

    changed = changed_cells(original, exported)
    assert sorted(changed) == [(0, 1, 2), (0, 1, 3), (0, 2, 2), (0, 2, 3)]
    texts = {place: "".join(tc.xpath(".//w:sdtContent//w:t/text()")) for place, tc in changed.items()}
    assert texts == {
        (0, 1, 2): "Yes",
        (0, 1, 3): "Yes, with AES-256.",
        (0, 2, 2): "Not applicable",
        (0, 2, 3): "Not applicable: no card data is processed.",
    }
    for tc in changed.values():  # the control stays a control (same kind, same list), no longer showing its placeholder
        sdt = tc.find(".//" + qn("w:sdt"))
        assert sdt.find(qn("w:sdtPr") + "/" + qn("w:showingPlcHdr")) is None
        assert not tc.xpath(".//w:rStyle[@w:val='PlaceholderText']")
        assert (
            sdt.find(qn("w:sdtPr") + "/" + qn("w:dropDownList")) is not None
            or sdt.find(qn("w:sdtPr") + "/" + qn("w:text")) is not None
        )
    assert_other_parts_unchanged(original, exported)
    assert "Yes in Table 1, row 2, column C (guessed from the draft: no person chose it)" in report
    assert re.search(r'id="guessed-choices"><p><strong>1 Yes/No choice guessed .*</strong>[^<]*R1</p>', report)
    assert "Not applicable in Table 1, row 3, column C (“N/A” → “Not applicable”)<" in report


def test_a_choice_the_drop_down_cannot_say_is_left_empty_with_the_reason(rfp, user_client):
    data = word_fixtures.content_control_questionnaire(choices=("Yes", "No", "Partly"))
    import_file(user_client, rfp, "compliance.docx", data)
    answer(rfp, "R2", draft_text="", final_text="This does not apply to us.", choice="na")

    exported, report = download_document(user_client, rfp)

    dropdown = Document(io.BytesIO(exported)).tables[0].rows[2].cells[2]._tc
    assert (
        dropdown.xpath(".//w:showingPlcHdr")
        and "".join(dropdown.xpath(".//w:sdtContent//w:t/text()")) == "Choose an item."
    )
    assert "left empty: the cell&#x27;s list has no option meaning “N/A”" in report
