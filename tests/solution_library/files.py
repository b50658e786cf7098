"""Real files of every kind the library meets, made by the tests themselves."""

import io

import docx
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas


def pdf_bytes(paragraphs: list[str]) -> bytes:
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, pagesize=A4)
    y = 800
    for paragraph in paragraphs:
        page.drawString(60, y, paragraph)
        y -= 30
    page.save()
    return buffer.getvalue()


def ruled_table_pdf_bytes(before: str, rows: list[list[str]], after: str) -> bytes:
    """A paragraph, a table ruled in a grid (its cells wrapped at the column's width, as a word processor sets
    them), and a paragraph, as reportlab's document layout draws them."""
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table

    body = getSampleStyleSheet()["BodyText"]
    table = Table([[Paragraph(cell, body) for cell in row] for row in rows], colWidths=[120, 220])
    table.setStyle([("GRID", (0, 0), (-1, -1), 0.5, "grey")])
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=A4).build([Paragraph(before, body), table, Paragraph(after, body)])
    return buffer.getvalue()


def paged_pdf_bytes(pages: list[list[tuple[int, str]]], header: str, footer: str) -> bytes:
    """A PDF as a word processor prints one: each page's (font size, line) in order, under a running header
    and over a footer, where "{page}" and "{pages}" in either become the page's number and the count."""
    buffer = io.BytesIO()
    document = canvas.Canvas(buffer, pagesize=A4)
    for number, lines in enumerate(pages, start=1):
        fill = {"page": number, "pages": len(pages)}
        document.setFont("Helvetica", 9)
        document.drawString(60, 810, header.format(**fill))
        y = 770
        for size, line in lines:
            document.setFont("Helvetica", size)
            document.drawString(60, y, line)
            y -= size * 1.6
        document.setFont("Helvetica", 9)
        document.drawString(60, 30, footer.format(**fill))
        document.showPage()
    document.save()
    return buffer.getvalue()


def bookmarked_pdf_bytes(pages: list[list[tuple[str, int]]]) -> bytes:
    """A PDF whose headings are known only by its bookmarks: each page's (line, outline depth or 0 for body text),
    every line in one size, headings in bold; a heading with "\n" in it is set on two lines."""
    buffer = io.BytesIO()
    document = canvas.Canvas(buffer, pagesize=A4)
    for number, lines in enumerate(pages):
        y = 770
        for text, depth in lines:
            if depth:
                key = f"p{number}y{y}"
                document.bookmarkHorizontal(key, 0, y + 12)
                document.addOutlineEntry(text.replace("\n", " "), key, level=depth - 1)
            document.setFont("Helvetica-Bold" if depth else "Helvetica", 11)
            for line in text.split("\n"):
                document.drawString(60, y, line)
                y -= 18
        document.showPage()
    document.save()
    return buffer.getvalue()


def encrypted_pdf_bytes(paragraphs: list[str]) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(paragraphs))))
    writer.encrypt(user_password="secret", owner_password="owner")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def docx_bytes(paragraphs: list[str]) -> bytes:
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def html_bytes(title: str, paragraphs: list[str]) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html><head><title>{title}</title><style>p {{color: red}}</style></head>"
        f"<body><nav>Home | Docs</nav><h1>{title}</h1>{body}<script>var x = 1;</script></body></html>"
    ).encode()


def markdown_bytes(title: str, paragraphs: list[str]) -> bytes:
    return (f"# {title}\n\n" + "\n\n".join(f"- {p}" if i % 2 else p for i, p in enumerate(paragraphs)) + "\n").encode()


def png_bytes() -> bytes:
    return bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\x00" * 40


def long_paragraphs(topic: str, count: int) -> list[str]:
    """Distinct sentences, so that a document spans several chunks."""
    return [f"Fact {i} about {topic}: the {topic} subsystem handles case number {i} reliably." for i in range(count)]
