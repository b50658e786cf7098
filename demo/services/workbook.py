"""The demo RFP as a client would send it: a multi-sheet questionnaire workbook.

Built from `content/rfp.toml` the way procurement teams lay these out: an
instructions sheet first; then the questionnaire with a title block above the
header row, a question-ID column, section rows between the questions, a
Yes/No/N/A compliance column with a drop-down (data validation) and a
free-text response column for the supplier.
"""

import io
import tomllib
from dataclasses import dataclass
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation

from .rendering import without_zip_timestamps

RFP_SOURCE = Path(__file__).resolve().parent.parent / "content" / "rfp.toml"
HEADER = ["Ref", "Requirement", "Compliant (Yes/No/N/A)", "Supplier response", "Evaluator notes"]
COMPLIANCE_CHOICES = '"Yes,No,N/A"'
SECTION_FILL = PatternFill("solid", fgColor="DDE4F0")
HEADER_FILL = PatternFill("solid", fgColor="1F3A5F")


@dataclass
class DemoRFP:
    name: str
    client: str
    reference: str
    due_date: str
    filename: str
    instructions: list[str]
    sections: list[dict]  # {"title": str, "questions": [[ref, text], …]}

    @property
    def questions(self) -> list[list[str]]:
        return [q for section in self.sections for q in section["questions"]]


def read_demo_rfp(path: Path = RFP_SOURCE) -> DemoRFP:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return DemoRFP(**data)


def build_workbook(rfp: DemoRFP) -> bytes:
    workbook = Workbook()
    _instructions_sheet(workbook.active, rfp)
    _questionnaire_sheet(workbook.create_sheet("Questionnaire"), rfp)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return without_zip_timestamps(buffer.getvalue())


def _instructions_sheet(sheet, rfp: DemoRFP) -> None:
    sheet.title = "Instructions"
    sheet["A1"] = f"{rfp.client} — {rfp.name}"
    sheet["A1"].font = Font(bold=True, size=14)
    sheet["A2"] = f"Reference {rfp.reference} · responses due {rfp.due_date}"
    for row, paragraph in enumerate(rfp.instructions, start=4):
        sheet.cell(row=row, column=1, value=paragraph).alignment = Alignment(wrap_text=True, vertical="top")
    sheet.column_dimensions["A"].width = 110


def _questionnaire_sheet(sheet, rfp: DemoRFP) -> None:
    # The title block: three rows of context above the header, as clients write them.
    sheet["A1"] = rfp.name
    sheet["A1"].font = Font(bold=True, size=14)
    sheet["A2"] = f"Issued by {rfp.client} · reference {rfp.reference}"
    sheet["A3"] = "Supplier name:"
    header_row = 5
    for column, title in enumerate(HEADER, start=1):
        cell = sheet.cell(row=header_row, column=column, value=title)
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = HEADER_FILL
    compliance = DataValidation(type="list", formula1=COMPLIANCE_CHOICES, allow_blank=True)
    compliance.error = "Choose Yes, No or N/A."
    sheet.add_data_validation(compliance)
    row = header_row
    for section in rfp.sections:
        row += 1
        sheet.cell(row=row, column=1, value=section["title"]).font = Font(bold=True)
        sheet.merge_cells(start_row=row, start_column=1, end_row=row, end_column=len(HEADER))
        sheet.cell(row=row, column=1).fill = SECTION_FILL
        for ref, text in section["questions"]:
            row += 1
            sheet.cell(row=row, column=1, value=ref)
            sheet.cell(row=row, column=2, value=text).alignment = Alignment(wrap_text=True, vertical="top")
            compliance.add(sheet.cell(row=row, column=3))
    sheet.freeze_panes = sheet.cell(row=header_row + 1, column=1)
    for letter, width in zip("ABCDE", (10, 70, 22, 60, 30)):
        sheet.column_dimensions[letter].width = width
