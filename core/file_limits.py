"""What an uploaded file may become when it is read, checked before it is read (a file is hostile until measured).

A file small on disk can unpack to gigabytes: a Word document whose XML is two
million paragraphs, a workbook of two million rows, a PDF stream that inflates
to a gigabyte, XML entities that expand without end. Every reader of uploads
(the library, the questionnaire import) asks here first, from what the file
declares, so such a file is refused in milliseconds instead of costing a worker
minutes and gigabytes:

- `check_archive`: a ZIP package (DOCX, XLSX) — its members' count, the sum of
  their declared uncompressed sizes and that sum's ratio to the file's size
  (Python's zipfile never inflates a member beyond its declared size, so the
  declaration is what reading can cost), no DTD in its XML parts (OOXML has none;
  a DTD is where entity bombs live), and a workbook's number of cell formats;
- `pdf_reading_limits`: pypdf's own limits (inflated bytes per stream, decoding
  work, page tree, arrays) set explicitly around a read; `check_pdf_page` inflates
  a page's content under them before its text is extracted;
- `check_html`: an HTML page's number of elements;
- `parse_xml`: lxml's parser with entities, DTDs, the network and huge trees off, for
  the XML parts we parse ourselves (openpyxl uses defusedxml, python-docx `resolve_entities=False`);
- `refuse_over(CHARACTERS | PARAGRAPHS | ROWS | CELLS, count)` and `Tally`: what is
  extracted, counted as it is read, so a reader stops at the limit instead of after the whole file.

Every limit is a setting (`FILE_LIMIT_*`, sized in settings.py from the largest
real files with a wide margin); a refusal is `FileLimitExceeded`, whose message
names the limit, the file's figure, and what to do.
"""

import io
import re
import zipfile
import zlib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from lxml import etree

MB = 1024 * 1024
XML_HEAD_BYTES = 4096  # a DTD comes before the first element, which any sane part reaches within a few hundred bytes
# What may stand before an XML part's root element: a byte-order mark, the declaration, comments, processing
# instructions. Not a DTD (<!DOCTYPE …>, where entities are declared), and not a prolog longer than the head.
CONTENT_FIRST = re.compile(rb"^(?:\xef\xbb\xbf)?(?:\s+|<\?.*?\?>|<!--.*?-->)*<[A-Za-z_]", re.DOTALL)
CELL_FORMAT = re.compile(rb"<(?:\w+:)?xf[\s/>]")
WORKBOOK_STYLES = "xl/styles.xml"
XML_ERR_NO_MEMORY = 2  # libxml2's error code for a failed allocation
SPLIT_ADVICE = "Split it into smaller files, or remove what it does not need (images, unused sheets), and upload those."


@dataclass(frozen=True)
class Limit:
    """One kind of limit: what it counts, its setting, and what to do when a file is over it."""

    what: str  # "unpacks to {figure} MB"
    setting: str
    advice: str = SPLIT_ADVICE
    unit_mb: bool = False

    @property
    def allowed(self) -> int:
        return getattr(settings, self.setting)


MEMBERS = Limit("holds {figure:,} files inside its package", "FILE_LIMIT_ARCHIVE_MEMBERS")
UNCOMPRESSED = Limit("unpacks to {figure:,.1f} MB", "FILE_LIMIT_UNCOMPRESSED_MB", unit_mb=True)
RATIO = Limit(
    "unpacks to {figure:,.0f} times its size",
    "FILE_LIMIT_COMPRESSION_RATIO",
    "A real document compresses far less: this one is most likely built to exhaust the server. If it is genuine, "
    "open it in Word or Excel, save it again and upload that copy.",
)
CELL_FORMATS = Limit(
    "defines {figure:,} cell formats",
    "FILE_LIMIT_CELL_FORMATS",
    "Excel itself allows 64,000. Open it in Excel, copy the sheets with the questions into a new workbook "
    "(Paste Special › Values) and upload that.",
)
PDF_PAGES = Limit("has {figure:,} pages", "FILE_LIMIT_PDF_PAGES")
CHARACTERS = Limit("holds at least {figure:,} characters of text", "FILE_LIMIT_CHARACTERS")
PARAGRAPHS = Limit("holds at least {figure:,} paragraphs", "FILE_LIMIT_PARAGRAPHS")
ROWS = Limit("holds at least {figure:,} rows", "FILE_LIMIT_ROWS")
CELLS = Limit("holds at least {figure:,} filled cells", "FILE_LIMIT_CELLS")
HTML_ELEMENTS = Limit(
    "holds {figure:,} HTML elements",
    "FILE_LIMIT_HTML_ELEMENTS",
    "Save the page's text (or print it to PDF) and upload that, or split it into smaller pages.",
)
HTML_TAG = re.compile(rb"<[A-Za-z]")


class FileLimitExceeded(Exception):
    """A file over one of the limits; str() says which, the figure, the limit and what to do.

    Not a ValueError: the readers turn their parsers' ValueErrors into "the file is damaged", which this is not."""


# While `observed_figures` runs: the largest figure compared with each limit, by setting.
_OBSERVED: ContextVar[dict[str, float] | None] = ContextVar("file_limit_figures", default=None)


@contextmanager
def observed_figures():
    """The largest figure each limit is compared with while the block runs, by setting: what real files come to
    (bench/file_limits.py sizes the defaults with it). The limits still apply."""
    figures: dict[str, float] = {}
    token = _OBSERVED.set(figures)
    try:
        yield figures
    finally:
        _OBSERVED.reset(token)


def refuse_over(limit: Limit, figure: float) -> None:
    """Refuse when `figure` passes the limit (readers counting as they go call it at each step)."""
    observed = _OBSERVED.get()
    if observed is not None:
        observed[limit.setting] = max(observed.get(limit.setting, 0), figure)
    if figure > limit.allowed:
        allowed = f"{limit.allowed:,} MB" if limit.unit_mb else f"{limit.allowed:,}"
        raise FileLimitExceeded(
            f"Refused: the file {limit.what.format(figure=figure)}, over the limit of {allowed} "
            f"(SPELUNKER_{limit.setting}). {limit.advice}"
        )


class Tally:
    """What a reader has extracted so far, per kind; refuses as soon as a count passes its limit."""

    def __init__(self):
        self.counts: dict[str, int] = {}

    def add(self, limit: Limit, count: int = 1) -> None:
        total = self.counts[limit.setting] = self.counts.get(limit.setting, 0) + count
        refuse_over(limit, total)


def parse_xml(data: bytes):
    """An XML part of an upload, parsed by lxml with nothing expanded, loaded or fetched: no entities resolved (a
    billion laughs stays a reference), no external DTD, no network, and libxml2's own size and depth limits kept
    (no huge_tree). A new parser each time: an lxml parser is not shared between threads."""
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True, huge_tree=False)
    return etree.fromstring(data, parser)


def reraise_memory_error(exc: BaseException) -> None:
    """Called first in a reader's catch-all: running out of a worker's memory budget (spelunker/celery.py) is not
    "the file is damaged". libxml2 reports a failed allocation as a syntax error of code XML_ERR_NO_MEMORY."""
    if isinstance(exc, MemoryError) or (
        isinstance(exc, etree.LxmlError) and getattr(exc, "code", None) == XML_ERR_NO_MEMORY
    ):
        raise MemoryError(f"out of memory while reading the file ({exc})") from exc


# --- ZIP packages (DOCX, XLSX) ---------------------------------------------------------------------


def check_archive(data: bytes) -> None:
    """Refuse a ZIP package over the limits, from its central directory alone; not a ZIP: nothing to check."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return  # not a package: the reader that expects one says so in its own words
    with archive:
        members = archive.infolist()
        refuse_over(MEMBERS, len(members))
        unpacked = sum(member.file_size for member in members)
        refuse_over(UNCOMPRESSED, unpacked / MB)
        refuse_over(RATIO, unpacked / max(len(data), 1))
        _refuse_dtds(archive, members)
        _check_cell_formats(archive)


# A damaged member (bad deflate data or CRC, an unknown method, a password): not ours to report, the reader
# that opens the package says the file is damaged, in its own words.
DAMAGED_MEMBER = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError, OSError)


def _refuse_dtds(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo]) -> None:
    for member in members:
        if member.filename.endswith((".xml", ".rels")):
            try:
                with archive.open(member) as part:
                    head = part.read(XML_HEAD_BYTES)
            except DAMAGED_MEMBER:
                continue
            if head.startswith((b"\xff\xfe", b"\xfe\xff")):
                head = head.decode("utf-16", errors="ignore").encode()
            if head and not CONTENT_FIRST.match(head):
                raise FileLimitExceeded(
                    f"Refused: the file's part {member.filename} declares XML entities (a DTD) or hides what it "
                    "holds behind a long preamble. Word and Excel write neither, and entities are how an XML bomb "
                    "expands. Open the file in Word or Excel, save it again and upload that copy."
                )


def _check_cell_formats(archive: zipfile.ZipFile) -> None:
    """A workbook's formats are read whole into objects before any cell: count them first (the sum is bounded)."""
    if WORKBOOK_STYLES in archive.namelist():
        try:
            styles = archive.read(WORKBOOK_STYLES)
        except DAMAGED_MEMBER:
            return
        refuse_over(CELL_FORMATS, len(CELL_FORMAT.findall(styles)))


# --- Word bodies ------------------------------------------------------------------------------------

WORD_NS = {"w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main"}
WORD_COUNTS = {
    PARAGRAPHS: etree.XPath("count(.//w:p)", namespaces=WORD_NS),
    ROWS: etree.XPath("count(.//w:tr)", namespaces=WORD_NS),
    CELLS: etree.XPath("count(.//w:tc)", namespaces=WORD_NS),
}


def check_word_body(body) -> None:
    """A DOCX body's paragraphs, table rows and cells, counted by libxml2 before Python reads any of them."""
    for limit, count in WORD_COUNTS.items():
        refuse_over(limit, int(count(body)))


# --- HTML -----------------------------------------------------------------------------------------------


def check_html(data: bytes | str) -> None:
    """An HTML page's elements, counted by their start tags before a parser builds a Python object for each (about
    0.1 ms apiece: a page of 100,000 nested elements cost 10 s of a worker)."""
    refuse_over(HTML_ELEMENTS, len(HTML_TAG.findall(data.encode() if isinstance(data, str) else data)))


# --- PDF ----------------------------------------------------------------------------------------------


@contextmanager
def pdf_reading_limits():
    """pypdf's own limits, set from ours for everything read inside the block (pypdf reads lazily)."""
    from pypdf import apply_configuration

    stream_bytes = settings.FILE_LIMIT_PDF_STREAM_MB * MB
    with apply_configuration(
        maximum_declared_stream_length=stream_bytes,
        zlib_maximum_output_length=stream_bytes,
        lzw_maximum_output_length=stream_bytes,
        run_length_maximum_output_length=stream_bytes,
        brotli_maximum_output_length=stream_bytes,
        jbig2_maximum_output_length=stream_bytes,
        array_based_stream_maximum_output_length=stream_bytes,
        image_maximum_buffer_size=stream_bytes,
        stream_decoding_work_maximum_length=2 * stream_bytes,
        array_maximum_element_count=settings.FILE_LIMIT_PDF_OBJECTS,
        dictionary_maximum_element_count=settings.FILE_LIMIT_PDF_OBJECTS,
        page_tree_maximum_entries=settings.FILE_LIMIT_PDF_PAGES,
        form_fields_maximum_entries=settings.FILE_LIMIT_PDF_OBJECTS,
    ) as configuration:
        yield configuration


def check_pdf_page(page) -> bytes:
    """The page's content, inflated under the limits first: pypdf's text extraction swallows its own
    LimitReachedError and returns an empty page, which would tell the user "no text" instead of which limit the
    file passed."""
    from pypdf.errors import LimitReachedError

    try:
        contents = page.get_contents()
        return b"" if contents is None else contents.get_data()
    except LimitReachedError as exc:
        raise FileLimitExceeded(pdf_limit_message(exc)) from exc


def pdf_limit_message(exc: Exception) -> str:
    """What to tell about pypdf's LimitReachedError, raised inside `pdf_reading_limits`."""
    return (
        f"Refused while reading: a part of the PDF is over a limit ({exc}; SPELUNKER_FILE_LIMIT_PDF_STREAM_MB is "
        f"{settings.FILE_LIMIT_PDF_STREAM_MB} MB per stream, SPELUNKER_FILE_LIMIT_PDF_OBJECTS "
        f"{settings.FILE_LIMIT_PDF_OBJECTS:,} "
        "entries). Print it to a new PDF (or export it again from its source) and upload that."
    )
