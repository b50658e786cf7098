"""The options of a cell's drop-down, wherever the workbook keeps them.

A list validation names its options in one of four ways: an inline list
("Yes,No,N/A"), a range ("$H$2:$H$5", "Lists!$A$1:$A$4"), a defined name
("AnswerA", scoped to one sheet or to the workbook) that points at a range, or
the Excel 2010 extension form (x14:dataValidation) that openpyxl drops when it
loads a workbook. All four are read from the package's own XML (sheets.py scans
both forms); the options are the cached values of the cells, what the client's
Excel shows. A list that cannot be read (INDIRECT, OFFSET, a #REF! name) is
said so, never guessed: export then leaves the cell empty and reports why.
"""

import io
import re
import zipfile

from lxml import etree

from core.file_limits import parse_xml

from . import sheets

RANGE = re.compile(
    r"^(?:(?P<sheet>'(?:[^']|'')+'|[^'!]+)!)?\$?(?P<c1>[A-Z]{1,3})\$?(?P<r1>\d+)"
    r"(?::\$?(?P<c2>[A-Z]{1,3})\$?(?P<r2>\d+))?$"
)
MAX_OPTIONS = 500


class UnreadableList(ValueError):
    """The cell has a drop-down whose options cannot be known (the message says why)."""


def _defined_names(data: bytes) -> tuple[dict[tuple[str, str], str], list[str]]:
    """{(name in lower case, sheet name or ""): formula}, and the sheet names in workbook order."""
    root = parse_xml(zipfile.ZipFile(io.BytesIO(data)).read("xl/workbook.xml"))
    names = [s.get("name") for s in root.iter(f"{sheets.MAIN_NS}sheet")]
    defined = {}
    for element in root.iter(f"{sheets.MAIN_NS}definedName"):
        local = element.get("localSheetId")
        scope = names[int(local)] if local is not None and int(local) < len(names) else ""
        defined[(element.get("name", "").lower(), scope)] = (element.text or "").strip()
    return defined, names


def _covers(sqref: str, row: int, column: int) -> bool:
    for part in sqref.split():
        ends = [sheets.CELL_REF.fullmatch(p.replace("$", "")) for p in part.split(":")]
        if not all(ends):
            continue
        rows = [int(e.group(2)) for e in ends]
        columns = [sheets.column_index(e.group(1)) for e in ends]
        if min(rows) <= row <= max(rows) and min(columns) <= column <= max(columns):
            return True
    return False


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


class Dropdowns:
    """The drop-downs of one workbook, read once (an export asks for hundreds of cells)."""

    def __init__(self, data: bytes):
        self.sheets = {sheet.name: sheet for sheet in sheets.read_workbook(data)}
        self.names, _ = _defined_names(data)

    def options(self, sheet_name: str, coordinate: str) -> list[str] | None:
        """The cell's options; None when it has no list validation; UnreadableList when they cannot be read."""
        sheet = self.sheets[sheet_name]
        ref = sheets.CELL_REF.fullmatch(coordinate)
        row, column = int(ref.group(2)), sheets.column_index(ref.group(1))
        for sqref, formula in sheet.list_validations:
            if _covers(sqref, row, column):
                return self._resolve(formula, sheet_name)
        return None

    def _resolve(self, formula: str, sheet_name: str, depth: int = 0) -> list[str]:
        formula = formula.strip().lstrip("=")
        if formula.startswith('"'):
            options = [o.strip() for o in formula.strip('"').split(",") if o.strip()]
        elif (named := self._name(formula, sheet_name)) is not None and depth < 3:
            return self._resolve(named, sheet_name, depth + 1)
        elif (match := RANGE.match(formula)) is not None:
            options = self._range(match, sheet_name)
        elif re.fullmatch(r"[A-Za-z_\\][\w.]*", formula):
            raise UnreadableList(f"its list names “{formula}”, which the workbook does not define")
        elif "#REF!" in formula:
            raise UnreadableList("its list points at cells that no longer exist (#REF!)")
        else:
            raise UnreadableList(
                f"its list is computed by a formula ({formula[:60]}) that cannot be read outside Excel"
            )
        if not options:
            raise UnreadableList(f"its list ({formula[:60]}) is empty")
        return options

    def _name(self, formula: str, sheet_name: str) -> str | None:
        key = formula.lower()
        return self.names.get((key, sheet_name), self.names.get((key, "")))

    def _range(self, match, sheet_name: str) -> list[str]:
        target = (match.group("sheet") or sheet_name).strip("'").replace("''", "'")
        if target not in self.sheets:
            raise UnreadableList(f"its list is on a sheet “{target}” the workbook does not have")
        sheet = self.sheets[target]
        first_column, first_row = sheets.column_index(match.group("c1")), int(match.group("r1"))
        last_column = sheets.column_index(match.group("c2") or match.group("c1"))
        last_row = min(int(match.group("r2") or first_row), first_row + MAX_OPTIONS)
        values = (
            sheet.value(r, c) for r in range(first_row, last_row + 1) for c in range(first_column, last_column + 1)
        )
        return [_text(v) for v in values if v is not None and _text(v)]


# --- keeping the x14 drop-downs in the copy ----------------------------------------------------------------

REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PACKAGE_REL_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def _sheet_paths(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name → its part in the package (names of parts differ between Excel's file and openpyxl's copy)."""
    workbook = parse_xml(archive.read("xl/workbook.xml"))
    rels = parse_xml(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target") for r in rels.iter(f"{PACKAGE_REL_NS}Relationship")}
    paths = {}
    for sheet in workbook.iter(f"{sheets.MAIN_NS}sheet"):
        target = targets.get(sheet.get(f"{REL_NS}id"), "")
        paths[sheet.get("name")] = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
    return paths


def keep_x14_validations(original: bytes, copy: bytes) -> bytes:
    """The copy with the original's x14 drop-downs put back: openpyxl drops them on load, and a client's
    Yes/No/N/A lists kept on another sheet are often of this form."""
    source = zipfile.ZipFile(io.BytesIO(original))
    extensions = {}
    for name, path in _sheet_paths(source).items():
        if path in source.namelist() and sheets.X14_VALIDATIONS_URI.encode() in source.read(path):
            root = parse_xml(source.read(path))
            extensions[name] = [
                e for e in root.iter(f"{sheets.MAIN_NS}ext") if e.get("uri") == sheets.X14_VALIDATIONS_URI
            ]
    if not extensions:
        return copy
    target = zipfile.ZipFile(io.BytesIO(copy))
    paths = {_sheet_paths(target).get(name): found for name, found in extensions.items()}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as result:
        for info in target.infolist():
            content = target.read(info.filename)
            if info.filename in paths:
                content = _with_extensions(content, paths[info.filename])
            result.writestr(info, content)
    return out.getvalue()


def _with_extensions(sheet_xml: bytes, extensions: list) -> bytes:
    root = parse_xml(sheet_xml)
    ext_list = root.find(f"{sheets.MAIN_NS}extLst")
    if ext_list is None:
        ext_list = etree.SubElement(root, f"{sheets.MAIN_NS}extLst")  # the last child of a worksheet, as required
    for extension in extensions:
        ext_list.append(extension)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
