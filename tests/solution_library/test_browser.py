"""In Chromium: upload three files (one bad), watch them become ready without reloading, then search."""

import pytest

from . import files

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def test_upload_watch_ready_and_search(live_worker, offline_embedding, user, logged_in_page, tmp_path):
    good_pdf = tmp_path / "security.pdf"
    good_pdf.write_bytes(files.pdf_bytes(["Customer data is replicated to a standby region every five minutes."]))
    good_md = tmp_path / "onboarding.md"
    good_md.write_bytes(files.markdown_bytes("Onboarding", ["New tenants are provisioned within one business day."]))
    bad = tmp_path / "photo.png"
    bad.write_bytes(files.png_bytes())

    page = logged_in_page(user, "pw-alice-123")
    page.goto("/library/")
    page.set_input_files("#file-input", [str(good_pdf), str(good_md), str(bad)])

    rows = page.locator("#upload-list li")
    bad_row = rows.filter(has_text="photo.png")
    page.wait_for_function(
        "() => document.querySelector('li[data-filename=\"photo.png\"]')?.dataset.status === 'refused'"
    )
    assert "holds no document the library can read" in bad_row.inner_text()
    for name in ("security.pdf", "onboarding.md"):
        page.wait_for_function(
            f"() => document.querySelector('li[data-filename=\"{name}\"]')?.dataset.status === 'pending_review'",
            timeout=60_000,
        )
        assert "Ready" in rows.filter(has_text=name).inner_text()
    # The documents table refreshed itself too.
    page.locator("#documents").get_by_text("onboarding").wait_for()
    page.screenshot(path=str(tmp_path / "upload.png"), full_page=True)

    page.fill("input[name=q]", "How often is customer data replicated?")
    page.click("form.search-bar button")
    first = page.locator("article.result").first
    assert "every five minutes" in first.inner_text()
    assert "security" in first.inner_text()
    first.locator("a").click()
    assert "every five minutes" in page.locator("mark#passage").inner_text()
    page.screenshot(path=str(tmp_path / "chunk.png"), full_page=True)


def test_the_document_page_shows_its_passages_when_it_becomes_ready(offline_embedding, user, logged_in_page, tmp_path):
    """Open while processing; status and passages change together, no reload; the passage reads as written."""
    from django.core.files.base import ContentFile

    from solution_library.models import Document
    from solution_library.services.documents import content_hash, process_document
    from tests.screenshots import shot

    data = files.markdown_bytes("Backups", ["Backups run **every hour** and are kept for *35 days*."])
    document = Document(title="Backups", content_hash=content_hash(data), file_type="markdown", size_bytes=len(data))
    document.file.save("backups.md", ContentFile(data), save=False)
    document.skip_auto_embed = True
    document.save()
    page = logged_in_page(user, "pw-alice-123")
    page.goto(f"/library/documents/{document.pk}/")
    assert "Processing" in page.inner_text("#document-status")
    assert "Passages appear here" in page.inner_text("#passages")

    assert process_document(document.pk).success
    page.locator("#passages .passage").first.wait_for(timeout=15_000)
    assert "Ready" in page.inner_text("#document-status") and "1 passage" in page.inner_text("#document-status")
    shot(page, tmp_path, "document-ready")
    page.locator("#passages .passage a").first.click()
    assert page.locator("mark#passage strong:not(.text-heading)").inner_text() == "every hour"
    assert "**" not in page.inner_text("mark#passage") and "passage 1" in page.inner_text(".crumbs")
    shot(page, tmp_path, "passage")
