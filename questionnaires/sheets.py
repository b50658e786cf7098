"""Read a questionnaire file into plain sheets: cell values, which cells are formulas, dropdowns.

The workbook reader is a bounded scan of each sheet's XML: it sees only the
cells that hold a value, so a sheet whose recorded range (or formatting) runs
down to row 1,048,576 costs what its content costs, not a million empty rows.
It reads the cached value of a formula cell (what the client saw) and still
knows the cell was a formula, which one pass of openpyxl's own reader cannot
give (it returns either the value or the formula).
"""

import csv
import io
import re
import zipfile
from dataclasses import dataclass, field

from lxml import etree

from core.file_limits import CELLS, ROWS, Tally, reraise_memory_error
from core.refusals import refusal

MAX_QUESTIONNAIRE_BYTES = 20 * 1024 * 1024
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ENCRYPTED, LEGACY = "encrypted", "legacy"  # what an OLE container is (ole_container)
MAIN_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
X14_NS = "{http://schemas.microsoft.com/office/spreadsheetml/2009/9/main}"
XM_NS = "{http://schemas.microsoft.com/office/excel/2006/main}"
CELL_REF = re.compile(r"([A-Z]+)(\d+)")


class SheetReadError(ValueError):
    """The file cannot be read as a questionnaire (the message is for the user)."""


@dataclass
class Sheet:
    """One sheet (or a CSV file) as the analysis needs it."""

    name: str
    state: str = "visible"  # visible | hidden | veryHidden
    cells: dict[int, dict[int, object]] = field(default_factory=dict)  # row → column → value (1-based)
    formulas: set[tuple[int, int]] = field(default_factory=set)
    hidden_columns: set[int] = field(default_factory=set)
    list_validations: list[tuple[str, str]] = field(default_factory=list)  # (sqref, formula1) of dropdowns
    # A Word table: the heading above it (its rows' section) and its rows that are one cell across (section rows).
    heading: str = ""
    heading_rows: set[int] = field(default_factory=set)

    @property
    def max_row(self) -> int:
        """The last row with content (not the recorded dimension, which may say 1,048,576)."""
        return max(self.cells, default=0)

    @property
    def max_column(self) -> int:
        return max((max(row) for row in self.cells.values() if row), default=0)

    def value(self, row: int, column: int):
        return self.cells.get(row, {}).get(column)

    def dropdown_columns(self, first_row: int) -> set[int]:
        """Columns with a list validation (a dropdown) on rows below `first_row`."""
        columns = set()
        for sqref, _ in self.list_validations:
            for part in sqref.split():
                refs = [CELL_REF.fullmatch(p) for p in part.split(":")]
                if not all(refs):
                    continue
                last_row = int(refs[-1].group(2))
                if last_row > first_row:
                    start, end = column_index(refs[0].group(1)), column_index(refs[-1].group(1))
                    columns.update(range(start, end + 1))
        return columns


def column_index(letters: str) -> int:
    index = 0
    for char in letters:
        index = index * 26 + ord(char) - 64
    return index


def column_letter(index: int) -> str:
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


# --- what kind of file is this -----------------------------------------------------


def ole_container(data: bytes) -> str:
    """ENCRYPTED for a password-protected Office file, LEGACY for a 97–2003 one (.xls, .doc), "" for neither.

    Both are OLE containers; only a password-protected one holds an EncryptedPackage stream.
    """
    if not data.startswith(OLE_MAGIC):
        return ""
    return ENCRYPTED if "EncryptedPackage".encode("utf-16-le") in data else LEGACY


def check_questionnaire_bytes(data: bytes, name: str) -> None:
    """Refuse, with a message a user can act on, the files that are not a readable questionnaire."""
    if len(data) > MAX_QUESTIONNAIRE_BYTES:
        raise SheetReadError(
            f"The file is {len(data) / 1024 / 1024:.0f} MB; questionnaires up to "
            f"{MAX_QUESTIONNAIRE_BYTES // (1024 * 1024)} MB can be imported. Remove images or unused sheets, or split it."
        )
    container = ole_container(data)
    if container == ENCRYPTED:
        raise SheetReadError(
            "The workbook is password-protected (encrypted). Open it in Excel, remove the password "
            "(File › Info › Protect Workbook) and upload it again."
        )
    if container == LEGACY:
        raise SheetReadError(
            "This is a legacy Excel 97–2003 (.xls) file. Open it in Excel and save it as .xlsx, then upload that."
        )
    if name.lower().endswith(".xls"):
        raise SheetReadError(
            "Legacy .xls files cannot be read. Open it in Excel and save it as .xlsx, then upload that."
        )
    if name.lower().endswith(".xlsm") or _has_macros(data):
        raise SheetReadError(
            "The workbook is macro-enabled (.xlsm): its macros would be sent back to the client untested. Open it in "
            "Excel, save a copy as “Excel Workbook (.xlsx)” (File › Save As) and upload that copy."
        )


def _has_macros(data: bytes) -> bool:
    """A VBA project inside the package, whatever the file is called."""
    try:
        return "xl/vbaProject.bin" in zipfile.ZipFile(io.BytesIO(data)).namelist()
    except zipfile.BadZipFile:
        return False


# --- workbooks ------------------------------------------------------------------------


def read_workbook(data: bytes) -> list[Sheet]:
    """Every sheet of an XLSX workbook, in workbook order, hidden ones included (marked).

    The package's limits are checked before (core.file_limits.check_archive); its rows and filled cells are
    counted as the scan goes, so a sheet of two million rows is refused at the limit, not read whole."""
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a non-workbook
        reraise_memory_error(exc)
        raise refusal(
            SheetReadError,
            "The file is damaged or is not an Excel workbook. Open it in Excel; if it opens, save it again as .xlsx "
            "and upload that, else ask the client for a new copy.",
            exc,
        ) from exc
    try:
        archive = workbook._archive
        sheets, tally = [], Tally()
        for worksheet in workbook.worksheets:
            sheet = Sheet(name=worksheet.title, state=worksheet.sheet_state or "visible")
            try:
                _scan_sheet_xml(archive.open(worksheet._worksheet_path), worksheet._shared_strings, sheet, tally)
            except (etree.XMLSyntaxError, KeyError, ValueError, zipfile.BadZipFile, EOFError) as exc:
                reraise_memory_error(exc)
                raise refusal(
                    SheetReadError,
                    f"Sheet “{worksheet.title}” of the workbook is damaged and cannot be read. Open the workbook in "
                    "Excel, save it again as .xlsx and upload that.",
                    exc,
                ) from exc
            sheets.append(sheet)
        return sheets
    finally:
        workbook.close()


def _scan_sheet_xml(source, strings, sheet: Sheet, tally: Tally) -> None:
    """Fill `sheet` from its XML, keeping only cells with a value; elements are freed as we go.

    No entities are resolved, nothing is fetched from the network, and libxml2's own limits on a tree's
    depth and a text node's size stay on (no huge_tree): a sheet needs none of them."""
    for _, element in etree.iterparse(source, events=("end",), resolve_entities=False, no_network=True):
        tag = element.tag
        if tag == f"{MAIN_NS}c":
            if _read_cell(element, strings, sheet):
                tally.add(CELLS)
            element.clear()
        elif tag == f"{MAIN_NS}row":
            tally.add(ROWS)
            element.clear()
            # Drop the cleared rows the root still holds, or memory grows with the recorded range.
            while element.getprevious() is not None:
                del element.getparent()[0]
        elif tag == f"{MAIN_NS}col" and element.get("hidden") in ("1", "true"):
            sheet.hidden_columns.update(range(int(element.get("min")), int(element.get("max")) + 1))
        elif tag == f"{MAIN_NS}dataValidation" and element.get("type") == "list":
            sheet.list_validations.append((element.get("sqref", ""), element.findtext(f"{MAIN_NS}formula1") or ""))
        elif tag == f"{X14_NS}dataValidation" and element.get("type") == "list":
            # Excel 2010 stores a dropdown whose list is on another sheet in an extension.
            formula = element.findtext(f"{X14_NS}formula1/{XM_NS}f") or ""
            sheet.list_validations.append((element.findtext(f"{XM_NS}sqref") or "", formula))


def _read_cell(element, strings, sheet: Sheet) -> bool:
    """Keep the cell's value; False when it has none (formatted but empty: layout, not content)."""
    ref = CELL_REF.match(element.get("r", ""))
    if ref is None:
        return False
    value = _cell_value(element, strings)
    if value is None or value == "":
        return False
    row, column = int(ref.group(2)), column_index(ref.group(1))
    sheet.cells.setdefault(row, {})[column] = value
    if element.find(f"{MAIN_NS}f") is not None:
        sheet.formulas.add((row, column))
    return True


def _cell_value(element, strings):
    kind = element.get("t", "n")
    if kind == "inlineStr":
        return "".join(element.itertext())
    raw = element.findtext(f"{MAIN_NS}v")
    if not raw:
        return None  # a formula never calculated (files written by libraries, not Excel) has no cached value
    if kind == "s":
        return str(strings[int(raw)])
    if kind in ("str", "e"):
        return raw if kind == "str" else None
    if kind == "b":
        return raw == "1"
    number = float(raw)
    return int(number) if number.is_integer() else number


# --- CSV -------------------------------------------------------------------------------


def _decode(data: bytes) -> str:
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding).replace("\x00", "")  # PostgreSQL stores no NUL in text or jsonb
        except UnicodeDecodeError:
            continue
    raise SheetReadError("The CSV is neither UTF-8 nor Windows-1252 text.")


def csv_rows(data: bytes) -> tuple[list[list[str]], str]:
    """The CSV's rows and its delimiter (the export writes answers back with the same one)."""
    text = _decode(data)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows, tally = [], Tally()
    try:
        # Only the delimiter is sniffed: the sniffer also guesses doublequote=False, which cuts "" inside fields.
        for row in csv.reader(io.StringIO(text), delimiter=dialect.delimiter):
            tally.add(ROWS)
            tally.add(CELLS, sum(1 for value in row if value.strip()))
            rows.append(row)
        return rows, dialect.delimiter
    except csv.Error as exc:  # e.g. a field larger than the csv module's limit (a single line of 100 MB)
        raise refusal(
            SheetReadError,
            "The CSV cannot be read: one of its fields is far too long, or the file is not a CSV. Open it in a "
            "spreadsheet, save it as .xlsx and upload that.",
            exc,
        ) from exc


def read_csv(data: bytes) -> list[Sheet]:
    """A CSV is one sheet without a name."""
    rows, _ = csv_rows(data)
    sheet = Sheet(name="")
    for row_number, row in enumerate(rows, start=1):
        values = {column: value for column, value in enumerate(row, start=1) if value.strip()}
        if values:
            sheet.cells[row_number] = values
    if not sheet.cells:
        raise SheetReadError("The CSV is empty.")
    return [sheet]


# --- what a save with openpyxl would lose -------------------------------------------------

# Parts of the package openpyxl does not write back, by the folder or name they live under.
LOST_PARTS = (
    ("xl/slicers/", "slicers"),
    ("xl/timelines/", "timelines"),
    ("xl/ctrlProps/", "form controls (checkboxes, buttons)"),
    ("xl/activeX/", "ActiveX controls"),
    ("xl/threadedComments/", "threaded comments (kept only as plain notes)"),
    ("xl/charts/style", "chart styles and colours (the charts themselves are kept)"),
    ("xl/printerSettings/", "printer settings"),
    ("xl/metadata.xml", "dynamic-array formula metadata (spilled formulas may show as @ formulas)"),
    ("customXml/", "custom XML data"),
)
# Excel 2010+ extensions inside a sheet, by their registered extension URI. (Its drop-downs, x14 data
# validations, are not lost: the export puts them back, dropdowns.keep_x14_validations.)
LOST_EXTENSIONS = {
    "{78C0D931-6437-407d-A8EE-F0AAD7539E65}": "Excel 2010 conditional formatting (data bars, icon sets)",
    "{05C60535-1F16-4fd2-B633-F4F36F0B64E0}": "sparklines",
    "{A8765BA9-456A-4dab-B4F3-ACF838C121DE}": "slicers",
}
X14_VALIDATIONS_URI = "{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}"
EXTENSION_URI = re.compile(rb'<(?:\w+:)?ext\b[^>]*\buri="(\{[^"]+\})"')
SHAPE = re.compile(rb"<(?:\w+:)?sp\b")


def features_lost_on_save(data: bytes) -> list[str]:
    """What the client's file has that a copy written by openpyxl will not (told before the download)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return []
    names = archive.namelist()
    lost = [label for prefix, label in LOST_PARTS if any(n.startswith(prefix) for n in names)]
    drawings = [n for n in names if n.startswith("xl/drawings/drawing") and n.endswith(".xml")]
    if any(SHAPE.search(archive.read(n)) for n in drawings):
        lost.append("shapes and text boxes")
    uris = set()
    for name in names:
        if name.startswith("xl/worksheets/sheet") and name.endswith(".xml"):
            uris.update(u.decode() for u in EXTENSION_URI.findall(archive.read(name)))
    uris.discard(X14_VALIDATIONS_URI)
    lost += sorted({LOST_EXTENSIONS.get(uri, f"an Excel extension ({uri})") for uri in uris})
    return lost
