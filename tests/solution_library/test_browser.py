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
