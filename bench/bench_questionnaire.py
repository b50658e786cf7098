"""Questionnaire analysis and preview time on a large workbook (issue 9: goal under 3 s).

    set -a; source .run/<dir>/env; set +a
    .venv/bin/python bench/bench_questionnaire.py [--sheets 10] [--questions 2000] [--runs 3]

Builds a workbook of `--sheets` sheets holding `--questions` questions in all
(each sheet: a title block, a header row, ID / Question / Response dropdown /
Comments, section rows, about 10 formulas per sheet) whose first sheet is
formatted down to row 1,048,576, so its recorded range is the whole sheet. Then
times, per run, the path a user waits for: the upload POST (the file checks,
reading every sheet, the analysis, the mapping applied to the rows, the
QuestionImport row) and the GET of the preview page (the mapping panel and
every row rendered), through Django's test client against the stack's
database. Prints each run and the median. The benchmark's rows are deleted.
"""

import argparse
import io
import statistics
import time

from _setup import setup_django


def build_workbook(sheets: int, questions: int) -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import PatternFill
    from openpyxl.worksheet.datavalidation import DataValidation

    workbook = Workbook()
    workbook.remove(workbook.active)
    per_sheet = questions // sheets
    for number in range(1, sheets + 1):
        sheet = workbook.create_sheet(f"Domain {number:02d}")
        sheet["A1"] = f"Supplier assessment — domain {number}"
        sheet.merge_cells("A1:D1")
        sheet["A2"] = "Version 4.1"
        sheet.append([])
        sheet.append(["ID", "Question", "Response", "Comments"])
        row = 5
        for index in range(per_sheet):
            if index % 25 == 0:
                sheet.cell(row=row, column=1, value=f"Section {index // 25 + 1}")
                sheet.merge_cells(start_row=row, start_column=1, end_row=row, end_column=4)
                row += 1
            sheet.cell(row=row, column=1, value=f"D{number:02d}-{index + 1:03d}")
            sheet.cell(
                row=row,
                column=2,
                value=f"Do you apply control {index + 1} of domain {number} to every system in scope?",
            )
            row += 1
        validation = DataValidation(type="list", formula1='"Yes,No,N/A"')
        sheet.add_data_validation(validation)
        validation.add(f"C5:C{row}")
        for formula_row in range(1, 11):
            sheet.cell(row=formula_row, column=8, value=f'=COUNTIF(C:C,"Yes")+{formula_row}')
        if number == 1:
            sheet.cell(row=1_048_576, column=4).fill = PatternFill("solid", start_color="FFFFCC")
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sheets", type=int, default=10)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    setup_django()

    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client
    from django.urls import reverse

    from rfp_manager.models import RFP, QuestionImport

    data = build_workbook(args.sheets, args.questions)
    print(
        f"workbook: {args.sheets} sheets, {args.questions} questions, {len(data) / 1024:.0f} KiB, "
        "sheet 1 formatted down to row 1,048,576"
    )
    user = get_user_model().objects.create_user("bench-questionnaire", password="bench-pw-1")
    rfp = RFP.objects.create(name="Benchmark questionnaire", owner=user)
    client = Client(HTTP_HOST="127.0.0.1")  # a host the settings allow
    client.force_login(user)
    timings = []
    try:
        for run in range(1, args.runs + 1):
            started = time.perf_counter()
            response = client.post(
                reverse("rfp_manager:import", args=[rfp.pk]), {"file": SimpleUploadedFile("bench.xlsx", data)}
            )
            uploaded = time.perf_counter()
            assert response.status_code == 302, response.status_code
            page = client.get(response.url)
            done = time.perf_counter()
            assert page.status_code == 200
            record = QuestionImport.objects.latest("created_at")
            timings.append(done - started)
            print(
                f"run {run}: upload + analysis {uploaded - started:.2f} s, preview page {done - uploaded:.2f} s, "
                f"total {done - started:.2f} s — {len(record.rows)} questions, {len(record.bad_rows)} rows left out"
            )
        print(f"median total: {statistics.median(timings):.2f} s")
    finally:
        for record in QuestionImport.objects.filter(rfp=rfp):
            record.file.delete(save=False)
        rfp.delete()
        user.delete()


if __name__ == "__main__":
    main()
