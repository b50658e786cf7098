"""Turn the demo's readable text sources into the binary formats a library accepts (PDF, DOCX).

The sources (`content/library/*.pdf.md`, `*.docx.md`) use a small subset of
Markdown, so they stay readable and diffable in the repository:

    # Title / ## Heading      headings
    - item                    a bulleted list
    | a | b |                 a table (the first row is its header)
    ---                       a page break (PDF) / a page break (DOCX)
    anything else             a paragraph (consecutive lines are joined)

The output is byte-for-byte the same on every run (no timestamps, fixed IDs),
so loading the demo twice finds the same files and stores nothing new.
"""

import io
import zipfile
from dataclasses import dataclass, field

FIXED_ZIP_TIME = (2026, 1, 1, 0, 0, 0)


@dataclass
class Block:
    kind: str  # h1, h2, p, bullets, table, pagebreak
    text: str = ""
    items: list = field(default_factory=list)


def parse_blocks(source: str) -> list[Block]:
    """The blocks of a mini-Markdown source, in order."""
    blocks: list[Block] = []
    for line in source.splitlines():
        stripped = line.strip()
        last = blocks[-1] if blocks else None
        if not stripped:
            blocks.append(Block("blank"))
        elif stripped == "---":
            blocks.append(Block("pagebreak"))
        elif stripped.startswith("## "):
            blocks.append(Block("h2", stripped[3:]))
        elif stripped.startswith("# "):
            blocks.append(Block("h1", stripped[2:]))
        elif stripped.startswith("- "):
            if last is None or last.kind != "bullets":
                blocks.append(last := Block("bullets"))
            last.items.append(stripped[2:])
        elif stripped.startswith("|"):
            if last is None or last.kind != "table":
                blocks.append(last := Block("table"))
            last.items.append([cell.strip() for cell in stripped.strip("|").split("|")])
        elif last is not None and last.kind == "p":
            last.text += " " + stripped
        else:
            blocks.append(Block("p", stripped))
    return [b for b in blocks if b.kind != "blank"]


def title_of(blocks: list[Block], default: str) -> str:
    return next((b.text for b in blocks if b.kind == "h1"), default)


# --- PDF ---------------------------------------------------------------------------


def render_pdf(source: str, title: str) -> bytes:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import ListFlowable, ListItem, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table

    styles = getSampleStyleSheet()
    flowables = []
    for block in parse_blocks(source):
        if block.kind == "h1":
            flowables.append(Paragraph(_escape(block.text), styles["Title"]))
        elif block.kind == "h2":
            flowables.append(Paragraph(_escape(block.text), styles["Heading2"]))
        elif block.kind == "p":
            flowables += [Paragraph(_escape(block.text), styles["BodyText"]), Spacer(0, 4)]
        elif block.kind == "bullets":
            items = [ListItem(Paragraph(_escape(i), styles["BodyText"])) for i in block.items]
            flowables.append(ListFlowable(items, bulletType="bullet"))
        elif block.kind == "table":
            cells = [[Paragraph(_escape(c), styles["BodyText"]) for c in row] for row in block.items]
            table = Table(cells, repeatRows=1)
            table.setStyle(
                [
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef1f6")),
                ]
            )
            flowables += [table, Spacer(0, 8)]
        elif block.kind == "pagebreak":
            flowables.append(PageBreak())
    buffer = io.BytesIO()
    # invariant=True: no creation date or random document ID, so the bytes never change.
    SimpleDocTemplate(buffer, pagesize=A4, title=title, author="Kestrel Peak Software", invariant=True).build(flowables)
    return buffer.getvalue()


def _escape(text: str) -> str:
    """reportlab paragraphs read a little XML: escape the three characters it cares about."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- DOCX --------------------------------------------------------------------------


def render_docx(source: str, title: str) -> bytes:
    import docx
    from docx.enum.text import WD_BREAK

    document = docx.Document()
    document.core_properties.title = title
    document.core_properties.author = "Kestrel Peak Software"
    for block in parse_blocks(source):
        if block.kind == "h1":
            document.add_heading(block.text, level=0)
        elif block.kind == "h2":
            document.add_heading(block.text, level=1)
        elif block.kind == "p":
            document.add_paragraph(block.text)
        elif block.kind == "bullets":
            for item in block.items:
                document.add_paragraph(item, style="List Bullet")
        elif block.kind == "table":
            _add_table(document, block.items)
        elif block.kind == "pagebreak":
            document.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    buffer = io.BytesIO()
    document.save(buffer)
    return without_zip_timestamps(buffer.getvalue())


def _add_table(document, rows: list[list[str]]) -> None:
    table = document.add_table(rows=len(rows), cols=max(len(r) for r in rows))
    table.style = "Table Grid"
    for cells, row in zip(table.rows, rows):
        for cell, text in zip(cells.cells, row):
            cell.text = text
    for cell in table.rows[0].cells:
        for run in cell.paragraphs[0].runs:
            run.bold = True


def without_zip_timestamps(data: bytes) -> bytes:
    """The same archive with a fixed date on every entry (a DOCX or XLSX is a zip stamped with 'now')."""
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(zipfile.ZipInfo(info.filename, FIXED_ZIP_TIME), source.read(info), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
