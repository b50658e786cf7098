"""The library as a workbook: the answer bank a team keeps, backs up or moves to another tool.

One row per usable entry (not retired or merged): its question, its other wordings (one per line), the answer,
the Yes / No / N/A, the owner, when the text was last approved, and the documents it cites. Every cell a person
or a model wrote is defused against formula injection (rfp_manager's safe_cell).
"""

import io

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font

from rfp_manager.services.export import safe_cell

from ..models import Entry

COLUMNS = ["Question", "Alternate wordings", "Answer", "Choice", "Owner", "Last approved", "Citations", "Entry"]
WIDTHS = (60, 60, 80, 8, 16, 18, 50, 8)


def entry_row(entry: Entry) -> list:
    titles = dict.fromkeys(s.get("document_title") or "a library document" for s in entry.sources)
    return [
        safe_cell(entry.question),
        safe_cell("\n".join(entry.alternatives)),
        safe_cell(entry.answer_text),
        entry.get_choice_display() if entry.choice else "",
        safe_cell(entry.owner.get_username() if entry.owner else ""),
        entry.approved_at.strftime("%Y-%m-%d") if entry.approved_at else "",
        safe_cell("; ".join(titles)),
        entry.pk,
    ]


def library_workbook() -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Answer library"
    sheet.append(COLUMNS)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for entry in Entry.objects.usable().select_related("owner").order_by("pk"):
        sheet.append(entry_row(entry))
    for letter, width in zip("ABCDEFGH", WIDTHS):
        sheet.column_dimensions[letter].width = width
    for row in sheet.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
