"""Fuzzing the question import through its HTTP surface (upload, preview, apply), so these
tests hold whatever the import does inside: CSV dialects and encodings, XLSX with formulas,
merged cells and empty sheets, raw bytes, pasted text, and 10,000 rows."""

import csv
import io

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import example, given
from hypothesis import strategies as st

from rfp_manager import tasks
from rfp_manager.models import RFP, Answer, Question, QuestionImportJob

from .fuzz import changed_or_lost, error_messages, fuzz_settings, snapshot

pytestmark = pytest.mark.django_db

ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"]
FORMULAS = [
    "=A1&B1",
    "=1/0",
    "=SUM(A1:A3)",
    '=HYPERLINK("https://example.com","click")',
    "=cmd|' /C calc'!A0",
    '=IF(TRUE,"Do you encrypt?","")',
    "=#REF!",
]
# Text a workbook can hold (openpyxl refuses control characters) and a CSV can carry.
cell_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=80)
cell_value = st.one_of(
    cell_text,
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(FORMULAS),
    st.none(),
)
table = st.lists(st.lists(cell_text, min_size=1, max_size=4), max_size=25)


def csv_bytes(rows, delimiter=",", quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n", encoding="utf-8") -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, quoting=quoting, lineterminator=lineterminator).writerows(rows)
    return buffer.getvalue().encode(encoding, errors="replace")


def xlsx_bytes(sheets: list[list[list]], merges: list[tuple[int, int, int, int] | None] = ()) -> bytes:
    """One worksheet per table; `merges[i]` merges that rectangle of sheet i (1-based, inclusive)."""
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for index, rows in enumerate(sheets):
        sheet = workbook.create_sheet(f"Sheet {index + 1}")
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                sheet.cell(r, c, value)
        if index < len(merges) and merges[index]:
            sheet.merge_cells(
                start_row=merges[index][0],
                start_column=merges[index][1],
                end_row=merges[index][2],
                end_column=merges[index][3],
            )
    if not sheets:
        workbook.create_sheet("Empty")
    output = io.BytesIO()
    workbook.save(output)
    return output.getvalue()


@st.composite
def csv_files(draw):
    rows = draw(table)
    if draw(st.booleans()):
        rows = [["ID", "Question", "Answer", "Notes"][: max(1, len(rows[0]) if rows else 2)], *rows]
    data = csv_bytes(
        rows,
        delimiter=draw(st.sampled_from([",", ";", "\t", "|"])),
        quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC])),
        lineterminator=draw(st.sampled_from(["\r\n", "\n"])),
        encoding=draw(st.sampled_from(ENCODINGS)),
    )
    return draw(st.sampled_from(["questions.csv", "questions.tsv", "questions.txt"])), data


@st.composite
def xlsx_files(draw):
    sheets = draw(st.lists(st.lists(st.lists(cell_value, max_size=4), max_size=15), max_size=3))
    merges = [draw(st.one_of(st.none(), _merge_within(rows))) for rows in sheets]
    return "questionnaire.xlsx", xlsx_bytes(sheets, merges)


def _merge_within(rows):
    height, width = len(rows), max((len(r) for r in rows), default=0)
    if height < 1 or width < 1:
        return st.none()
    return st.tuples(st.integers(1, height), st.integers(1, width)).map(
        lambda rc: (rc[0], rc[1], rc[0] + 1, rc[1])
    )  # a cell merged with the one below (a section spanning rows)


raw_files = st.tuples(
    st.sampled_from(["q.csv", "q.xlsx", "q.tsv", "q.txt", "q.xlsm", "q.docx", "q.docm", "q.pdf"]),
    st.binary(max_size=3000),
)


@st.composite
def damaged_documents(draw):
    """A real Word or PDF questionnaire with a few bytes overwritten or its end cut off."""
    from tests.questionnaires import word_fixtures

    name, data = draw(
        st.sampled_from(
            [
                ("table.docx", word_fixtures.table_questionnaire()),
                ("numbered.docx", word_fixtures.numbered_questionnaire()),
                ("controls.docx", word_fixtures.content_control_questionnaire()),
                ("form.pdf", word_fixtures.fillable_pdf()),
                ("text.pdf", word_fixtures.text_pdf()),
            ]
        )
    )
    data = bytearray(data)
    for _ in range(draw(st.integers(0, 4))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    cut = draw(st.integers(len(data) // 2, len(data))) if draw(st.booleans()) else len(data)
    return name, bytes(data[:cut])


@pytest.fixture
def owner_client(client_factory, user):
    return client_factory(user)


def _fresh_rfp(owner) -> RFP:
    """Each example imports into a new RFP that already has an answered question."""
    rfp = RFP.objects.create(name="Fuzz target", owner=owner)
    question = Question.objects.create(rfp=rfp, number="1", text="Existing question?", import_key="n:|1")
    Answer.objects.create(question=question, final_text="Existing answer.")
    return rfp


def _existing_answer_kept(rfp) -> bool:
    """A re-import may reword a question with the same number, but keeps it and its answer."""
    return Answer.objects.filter(question__rfp=rfp, question__number="1", final_text="Existing answer.").exists()


def _import(client, rfp, name: str | None = None, data: bytes = b"", text: str = "", apply: bool = True):
    """Upload, then (when a preview is offered) apply; assert the rules at each step."""
    before = snapshot()
    payload = {"text": text}
    if name is not None:
        payload["file"] = SimpleUploadedFile(name, data)
    response = client.post(reverse("rfp_manager:import", args=[rfp.pk]), payload)
    assert response.status_code in (302, 400), response.status_code
    if response.status_code == 400:
        assert error_messages(response), "a refused import must say why"
        assert changed_or_lost(before, snapshot()) == []
        return
    preview_url = response["Location"]
    if _read_by_its_job(rfp):  # refused when read: its page says why, and nothing else changed
        page = client.get(preview_url)
        assert page.status_code == 200 and "This file was not imported" in page.content.decode()
        assert changed_or_lost(before, snapshot()) == []
        return
    assert client.get(preview_url).status_code == 200
    assert changed_or_lost(before, snapshot()) == [], "a preview must store nothing"
    if not apply:
        return
    applied = client.post(preview_url, follow=True)
    assert applied.status_code < 500 and 'class="msg' in applied.content.decode()
    # Applying adds to (or updates) this RFP's questions; it loses none, and touches nothing else.
    assert changed_or_lost(before, snapshot(), may_change=_this_rfps_rows(rfp)) == []
    assert _existing_answer_kept(rfp)


def _read_by_its_job(rfp) -> bool:
    """A file above the inline threshold is stored for a reading job: run it, as a worker would. True if it failed."""
    job = QuestionImportJob.objects.filter(question_import__rfp=rfp, status="pending").first()
    if job is None:
        return False
    tasks.analyse_question_import.apply(kwargs={"job_id": job.pk})
    job.refresh_from_db()
    assert job.status in ("completed", "failed") and (job.status == "completed" or job.message)
    return job.status == "failed"


def _this_rfps_rows(rfp) -> set:
    rows = {("RFP", rfp.pk)} | {("Question", pk) for pk in rfp.questions.values_list("pk", flat=True)}
    return rows | {("Answer", pk) for pk in Answer.objects.filter(question__rfp=rfp).values_list("pk", flat=True)}


@fuzz_settings("import")
@given(upload=csv_files())
@example(upload=("questions.csv", csv_bytes([["ID", "Question"], ["1", "Do you encrypt?"]], encoding="utf-16")))
@example(upload=("questions.csv", b""))
def test_csv_dialects_and_encodings(world, owner_client, upload):
    _import(owner_client, _fresh_rfp(world.rfp.owner), *upload)


@fuzz_settings("import")
@given(upload=xlsx_files())
@example(upload=("empty.xlsx", xlsx_bytes([])))
@example(upload=("empty-sheets.xlsx", xlsx_bytes([[], [], []])))
@example(upload=("formulas.xlsx", xlsx_bytes([[["Question"], *([f] for f in FORMULAS)]])))
@example(
    upload=("merged.xlsx", xlsx_bytes([[["Section A", "Q1 Do you encrypt?"], [None, "Q2 Backups?"]]], [(1, 1, 2, 1)]))
)
def test_workbooks_with_formulas_merged_cells_and_empty_sheets(world, owner_client, upload):
    _import(owner_client, _fresh_rfp(world.rfp.owner), *upload)


@fuzz_settings("import")
@given(upload=raw_files)
def test_random_bytes_under_any_name(world, owner_client, upload):
    _import(owner_client, _fresh_rfp(world.rfp.owner), *upload)


@fuzz_settings("import")
@given(upload=damaged_documents())
def test_damaged_word_and_pdf_questionnaires(world, owner_client, upload):
    _import(owner_client, _fresh_rfp(world.rfp.owner), *upload)


@fuzz_settings("import")
@given(text=st.text(max_size=2000))
def test_pasted_text(world, owner_client, text):
    _import(owner_client, _fresh_rfp(world.rfp.owner), text=text)


TEN_THOUSAND = [[str(i), f"Question {i}: do you support requirement {i}?"] for i in range(1, 10_001)]


@pytest.mark.parametrize(
    "name, data",
    [
        ("ten-thousand.csv", csv_bytes([["ID", "Question"], *TEN_THOUSAND])),
        ("ten-thousand.xlsx", xlsx_bytes([[["ID", "Question"], *TEN_THOUSAND]])),
    ],
    ids=["csv", "xlsx"],
)
def test_ten_thousand_rows_upload_preview_and_apply(world, owner_client, name, data):
    """The whole way through: a 10,000-question file is previewed and applied in one request each."""
    rfp = _fresh_rfp(world.rfp.owner)
    _import(owner_client, rfp, name, data)
    imported = rfp.questions.filter(text__startswith="Question ").order_by("order")
    assert imported.count() == 10_000
    assert list(imported.values_list("number", flat=True)[:3]) == ["1", "2", "3"]
