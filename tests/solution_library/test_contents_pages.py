"""A handbook's contents and index pages are not passages: search finds its chapters, not the list of them."""

import pytest

from solution_library.models import Chunk
from solution_library.services.chunking import chunk_text
from solution_library.services.parsing import extract_text
from solution_library.services.search import search_passages
from solution_library.testing import add_library_document

from . import files

CONTENTS_PAGE = [(16, "Contents")] + [
    (11, f"{n} {title} " + "." * 60 + f" {page}")
    for n, (title, page) in enumerate(
        [("Backups and retention", 3), ("Restores", 4), ("Encryption", 5), ("Monitoring", 6), ("Support", 7)], 1
    )
]
CHAPTER = [
    (16, "1 Backups and retention"),
    (11, "Backups are taken every hour and kept for 35 days in a second region."),
    (11, "Each backup is encrypted with the same keys as the primary database."),
    (11, "Restores are tested every quarter and take under two hours."),
]
INDEX_PAGE = [(16, "Index")] + [(11, f"{term} {pages}") for term, pages in
    [("backups", "3, 4"), ("encryption", "3, 5"), ("keys", "5"), ("monitoring", "6"), ("restores", "4")]]  # fmt: skip


def handbook() -> str:
    data = files.paged_pdf_bytes([CONTENTS_PAGE, CHAPTER, INDEX_PAGE], header="Handbook", footer="Page {page}")
    return extract_text(data, "pdf")


def test_the_contents_and_index_pages_are_left_out_of_the_passages():
    passages = chunk_text(handbook())
    assert passages and [p.position for p in passages] == list(range(len(passages)))
    text = "\n".join(p.text for p in passages)
    assert "Backups are taken every hour" in text
    assert "....." not in text and "keys 5" not in text


@pytest.mark.django_db
def test_search_finds_the_chapter_not_the_contents(offline_embedding):
    document = add_library_document("Handbook", handbook())
    found = search_passages("How often are backups taken and how long are they kept?", 5)
    assert found and found[0].document_id == document.pk
    assert all("....." not in p.text for p in found)
    assert not any("....." in c.text for c in Chunk.objects.filter(document=document))
