"""The client's questionnaire back, ready to send (issue 20, workbooks): clean answer cells, only the answers
chosen, choices from each cell's own drop-down, citations only where the user put them, a report of it all."""

import csv
import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from docx import Document
from openpyxl import Workbook, load_workbook

from llm_manager.providers.offline import NO_PASSAGE_ANSWER
from questionnaires import dropdowns
from rfp_manager.models import RFP, Answer, QuestionImport
from rfp_manager.services import choices, deliverable, export, importing, workflow
from rfp_manager.testing import approved_by, verdict_on

from ..questionnaires import workbooks
from ..samples import sample_questionnaire
from .test_questionnaires import CITATION, assert_written_and_unchanged, comparable, import_file

pytestmark = pytest.mark.django_db

MARKER_OR_SOURCES = re.compile(r"\[\d+\]|Sources?:|passage \d", re.IGNORECASE)


@pytest.fixture
def rfp(user):
    return RFP.objects.create(name="Acme", owner=user)


def answer(rfp, number, text, choice="", approved=False, edited=False, **fields):
    """An answer to question `number`: approved by a person and/or edited (`final_text`) by one, if asked;
    a `review_verdict` is on the text it shows (not stale)."""
    shown = fields.get("final_text") or text
    if approved:
        fields.update(approved_by(rfp.owner, shown))
    if edited:
        fields.update(edited_by=rfp.owner, edited_at=timezone.now())
    if fields.get("review_verdict"):
        fields.update(verdict_on(fields["review_verdict"], shown))
    return Answer.objects.create(
        question=rfp.questions.get(number=number), draft_text=text, citations=[CITATION], choice=choice, **fields
    )


def outcomes(report) -> dict[str, tuple[str, str]]:
    return {line.where: (line.outcome, line.detail) for line in report.lines}


# --- point 3: questions found by content ------------------------------------------------------------------


def test_vendor_assessment_sheets_and_columns_found_by_content(rfp, user_client):
    """The header over the ID column says "Question"; the questions are in the next column; guidance and analyst
    columns sit beside the answers. Before, these sheets were left out as "few question-like rows (0 of 5)"."""
    data, expected = workbooks.vendor_assessment()
    record = importing.prepare_import(rfp, rfp.owner, upload=SimpleUploadedFile("assessment.xlsx", data))
    sheets = {s["name"]: s for s in record.mapping["sheets"]}
    assert {name: s["reason"] for name, s in sheets.items()} == {
        "Instructions": "instructions sheet",
        "Company": "",
        "Data": "",
        "Application": "",
        "Lists": "hidden sheet",
        "Analyst Summary": "analyst evaluation sheet",
    }
    for name in ("Company", "Data", "Application"):
        assert sheets[name]["roles"] == {"1": "id", "2": "question", "3": "choice", "4": "text"}, name
        assert sheets[name]["notes"] == {
            "5": "guidance for the respondent, not an answer column",
            "6": "for the client's analyst, not an answer column",
            "7": "for the client's analyst, not an answer column",
        }
    assert [(r["sheet"], r["number"], r["section"], r["text"]) for r in record.rows] == expected
    preview = user_client.get(reverse("rfp_manager:import_preview", args=[record.pk])).content.decode()
    assert "guidance for the respondent, not an answer column" in preview and "instructions sheet" in preview


# --- point 2: choices from the cell's own list --------------------------------------------------------------


def test_choices_come_from_each_cells_own_list_and_only_for_closed_questions(rfp):
    data, _ = workbooks.vendor_assessment()
    import_file(rfp, "assessment.xlsx", data)
    approved = {"approved": True}
    answer(rfp, "COMP-01", "Yes, Acme is a private company founded in 2009 [1].", "yes", **approved)  # open question
    answer(rfp, "COMP-02", "Yes, a team of six [1].", "yes", **approved)  # inline list
    answer(rfp, "DATA-01", "Yes, AES-256 [1].", "yes", **approved)  # a named range on the hidden lists sheet
    answer(rfp, "DATA-02", "N/A: no data is sent [1].", "na", **approved)
    answer(rfp, "DATA-03", "Partially: backups only [1].", "partly", **approved)  # that list has no "partly"
    answer(rfp, "APPL-01", "Partially, for the main product [1].", "partly", **approved)  # x14 list (openpyxl drops it)
    answer(rfp, "APPL-02", "Not applicable here [1].", "na", **approved)
    answer(rfp, "APPL-03", "Yes, within 30 days [1].", "yes", **approved)  # "How do you …": open

    content, _, report = export.export_into_source_file(rfp)
    result = load_workbook(io.BytesIO(content))
    values = {
        f"{s}!{c}": result[s][c].value
        for s, c in [
            ("Company", "C4"),
            ("Company", "C5"),
            ("Data", "C4"),
            ("Data", "C5"),
            ("Data", "C7"),
            ("Application", "C4"),
            ("Application", "C5"),
            ("Application", "C7"),
        ]
    }
    assert values == {
        "Company!C4": None,
        "Company!C5": "Yes",
        "Data!C4": "Yes",
        "Data!C5": "N/A",
        "Data!C7": None,
        "Application!C4": "Partially",
        "Application!C5": "Not Applicable",
        "Application!C7": None,
    }
    lines = outcomes(report)
    assert lines["Company!C4"] == ("empty", "open question: a Yes/No choice does not answer it")
    assert lines["Application!C7"] == ("empty", "open question: a Yes/No choice does not answer it")
    assert lines["Data!C7"] == ("empty", "the cell's list has no option meaning “Partly”")
    assert lines["Application!C4"] == ("normalised", "“Partly” → “Partially”")
    assert lines["Application!C5"] == ("normalised", "“N/A” → “Not Applicable”")
    assert lines["Company!D4"] == ("written", "")  # the open question's text answer is written
    assert result["Company"]["D4"].value == "Yes, Acme is a private company founded in 2009."
    # The copy keeps every drop-down, the x14 one openpyxl drops included (put back into the sheet's XML).
    kept = dropdowns.Dropdowns(content)
    assert [kept.options(s, "C4") for s in ("Company", "Data", "Application")] == [
        ["Yes", "No"],
        ["Yes", "No", "N/A"],
        ["Yes", "No", "Partially", "Not Applicable"],
    ]
    record = QuestionImport.objects.get(rfp=rfp)
    assert not any("drop" in feature for feature in record.lost_features)


@pytest.mark.parametrize(
    "text, closed",
    [
        ("Describe your company and its ownership.", False),
        ("How often are backups tested?", False),
        ("Provide the number of employees.", False),
        ("Do you encrypt data at rest?", True),
        ("Is MFA enforced?", True),
        ("Verify that passwords are at least 12 characters.", True),
        ("Please confirm that data stays in the EU.", True),
        ("The supplier shall keep logs for a year.", True),
        ("Company name", False),
    ],
)
def test_closed_questions(text, closed):
    assert choices.is_closed_question(text) is closed


def test_a_graded_list_gets_the_option_the_answer_words_best():
    options = ["No", "Yes, we review it annually", "Yes, we consult the plan before making significant decisions"]
    assert choices.option_for("yes", options, "Yes: the plan is reviewed annually.")[0] == "Yes, we review it annually"
    value, note = choices.option_for("yes", options, "Yes.")
    assert value == "Yes, we review it annually" and "one of 2 options" in note  # the least it claims, and a note
    assert (
        choices.option_for("no", ["Implemented", "Partially implemented", "Not implemented"], "")[0]
        == "Not implemented"
    )
    assert choices.option_for("na", ["Compliant", "Non-compliant"], "")[0] == ""


def test_a_list_that_cannot_be_read_leaves_the_cell_empty_and_says_what_to_do(rfp):
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["ID", "Question", "Compliant", "Comments"])
    sheet.append(["Q1", "Do you encrypt backups?"])
    sheet.append(["Q2", "Do you test restores?"])
    sheet.append(["Q3", "Do you keep offline copies?"])
    workbooks.dropdown(sheet, "C2:C4")
    from openpyxl.worksheet.datavalidation import DataValidation

    sheet.data_validations.dataValidation.clear()
    computed = DataValidation(type="list", formula1='INDIRECT("Answers_"&$A2)')
    sheet.add_data_validation(computed)
    computed.add("C2:C4")
    import_file(rfp, "indirect.xlsx", workbooks.save(workbook))
    answer(rfp, "Q1", "Yes [1].", "yes", approved=True)
    content, _, report = export.export_into_source_file(rfp)
    result = load_workbook(io.BytesIO(content)).active
    assert (result["C2"].value, result["D2"].value) == (None, "Yes.")
    outcome, detail = outcomes(report)["Sheet!C2"]
    assert outcome == "empty" and "cannot be read" in detail and "choose the value in Excel" in detail


# --- point 1: only the answers chosen, clean, and a report ---------------------------------------------------

ANSWER_STATES = {  # number → (fields of the answer, written by default, written with "every draft")
    "DATA-01": ({"approved": True}, True, True),  # a person approved it
    "DATA-02": ({"final_text": "Edited by a person [2].", "edited": True}, True, True),  # a person wrote it
    "DATA-03": ({}, False, True),  # a draft not reviewed
    "DATA-04": ({"review_verdict": "needs_revision"}, False, True),
    "APPL-03": ({"review_verdict": "approved"}, False, True),  # the reviewer's "supported" is no approval
    "APPL-01": ({"review_verdict": "rejected"}, False, False),
    "APPL-02": ({"draft_text": NO_PASSAGE_ANSWER, "needs_expert": True, "approved": True}, False, False),
    "COMP-02": ({"final_text": "TODO: confirm the figures [1].", "edited": True}, False, False),
}


@pytest.mark.parametrize("which", ["approved", "drafts"])
def test_only_the_answers_chosen_go_out_never_a_placeholder_or_a_rejected_draft(rfp, which):
    data, _ = workbooks.vendor_assessment()
    import_file(rfp, "assessment.xlsx", data)
    for number, (fields, _, _) in ANSWER_STATES.items():
        fields = dict(fields)
        answer(rfp, number, fields.pop("draft_text", f"Draft for {number} [1]."), **fields)
    content, _, report = export.export_into_source_file(rfp, deliverable.ExportChoices(answers=which))

    expected = {}
    for number, (fields, by_default, with_drafts) in ANSWER_STATES.items():
        question = rfp.questions.get(number=number)
        if by_default if which == "approved" else with_drafts:
            expected[(question.sheet, question.answer_cells["text"])] = (
                "Edited by a person." if "final_text" in fields else f"Draft for {number}."
            )
    assert_written_and_unchanged(data, content, expected)
    lines = outcomes(report)
    assert lines["Application!D4"] == ("empty", "rejected by the reviewer, and no person approved it")
    assert lines["Application!D5"][1] == "placeholder (no supporting content): a person must write the answer"
    assert lines["Company!D5"][1] == "placeholder (TODO): a person must write the answer"
    if which == "approved":
        only = "only answers a person approved or wrote were chosen"
        assert lines["Data!D7"] == ("empty", f"no person approved it (reviewer: not reviewed): {only}")
        assert lines["Data!D8"] == ("empty", f"no person approved it (reviewer: needs revision): {only}")
        assert lines["Application!D7"] == ("empty", f"no person approved it (reviewer: supported): {only}")
        assert report.unapproved == []
    else:  # every draft: the report names each answer no person approved
        assert lines["Data!D7"] == ("written", deliverable.UNAPPROVED_NOTE)
        assert [name.split()[0] for name in report.unapproved] == ["DATA-03", "DATA-04", "APPL-03"]
    assert lines["Company!D4"] == ("empty", "no answer yet")


def test_citations_in_a_column_or_a_companion_sheet_and_the_report_as_a_sheet(rfp, user_client):
    data, _ = workbooks.vendor_assessment()
    import_file(rfp, "assessment.xlsx", data)
    answer(rfp, "DATA-01", "Yes, AES-256 [1].", "yes", approved=True)

    chosen = deliverable.ExportChoices(citations="column", citation_column="H")
    result = load_workbook(io.BytesIO(export.export_into_source_file(rfp, chosen)[0]))
    assert (result["Data"]["D4"].value, result["Data"]["H4"].value) == (
        "Yes, AES-256.",
        "Security handbook",
    )
    assert result.sheetnames == load_workbook(io.BytesIO(data)).sheetnames

    chosen = deliverable.ExportChoices(citations="companion", report_sheet=True)
    content, _, report = export.export_into_source_file(rfp, chosen)
    result = load_workbook(io.BytesIO(content))
    assert result.sheetnames[-2:] == ["Sources", "Export report"]
    assert [[c.value for c in row] for row in result["Sources"].iter_rows()] == [
        ["Sheet", "Row", "ID", "Question", "Sources"],
        ["Data", "4", "DATA-01", "Is institutional data encrypted at rest?", "Security handbook"],
    ]
    report_rows = [[c.value for c in row] for row in result["Export report"].iter_rows()]
    assert report_rows[0] == ["Question", "Where", "Outcome", "Detail"] and len(report_rows) == len(report.lines) + 1
    assert ["Data!C4", "written", None] in [row[1:] for row in report_rows]
    assert result["Data"]["H4"].value is None  # no citation in the questionnaire itself this time
    # The added sheets come after the client's, which are unchanged but for the answer's two cells.
    without_added = load_workbook(io.BytesIO(content))
    for name in ("Sources", "Export report"):
        del without_added[name]
    assert_written_and_unchanged(
        data, workbooks.save(without_added), {("Data", "D4"): "Yes, AES-256.", ("Data", "C4"): "Yes"}
    )

    response = user_client.get(reverse("rfp_manager:export_sources", args=[rfp.pk]), chosen.as_params())
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows == [
        ["Sheet", "Row", "ID", "Question", "Sources"],
        ["Data", "4", "DATA-01", "Is institutional data encrypted at rest?", "Security handbook"],
    ]


def test_the_choices_page_shows_the_report_before_the_download(rfp, user_client):
    data, _ = workbooks.vendor_assessment()
    import_file(rfp, "assessment.xlsx", data)
    answer(rfp, "DATA-01", "Yes, AES-256 [1].", "yes", approved=True)
    answer(rfp, "APPL-01", "Draft [1].", "yes", review_verdict="rejected")
    page = user_client.get(reverse("rfp_manager:export_choices", args=[rfp.pk]), {"answers": "drafts"}).content.decode()
    assert "rejected by the reviewer" in page and "9 × no answer yet" in page
    assert re.search(r"<strong>2</strong> written", page)  # DATA-01's text and choice cells
    assert "answers=drafts" in page  # the download link carries the choices shown
    response = user_client.get(reverse("rfp_manager:export_workbook", args=[rfp.pk]), {"answers": "drafts"})
    assert load_workbook(io.BytesIO(response.content))["Data"]["D4"].value == "Yes, AES-256."


def test_clean_text_removes_markers_and_source_lists():
    text = "Data is encrypted [1]. Keys rotate yearly [2, 3].\nBackups [4–5] are kept.\n\nSources: [1] Handbook"
    assert deliverable.clean_text(text) == "Data is encrypted. Keys rotate yearly.\nBackups are kept."


# --- point 5: bad input gets a clear answer ---------------------------------------------------------------


def with_macros(data: bytes) -> bytes:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            target.writestr(name, source.read(name))
        target.writestr("xl/vbaProject.bin", b"\xd0\xcf\x11\xe0 not really VBA")
    return out.getvalue()


@pytest.mark.parametrize(
    "name, make, message",
    [
        ("macros.xlsm", lambda data: data, "macro-enabled (.xlsm)"),
        ("renamed.xlsx", with_macros, "save a copy as “Excel Workbook (.xlsx)”"),
        ("damaged.xlsx", lambda data: data[: len(data) // 3], "ask the client for a new copy"),
    ],
    ids=["xlsm", "macros-in-an-xlsx", "damaged"],
)
def test_macro_enabled_or_damaged_workbooks_are_refused_with_what_to_do(rfp, user_client, name, make, message):
    data, _ = workbooks.answer_columns()
    response = user_client.post(
        reverse("rfp_manager:import", args=[rfp.pk]), {"file": SimpleUploadedFile(name, make(data))}
    )
    assert response.status_code == 400 and message in response.content.decode()
    assert not QuestionImport.objects.exists() and not rfp.questions.exists()


# --- the SAMM sample: only its own drop-down values, no marker, no placeholder -------------------------------


def samm_options(original: bytes) -> dict[str, list[str]]:
    """Each Interview answer cell's options, read with openpyxl (not our reader): the validation's defined name,
    its range on the lists sheet, the values Excel cached there."""
    formulas, values = load_workbook(io.BytesIO(original)), load_workbook(io.BytesIO(original), data_only=True)
    options = {}
    for validation in formulas["Interview"].data_validations.dataValidation:
        name = formulas.defined_names.get(validation.formula1)
        if name is None:
            continue
        ((sheet, cells),) = name.destinations
        listed = [
            str(c.value) for row in values[sheet][cells.replace("$", "")] for c in row if c.value not in (None, "")
        ]
        for cell in str(validation.sqref).split():
            options[cell] = listed
    return options


def test_samm_export_writes_only_its_own_dropdown_values_and_no_marker_or_placeholder(rfp):
    data = sample_questionnaire("SAMM_spreadsheet.xlsx")
    import_file(rfp, "SAMM_spreadsheet.xlsx", data)
    person = rfp.owner
    annually = "Yes, we review it annually [1]. Sources: [1] Strategy (passage 3)"
    states = [
        {"draft_text": annually, "choice": "yes", **approved_by(person, annually)},
        {"draft_text": NO_PASSAGE_ANSWER, "needs_expert": True, **approved_by(person, NO_PASSAGE_ANSWER)},
        {"draft_text": "Yes [1].", "choice": "yes", **verdict_on("rejected", "Yes [1].")},
        {"draft_text": "No, not yet [2].", "choice": "no", **approved_by(person, "No, not yet [2].")},
        {"draft_text": "N/A for us [1].", "choice": "na", "final_text": "N/A for us [1].", "edited_by": person},
        {"draft_text": "Partially [1].", "choice": "partly", **approved_by(person, "Partially [1].")},
    ]
    for position, question in enumerate(rfp.questions.order_by("order")):
        Answer.objects.create(question=question, citations=[CITATION], **states[position % len(states)])
    content, _, report = export.export_into_source_file(rfp)

    before, after = load_workbook(io.BytesIO(data)), load_workbook(io.BytesIO(content))
    options = samm_options(data)
    choice_cells = {q.answer_cells["choice"] for q in rfp.questions.all()}
    assert len(choice_cells) == 90 and choice_cells <= set(options)
    written = [c for c in choice_cells if after["Interview"][c].value is not None]
    assert len(written) == 30  # the approved Yes and No; never the rejected, the placeholder, nor a meaning SAMM lacks
    assert all(after["Interview"][c].value in options[c] for c in written)
    changed = [
        cell.value
        for name in before.sheetnames
        for cell in after[name]._cells.values()
        if comparable(cell.value) != comparable(before[name][cell.coordinate].value)
    ]
    assert len(changed) == 30 + 60  # and the text cells of the approved and edited answers
    assert not any(MARKER_OR_SOURCES.search(str(v)) or "No supporting content" in str(v) for v in changed)
    assert dict(report.empty_reasons) == {
        "rejected by the reviewer, and no person approved it": 15,
        "placeholder (no supporting content): a person must write the answer": 15,
        "the cell's list has no option meaning “Partly”": 15,
        "the cell's list has no option meaning “N/A”": 15,
    }


# --- a CSV questionnaire comes back as the same CSV -------------------------------------------------------


def test_a_csv_questionnaire_comes_back_with_its_answers_in_its_own_columns(rfp, user_client):
    data = (
        b"Ref;Requirement;Compliant;Response;Notes\n"
        b"R1;Do you encrypt data at rest?;;;keep\n"
        b"R2;Describe your backup process.;;;\n"
        b"R3;Do you test restores?;;;\n"
    )
    import_file(rfp, "client.csv", data)
    answer(rfp, "R1", "Yes, AES-256 [1].", "yes", approved=True)
    answer(rfp, "R2", "Nightly, kept 35 days [1].", "yes", approved=True)  # open: no Yes
    answer(rfp, "R3", "Yes [1].", "yes", review_verdict="rejected")
    response = user_client.get(reverse("rfp_manager:export_workbook", args=[rfp.pk]))
    assert response["Content-Disposition"] == 'attachment; filename="client-answered.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))
    assert rows == [
        ["Ref", "Requirement", "Compliant", "Response", "Notes"],
        ["R1", "Do you encrypt data at rest?", "Yes", "Yes, AES-256.", "keep"],
        ["R2", "Describe your backup process.", "", "Nightly, kept 35 days.", ""],
        ["R3", "Do you test restores?", "", "", ""],
    ]


def test_asvs_sample_comes_back_with_an_answer_column_and_every_row_kept(rfp):
    data = sample_questionnaire("OWASP Application Security Verification Standard 4.0.3-en.csv")
    import_file(rfp, "asvs.csv", data)
    assert rfp.questions.count() == 278
    answer(rfp, "V1.1.1", "Yes: a secure SDLC is followed [1]. Sources: [1] SDLC policy", "yes", approved=True)
    content, _, report = export.export_into_source_file(rfp)
    before = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    after = list(csv.reader(io.StringIO(content.decode("utf-8-sig"))))
    assert len(after) == len(before)
    assert after[0] == before[0] + [export.WRITE_BACK_HEADER]
    answered = next(i for i, row in enumerate(before) if "V1.1.1" in row)
    assert after[answered] == before[answered] + ["Yes: a secure SDLC is followed."]
    assert all(
        a[: len(b)] == b and set(a[len(b) :]) <= {""}
        for i, (a, b) in enumerate(zip(after, before))
        if i not in (0, answered)
    )
    assert (report.count_written, report.count_empty) == (1, 277)


# --- issue 35: one rule for the client's file ------------------------------------------------------------------

PLACEHOLDER_TEXTS = {  # every kind the rule lists → a text that is (or holds) it
    "TODO": "TODO: confirm figures with the sustainability team [1].",
    "TBD": "Retention is TBD [1].",
    "XXX": "We employ XXX people [1].",
    "[insert …]": "Our certificate is [insert certificate number] [1].",
    "lorem ipsum": "Lorem ipsum dolor sit amet [1].",
    "no supporting content": NO_PASSAGE_ANSWER,
    deliverable.EMPTY_SHELL: "[1]",
}


def test_every_placeholder_the_rule_lists_is_walked_here():
    assert set(PLACEHOLDER_TEXTS) == {name for name, _ in deliverable.PLACEHOLDERS} | {deliverable.EMPTY_SHELL}


@pytest.mark.parametrize("kind", list(PLACEHOLDER_TEXTS))
@pytest.mark.parametrize("which", ["approved", "drafts"])
def test_a_placeholder_never_goes_out_even_approved_by_a_person(rfp, user, kind, which):
    question = rfp.questions.create(text="How many people do you employ?", import_key="k")
    text = PLACEHOLDER_TEXTS[kind]
    found = Answer.objects.create(question=question, draft_text=text, **approved_by(user, text))
    out = deliverable.outgoing(found, deliverable.ExportChoices(answers=which))
    assert (out.text, out.reason) == ("", f"placeholder ({kind}): a person must write the answer")


@pytest.mark.parametrize("shell", ["[1]", "[1] [4]", "Sources: [1] Handbook", "Sources:", "  [2]\nSources:"])
def test_an_empty_citation_shell_is_a_placeholder(shell):
    assert deliverable.placeholder_in(shell) == deliverable.EMPTY_SHELL


@pytest.mark.parametrize(
    "text", ["Backups are kept for 35 days [1].", "No, we do not [2].", "Our todolist app", "Data is stored in Texas."]
)
def test_real_answers_are_not_placeholders(text):
    assert deliverable.placeholder_in(text) == ""


def test_an_approval_goes_stale_on_an_edit_or_a_redraft_even_when_a_write_forgets_to_withdraw_it(rfp, user):
    from rfp_manager.services import workflow

    question = rfp.questions.create(text="Do you encrypt backups?", import_key="k")
    draft = Answer.objects.create(question=question, draft_text="Yes, AES-256 [1].", citations=[CITATION])
    recommended = deliverable.ExportChoices()
    assert deliverable.outgoing(draft, recommended).text == ""
    workflow.approve([question], user)
    draft.refresh_from_db()
    assert draft.approved_text == "Yes, AES-256 [1]." and deliverable.outgoing(draft, recommended).text == (
        "Yes, AES-256."
    )
    # A redraft that (wrongly) leaves approved_at in place: the approval no longer holds for the new text.
    Answer.objects.filter(pk=draft.pk).update(draft_text="Yes, with keys in an HSM [1].")
    draft.refresh_from_db()
    assert not draft.is_approved and draft.approved_at is not None
    assert deliverable.outgoing(draft, recommended).reason.startswith("its approval is stale")
    workflow.sync_status([question])
    question.refresh_from_db()
    assert question.status != "approved"  # the progress bar counts it no more


def test_the_report_matches_the_written_file_cell_by_cell(rfp, user):
    data, _ = workbooks.vendor_assessment()
    import_file(rfp, "assessment.xlsx", data)
    for number, (fields, _, _) in ANSWER_STATES.items():
        fields = dict(fields)
        answer(rfp, number, fields.pop("draft_text", f"Yes, draft for {number} [1]."), "yes", **fields)
    for which in ("approved", "drafts"):
        content, _, report = export.export_into_source_file(rfp, deliverable.ExportChoices(answers=which))
        before, after = load_workbook(io.BytesIO(data)), load_workbook(io.BytesIO(content))
        for line in report.lines:
            sheet, cell = line.where.split("!")
            if line.outcome == "empty":
                assert after[sheet][cell].value == before[sheet][cell].value, (which, line)
            else:
                assert after[sheet][cell].value not in (None, before[sheet][cell].value), (which, line)
        written = {line.where for line in report.lines if line.outcome != "empty"}
        changed = {
            f"{name}!{cell.coordinate}"
            for name in before.sheetnames
            for cell in after[name]._cells.values()
            if comparable(cell.value) != comparable(before[name][cell.coordinate].value)
        }
        assert changed == written, which


def test_an_answer_longer_than_its_column_is_wide_is_wrapped_in_its_cell_a_short_one_keeps_the_clients_style(rfp):
    """Left unwrapped, a paragraph runs on as one line over the client's next columns; the column keeps its width."""
    data, _ = workbooks.vendor_assessment()
    import_file(rfp, "assessment.xlsx", data)
    long = "Yes. Customer data is encrypted at rest with AES-256, and keys are rotated every year by the HSM."
    answer(rfp, "DATA-01", f"{long} [1]", approved=True)
    answer(rfp, "DATA-02", "Yes [1].", approved=True)
    content, _, _ = export.export_into_source_file(rfp)

    before, after = load_workbook(io.BytesIO(data))["Data"], load_workbook(io.BytesIO(content))["Data"]
    written = {q.number: q.answer_cells["text"] for q in rfp.questions.filter(number__in=["DATA-01", "DATA-02"])}
    assert after[written["DATA-01"]].value == long and after[written["DATA-01"]].alignment.wrap_text
    assert after[written["DATA-02"]].value == "Yes." and not after[written["DATA-02"]].alignment.wrap_text
    assert repr(after[written["DATA-02"]].alignment) == repr(before[written["DATA-02"]].alignment)
    assert dict(after.column_dimensions).keys() == dict(before.column_dimensions).keys()


def test_an_open_question_gets_no_choice_proposed_shown_or_exported(rfp, user):
    assert choices.choice_fields("Yes, founded in 2009 [1].", "Describe your company.") == {
        "choice": "",
        "choice_needs_review": False,
    }
    assert choices.choice_fields("Yes, AES-256 [1].", "Is data encrypted at rest?")["choice"] == "yes"
    open_question = rfp.questions.create(text="Describe your company.", import_key="a", number="1")
    closed = rfp.questions.create(text="Is data encrypted at rest?", import_key="b", number="2", order=1)
    text = "Yes, AES-256 [1]."
    Answer.objects.create(question=open_question, draft_text="Founded in 2009 [1].", choice="yes")  # an old guess
    Answer.objects.create(
        question=closed, draft_text=text, choice="yes", confidence=0.67, review_score=1.0, **approved_by(user, text)
    )
    header, *rows = csv.reader(io.StringIO(export.export_csv(rfp).decode("utf-8-sig")))
    working = [dict(zip(header, row)) for row in rows]
    assert [row["Choice"] for row in working] == ["", "Yes"]
    assert working[1]["Confidence"] == "0.67"  # the RFP page's one number, not the review's own score
    assert working[1]["Approval (a person)"].startswith("approved by alice, ")
    assert working[1]["Goes to the client"] == "yes"
    assert working[0]["Goes to the client"] == (
        "no: no person approved it (reviewer: not reviewed): only answers a person approved or wrote were chosen"
    )


def test_the_sources_name_each_document_once_by_its_title_never_a_passage_id():
    cited = [
        {"n": 1, "chunk_id": 7, "document_title": "Security handbook", "cited": True},
        {"n": 2, "chunk_id": 912, "document_title": "Backup policy", "cited": True},
        {"n": 3, "chunk_id": 8, "document_title": "Security handbook", "cited": True},
        {"n": 4, "chunk_id": 40, "document_title": "Retrieved, not cited", "cited": False},
    ]
    assert deliverable.sources_text(Answer(citations=cited)) == "Security handbook; Backup policy"


def test_the_report_names_a_long_question_by_its_start_cut_at_a_word_and_marked_as_cut(rfp):
    """A person reads "how many people …", not "how many peopl", and knows the question goes on."""
    long_text = "Describe your company: when it was founded, where it is based and how many people it employs today."
    question = rfp.questions.create(number="A.1", text=long_text, order=1, import_key="A.1")
    short = rfp.questions.create(number="A.2", text="Where are you based?", order=2, import_key="A.2")
    report = deliverable.ExportReport()
    report.add(question, "Sheet!C2", "empty")
    report.add(short, "Sheet!C3", "empty")
    named = [line.question for line in report.lines]
    assert named[0].endswith(" …") and len(named[0]) <= len("A.1 ") + deliverable.REPORT_QUESTION_CHARS
    assert long_text.startswith(named[0].removeprefix("A.1 ").removesuffix(" …") + " ")  # whole words only
    assert named[1] == "A.2 Where are you based?"


def test_the_rfp_page_says_the_docx_holds_approved_answers_only_and_that_none_is_approved_yet(rfp, user_client):
    """Before, "Export DOCX" with nothing approved gave a file of empty answers and no word of why."""
    rfp.questions.create(number="1", text="Is data encrypted at rest?", order=1, import_key="1")
    rfp.questions.create(number="2", text="Where is it hosted?", order=2, import_key="2")
    answer(rfp, "1", "Yes, AES-256 [1].", review_verdict="approved")  # the reviewer's verdict is no approval
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert "Export DOCX (approved answers)" in page and 'id="export-nothing-approved"' in page
    docx_answers = [p.text for p in Document(io.BytesIO(export_docx(user_client, rfp))).paragraphs[2::2]]
    assert docx_answers == ["", ""]

    workflow.sync_answer(answer(rfp, "2", "Frankfurt [1].", approved=True))  # as approving on the page does
    page = user_client.get(reverse("rfp_manager:detail", args=[rfp.pk])).content.decode()
    assert 'id="export-nothing-approved"' not in page
    docx_answers = [p.text for p in Document(io.BytesIO(export_docx(user_client, rfp))).paragraphs[2::2]]
    assert docx_answers == ["", "Frankfurt."]


def test_the_editor_says_in_one_sentence_what_the_clients_file_gets_of_the_answer(rfp, user_client):
    """Before, a supported draft read "Not approved by a person. The client's file (recommended choice): leaves it
    out — no person approved it (reviewer: supported): only answers a person approved or wrote were chosen."."""
    for number in "123":
        rfp.questions.create(number=number, text=f"Question {number}?", order=int(number), import_key=number)
    supported = answer(rfp, "1", "Yes, AES-256 [1].", review_verdict="approved")
    approved = answer(rfp, "2", "Frankfurt [1].", approved=True)
    placeholder = answer(rfp, "3", "TBD")

    def said(a) -> str:
        page = user_client.get(reverse("rfp_manager:answer_edit", args=[a.question_id])).content.decode()
        return re.search(r'id="for-client">(.*?)</span>', page, re.DOTALL)[1]

    assert said(supported) == (
        "Not approved by a person, so the client's file (recommended export) leaves it out: "
        "the reviewer's “supported” is not an approval."
    )
    assert said(approved) == "The client's file (recommended export) gets this answer."
    assert said(placeholder).startswith("The client's file (recommended export) leaves it out — placeholder")


def export_docx(client, rfp) -> bytes:
    return client.get(reverse("rfp_manager:export_docx", args=[rfp.pk])).content


def test_a_choice_guessed_from_the_draft_is_written_and_reported_as_no_persons_choice(rfp, user, user_client):
    """Approving a text does not check its Yes/No: the page marks a guess "choice to check", and the report says
    beside its cell that no person chose it, until someone does."""
    data, _ = workbooks.vendor_assessment()
    import_file(rfp, "assessment.xlsx", data)
    guessed = answer(rfp, "DATA-01", "Encrypted with AES-256 [1].", "yes", approved=True, choice_needs_review=True)
    cell = f"Data!{guessed.question.answer_cells['choice']}"

    _, _, report = export.export_into_source_file(rfp, deliverable.ExportChoices())
    assert outcomes(report)[cell] == ("written", deliverable.GUESSED_NOTE)
    page = user_client.get(reverse("rfp_manager:export_choices", args=[rfp.pk])).content.decode()
    assert re.search(r'id="guessed-choices"><p><strong>1 Yes/No choice guessed .*<li>DATA-01 ', page, re.DOTALL)

    choices.save_choice(guessed, "yes")  # a person confirms it
    _, _, report = export.export_into_source_file(rfp, deliverable.ExportChoices())
    assert outcomes(report)[cell] == ("written", "") and report.guessed == []
