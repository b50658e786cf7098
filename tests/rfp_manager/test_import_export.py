"""Question import (XLSX, CSV, pasted text, preview, idempotent re-import) and export."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from openpyxl import Workbook, load_workbook

from questionnaires import row_walk
from rfp_manager.models import RFP, Answer, Question, QuestionImport
from rfp_manager.services import export, importing
from rfp_manager.testing import approved_by, verdict_on

pytestmark = pytest.mark.django_db


def xlsx_bytes(rows, title="Questions") -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


WORKBOOK_ROWS = [
    ["Acme RFP 2026 — vendor questionnaire"],
    [],
    ["Section", "No.", "Question", "Vendor response"],
    ["Security", 1, "How is customer data encrypted at rest?", None],
    ["Security", 2, None, None],
    ["Operations", 3, "How often are backups taken?", None],
    ["Operations", 3, "How often are backups taken?", None],
    ["Operations", 4, "Which data centres host the service?", None],
]


@pytest.fixture
def rfp(user):
    return RFP.objects.create(name="Acme", owner=user)


def upload(name, data):
    return SimpleUploadedFile(name, data)


def parse(data: bytes, kind="xlsx"):
    workbook = importing.read_sheets(data, kind)
    mapping, _, _ = importing.propose_mapping(workbook)
    return mapping, row_walk.extract(workbook, mapping)


def test_xlsx_detects_header_and_columns_and_lists_bad_rows():
    mapping, table = parse(xlsx_bytes(WORKBOOK_ROWS))
    (sheet,) = mapping["sheets"]
    assert (sheet["name"], sheet["header_row"], sheet["roles"]) == (
        "Questions",
        3,
        {"1": "section", "2": "id", "3": "question", "4": "text"},
    )
    assert [(r["row"], r["section"], r["number"]) for r in table.rows] == [
        (4, "Security", "1"),
        (6, "Operations", "3"),
        (8, "Operations", "4"),
    ]
    assert [(b["row"], b["reason"]) for b in table.bad_rows] == [(5, "no question text"), (7, "duplicate of row 6")]


def test_headerless_csv_uses_the_longest_text_column():
    data = b"1;How is customer data encrypted at rest?\n2;Which data centres host the service?\n"
    mapping, table = parse(data, "csv")
    assert [r["text"] for r in table.rows] == [
        "How is customer data encrypted at rest?",
        "Which data centres host the service?",
    ]
    assert mapping["sheets"][0]["header_row"] is None


def test_unreadable_file_is_a_clear_error():
    with pytest.raises(importing.QuestionImportError, match="not an Excel workbook"):
        importing.read_sheets(b"not a zip", "xlsx")


def test_preview_then_apply_and_reimport_does_not_duplicate(rfp, user_client):
    data = xlsx_bytes(WORKBOOK_ROWS)
    response = user_client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": upload("acme.xlsx", data)})
    record = QuestionImport.objects.get(rfp=rfp)
    assert response.url == reverse("rfp_manager:import_preview", args=[record.pk])
    assert rfp.questions.count() == 0  # nothing saved before the preview is confirmed
    preview = user_client.get(response.url).content.decode()
    assert "duplicate of row 6" in preview and "no question text" in preview

    user_client.post(response.url)
    assert rfp.questions.count() == 3
    # The same file again: same questions, updated in place.
    user_client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": upload("acme.xlsx", data)})
    again = QuestionImport.objects.filter(rfp=rfp).latest("created_at")
    assert "already there" in user_client.get(reverse("rfp_manager:import_preview", args=[again.pk])).content.decode()
    user_client.post(reverse("rfp_manager:import_preview", args=[again.pk]))
    assert rfp.questions.count() == 3
    assert list(rfp.questions.values_list("number", flat=True)) == ["1", "3", "4"]


def test_import_of_another_users_rfp_is_not_found(rfp, client, django_user_model):
    client.force_login(django_user_model.objects.create_user("mallory", password="pw-mallory-1"))
    response = client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"text": "1. A question?"})
    assert response.status_code == 404


def _answer(question, text, **fields):
    return Answer.objects.create(
        question=question,
        draft_text=text,
        citations=[
            {
                "n": 1,
                "chunk_id": 7,
                "document_id": 3,
                "document_title": "Security handbook",
                "text": "…",
                "score": 0.8,
                "cited": True,
            }
        ],
        **fields,
    )


def test_csv_and_xlsx_exports_defuse_formulas(rfp):
    q1 = Question.objects.create(rfp=rfp, number="1", text='=HYPERLINK("http://evil")', import_key="a")
    q2 = Question.objects.create(rfp=rfp, number="2", text="Encryption?", import_key="b", order=1)
    _answer(q1, "@SUM(A1)", review_feedback="+1 supported", **verdict_on("approved", "@SUM(A1)"))
    _answer(q2, "AES-256 [1]", final_text="AES-256 at rest [1].")

    rows = list(csv.reader(io.StringIO(export.export_csv(rfp).decode("utf-8-sig"))))
    assert rows[0][:5] == ["Section", "Number", "Question", "Final answer", "Sources"]
    assert rows[1][2:4] == ['\'=HYPERLINK("http://evil")', "'@SUM(A1)"]
    assert rows[1][5:7] == ["Supported", "'+1 supported"]
    assert rows[2][3:5] == ["AES-256 at rest [1].", "[1] Security handbook"]

    sheet = load_workbook(io.BytesIO(export.export_xlsx(rfp))).active
    assert sheet["C2"].value.startswith("'=") and sheet["C2"].data_type == "s"
    assert sheet["D3"].value == "AES-256 at rest [1]."


def test_answers_written_back_into_the_source_workbook(rfp, user_client):
    record = importing.prepare_import(rfp, None, upload=upload("acme.xlsx", xlsx_bytes(WORKBOOK_ROWS)))
    importing.apply_import(record)
    for question in rfp.questions.all():
        text = f"Answer to {question.number} [1]."
        _answer(question, text, **approved_by(rfp.owner, text))

    response = user_client.get(reverse("rfp_manager:export_workbook", args=[rfp.pk]))
    assert response["Content-Disposition"] == 'attachment; filename="acme-answered.xlsx"'
    sheet = load_workbook(io.BytesIO(response.content))["Questions"]
    assert sheet["A1"].value == "Acme RFP 2026 — vendor questionnaire"  # the client's layout is kept
    # The answer only: no citation marker, no list of sources in the client's cell.
    assert [sheet.cell(row=r, column=4).value for r in (4, 5, 6, 8)] == [
        "Answer to 1.",
        None,
        "Answer to 3.",
        "Answer to 4.",
    ]


def test_write_back_adds_an_answer_column_when_the_sheet_has_none(rfp):
    rows = [["Question"], ["Do you encrypt data?"]]
    importing.apply_import(importing.prepare_import(rfp, None, upload=upload("q.xlsx", xlsx_bytes(rows))))
    _answer(
        rfp.questions.get(), "Yes [1]", final_text="Yes [1]\n\nSources: [1] Security handbook"
    )  # edited by a person
    content, _, _ = export.export_into_source_file(rfp)
    sheet = load_workbook(io.BytesIO(content)).active
    assert (sheet["B1"].value, sheet["B2"].value) == (export.WRITE_BACK_HEADER, "Yes")


def _truncated_sheet_xlsx() -> bytes:
    """A real workbook whose sheet XML is cut in half: it opens, but reading its rows fails."""
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(xlsx_bytes([["Question"], ["Do you encrypt data at rest?"]])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            target.writestr(name, data[: len(data) // 2] if name == "xl/worksheets/sheet1.xml" else data)
    return out.getvalue()


@pytest.mark.parametrize(
    "name, data",
    [
        ("huge-cell.csv", b'question\n"' + b"a" * 200_000 + b'"\n'),  # csv.Error: field larger than field limit
        ("broken.xlsx", _truncated_sheet_xlsx()),  # XML ParseError while reading the rows
    ],
)
@override_settings(QUESTION_IMPORT_INLINE_MAX_KB=1024)  # read in the request (a larger file fails its reading job)
def test_unreadable_upload_is_a_clear_400_not_a_crash(rfp, user_client, name, data):
    response = user_client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": upload(name, data)})
    assert response.status_code == 400
    assert not QuestionImport.objects.filter(rfp=rfp).exists()


def test_csv_with_nul_bytes_imports_the_text_without_them(rfp, user_client):
    """PostgreSQL refuses NUL in text and jsonb: a stray NUL must not become a 500."""
    data = b"Question\nDo you encrypt\x00 data at rest?\n"
    response = user_client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"file": upload("nul.csv", data)})
    assert response.status_code == 302
    record = QuestionImport.objects.get(rfp=rfp)
    assert [row["text"] for row in record.rows] == ["Do you encrypt data at rest?"]
