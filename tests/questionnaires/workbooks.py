"""Questionnaire workbooks built with openpyxl, one per structure real questionnaires have (issue 9).

Each builder returns `(xlsx bytes, expected)` where `expected` lists the
questions the import must produce, as (sheet, ID, section, text), in order.

Formula cells written by openpyxl carry no cached value (Excel computes it on
save); `save()` writes the value a client's Excel would have cached, so the
importer meets formula cells as it does in real files.
"""

import io
import re
import zipfile
from datetime import datetime

from openpyxl import Workbook
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation


def save(workbook: Workbook, cached: dict[tuple[str, str], object] | None = None) -> bytes:
    buffer = io.BytesIO()
    workbook.save(buffer)
    data = buffer.getvalue()
    return with_cached_values(data, workbook, cached) if cached else data


def with_cached_values(data: bytes, workbook: Workbook, cached: dict[tuple[str, str], object]) -> bytes:
    """Fill the empty <v/> of formula cells with the value Excel would have cached."""
    paths = {ws.title: f"xl/worksheets/sheet{i}.xml" for i, ws in enumerate(workbook.worksheets, start=1)}
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            xml = source.read(name).decode()
            for (sheet, ref), value in cached.items():
                if paths[sheet] != name:
                    continue
                kind = ' t="str"' if isinstance(value, str) else ""
                text = str(value).replace("&", "&amp;").replace("<", "&lt;")
                xml, count = re.subn(
                    rf'<c r="{ref}"([^>]*)><f>(.*?)</f><v\s*/?>(</v>)?',
                    lambda m: f'<c r="{ref}"{m.group(1)}{kind}><f>{m.group(2)}</f><v>{text}</v>',  # noqa: B023 (used at once)
                    xml,
                )
                assert count == 1, f"no formula cell {sheet}!{ref}"
            target.writestr(name, xml)
    return out.getvalue()


def dropdown(sheet, cells: str, options: str = "Yes,No,N/A") -> None:
    validation = DataValidation(type="list", formula1=f'"{options}"', allow_blank=True)
    sheet.add_data_validation(validation)
    validation.add(cells)


def _table(sheet, header_row: int, header: list, rows: list[list]) -> None:
    for column, label in enumerate(header, start=1):
        sheet.cell(row=header_row, column=column, value=label).font = Font(bold=True)
    for offset, row in enumerate(rows, start=1):
        for column, value in enumerate(row, start=1):
            if value is not None:
                sheet.cell(row=header_row + offset, column=column, value=value)


# 1. An instructions/introduction sheet first; questions on several later sheets, one per domain.
def intro_then_domains():
    workbook = Workbook()
    start = workbook.active
    start.title = "START HERE"
    start["A1"] = "Vendor security questionnaire"
    _table(
        start,
        3,
        ["Field", "Response"],
        [
            ["Company name"],
            ["Registered address"],
            ["Primary contact name"],
            ["Primary contact email"],
            ["Number of employees"],
            ["Year founded"],
        ],
    )
    intro = workbook.create_sheet("About this questionnaire")
    for row, paragraph in enumerate(
        [
            "This questionnaire helps us understand how your organisation protects the data we entrust to you.",
            "Please answer every question on the domain sheets that follow this one.",
            "Answers must be supported by evidence where the question asks for it.",
            "Where a question does not apply to your service, choose N/A and explain why.",
            "Return the completed workbook to your procurement contact within four weeks.",
            "Thank you for your time and for your commitment to security.",
        ],
        start=2,
    ):
        intro.cell(row=row, column=1, value=paragraph)
    expected = []
    for name, prefix, questions in [
        (
            "Governance",
            "GOV",
            [
                "Is there an information security policy approved by management?",
                "How often is the security policy reviewed?",
                "Who is accountable for information security?",
            ],
        ),
        (
            "Data Protection",
            "DP",
            [
                "Is customer data encrypted at rest?",
                "Is customer data encrypted in transit?",
                "How long are backups retained?",
                "Where are backups stored?",
            ],
        ),
    ]:
        sheet = workbook.create_sheet(name)
        rows = [[f"{prefix}-{i:02d}", q] for i, q in enumerate(questions, start=1)]
        _table(sheet, 1, ["ID", "Question", "Response", "Comments"], rows)
        dropdown(sheet, f"C2:C{len(rows) + 1}")
        expected += [(name, r[0], "", r[1]) for r in rows]
    return save(workbook), expected


# 2. Sheets not for the respondent: hidden, lookup, scoring (formulas), an analyst sheet repeating the questions.
def not_for_respondent():
    workbook = Workbook()
    questions = workbook.active
    questions.title = "Questions"
    rows = [
        ["R-1", "Do you perform background checks on staff?"],
        ["R-2", "Do you have a documented incident response plan?"],
        ["R-3", "Are production changes approved before release?"],
        ["R-4", "Describe how access is revoked when staff leave."],
    ]
    _table(questions, 1, ["Ref", "Requirement", "Compliant", "Evidence"], rows)
    dropdown(questions, "C2:C5")
    archive = workbook.create_sheet("Archive")
    archive.sheet_state = "hidden"
    _table(
        archive,
        1,
        ["Ref", "Requirement", "Compliant", "Evidence"],
        [
            ["OLD-1", "Do you still use the retired 2019 questions?"],
            ["OLD-2", "Is this old question answered anywhere?"],
            ["OLD-3", "Should this hidden question ever be imported?"],
        ],
    )
    lookups = workbook.create_sheet("Lookups")
    cached = {}
    for row, option in enumerate(["Yes", "No", "N/A"], start=2):
        lookups.cell(row=row, column=1, value=option)
        lookups.cell(row=row, column=2, value=f"=COUNTIF(Questions!C:C,A{row})")
        cached[("Lookups", f"B{row}")] = 0
    scores = workbook.create_sheet("Scores")
    _table(scores, 1, ["Ref", "Weight", "Score"], [])
    for row in range(2, 6):
        scores.cell(row=row, column=1, value=f"=Questions!A{row}")
        scores.cell(row=row, column=2, value=f'=IF(Questions!C{row}="Yes",1,0)')
        scores.cell(row=row, column=3, value=f"=B{row}*10")
        cached.update({("Scores", f"A{row}"): rows[row - 2][0], ("Scores", f"B{row}"): 0, ("Scores", f"C{row}"): 0})
    second = workbook.create_sheet("Second review")
    _table(second, 1, ["Ref", "Requirement", "Analyst rating", "Analyst comment"], [])
    for row in range(2, 6):
        second.cell(row=row, column=1, value=f"=Questions!A{row}")
        second.cell(row=row, column=2, value=f"=Questions!B{row}")
        cached.update({("Second review", f"A{row}"): rows[row - 2][0], ("Second review", f"B{row}"): rows[row - 2][1]})
    return save(workbook, cached), [("Questions", r[0], "", r[1]) for r in rows]


# 3. A title block above the header (title, version, date, merged cells, notes); header on row 6 or 12;
#    the question column's header is the domain's name, not "Question".
def title_block():
    workbook = Workbook()
    expected = []
    for sheet, (name, header_row, questions) in zip(
        [workbook.active, workbook.create_sheet()],
        [
            (
                "Access Control",
                6,
                [
                    "Is multi-factor authentication enforced for administrators?",
                    "How are access rights reviewed, and how often?",
                    "Are shared accounts prohibited?",
                ],
            ),
            (
                "Network Security",
                12,
                [
                    "Is inbound traffic filtered by a firewall?",
                    "Do you segment production networks?",
                    "How do you detect intrusions on the network?",
                ],
            ),
        ],
    ):
        sheet.title = name
        sheet["A1"] = f"ACME Vendor Assessment — {name}"
        sheet.merge_cells("A1:D1")
        sheet["A2"], sheet["B2"] = "Version", 3.2
        sheet["A3"], sheet["B3"] = "Issued", datetime(2026, 3, 1)
        sheet["A4"] = "Notes: answer in the shaded cells; do not change the layout."
        sheet.merge_cells("A4:D4")
        rows = [[i, q] for i, q in enumerate(questions, start=1)]
        _table(sheet, header_row, ["#", name, "Answer", "Explanation"], rows)
        dropdown(sheet, f"C{header_row + 1}:C{header_row + len(rows)}")
        expected += [(name, str(i), name, q) for i, q in rows]
    return save(workbook), expected


# 4. ID columns under every common name, with IDs like A&A-01.1, V1.1.1, DOCU-01; the same wording under two IDs.
ID_SHEETS = [
    ("CAIQ", "Question ID", ["A&A-01.1", "A&A-02.1"]),
    ("ASVS", "req_id", ["V1.1.1", "V1.1.2"]),
    ("Docs", "Control ID", ["DOCU-01", "DOCU-02"]),
    ("Refs", "Ref", ["R.1", "R.2"]),
    ("Numbered", "#", ["1", "2"]),
    ("Plain", "ID", ["P-10", "P-11"]),
    ("Snake", "question_id", ["q_001", "q_002"]),
]


def id_columns():
    workbook = Workbook()
    workbook.remove(workbook.active)
    expected = []
    for name, header, ids in ID_SHEETS:
        sheet = workbook.create_sheet(name)
        # The same wording under both IDs of a sheet: two questions, both kept.
        rows = [
            [ids[0], f"Are audit reports for the {name} scope reviewed annually?"],
            [ids[1], f"Are audit reports for the {name} scope reviewed annually?"],
            [None, f"Is there an owner for the {name} scope?"],
        ]
        rows[2][0] = f"{ids[1]}-b"
        _table(sheet, 1, [header, "Question", "Answer", "Notes"], rows)
        expected += [(name, r[0], "", r[1]) for r in rows]
    return save(workbook), expected


# 5. Section rows (alone, merged across the table), a banner row repeating the header, end and copyright rows.
def sections_banners_footer():
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Controls"
    sheet["A1"] = "Cloud Controls Checklist"
    _table(sheet, 2, ["Control ID", "Control", "Status", "Notes"], [])
    sheet["A3"] = "1. Governance"
    sheet.merge_cells("A3:D3")
    sheet["A4"], sheet["B4"] = "GOV-01", "Do you maintain a risk register?"
    sheet["A5"], sheet["B5"] = "GOV-02", "Is the risk register reviewed quarterly?"
    sheet["A6"], sheet["C6"], sheet["D6"] = "2. Operations", "Status", "Notes"
    sheet.merge_cells("A6:B6")
    sheet["A7"], sheet["B7"] = "OPS-01", "Are changes tested before production?"
    sheet["A8"], sheet["B8"] = "OPS-02", "Is capacity monitored and alerted on?"
    sheet["A9"], sheet["B9"] = "SUPP", "Support"  # a section's code and name where IDs and questions go
    sheet["A10"], sheet["B10"] = "SUPP-01", "What are your support hours?"
    sheet["A12"] = "End of standard"
    sheet["A13"] = "© 2026 Example Standards Body. All rights reserved."
    dropdown(sheet, "C4:C8", "Implemented,Partially implemented,Not implemented,Not applicable")
    return save(workbook), [
        ("Controls", "GOV-01", "1. Governance", "Do you maintain a risk register?"),
        ("Controls", "GOV-02", "1. Governance", "Is the risk register reviewed quarterly?"),
        ("Controls", "OPS-01", "2. Operations", "Are changes tested before production?"),
        ("Controls", "OPS-02", "2. Operations", "Is capacity monitored and alerted on?"),
        ("Controls", "SUPP-01", "Support", "What are your support hours?"),
    ]


# 6. Line breaks and bullets in a question; a question over two rows (question, then its criteria); a formula question.
def multiline_two_rows_formula():
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Questionnaire"
    source = workbook.create_sheet("Question bank")
    source.sheet_state = "hidden"
    source["A1"] = "Do you run annual penetration tests?"
    _table(
        sheet,
        1,
        ["ID", "Question", "Answer", "Details"],
        [
            ["Q-1", "Describe your backup process:\n• frequency\n  • retention\n• restore tests"],
            ["Q-2", "Do you encrypt data at rest?"],
            [None, "Criteria: AES-256 or stronger;\nkeys kept in an HSM."],
            ["Q-3", "='Question bank'!A1"],
        ],
    )
    dropdown(sheet, "C2:C5")
    cached = {("Questionnaire", "B5"): "Do you run annual penetration tests?"}
    return save(workbook, cached), [
        ("Questionnaire", "Q-1", "", "Describe your backup process:\n• frequency\n• retention\n• restore tests"),
        (
            "Questionnaire",
            "Q-2",
            "",
            "Do you encrypt data at rest?\nCriteria: AES-256 or stronger;\nkeys kept in an HSM.",
        ),
        ("Questionnaire", "Q-3", "", "Do you run annual penetration tests?"),
    ]


# 7. A choice column (Yes / No / NA dropdown), several free-text columns, a second choice column (the owner).
def answer_columns():
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Assessment"
    rows = [
        ["AC-1", "Is access to production logged?"],
        ["AC-2", "Are logs kept for at least a year?"],
        ["AC-3", "Do you support customer-managed keys?"],
    ]
    _table(
        sheet,
        1,
        [
            "Control ID",
            "Control question",
            "Yes/No/NA",
            "Implementation description",
            "Additional information",
            "Control owner",
            "Notes",
        ],
        rows,
    )
    dropdown(sheet, "C2:C4", "Yes,No,NA")
    dropdown(sheet, "F2:F4", "Vendor,Customer,Shared")
    sheet.column_dimensions["B"].width = 60
    return save(workbook), [("Assessment", r[0], "", r[1]) for r in rows]


# 8. A used range down to row 1,048,576, a protected sheet, hundreds of merged ranges, thousands of formulas.
def big_range_protected_merged_formulas():
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Security"
    rows = [
        [f"S-{i:02d}", f"Do you enforce security control number {i} across all environments?"] for i in range(1, 11)
    ]
    _table(sheet, 1, ["ID", "Question", "Response", "Comments"], rows)
    dropdown(sheet, "C2:C11")
    sheet.cell(row=1_048_576, column=4).fill = PatternFill("solid", start_color="FFFFCC")  # formatted to the last row
    sheet.protection.sheet = True
    sheet.protection.password = "client"
    layout = workbook.create_sheet("Layout")
    for row in range(1, 301):
        layout.cell(row=row, column=1, value=f"Box {row}")
        layout.merge_cells(start_row=row, start_column=1, end_row=row, end_column=3)
    calc = workbook.create_sheet("Calc")
    cached = {}
    for row in range(1, 1001):
        for column, letter in enumerate("ABC", start=1):
            calc.cell(row=row, column=column, value=f"=ROW()*{column}")
            cached[("Calc", f"{letter}{row}")] = row * column
    return save(workbook, cached), [("Security", r[0], "", r[1]) for r in rows]


# The shape of a cloud-controls questionnaire (structures 1, 4, 5 and 7 together): an introduction of prose,
# then one sheet under a title row with question IDs, the answer and ownership dropdowns, free-text columns,
# and the control's columns (merged over its questions) to the right; end and copyright rows below.
def controls_matrix():
    workbook = Workbook()
    intro = workbook.active
    intro.title = "Introduction"
    for row in range(1, 37):
        intro.cell(
            row=row,
            column=2,
            value=f"Paragraph {row}: this matrix must be read with the guidance; answers should be complete.",
        )
    sheet = workbook.create_sheet("Matrix v4")
    sheet["A1"] = "Consensus Assessment Initiative Questionnaire v4"
    sheet.merge_cells("A1:J1")
    header = [
        "Question ID",
        "Question",
        "CSP CAIQ Answer",
        "SSRM Control Ownership",
        "CSP Implementation Description (Optional/Recommended)",
        "CSC Responsibilities (Optional/Recommended)",
        "CCM Control ID",
        "CCM Control Specification",
        "CCM Control Title",
        "CCM Domain Title",
    ]
    controls = [
        (
            "A&A-01",
            "Audit and Assurance Policy",
            "Audit & Assurance",
            [
                ("A&A-01.1", "Are audit and assurance policies established, documented, approved and communicated?"),
                ("A&A-01.2", "Are audit and assurance policies reviewed and updated at least annually?"),
            ],
        ),
        (
            "A&A-02",
            "Independent Assessments",
            "Audit & Assurance",
            [("A&A-02.1", "Are audit and assurance policies reviewed and updated at least annually?")],
        ),
        (
            "AIS-01",
            "Application Security Policy",
            "Application & Interface Security",
            [
                ("AIS-01.1", "Are application security policies established and documented?"),
                ("AIS-01.2", "Are application security policies reviewed at least annually?"),
            ],
        ),
    ]
    _table(sheet, 2, header, [])
    row, expected = 3, []
    for control, title, domain, questions in controls:
        first = row
        for qid, question in questions:
            sheet.cell(row=row, column=1, value=qid)
            sheet.cell(row=row, column=2, value=question)
            expected.append(("Matrix v4", qid, domain, question))
            row += 1
        for column, value in (
            (7, control),
            (8, f"{title}: policies shall be established and maintained."),
            (9, title),
            (10, domain),
        ):
            sheet.cell(row=first, column=column, value=value)
            if row - 1 > first:
                sheet.merge_cells(start_row=first, start_column=column, end_row=row - 1, end_column=column)
    dropdown(sheet, f"C3:C{row - 1}", "Yes,No,NA")
    dropdown(sheet, f"D3:D{row - 1}", "CSP-owned,CSC-owned,Shared CSP and CSC,Third-party outsourced")
    sheet.cell(row=row + 1, column=1, value="End of Standard")
    sheet.cell(row=row + 2, column=1, value="© Copyright 2021-2026 Example Alliance - All rights reserved.")
    return save(workbook), expected


def with_x14_list(data: bytes, sheet_index: int, sqref: str, source: str) -> bytes:
    """Add a drop-down in Excel 2010's extension form (x14:dataValidation, its list on another sheet), the form
    openpyxl neither writes nor reads: clients' workbooks made in Excel have it."""
    path = f"xl/worksheets/sheet{sheet_index}.xml"
    extension = (
        '<extLst><ext uri="{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}" '
        'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">'
        '<x14:dataValidations count="1" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">'
        '<x14:dataValidation type="list" allowBlank="1" showErrorMessage="1">'
        f"<x14:formula1><xm:f>{source}</xm:f></x14:formula1><xm:sqref>{sqref}</xm:sqref>"
        "</x14:dataValidation></x14:dataValidations></ext></extLst>"
    )
    source_zip = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source_zip.namelist():
            content = source_zip.read(name)
            if name == path:
                content = content.replace(b"</worksheet>", extension.encode() + b"</worksheet>")
            target.writestr(name, content)
    return out.getvalue()


# 10. A multi-sheet vendor assessment (the shape of a higher-education one): on the vendor-facing sheets the header
#     cell over the ID column reads like a question header ("Question", merged over two columns or not) and the
#     questions sit in the next column; guidance and analyst columns beside the answers; drop-downs from a named
#     range on a hidden lists sheet, from the x14 extension form, and inline; an open question beside closed ones.
ASSESSMENT_SHEETS = [
    (
        "Company",
        "merged",
        [
            ("COMP-01", "Describe your company, its ownership and its main products."),
            ("COMP-02", "Do you have a dedicated information security team?"),
            ("COMP-03", "Provide the number of employees in your security team."),
            ("COMP-04", "Is your company subject to any ongoing litigation?"),
        ],
    ),
    (
        "Data",
        "merged",
        [
            ("DATA-01", "Is institutional data encrypted at rest?"),
            ("DATA-02", "Is institutional data encrypted in transit?"),
            ("DATA-03", "Do you store institutional data outside the country?"),
            ("DATA-04", "Are backups of institutional data tested at least annually?"),
        ],
    ),
    (
        "Application",
        "offset",
        [
            ("APPL-01", "Do you perform static code analysis before each release?"),
            ("APPL-02", "Are third-party libraries checked for known vulnerabilities?"),
            ("APPL-03", "How do you handle security defects reported by customers?"),
        ],
    ),
]
GUIDANCE = "Provide supporting documentation, such as a policy or an audit report, where one exists."


def vendor_assessment():
    workbook = Workbook()
    instructions = workbook.active
    instructions.title = "Instructions"
    for row, paragraph in enumerate(
        [
            "Complete every vendor-facing sheet.",
            "Answer with the drop-downs; explain in Additional Information.",
            "Analyst columns are for the institution's use.",
        ],
        start=1,
    ):
        instructions.cell(row=row, column=1, value=paragraph)
    expected = []
    for name, header_kind, questions in ASSESSMENT_SHEETS:
        sheet = workbook.create_sheet(name)
        sheet["A1"] = f"{name} — Vendor Assessment"
        rows = [[qid, text, None, None, GUIDANCE] for qid, text in questions]
        rows.insert(2, [f"{name} protection and governance controls"])  # a section row, in the ID column, merged across
        _table(
            sheet,
            3,
            ["Question", None, "Vendor Answer", "Additional Information", "Guidance", "Analyst Notes", "Analyst Score"],
            rows,
        )
        sheet.merge_cells("A6:G6")
        if header_kind == "merged":
            sheet.merge_cells("A3:B3")
        for column in "FG":
            sheet.column_dimensions[column].hidden = False  # analyst columns are visible, as in the real file
        expected += [
            (name, qid, "" if i < 2 else f"{name} protection and governance controls", text)
            for i, (qid, text) in enumerate(questions)
        ]
    lists = workbook.create_sheet("Lists")
    lists.sheet_state = "hidden"
    for row, (answer, graded) in enumerate(
        zip(["Yes", "No", "N/A"], ["Yes", "No", "Partially", "Not Applicable"]), start=1
    ):
        lists.cell(row=row, column=1, value=answer)
        lists.cell(row=row, column=2, value=graded)
    lists["B4"] = "Not Applicable"
    from openpyxl.workbook.defined_name import DefinedName

    workbook.defined_names["VendorAnswers"] = DefinedName("VendorAnswers", attr_text="Lists!$A$1:$A$3")
    dropdown(workbook["Company"], "C4:C8", "Yes,No")
    workbook["Data"].add_data_validation(validation := DataValidation(type="list", formula1="VendorAnswers"))
    validation.add("C4:C8")
    summary = workbook.create_sheet("Analyst Summary")
    cached = {}
    _table(summary, 1, ["Sheet", "Score"], [])
    for row, (name, _, questions) in enumerate(ASSESSMENT_SHEETS, start=2):
        summary.cell(row=row, column=1, value=name)
        summary.cell(row=row, column=2, value=f"=SUM('{name}'!G4:G{4 + len(questions)})")
        cached[("Analyst Summary", f"B{row}")] = 0
    data = save(workbook, cached)
    application = workbook.sheetnames.index("Application") + 1
    return with_x14_list(data, application, "C4:C7", "Lists!$B$1:$B$4"), expected


STRUCTURES = {
    "intro-then-domains": intro_then_domains,
    "not-for-respondent": not_for_respondent,
    "title-block": title_block,
    "id-columns": id_columns,
    "sections-banners-footer": sections_banners_footer,
    "multiline-two-rows-formula": multiline_two_rows_formula,
    "answer-columns": answer_columns,
    "big-range-protected-merged-formulas": big_range_protected_merged_formulas,
    "controls-matrix": controls_matrix,
    "vendor-assessment": vendor_assessment,
}
