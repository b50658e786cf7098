"""File recognition, text extraction and chunking, on real files."""

import io
import warnings

import pytest

from solution_library.models import DocumentType
from solution_library.services.chunking import chunk_text
from solution_library.services.parsing import (
    UnsupportedFile,
    check_readable,
    detect_type,
    extract_text,
    html_title,
    html_to_text,
)

from . import files

PARAGRAPHS = ["Spelunker encrypts backups with AES-256.", "Support answers within four hours."]


@pytest.mark.parametrize(
    "data, filename, expected",
    [
        (files.pdf_bytes(PARAGRAPHS), "a.pdf", DocumentType.PDF),
        (files.pdf_bytes(PARAGRAPHS), "misnamed.txt", DocumentType.PDF),
        (files.docx_bytes(PARAGRAPHS), "a.docx", DocumentType.DOCX),
        (files.docx_bytes(PARAGRAPHS), "no_extension", DocumentType.DOCX),
        (files.html_bytes("Guide", PARAGRAPHS), "guide.txt", DocumentType.HTML),
        (files.markdown_bytes("Notes", PARAGRAPHS), "notes.md", DocumentType.MARKDOWN),
        (b"# Title\n\n- one\n- two\n\nSee [docs](http://x).\n", "notes", DocumentType.MARKDOWN),
        ("Plain words, café.\n".encode(), "notes.txt", DocumentType.TEXT),
    ],
)
def test_type_is_detected_from_content(data, filename, expected):
    assert detect_type(data, filename) == expected


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (files.png_bytes(), "A .png file holds no document the library can read"),
        (b"\x00\x01\x02binary\x00stuff" * 10, "not a document the library can read"),
    ],
)
def test_unsupported_content_is_refused_with_a_reason(data, message):
    with pytest.raises(UnsupportedFile, match=message):
        detect_type(data, "file.txt")


def test_encrypted_pdf_is_refused():
    data = files.encrypted_pdf_bytes(PARAGRAPHS)
    with pytest.raises(UnsupportedFile, match="encrypted"):
        check_readable(data, detect_type(data, "secret.pdf"))


def test_damaged_pdf_is_refused():
    data = b"%PDF-1.4\n" + b"this is not really a pdf" * 20
    with pytest.raises(UnsupportedFile, match="PDF"):
        check_readable(data, detect_type(data, "broken.pdf"))


@pytest.mark.parametrize(
    "data, file_type",
    [
        (files.pdf_bytes(PARAGRAPHS), DocumentType.PDF),
        (files.docx_bytes(PARAGRAPHS), DocumentType.DOCX),
        (files.html_bytes("Guide", PARAGRAPHS), DocumentType.HTML),
        (files.markdown_bytes("Notes", PARAGRAPHS), DocumentType.MARKDOWN),
    ],
)
def test_text_is_extracted(data, file_type):
    text = extract_text(data, file_type)
    for paragraph in PARAGRAPHS:
        assert paragraph in text


def test_html_extraction_drops_scripts_styles_and_navigation():
    text = extract_text(files.html_bytes("Guide", PARAGRAPHS), DocumentType.HTML)
    assert "var x" not in text and "color: red" not in text and "Home | Docs" not in text


def test_a_documentation_pages_prev_and_next_links_are_not_text():
    """PostgreSQL's manual (DocBook) puts them in a table of class "navheader", the Debian Handbook (Publican) in a
    list of class "docnav"; neither is a <nav>. Read as text, every page began "Prev Up Chapter 21… Home Next"."""
    page = (
        b'<html><body><div class="navheader"><table><tr><th>21.3. Authentication Methods</th></tr><tr><td>'
        b'<a href="p.html">Prev</a></td><td><a href="u.html">Up</a></td></tr></table></div>'
        b'<ul class="docnav top"><li class="previous"><a href="a.html">Prev</a></li><li class="home">Handbook</li>'
        b'</ul><div role="navigation"><a href="n.html">Next</a></div>'
        b"<h2>Authentication Methods</h2><p>PostgreSQL provides various methods.</p></body></html>"
    )
    assert extract_text(page, DocumentType.HTML).split("\n\n") == [
        "## Authentication Methods",
        "PostgreSQL provides various methods.",
    ]


def test_an_empty_list_item_leaves_no_mark_on_the_paragraph_after_the_list():
    page = b"<html><body><ul><li><p>A point.</p></li><li></li></ul><p>After the list.</p></body></html>"
    assert extract_text(page, DocumentType.HTML).split("\n\n") == ["- A point.", "After the list."]


def test_an_xhtml_page_is_read_as_html_without_a_warning_in_the_log():
    # an XHTML page (an <?xml …?> line, a namespace) is HTML to the HTML parser, and no parser's "looks like XML"
    paragraph = "Quotas limit the disk space a user may use."
    page = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 '
        b'Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html xmlns="http://www.w3.org/1999/xhtml">'
        b"<head><title>Quotas</title></head><body><h1>Quotas</h1>"
        + f"<p>{paragraph}</p>".encode() * 12
        + b"</body></html>"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = extract_text(page, DocumentType.HTML)
    assert text == "\n\n".join(["# Quotas", *[paragraph] * 12])
    assert [str(w.message)[:60] for w in caught] == []


def test_chunks_cover_the_text_with_overlap_on_sentence_boundaries():
    text = " ".join(files.long_paragraphs("replication", 80))
    chunks = chunk_text(text, target_chars=500, overlap_chars=120)
    assert len(chunks) > 5
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for previous, current in zip(chunks, chunks[1:]):
        assert current.start < previous.end, "consecutive chunks overlap"
        assert current.start > previous.start, "every chunk moves on"
        assert text[current.start - 1] == " " and current.text.startswith("Fact"), "starts at a sentence"
    for chunk in chunks:
        assert chunk.text == text[chunk.start : chunk.end]
        assert len(chunk.text) <= 500


def test_paragraphs_are_kept_whole_when_they_fit():
    text = "First paragraph here.\n\nSecond one.\n\nThird."
    chunks = chunk_text(text, target_chars=25, overlap_chars=0)
    assert [c.text for c in chunks] == ["First paragraph here.", "Second one.\n\nThird."]


def test_a_heading_opens_the_next_chunk_instead_of_closing_one_that_does_not_hold_its_section():
    """At a chunk's end, "## Key management and rotation" named a section the chunk did not hold, and a search for
    key rotation ranked that chunk above the section's own."""
    encryption = "All customer data is encrypted at rest with AES-256 and in transit with TLS 1.3."
    rotation = "Master keys are rotated automatically every 12 months."
    text = f"# Encryption\n\n{encryption}\n\n## Key management and rotation\n\n{rotation}"
    chunks = chunk_text(text, target_chars=130, overlap_chars=0)
    assert [c.text for c in chunks] == [
        f"# Encryption\n\n{encryption}",
        f"## Key management and rotation\n\n{rotation}",
    ]
    assert [c.heading for c in chunks] == ["Encryption", "Key management and rotation"]
    last = chunk_text("Intro.\n\n# Appendix", target_chars=100, overlap_chars=0)
    assert [c.text for c in last] == ["Intro.\n\n# Appendix"], "the document's last line is kept, heading or not"


def test_an_overlong_word_is_split_not_lost():
    text = "start " + "x" * 2500 + " end"
    chunks = chunk_text(text, target_chars=1000, overlap_chars=100)
    assert "".join(c.text for c in chunks).count("x") >= 2500
    assert chunks[-1].text.endswith("end")


def test_pdf_with_a_damaged_page_tree_is_refused_not_a_server_error():
    """pypdf opens it; counting its pages raises PdfReadError, which must become UnsupportedFile."""
    data = (
        b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
        b"3 0 obj\n<< /Type /Pages /Kids 5 >>\nendobj\n"
        b"trailer\n<< /Root 1 0 R >>\nstartxref\n9999\n%%EOF\n"
    )
    with pytest.raises(UnsupportedFile, match="PDF"):
        check_readable(data, detect_type(data, "damaged.pdf"))


def test_table_rows_read_as_sentences_labelled_by_the_header():
    from solution_library.services.parsing import table_rows_as_text

    rows = [
        ["Control", "Status", "Evidence"],
        ["Encryption at rest", "Yes", "AES-256 on every volume"],
        ["MFA", "Yes", ""],
        ["", "", ""],
    ]
    assert table_rows_as_text(rows) == [
        "Control: Encryption at rest. Status: Yes. Evidence: AES-256 on every volume.",
        "Control: MFA. Status: Yes.",
    ]
    assert table_rows_as_text([["Only a header row", "here"]]) == ["Only a header row | here"]


BODY, SECTION, SUBSECTION = 11, 18, 14


def test_pdf_running_headers_and_footers_are_dropped_and_headings_marked():
    """A printed policy: "Page n of 3" and the header are on every page; headings only by their font size."""
    pages = [
        [
            (SECTION, "1. Access control"),
            (BODY, "Staff sign in with single sign-on and a second factor."),
            (BODY, "Access is reviewed every quarter by each team's manager."),
        ],
        [
            (SECTION, "2. Backups"),
            (SUBSECTION, "2.1 Retention"),
            (BODY, "Daily backups are kept for thirty-five days in a second region."),
        ],
        [(SUBSECTION, "2.2 Restores"), (BODY, "A restore is rehearsed every month and timed.")],
    ]
    data = files.paged_pdf_bytes(pages, "Acme Ltd information security policy, confidential", "Page {page} of {pages}")

    text = extract_text(data, DocumentType.PDF)

    assert "confidential" not in text and "Page" not in text
    lines = text.splitlines()
    assert {"# 1. Access control", "# 2. Backups", "## 2.1 Retention", "## 2.2 Restores"} <= set(lines)
    assert "Daily backups are kept for thirty-five days in a second region." in lines  # body lines stay plain
    headings = {
        chunk.heading for chunk in chunk_text(text, target_chars=80, overlap_chars=0) if "rehearsed" in chunk.text
    }
    assert headings == {"2.2 Restores"}


def test_a_line_repeated_inside_pages_or_on_a_single_page_is_content():
    """Only a page's edge holds running matter, and only a line on most pages is one."""
    repeated = "Customer data is encrypted at rest."
    subjects = "access backups keys logging patching vendors training audits alerts laptops offices email".split()
    subjects += "firewalls passwords tokens phones printers badges".split()
    pages = [
        [(BODY, f"The rule on {subjects[6 * n + line]} is part of the policy.") for line in range(6)] for n in range(3)
    ]
    for page in pages:
        page.insert(3, (BODY, repeated))
    text = extract_text(files.paged_pdf_bytes(pages, "", "Footer {page}"), DocumentType.PDF)
    assert text.count(repeated) == 3 and "Footer" not in text
    assert text.count("of the policy.") == 18  # edge lines that differ in words are content
    single = extract_text(files.paged_pdf_bytes(pages[:1], "Acme header", "Page {page} of {pages}"), DocumentType.PDF)
    assert "Acme header" in single and "Page 1 of 1" in single


def test_a_sentence_cut_by_a_page_break_stays_one_paragraph():
    pages = [
        [(BODY, "Backups are copied to a second region and kept for")],
        [(BODY, "thirty-five days. Restores are rehearsed monthly.")],
        [(BODY, "Access reviews happen every quarter.")],
    ]
    text = extract_text(files.paged_pdf_bytes(pages, "Acme policy", "Page {page} of {pages}"), DocumentType.PDF)
    assert text.split("\n\n") == [
        "Backups are copied to a second region and kept for\nthirty-five days. Restores are rehearsed monthly.",
        "Access reviews happen every quarter.",
    ]


def test_pdf_headings_set_at_body_size_are_known_by_the_pdfs_bookmarks():
    """A report whose headings are bold body text: its outline names them, and the page each one opens. The
    contents page lists the same titles without being headings, and a title set on two lines is one heading."""
    pages = [
        [("Contents", 0), ("1. Access control", 0), ("1.1 Reviews of access by line managers", 0)],
        [
            ("1. Access control", 1),
            ("Staff sign in with single sign-on and a second factor.", 0),
            ("1.1 Reviews of access\nby line managers", 2),
            ("Managers review who has access every quarter.", 0),
        ],
    ]

    text = extract_text(files.bookmarked_pdf_bytes(pages), DocumentType.PDF)

    contents, body = text.split("\n\n", 1)
    assert contents.splitlines() == ["Contents", "1. Access control", "1.1 Reviews of access by line managers"]
    assert body.split("\n\n") == [
        "# 1. Access control",
        "Staff sign in with single sign-on and a second factor.",
        "## 1.1 Reviews of access by line managers",
        "Managers review who has access every quarter.",
    ]
    headings = {
        chunk.heading for chunk in chunk_text(text, target_chars=80, overlap_chars=0) if "quarter" in chunk.text
    }
    assert headings == {"1.1 Reviews of access by line managers"}


def test_a_word_hyphenated_at_a_lines_end_is_whole_again_and_a_compound_keeps_its_hyphen():
    """A typeset PDF breaks words at line ends; a browser breaks lines at a compound's own hyphen. The document's
    other words tell them apart: "management" is written whole elsewhere, "singlesign" nowhere."""
    pages = [
        [
            (BODY, "Keys are rotated as the key manage-"),
            (BODY, "ment policy says, by its owner."),
            (BODY, "Staff sign in with single-"),
            (BODY, "sign-on and a second factor."),
        ],
        [(BODY, "The key management policy is reviewed every year by the security team.")],
    ]
    text = extract_text(files.paged_pdf_bytes(pages, "", ""), DocumentType.PDF)
    assert "Keys are rotated as the key management policy says, by its owner." in text.splitlines()
    assert "single-\nsign-on and a second factor." in text


def test_a_browser_printed_pdf_reads_as_its_page_did():
    """A real PDF (evaluation/documents, printed by Chromium): ligatures undone, the browser's date and path lines
    gone, the page's headings back as headings."""
    from pathlib import Path

    from pypdf import PdfReader

    path = Path(__file__).resolve().parents[2] / "evaluation" / "documents" / "debian-handbook-backup.pdf"
    raw = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    assert "ﬁ" in raw and "file:///" in raw.replace("ﬁ", "fi")  # what pypdf alone gives

    text = extract_text(path.read_bytes(), DocumentType.PDF)

    assert not any(ligature in text for ligature in "ﬀﬁﬂﬃﬄ") and "configuration" in text
    assert "file:///" not in text and " PM " not in text
    assert {"# 9.10. Backup", "## 9.10.1. Backing Up with rsync"} <= set(text.splitlines())


def _saved(document) -> bytes:
    """A python-docx document's file."""
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _word_paragraphs(document) -> list[str]:
    """The paragraphs extraction reads from a python-docx document's file."""
    return extract_text(_saved(document), DocumentType.DOCX).split("\n\n")


def test_a_word_table_stays_under_its_section():
    import docx

    document = docx.Document()
    document.add_heading("Encryption", level=1)
    document.add_paragraph("Every store is encrypted.")
    table = document.add_table(rows=2, cols=2)
    for cell, value in zip(table._cells, ["Store", "Cipher", "Database", "AES-256"]):
        cell.text = value
    document.add_heading("Support", level=1)
    document.add_paragraph("Support answers within four hours.")

    assert _word_paragraphs(document) == [
        "# Encryption",
        "Every store is encrypted.",
        "Store: Database. Cipher: AES-256.",
        "# Support",
        "Support answers within four hours.",
    ]


def test_word_headings_are_known_by_their_outline_level_not_only_by_their_style_name():
    """Policy templates bring their own heading styles: Word's outline level says which paragraphs are headings."""
    import docx
    from docx.enum.style import WD_STYLE_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    def outline_level(properties, level):
        element = OxmlElement("w:outlineLvl")
        element.set(qn("w:val"), str(level))
        properties.append(element)

    document = docx.Document()
    clause = document.styles.add_style("Clause Title", WD_STYLE_TYPE.PARAGRAPH)
    outline_level(clause.element.get_or_add_pPr(), 0)
    subclause = document.styles.add_style("Clause Subtitle", WD_STYLE_TYPE.PARAGRAPH)
    subclause.base_style = document.styles["Heading 2"]
    document.add_paragraph("Backups", style="Clause Title")
    document.add_paragraph("Retention", style="Clause Subtitle")
    outline_level(document.add_paragraph("Offsite copies").paragraph_format.element.get_or_add_pPr(), 2)
    document.add_paragraph("Daily backups are kept for thirty-five days.")
    outline_level(
        document.add_paragraph("Body text set at Word's body level.").paragraph_format.element.get_or_add_pPr(), 9
    )

    assert _word_paragraphs(document) == [
        "# Backups",
        "## Retention",
        "### Offsite copies",
        "Daily backups are kept for thirty-five days.",
        "Body text set at Word's body level.",
    ]


SHELL_SECTION = [
    "# apt install nftables",
    "# systemctl enable nftables.service",
    "The firewall rules are loaded at every boot.",
]


def _shell_section_docx() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Installing the rules", level=2)
    for line in SHELL_SECTION:
        document.add_paragraph(line)
    return _saved(document)


@pytest.mark.parametrize(
    "data, file_type",
    [
        (
            b"<html><body><h2>Installing the rules</h2><pre># apt install nftables\n"
            b"# systemctl enable nftables.service</pre><!--# a comment stays out-->"
            b"<p>The firewall rules are loaded at every boot.</p></body></html>",
            DocumentType.HTML,
        ),
        (
            b"## Installing the rules\n\n```sh\n# apt install nftables\n# systemctl enable nftables.service\n```\n\n"
            b"The firewall rules are loaded at every boot.\n",
            DocumentType.MARKDOWN,
        ),
        (
            files.paged_pdf_bytes(
                [[(SUBSECTION, "Installing the rules"), *((BODY, x) for x in SHELL_SECTION)]], "", ""
            ),
            DocumentType.PDF,
        ),
        (_shell_section_docx(), DocumentType.DOCX),
    ],
    ids=["html", "markdown", "pdf", "docx"],
)
def test_a_shell_prompt_or_comment_in_the_body_is_not_read_as_a_heading(data, file_type):
    """A root prompt ("# apt install …") starts with `#` as a Markdown heading does: the passage after it is still
    in its section, and the line stays, escaped as Markdown escapes it."""
    text = extract_text(data, file_type)

    assert "\\# apt install nftables" in text.splitlines()
    assert "\\# systemctl enable nftables.service" in text.splitlines()
    assert "a comment" not in text
    (chunk,) = chunk_text(text)
    assert chunk.heading == "Installing the rules"


def test_a_markdown_code_block_left_open_is_still_code():
    text = extract_text(b"## Setup\n\n```\n# apt install nftables\n# nft list ruleset", DocumentType.MARKDOWN)
    assert text.splitlines()[-2:] == ["\\# apt install nftables", "\\# nft list ruleset"]


def test_markdown_html_tags_are_markup_not_text():
    """NIST's Markdown puts an anchor before each heading (`<a name="aal2reauth"></a>4.2.3 Reauthentication`) and
    wraps tables in `<div markdown="1">`: the section, the citation and search read the words alone, while a code
    span that shows a tag keeps it."""
    data = (
        b'<a name="sec4"></a>\n\n#### <a name="aal2reauth"></a>4.2.3 Reauthentication\n\n'
        b'<div class="text-center" markdown="1">\n\nAt AAL2, authentication SHALL be repeated at least once per '
        b"12 hours.<br/> Write `<table>` in the page.\n\n</div>\n"
    )
    text = extract_text(data, DocumentType.MARKDOWN)

    assert "<a" not in text and "<div" not in text and "</div>" not in text and "<br/>" not in text
    assert "Write `<table>` in the page." in text
    (chunk,) = chunk_text(text)
    assert chunk.heading == "4.2.3 Reauthentication"
    assert "repeated at least once per 12 hours." in chunk.text


def test_an_html_sentence_keeps_its_links_and_code_in_its_line_and_a_list_reads_as_a_list():
    """PostgreSQL's manual marks the method in each item (`<a>LDAP authentication</a>, which…`) and wraps its
    lines in the source: each item is one sentence, a Markdown `- ` item, and `<pre>` keeps its lines."""
    page = (
        b"<html><body><h2>Authentication Methods</h2><p><span>PostgreSQL</span> provides various methods for\n"
        b"   authenticating users:</p><ul><li><p><a href='#ldap'>LDAP authentication</a>, which\n"
        b"      relies on an <em>LDAP</em> authentication server.</p></li>"
        b"<li><p><a href='#radius'>RADIUS authentication</a>, which relies on a RADIUS server.</p></li></ul>"
        b"<p>Run <code>psql -h db</code> to connect.</p><pre>host  all  all\nlocal all  all</pre></body></html>"
    )
    text = extract_text(page, DocumentType.HTML)

    assert text.split("\n\n") == [
        "## Authentication Methods",
        "PostgreSQL provides various methods for authenticating users:",
        "- LDAP authentication, which relies on an LDAP authentication server.",
        "- RADIUS authentication, which relies on a RADIUS server.",
        "Run psql -h db to connect.",
        "host  all  all\nlocal all  all",
    ]


def test_a_page_is_read_in_the_encoding_it_declares_and_titled_by_its_title_or_first_heading():
    declared = "<html><head><meta charset='windows-1252'><title>Caf\u00e9\n  menu</title></head><body><p>Na\u00efve \u2019q\u2019</p>"
    assert html_title(declared.encode("cp1252")) == "Caf\u00e9 menu"
    assert html_to_text(declared.encode("cp1252")) == "Na\u00efve \u2019q\u2019"
    assert (
        html_title(b"<html><body><h1>Backups <em>at</em> rest</h1><h1>Second</h1></body></html>") == "Backups at rest"
    )
    assert html_title(b"<p>No heading</p>") == ""


def test_a_page_declaring_utf16_without_a_byte_order_mark_is_read_as_utf8_as_browsers_do():
    """The declaration was read as ASCII, so the page is not UTF-16: read in it, every two bytes became one
    Chinese-looking character."""
    page = "<html><head><meta charset='utf-16'><title>Caf\u00e9</title></head><body><p>Na\u00efve</p>"
    assert html_to_text(page.encode("utf-8")) == "Na\u00efve"
    assert html_title(page.encode("utf-8")) == "Caf\u00e9"
    assert html_to_text("\ufeff<p>Real UTF-16</p>".encode("utf-16-le")) == "Real UTF-16"  # its mark says so


CONTROLS = [
    ["Area", "Control"],
    ["Key management", "Keys held in a hardware security module, rotated every 12 months"],
    ["Identity", "Single sign-on with SAML 2.0 or OpenID Connect; multi-factor authentication for every user"],
]


def test_a_pdf_table_ruled_in_a_grid_is_read_row_by_row_as_a_word_tables_rows_are():
    """pypdf alone gives the cells line by line, a wrapped cell's second line as if it were the next cell
    ("…OpenID" / "Connect; multi-factor…"): the rows ran together into one paragraph."""
    data = files.ruled_table_pdf_bytes("The controls in summary.", CONTROLS, "Every control is tested each year.")
    text = extract_text(data, DocumentType.PDF)
    paragraphs = [p.strip() for p in text.split("\n\n")]
    assert "Area: Key management. Control: Keys held in a hardware security module, rotated every 12 months." in (
        paragraphs
    )
    assert (
        "Area: Identity. Control: Single sign-on with SAML 2.0 or OpenID Connect; multi-factor authentication for "
        "every user." in paragraphs
    )
    assert text.index("The controls in summary.") < text.index("Area: Key") < text.index("Every control is tested")
    identity = next(chunk for chunk in chunk_text(text) if "Identity" in chunk.text)
    assert "OpenID Connect" in identity.text


def test_a_pdf_page_without_ruled_lines_is_not_searched_for_tables():
    from solution_library.services import pdf_tables

    prose = files.pdf_bytes(PARAGRAPHS)
    assert pdf_tables.tables_by_page(prose, _page_contents(prose)) == {}
    ruled = files.ruled_table_pdf_bytes("Before.", CONTROLS, "After.")
    assert pdf_tables.tables_by_page(ruled, _page_contents(ruled))[0][0][0] == ["Area", "Control"]


def test_a_table_pdfplumber_cannot_read_leaves_the_page_as_pypdf_read_it():
    """The table finder's failure costs the table's rows, never the document."""
    from solution_library.services import pdf_tables

    ruled = files.ruled_table_pdf_bytes("Before.", CONTROLS, "After.")
    assert pdf_tables.tables_by_page(b"%PDF-1.4 damaged", _page_contents(ruled)) == {}


def _page_contents(data: bytes) -> list[bytes]:
    from pypdf import PdfReader

    from core import file_limits

    return [file_limits.check_pdf_page(page) for page in PdfReader(io.BytesIO(data)).pages]


def test_a_table_whose_cells_pypdf_read_in_another_order_keeps_its_lines():
    from solution_library.services import pdf_text

    page = pdf_text.Page(["Before.", "Area Control", "Identity Single sign-on", "After."])
    pdf_text._place(
        page, pdf_text.FoundTable(["Area", "Control", "Identity", "SSO"], ["Area: Identity. Control: SSO."])
    )
    assert page.lines == ["Before.", "Area Control", "Identity Single sign-on", "After."] and not page.rows
    pdf_text._place(page, pdf_text.FoundTable(["Area", "Control", "Identity", "Single sign-on"], ["Row."]))
    assert page.lines == ["Before.", "Row.", "After."] and page.rows == {1}
