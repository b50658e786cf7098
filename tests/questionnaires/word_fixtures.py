"""Word and PDF questionnaires built in code, shaped like the public-sector ones (no real client files here).

- `table_questionnaire()`: a cover table (not questions), then under a heading a
  question / response table with IDs, merged section rows and placeholder
  response cells; header and footer text.
- `numbered_questionnaire()`: headings as sections, questions in Word list
  numbering, each followed by an empty paragraph or a "Response:" line, and a
  typed "3.1" question; a numbered instruction list that asks nothing.
- `fillable_pdf()` / `text_pdf()`: a PDF form with tooltips on its text fields,
  and a text-only PDF of numbered questions.
"""

import io

from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Pt

TABLE_QUESTIONS = {
    "A. Access control": [
        ("AC-1", "Describe how access to production systems is granted and revoked."),
        ("AC-2", "Do you enforce multi-factor authentication for administrators?"),
    ],
    "B. Data protection": [
        ("DP-1", "How is customer data encrypted at rest and in transit?"),
        ("DP-2", "How often are backups taken and how long are they kept?"),
    ],
}
NUMBERED_QUESTIONS = {
    "1 General": ["Describe your company and the services you offer.", "Which data centres host the service?"],
    "2 Operations": [
        "How often are backups taken and how long are they kept?",
        "What support hours and response times do you offer?",
    ],
}
TYPED_QUESTION = ("3.1", "Provide the name of your security officer.")


def _save(document) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _header_and_footer(document) -> None:
    section = document.sections[0]
    section.header.paragraphs[0].text = "City of Example · RFP 2026-17 · Confidential"
    section.footer.paragraphs[0].text = "Return by 30 June 2026"
    section.footer.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.CENTER


def table_questionnaire() -> bytes:
    document = Document()
    _header_and_footer(document)
    document.add_heading("Supplier questionnaire", level=0)
    document.add_paragraph("Complete the response column of every row. Do not change the questions.")
    cover = document.add_table(rows=2, cols=2, style="Table Grid")
    cover.cell(0, 0).text, cover.cell(1, 0).text = "Company name", "Contact e-mail"
    document.add_heading("Security and data", level=1)
    table = document.add_table(rows=1, cols=3, style="Table Grid")
    for cell, label in zip(table.rows[0].cells, ("ID", "Question", "Response")):
        cell.text = label
        cell.paragraphs[0].runs[0].bold = True
    for section, questions in TABLE_QUESTIONS.items():
        row = table.add_row()
        merged = row.cells[0].merge(row.cells[2])
        merged.text = section
        for number, question in questions:
            cells = table.add_row().cells
            cells[0].text, cells[1].text = number, question
            cells[2].text = "[Insert response]" if number.endswith("1") else ""
    document.add_paragraph("End of the questionnaire.", style="Intense Quote")
    return _save(document)


def numbered_questionnaire() -> bytes:
    document = Document()
    _header_and_footer(document)
    document.add_heading("Request for proposal: managed hosting", level=0)
    document.add_paragraph("How to respond:")
    for step in ("Answer below each question.", "Send the document back as .docx."):
        document.add_paragraph(step, style="List Bullet")
    for section, questions in NUMBERED_QUESTIONS.items():
        document.add_heading(section, level=1)
        for position, question in enumerate(questions):
            document.add_paragraph(question, style="List Number")
            if position % 2:
                response = document.add_paragraph()
                label = response.add_run("Response:")
                label.bold = True
            else:
                document.add_paragraph("")
    document.add_heading("3 Contacts", level=1)
    typed = document.add_paragraph(f"{TYPED_QUESTION[0]} {TYPED_QUESTION[1]}")
    typed.runs[0].font.size = Pt(11)
    document.add_paragraph("")
    document.add_paragraph("Thank you for your response.")
    return _save(document)


PDF_QUESTIONS = [
    ("1", "How is customer data encrypted at rest and in transit?"),
    ("2", "How often are backups taken and how long are they kept?"),
    ("3", "Which data centres host the service?"),
]


def fillable_pdf() -> bytes:
    """A one-page form: a title, each numbered question drawn above its text field (tooltip = the question),
    and a "Company" field with no tooltip whose label is drawn above it."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    pdf.setFont("Helvetica-Bold", 14)
    pdf.drawString(50, 800, "Supplier security form")
    pdf.setFont("Helvetica", 10)
    pdf.drawString(50, 770, "Company name")
    pdf.acroForm.textfield(name="company", x=50, y=740, width=300, height=20)
    y = 700
    for number, question in PDF_QUESTIONS:
        pdf.drawString(50, y, f"{number}. {question}")
        pdf.acroForm.textfield(
            name=f"answer_{number}",
            tooltip=f"{number}. {question}",
            x=50,
            y=y - 50,
            width=480,
            height=40,
            fieldFlags="multiline",
        )
        y -= 90
    pdf.drawString(50, 120, "Signed on behalf of the supplier")
    pdf.save()
    return buffer.getvalue()


def text_pdf() -> bytes:
    """Numbered questions under section lines; the second question wraps onto a second line."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    lines = [
        "Vendor questionnaire",
        "",
        "Security",
        "1.1 How is customer data encrypted at rest and in transit?",
        "1.2 Describe how access to production systems is granted",
        "and revoked for administrators.",
        "",
        "Operations",
        "2.1 How often are backups taken and how long are they kept?",
        "2.2 Which data centres host the service?",
    ]
    y = 800
    for line in lines:
        pdf.drawString(50, y, line)
        y -= 18
    pdf.save()
    return buffer.getvalue()


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
PLACEHOLDER_RUN = '<w:r><w:rPr><w:rStyle w:val="PlaceholderText"/></w:rPr><w:t>{}</w:t></w:r>'
CHOICE_ITEMS = ("Yes", "No", "Not applicable")
CONTROL_QUESTIONS = [
    ("R1", "Is all customer data encrypted at rest?"),
    ("R2", "Do you process payment card data on behalf of the authority?"),
    ("R3", "Describe your incident response process."),
]


def _dropdown(choices) -> str:
    items = "".join(f'<w:listItem w:displayText="{v}" w:value="{v}"/>' for v in ("Choose an item.", *choices))
    return (
        f"<w:sdt {W}><w:sdtPr><w:showingPlcHdr/><w:dropDownList>{items}</w:dropDownList></w:sdtPr>"
        f"<w:sdtContent>{PLACEHOLDER_RUN.format('Choose an item.')}</w:sdtContent></w:sdt>"
    )


def _text_control(block: bool) -> str:
    run = PLACEHOLDER_RUN.format("Click or tap here to enter text.")
    content = f"<w:p>{run}</w:p>" if block else run
    return (
        f'<w:sdt {W}><w:sdtPr><w:showingPlcHdr/><w:text w:multiLine="1"/></w:sdtPr>'
        f"<w:sdtContent>{content}</w:sdtContent></w:sdt>"
    )


def content_control_questionnaire(choices=CHOICE_ITEMS) -> bytes:
    """Word's own form fields in the table: a Yes / No / Not applicable drop-down per row, and a text control
    for the response (inside the cell's paragraph on odd rows, around it on even rows)."""
    from docx.oxml import parse_xml

    document = Document()
    _header_and_footer(document)
    document.add_heading("Compliance schedule", level=1)
    table = document.add_table(rows=1, cols=4, style="Table Grid")
    for cell, label in zip(table.rows[0].cells, ("Ref", "Requirement", "Compliant", "Supplier response")):
        cell.text = label
    for position, (number, question) in enumerate(CONTROL_QUESTIONS):
        cells = table.add_row().cells
        cells[0].text, cells[1].text = number, question
        cells[2].paragraphs[0]._p.append(parse_xml(_dropdown(choices)))
        if position % 2:
            tc = cells[3]._tc
            tc.remove(cells[3].paragraphs[0]._p)
            tc.append(parse_xml(_text_control(block=True)))
        else:
            cells[3].paragraphs[0]._p.append(parse_xml(_text_control(block=False)))
    return _save(document)
