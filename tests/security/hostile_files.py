"""Hostile files, generated small and cheap: each is tiny on disk (or made as a stream) and explodes when read.

Nothing large is committed: every builder writes its bytes here, compressing as it goes, so a
300 MB XML part or a gigabyte PDF stream costs the test a second of zlib, not the memory.
"""

import io
import zipfile
import zlib

CHUNK = 1024 * 1024
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
S_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
XLSX_MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
XLSX_SHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
XLSX_STYLES = "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"
OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">' for n in range(1, 10))
    + "]>\n"
)


def _write_streamed(archive: zipfile.ZipFile, name: str, head: str, repeated, count: int, tail: str) -> None:
    """A member made of head, `repeated(i)` for i < count, tail, written through the compressor in chunks."""
    with archive.open(_deflated(name), "w", force_zip64=True) as part:
        part.write(head.encode())
        buffer = []
        for index in range(count):
            buffer.append(repeated(index))
            if len(buffer) == 10_000:
                part.write("".join(buffer).encode())
                buffer = []
        part.write(("".join(buffer) + tail).encode())


def _deflated(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED  # a ZipInfo is stored uncompressed unless told
    return info


def _package(parts: dict[str, str], content_types: dict[str, str], main: str) -> tuple[zipfile.ZipFile, io.BytesIO]:
    """An open OOXML package with its content types, relationships and `parts`; close it, then read the buffer."""
    buffer = io.BytesIO()
    archive = zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1)  # fast: the files are big
    overrides = "".join(f'<Override PartName="/{name}" ContentType="{kind}"/>' for name, kind in content_types.items())
    archive.writestr(
        "[Content_Types].xml",
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        f'<Default Extension="xml" ContentType="application/xml"/>{overrides}</Types>',
    )
    archive.writestr(
        "_rels/.rels",
        f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PACKAGE_RELS}">'
        f'<Relationship Id="rId1" Type="{OFFICE_DOCUMENT}" Target="{main}"/></Relationships>',
    )
    for name, text in parts.items():
        archive.writestr(name, text)
    return archive, buffer


def _bytes(archive: zipfile.ZipFile, buffer: io.BytesIO) -> bytes:
    archive.close()
    return buffer.getvalue()


# --- Word ---------------------------------------------------------------------------------------------

DOCX_HEAD = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W_NS}"><w:body>'
DOCX_TAIL = "</w:body></w:document>"


def _docx(paragraphs, count: int, extra: dict[str, bytes] | None = None, head: str = DOCX_HEAD) -> bytes:
    archive, buffer = _package({}, {"word/document.xml": DOCX_MAIN}, "word/document.xml")
    _write_streamed(archive, "word/document.xml", head, paragraphs, count, DOCX_TAIL)
    for name, data in (extra or {}).items():
        archive.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_STORED)
    return _bytes(archive, buffer)


def docx_of_paragraphs(count: int) -> bytes:
    """A Word document of `count` short numbered questions (two million: ~0.5 MB that unzips to ~100 MB)."""
    return _docx(lambda i: f"<w:p><w:r><w:t>{i % 10}. Do you?</w:t></w:r></w:p>", count)


# What Word writes around each paragraph's text: its style and its run's font and size.
WORD_FORMATTING = (
    '<w:pPr><w:pStyle w:val="ListParagraph"/><w:spacing w:after="0"/></w:pPr>'
    '<w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr>'
)


def docx_of_formatted_paragraphs(count: int) -> bytes:
    """A Word document of `count` short questions formatted as Word formats them (two million: ~300 MB of XML)."""
    return _docx(lambda i: f"<w:p>{WORD_FORMATTING}<w:t>{i % 10}. Do you?</w:t></w:r></w:p>", count)


def docx_with_entities() -> bytes:
    """A Word document whose XML declares a billion laughs and uses it."""
    head = BILLION_LAUGHS.replace("lolz", "w:document") + DOCX_HEAD.split("?>", 1)[1]
    return _docx(lambda i: "<w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>", 1, head=head)


def docx_with_image(megabytes: int) -> bytes:
    """A small Word document holding an image of `megabytes` (zeros: it deflates to almost nothing)."""
    archive, buffer = _package({}, {"word/document.xml": DOCX_MAIN}, "word/document.xml")
    archive.writestr("word/document.xml", DOCX_HEAD + "<w:p><w:r><w:t>1. Do you?</w:t></w:r></w:p>" + DOCX_TAIL)
    with archive.open(_deflated("word/media/image1.bmp"), "w", force_zip64=True) as image:
        image.write(b"BM")
        zeros = bytes(CHUNK)
        for _ in range(megabytes):
            image.write(zeros)
    return _bytes(archive, buffer)


def zip_bomb(megabytes: int) -> bytes:
    """A ZIP of one member of `megabytes` of zeros (about 1 MB per GB)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open(_deflated("zeros.bin"), "w", force_zip64=True) as member:
            zeros = bytes(CHUNK)
            for _ in range(megabytes):
                member.write(zeros)
    return buffer.getvalue()


def docx_with_nested_bomb() -> bytes:
    """A plain Word document carrying a ZIP bomb as an embedded object: nothing may open the inner archive."""
    return _docx(
        lambda i: f"<w:p><w:r><w:t>{i + 1}. Are backups encrypted at rest?</w:t></w:r></w:p><w:p/>",
        3,
        extra={"word/embeddings/oleObject1.zip": zip_bomb(128)},
    )


# --- Excel --------------------------------------------------------------------------------------------


def _workbook(sheet_rows, count: int, styles: tuple | None = None, head_extra: str = "") -> bytes:
    content_types = {"xl/workbook.xml": XLSX_MAIN, "xl/worksheets/sheet1.xml": XLSX_SHEET}
    relationships = f'<Relationship Id="rId1" Type="{R_NS}/worksheet" Target="worksheets/sheet1.xml"/>'
    if styles:
        content_types["xl/styles.xml"] = XLSX_STYLES
        relationships += f'<Relationship Id="rId2" Type="{R_NS}/styles" Target="styles.xml"/>'
    archive, buffer = _package(
        {
            "xl/workbook.xml": f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{S_NS}" xmlns:r="{R_NS}">'
            '<sheets><sheet name="Questions" sheetId="1" r:id="rId1"/></sheets></workbook>',
            "xl/_rels/workbook.xml.rels": f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PACKAGE_RELS}">'
            f"{relationships}</Relationships>",
        },
        content_types,
        "xl/workbook.xml",
    )
    head = head_extra or '<?xml version="1.0" encoding="UTF-8"?>'
    _write_streamed(
        archive,
        "xl/worksheets/sheet1.xml",
        f'{head}<worksheet xmlns="{S_NS}"><sheetData>',
        sheet_rows,
        count,
        "</sheetData></worksheet>",
    )
    if styles:
        formats, repeated = styles
        _write_streamed(
            archive,
            "xl/styles.xml",
            f'<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="{S_NS}"><cellXfs count="{formats}">',
            repeated,
            formats,
            "</cellXfs></styleSheet>",
        )
    return _bytes(archive, buffer)


def _question_row(index: int) -> str:
    row = index + 1
    return f'<row r="{row}"><c r="A{row}" t="inlineStr"><is><t>Do you encrypt backup {row}?</t></is></c></row>'


def workbook_of_rows(count: int) -> bytes:
    """A workbook of `count` question rows, its sheet XML written as a stream (two million: about 11 MB)."""
    return _workbook(_question_row, count)


def workbook_of_styles(count: int) -> bytes:
    """A workbook of three questions and `count` cell formats."""
    return _workbook(_question_row, 3, styles=(count, lambda i: '<xf numFmtId="0" fontId="0" fillId="0"/>'))


def workbook_with_entities() -> bytes:
    """A workbook whose sheet declares a billion laughs and uses it in a cell."""
    return _workbook(
        lambda i: '<row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row>',
        1,
        head_extra=BILLION_LAUGHS.replace("lolz", "worksheet"),
    )


# --- HTML, PDF and CSV --------------------------------------------------------------------------------------


def _deflated_spaces(megabytes: int) -> bytes:
    """A zlib stream of `megabytes` of spaces, made in milliseconds: one megabyte compressed and full-flushed (so it
    refers to nothing before it) is repeated, then the stream is closed with the checksum of the whole."""
    spaces = b" " * CHUNK
    compressor = zlib.compressobj(9)
    header_and_block = compressor.compress(spaces) + compressor.flush(zlib.Z_FULL_FLUSH)
    header, block = header_and_block[:2], header_and_block[2:]
    checksum = 1
    for _ in range(megabytes):
        checksum = zlib.adler32(spaces, checksum)
    return header + block * megabytes + b"\x03\x00" + checksum.to_bytes(4, "big")


def pdf_inflating_to(megabytes: int) -> bytes:
    """A one-page PDF whose content stream inflates to `megabytes` of spaces (about 1 MB compressed per GB)."""
    stream = _deflated_spaces(megabytes)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def html_nested(depth: int) -> bytes:
    """An HTML page whose one question sits `depth` elements deep."""
    return (
        b"<html><body>" + b"<div>" * depth + b"Are backups encrypted at rest?" + b"</div>" * depth + b"</body></html>"
    )


def html_of_links(links: int) -> bytes:
    """An HTML page whose one paragraph holds `links` links (under the element limit): one element each to read."""
    return (
        b"<html><body><p>Are backups encrypted at rest? "
        + b"<a href='#a'>See</a> the answer. " * links
        + b"</p></body></html>"
    )


def csv_one_line(megabytes: int) -> bytes:
    """A CSV whose single line is `megabytes` long: one endless question."""
    return b"Question\n" + b"Do you " * (megabytes * CHUNK // 7) + b"?\n"
