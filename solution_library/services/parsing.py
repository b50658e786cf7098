"""Recognise what a file is from its bytes, and extract its text.

The type comes from the content (magic numbers for PDF/DOCX, a strict UTF-8
decode for text formats); the file name only breaks the tie between Markdown
and plain text. Everything refused raises `UnsupportedFile` with a message
meant for the person who uploaded the file.
"""

import io
import re
import zipfile
from contextlib import contextmanager

import filetype
import lxml.html
from bs4.dammit import EncodingDetector
from lxml import etree
from pypdf.errors import LimitReachedError

from core import file_limits
from core.file_limits import CHARACTERS, PARAGRAPHS, PDF_PAGES, FileLimitExceeded, refuse_over
from core.refusals import refusal
from text import headings

from ..models import DocumentType
from . import pdf_tables, pdf_text

MARKDOWN_EXTENSIONS = (".md", ".markdown", ".mdown")
HTML_START = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL)
HTML_TAGS = re.compile(r"<(p|div|h[1-6]|ul|table|article|section|a\s)[\s>]", re.IGNORECASE)
# HTML elements that sit inside a line of text (html_to_text joins their words to the sentence around them).
INLINE_TAGS = {
    *("a", "abbr", "acronym", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark"),
    *("q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "tt", "u", "var"),
}
HIDDEN_TAGS = {"script", "style", "noscript", "template", "nav", "header", "footer", "svg"}
# A documentation page's Prev / Up / Home / Next links, in the classes its generator gives them where it uses no
# <nav>: DocBook's stylesheets (PostgreSQL's manual: a table in "navheader") and Publican (the Debian Handbook).
NAVIGATION_CLASSES = {"navheader", "navfooter", "docnav"}
_HEADING_MARKS = {f"h{level}": "#" * level + " " for level in range(1, 7)}
MARKDOWN_HTML_TAG = re.compile(r"<!--.*?-->|</?[A-Za-z][\w-]*(?:\s[^<>]*)?>")
MARKDOWN_MARKERS = re.compile(r"^(#{1,6}\s|```|\s*[-*+]\s|\s*\d+\.\s|>\s)|\[[^\]]+\]\([^)]+\)", re.MULTILINE)
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
# Word's outline levels run 0 (a top heading) to 8; 9 is body text. Markdown marks six levels of heading.
WORD_BODY_LEVEL = 9
DOCX_HEADING_LEVELS = 6


UPLOADABLE = "Upload PDF, Word (.docx), Markdown, HTML or plain-text files."
DAMAGED_PDF = (
    "This PDF is damaged and cannot be read. Open it in a PDF reader, save (or print) it again as PDF and upload "
    "that copy."
)
DAMAGED_DOCX = (
    "This Word document is damaged and cannot be read. Open it in Word, save it again as .docx and upload that copy."
)


class UnsupportedFile(ValueError):
    """The file cannot enter the library; str(exc) says why, for the uploader."""


def detect_type(data: bytes, filename: str = "") -> str:
    """Return a DocumentType value for `data`, or raise UnsupportedFile."""
    if not data:
        raise UnsupportedFile("The file is empty.")
    kind = filetype.guess(data[:8192])
    if kind is not None:
        if kind.mime == "application/pdf":
            return DocumentType.PDF
        if kind.mime == DOCX_MIME or (kind.extension == "zip" and _is_docx_zip(data)):
            return DocumentType.DOCX
        if kind.extension == "zip" and filename.lower().endswith(".docx"):  # a Word package that does not open as one
            raise refusal(UnsupportedFile, DAMAGED_DOCX, mime=kind.mime, file_name=filename)
        raise refusal(
            UnsupportedFile,
            f"A .{kind.extension} file holds no document the library can read. {UPLOADABLE}",
            mime=kind.mime,
            file_name=filename,
        )
    text = _decode_text(data)
    if text is None:
        raise UnsupportedFile(f"This file is not a document the library can read. {UPLOADABLE}")
    if HTML_START.match(data[:2048]) or (filename.lower().endswith((".html", ".htm")) and HTML_TAGS.search(text)):
        return DocumentType.HTML
    if filename.lower().endswith(MARKDOWN_EXTENSIONS) or len(MARKDOWN_MARKERS.findall(text[:20000])) >= 3:
        return DocumentType.MARKDOWN
    return DocumentType.TEXT


def _is_docx_zip(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except zipfile.BadZipFile:
        return False


def _decode_text(data: bytes) -> str | None:
    """The text of a UTF-8 (or UTF-16 with BOM) file, or None when it is binary."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            return None
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Legacy single-byte text is still text when it has no control bytes.
        if re.search(rb"[\x00-\x08\x0e-\x1f]", data[:8192]):
            return None
        return data.decode("cp1252", errors="replace")


def check_readable(data: bytes, file_type: str) -> None:
    """Cheap checks made at upload time so a bad file is refused at once: what a package unpacks to, pages."""
    with _limits_as_unsupported():
        file_limits.check_archive(data)
        if file_type == DocumentType.PDF:
            reader = _open_pdf(data)
            try:
                page_count = len(reader.pages)
            except LimitReachedError:
                raise
            except Exception as exc:  # a damaged page tree: pypdf raises many kinds
                file_limits.reraise_memory_error(exc)
                raise refusal(UnsupportedFile, DAMAGED_PDF, exc) from exc
            if page_count == 0:
                raise UnsupportedFile("This PDF has no pages.")
            refuse_over(PDF_PAGES, page_count)
        elif file_type == DocumentType.DOCX:
            _open_docx(data)
        elif file_type == DocumentType.HTML:
            file_limits.check_html(data)


def extract_text(data: bytes, file_type: str) -> str:
    """The readable text of a file, paragraphs separated by blank lines, within the limits of core.file_limits."""
    extractors = {
        DocumentType.PDF: _pdf_text,
        DocumentType.DOCX: _docx_text,
        DocumentType.HTML: _html_text,
        DocumentType.MARKDOWN: _markdown_text,
        DocumentType.TEXT: _plain_text,
    }
    with _limits_as_unsupported():
        text = extractors[file_type](data)
        refuse_over(CHARACTERS, len(text))
        text = re.sub(r"[ \t\r\f\v]+\n", "\n", text)
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
        refuse_over(PARAGRAPHS, text.count("\n\n") + 1)
    if not text:
        raise UnsupportedFile("No text could be extracted from this file (a scanned PDF needs OCR first).")
    return text


@contextmanager
def _limits_as_unsupported():
    """A file over a limit is refused like any unreadable file, with the limit's own message."""
    try:
        with file_limits.pdf_reading_limits():  # pypdf reads lazily: the limits hold for the whole block
            yield
    except FileLimitExceeded as exc:
        raise UnsupportedFile(str(exc)) from exc
    except LimitReachedError as exc:
        raise UnsupportedFile(file_limits.pdf_limit_message(exc)) from exc


def _open_pdf(data: bytes):
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
    except (PdfReadError, ValueError, OSError) as exc:
        raise refusal(UnsupportedFile, DAMAGED_PDF, exc) from exc
    if reader.is_encrypted:
        raise UnsupportedFile("This PDF is encrypted (password-protected). Remove the protection and upload it again.")
    return reader


def _pdf_text(data: bytes) -> str:
    reader = _open_pdf(data)
    contents = [file_limits.check_pdf_page(page) for page in reader.pages]
    try:
        pages = pdf_text.read_pages(reader, _pdf_tables(data, contents))
    except LimitReachedError:
        raise  # refused with the limit's own message (_limits_as_unsupported)
    except Exception as exc:  # pypdf raises many kinds on damaged files
        file_limits.reraise_memory_error(exc)
        raise refusal(UnsupportedFile, DAMAGED_PDF, exc) from exc
    return pdf_text.pages_text(pages)


def _pdf_tables(data: bytes, contents: list[bytes]) -> dict[int, list[pdf_text.FoundTable]]:
    """The tables ruled on the PDF's pages, each with its rows read as a Word file's are (`table_rows_as_text`)."""
    return {
        number: [
            pdf_text.FoundTable([cell for row in table for cell in row], table_rows_as_text(table)) for table in tables
        ]
        for number, tables in pdf_tables.tables_by_page(data, contents).items()
    }


def _open_docx(data: bytes):
    import docx

    try:
        return docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError/ValueError/BadZipFile on damaged files
        file_limits.reraise_memory_error(exc)
        raise refusal(UnsupportedFile, DAMAGED_DOCX, exc) from exc


def _docx_text(data: bytes) -> str:
    """Paragraphs and tables in the order they are read, so a table stays under its section's heading."""
    from docx.table import Table  # python-docx is loaded when a Word file is read, as _open_docx does

    document = _open_docx(data)
    file_limits.check_word_body(document.element.body)
    parts = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            rows = table_rows_as_text([[cell.text for cell in row.cells] for row in block.rows])
            parts += [headings.as_body(row) for row in rows]
        else:
            parts.append(_docx_paragraph(block))
    return "\n\n".join(p for p in parts if p.strip())


def _docx_paragraph(paragraph) -> str:
    """A heading paragraph becomes a Markdown heading line, so chunks know their section."""
    level = _docx_heading_level(paragraph)
    if level and paragraph.text.strip():
        return "#" * min(level, DOCX_HEADING_LEVELS) + " " + paragraph.text.strip()
    return headings.as_body(paragraph.text)


def _docx_heading_level(paragraph) -> int | None:
    """The paragraph's outline level (1 for a top heading), as Word's navigation pane reads it, or None for body text.

    Word knows a heading by its outline level, set on the paragraph, on its style or on a style that one is based
    on: a policy template's own "Policy Heading" style, or a heading style named in another language, is a heading
    though none is called "Heading 1". A style called "Heading n" with no level set is one too.
    """
    from docx.oxml.ns import qn

    styles = []
    style = paragraph.style
    while style is not None:
        styles.append(style)
        style = style.base_style
    for properties in [paragraph._p.pPr, *(each.element.pPr for each in styles)]:
        outline = properties.find(qn("w:outlineLvl")) if properties is not None else None
        if outline is not None:
            level = outline.get(qn("w:val"), "")
            return int(level) + 1 if level.isdigit() and int(level) < WORD_BODY_LEVEL else None
    named = [re.fullmatch(r"Heading (\d)", each.name or "") for each in styles]
    return next((int(match.group(1)) for match in named if match), None)


def table_rows_as_text(rows: list[list[str]]) -> list[str]:
    """Each body row as a readable line, its cells labelled by the header row.

    "Control: Encryption at rest. Status: Yes." reads as a sentence and can be
    quoted in an answer; "Encryption at rest | Yes" cannot.
    """
    rows = [[" ".join(cell.split()) for cell in row] for row in rows if any(cell.strip() for cell in row)]
    if len(rows) < 2:
        return [" | ".join(c for c in row if c) for row in rows]
    header, lines = rows[0], []
    for row in rows[1:]:
        cells = [
            f"{label}: {_as_clause(value)}" if label and label != value else _as_clause(value)
            for label, value in zip(header, row)
            if value
        ]
        lines.append(" ".join(dict.fromkeys(cells)))  # merged cells repeat their text
    return lines


def _as_clause(text: str) -> str:
    return text if text[-1:] in ".!?:;" else text + "."


def _html_text(data: bytes) -> str:
    file_limits.check_html(data)
    return html_to_text(data)


def html_tree(data: bytes | str | lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The page parsed by lxml's HTML parser, XHTML included (an `<?xml …?>` line first is HTML to it, and read
    right). Bytes are read in the first encoding that decodes them of those the page's byte-order mark or
    declaration names, then UTF-8 and Windows-1252 (bs4's detector, which follows the browsers' order).
    A page already parsed is returned as it is: a caller that reads its links, text and title parses it once."""
    if isinstance(data, lxml.html.HtmlElement):
        return data
    if isinstance(data, str):
        data, encodings = data.encode("utf-8"), ["utf-8"]
    else:
        detector = EncodingDetector(data, is_html=True)
        data, encodings = detector.markup, [e for e in detector.encodings if not _declared_wide(e, detector)]
    for encoding in encodings:
        try:
            return lxml.html.document_fromstring(data, parser=lxml.html.HTMLParser(encoding=encoding))
        except (UnicodeDecodeError, LookupError):
            continue
        except etree.ParserError:  # "Document is empty": nothing but whitespace or comments
            break
    return lxml.html.document_fromstring(b"<html></html>")


def _declared_wide(encoding: str, detector: EncodingDetector) -> bool:
    """A UTF-16 or UTF-32 the page's declaration names, but no byte-order mark: the declaration was read as ASCII,
    so the page is not in it. Browsers then read it as UTF-8 (the HTML standard's prescan), and so does this."""
    wide = encoding.lower().replace("_", "-").startswith(("utf-16", "utf-32"))
    return wide and encoding == detector.declared_encoding and not detector.sniffed_encoding


def html_to_text(data: bytes | str | lxml.html.HtmlElement) -> str:
    """Visible text of an HTML page: each block element a paragraph, its links, code and emphasis in its line
    ("<a>LDAP authentication</a>, which relies on…" is one sentence), a list's items Markdown's `- ` items and
    its headings Markdown heading lines, which tell the chunker which section a passage is in.

    One walk over lxml's tree in reading order: an element's own text comes after it opens, its tail (the text
    after it, up to its next sibling) belongs to its parent. lxml's tree, not bs4's: building bs4's objects for a
    page of 49,000 links took two of the ten seconds a file may take to be answered.
    """
    root = html_tree(data)
    body = root.find("body")
    start = root if body is None else body
    page = _PageText()
    for event, node in etree.iterwalk(start, events=("start", "end", "comment")):
        if event == "start":
            page.enter(node)
            page.add(node.text, node)
        elif node is not start:  # the end of an element, or a comment (or a processing instruction): its tail
            page.add(node.tail, node.getparent())
    return page.text()


class _PageText:
    """The paragraphs of a page, gathered while walking its elements in reading order (html_to_text)."""

    def __init__(self):
        self.paragraphs: list[str] = []
        self.line: list[str] = []
        self.block = None  # the element whose paragraph `line` is
        self.prefix = ""  # what the next paragraph starts with: "- " in a list item, "## " in a heading
        self.prefixed = None  # the element that set `prefix`: only the blocks inside it take it
        self.context: dict[etree._Element, tuple] = {}  # element: (its block, hidden, preformatted)

    def enter(self, tag: etree._Element) -> None:
        block, hidden, pre = self.context.get(tag.getparent(), (None, False, False))
        hidden = hidden or tag.tag in HIDDEN_TAGS or _navigation(tag)
        if tag.tag not in INLINE_TAGS:
            if not hidden:
                self.flush()
                inherited = self.prefix if block is not None and block is self.prefixed else ""
                self.prefix = _HEADING_MARKS.get(tag.tag, "- " if tag.tag == "li" else inherited)
                self.prefixed = tag  # an item's <p> is the item; the <p> after an empty <li></li> is not
            block = tag
        self.context[tag] = (block, hidden, pre or tag.tag == "pre")

    def add(self, string: str | None, parent: etree._Element) -> None:
        """Text whose element is `parent` (an element's text, or its child's tail)."""
        block, hidden, pre = self.context.get(parent, (None, False, False))
        if not string or hidden:
            return
        if block is not self.block:
            self.flush()
            self.block = block
        self.line.append(string if pre else re.sub(r"\s+", " ", string))

    def flush(self) -> None:
        text, self.line = "".join(self.line).strip(), []
        if not text:
            return
        heading = self.prefix.startswith("#")
        self.paragraphs.append(self.prefix + (text if heading else headings.as_body(text)))
        self.prefix = ""

    def text(self) -> str:
        self.flush()
        return "\n\n".join(self.paragraphs)


def _navigation(tag: etree._Element) -> bool:
    return tag.get("role") == "navigation" or not NAVIGATION_CLASSES.isdisjoint((tag.get("class") or "").split())


def html_title(data: bytes | str | lxml.html.HtmlElement) -> str:
    """The page's <title>, or its first <h1>, as one line (a no-break space, as in "8.5.\u00a0Creating Accounts",
    kept)."""
    root = html_tree(data)
    heading = next((found for found in (root.find(".//title"), root.find(".//h1")) if found is not None), None)
    if heading is None:
        return ""
    return re.sub(r"[ \t\r\n]+", " ", " ".join(heading.itertext())).strip()[:300]


def _markdown_text(data: bytes) -> str:
    """The Markdown as written, but for the `#` lines of its fenced code blocks (shell prompts, comments), which are
    escaped: only the document's own headings read as headings; and without its HTML tags (`<a name="…"></a>`
    before a heading, `<div markdown="1">`), which are markup: the section "4.2.3 Reauthentication" is not
    `<a name="aal2reauth"></a>4.2.3 Reauthentication` on the pages, in citations or to search."""
    from markdown_it import MarkdownIt

    text = _plain_text(data)
    lines = text.split("\n")
    for token in MarkdownIt("commonmark").parse(text):
        if not token.map:
            continue
        first, end = token.map
        if token.type == "fence":
            closed = end - 1 > first and lines[end - 1].strip().startswith(token.markup)  # else it runs to the end
            inside = slice(first + 1, end - 1 if closed else end)
            lines[inside] = [headings.as_body(line) for line in lines[inside]]
        elif token.type == "html_block":
            lines[first:end] = [MARKDOWN_HTML_TAG.sub("", line) for line in lines[first:end]]
        elif token.type == "inline":
            for tag in {child.content for child in token.children or [] if child.type == "html_inline"}:
                lines[first:end] = [line.replace(tag, "") for line in lines[first:end]]
    return "\n".join(lines)


def _plain_text(data: bytes) -> str:
    text = _decode_text(data)
    if text is None:
        raise UnsupportedFile("This file is not readable text.")
    return text
