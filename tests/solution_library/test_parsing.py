"""File recognition, text extraction and chunking, on real files."""

import pytest

from solution_library.models import DocumentType
from solution_library.services.chunking import chunk_text
from solution_library.services.parsing import UnsupportedFile, check_readable, detect_type, extract_text

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
        (files.png_bytes(), "image/png"),
        (b"\x00\x01\x02binary\x00stuff" * 10, "binary"),
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
