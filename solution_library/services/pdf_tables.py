"""A PDF's ruled tables read as tables, row by row, as a Word or HTML document's are.

pypdf gives a table's cells one after the other, line by line ("Area", "Control",
"Encryption at rest", "AES-256 for every record…", "Key management", "Keys held in
a hardware security module," "rotated every 12 months", "Identity"…): the rows run
together into one paragraph, and a cell's second line reads as the next cell's.
pdfplumber finds a table by the lines ruled around its cells and reads each cell
whole. Only pages that draw lines are given to it (it lays out a page's every
character, several times slower than pypdf's text): a page of prose has no table to find.
"""

import io
import re

from core import file_limits

# Operators that draw a rectangle or a line segment in a page's content stream ("x y w h re", "x y l").
DRAWING = re.compile(rb"(?<![A-Za-z])(?:re|l)\s")
# A ruled table draws at least this many: the four sides of a one-cell box do not make a table.
MIN_DRAWINGS = 6

Table = list[list[str]]  # rows of cells, the header first


def tables_by_page(data: bytes, contents: list[bytes]) -> dict[int, list[Table]]:
    """{page index: the tables pdfplumber finds on it, each in reading order} for the pages that draw lines.

    `contents`: each page's content stream, as the caller inflated it under the file limits (`check_pdf_page`).
    pdfplumber parses the file again with pdfminer, its own reader; only the ruled pages are laid out.
    A page pdfplumber cannot read keeps pypdf's text: its tables are lost, never the document.
    """
    import pdfplumber

    ruled = [number for number, content in enumerate(contents) if _draws_lines(content)]
    if not ruled:
        return {}
    found: dict[int, list[Table]] = {}
    try:
        with pdfplumber.open(io.BytesIO(data), pages=[number + 1 for number in ruled]) as pdf:
            for page in pdf.pages:
                tables = [_cells(table) for table in page.extract_tables()]
                found[page.page_number - 1] = [table for table in tables if len(table) > 1]
    except Exception as exc:  # pdfminer raises many kinds on a page it cannot lay out
        file_limits.reraise_memory_error(exc)
        return found
    return found


def _draws_lines(content: bytes) -> bool:
    return len(DRAWING.findall(content)) >= MIN_DRAWINGS


def _cells(table: list[list[str | None]]) -> Table:
    """The table with empty cells as "" (pdfplumber gives None for a merged cell's covered part)."""
    return [[cell or "" for cell in row] for row in table if any(cell and cell.strip() for cell in row)]
