"""Retrieval service, passage page and the library pages (in-process, no worker)."""

import pytest
from django.core.files.base import ContentFile
from django.test import override_settings

from solution_library.models import Chunk, Document, EmbedBatchJob
from solution_library.services.documents import content_hash, process_document
from solution_library.services.search import search_passages
from solution_library.testing import add_library_document


@pytest.fixture
def library(offline_embedding):
    return {
        "security": add_library_document(
            "Security whitepaper",
            "All customer data is encrypted at rest with AES-256.\n\nBackups are kept for thirty days in two regions.",
        ),
        "pricing": add_library_document(
            "Pricing sheet", "The enterprise plan is billed per seat each month, with volume discounts."
        ),
        "sso": add_library_document(
            "Identity guide", "Single sign-on works with SAML 2.0 and OpenID Connect identity providers."
        ),
    }


def test_best_passage_comes_first_with_its_document(library):
    passages = search_passages("How long are backups kept?", limit=3)
    top = passages[0]
    assert top.document_id == library["security"].pk
    assert top.document_title == "Security whitepaper"
    assert "thirty days" in top.text
    scores = [p.score for p in passages]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0
    assert top.chunk_id == Chunk.objects.get(document=library["security"]).pk


def test_search_can_be_limited_to_some_documents(library):
    passages = search_passages("encrypted backups", limit=5, document_ids=[library["pricing"].pk])
    assert {p.document_id for p in passages} <= {library["pricing"].pk}


def test_index_follows_new_changed_and_deleted_documents(library):
    assert search_passages("SAML single sign-on")[0].document_id == library["sso"].pk
    library["sso"].delete()
    assert all(p.document_id != library["sso"].pk for p in search_passages("SAML single sign-on"))
    newcomer = add_library_document("Audit log", "Every administrator action is written to a tamper-proof audit log.")
    assert search_passages("tamper-proof audit log")[0].document_id == newcomer.pk


def test_empty_query_finds_nothing(library):
    assert search_passages("   ") == []


def test_search_page_shows_passages_with_links(library, user_client):
    response = user_client.get("/library/search/", {"q": "single sign-on providers"})
    chunk = Chunk.objects.get(document=library["sso"])
    assert response.status_code == 200
    assert f'href="/library/chunks/{chunk.pk}/"'.encode() in response.content
    assert b"Identity guide" in response.content


def test_chunk_page_highlights_the_passage_and_escapes_text(offline_embedding, user_client):
    document = add_library_document(
        "Evil <b>title</b>", "Intro paragraph.\n\n<script>alert(1)</script> is shown as text."
    )
    chunk = Chunk.objects.filter(document=document).first()
    response = user_client.get(f"/library/chunks/{chunk.pk}/")
    assert response.status_code == 200
    assert b"<script>alert(1)</script>" not in response.content
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in response.content
    assert b'<mark id="passage">' in response.content
    assert b"Evil &lt;b&gt;title&lt;/b&gt;" in response.content


def test_heading_lines_read_as_headings_not_as_marks(offline_embedding, user_client):
    """Extraction writes a heading as a `# …` line (for the chunker); a reader sees the heading, escaped."""
    document = add_library_document(
        "Policy",
        "# Encryption <at rest>\n\nAll data is encrypted.\n\n## Keys\n\nKeys rotate yearly. # not a heading"
        "\n\n\\# apt install nftables",
    )
    chunk = Chunk.objects.filter(document=document).first()
    for url in (f"/library/chunks/{chunk.pk}/", f"/library/documents/{document.pk}/"):
        content = user_client.get(url).content.decode()
        assert '<strong class="text-heading">Encryption &lt;at rest&gt;</strong>' in content
        assert '<strong class="text-heading">Keys</strong>' in content
        assert "# Encryption" not in content and "## Keys" not in content
        assert "Keys rotate yearly. # not a heading" in content
        assert "<br># apt install nftables" in content  # a shell prompt extraction escaped, shown as written


def test_pages_need_a_login(client, library):
    for url in [
        "/library/",
        "/library/search/?q=x",
        f"/library/documents/{library['sso'].pk}/status/",
        f"/library/chunks/{Chunk.objects.first().pk}/",
    ]:
        assert client.get(url).status_code == 302, url


def test_source_pages_are_staff_only(user_client):
    assert user_client.get("/library/sources/").status_code == 403


def test_library_page_lists_documents(library, user_client):
    response = user_client.get("/library/")
    assert (
        b"Pricing sheet" in response.content
        and b"Ready" in response.content
        and b"Pending review" not in response.content
    )


@override_settings(AUTO_EMBED_DOCUMENTS=False)
def test_upload_without_javascript_reports_each_file(user_client, db):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = user_client.post(
        "/library/upload/",
        {"files": [SimpleUploadedFile("a.txt", b"Hello library."), SimpleUploadedFile("b.txt", b"")]},
        follow=True,
    )
    assert b"a.txt uploaded" in response.content and b"b.txt: The file is empty." in response.content
    assert Document.objects.get().title == "a"


@pytest.mark.parametrize("how", ["delete_selected action", "delete page"])
def test_admin_deletes_a_document_with_its_chunks_and_its_file(library, staff_client, how):
    document = library["pricing"]
    storage, name = document.file.storage, document.file.name
    if how == "delete page":
        response = staff_client.post(f"/admin/solution_library/document/{document.pk}/delete/", {"post": "yes"})
    else:
        response = staff_client.post(
            "/admin/solution_library/document/",
            {"action": "delete_selected", "_selected_action": [document.pk], "post": "yes"},
        )
    assert response.status_code == 302
    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Chunk.objects.filter(document_id=document.pk).exists()
    assert not storage.exists(name)  # Django's own delete left the file behind
    assert Document.objects.filter(pk=library["sso"].pk).exists()


def test_admin_action_creates_an_embed_batch_job(library, staff_client):
    ids = [library["pricing"].pk, library["sso"].pk]
    response = staff_client.post(
        "/admin/solution_library/document/", {"action": "embed_selected", "_selected_action": ids}
    )
    job = EmbedBatchJob.objects.get()
    assert response["Location"] == f"/library/embed-jobs/{job.pk}/"
    assert sorted(job.document_ids) == sorted(ids) and job.total_items == 2


def test_snippet_is_the_sentence_that_answers_with_the_words_marked():
    from solution_library.services.snippets import best_snippet

    passage = (
        "# Key management\n\nAll keys live in hardware security modules operated by the provider, which are "
        "certified to FIPS 140-2 level 3 and audited every year by an independent firm. "
        "Encryption keys are rotated every 90 days, and at once after an incident. Access to <keys> is logged."
    )
    snippet = best_snippet("How often are encryption keys rotated?", passage)
    assert snippet.html.startswith("… <mark>Encryption</mark> <mark>keys</mark> are <mark>rotated</mark> every 90 days")
    assert "&lt;<mark>keys</mark>&gt;" in snippet.html  # the passage's own text stays escaped
    assert snippet.matched == ["encryption", "keys", "rotated"]
    assert snippet.text.startswith("Encryption keys are rotated every 90 days")


def test_search_page_says_why_each_passage_ranks(library, user_client):
    page = user_client.get("/library/search/", {"q": "How long are backups kept?"}).content.decode()
    assert "<mark>Backups</mark> are <mark>kept</mark> for thirty days" in page
    assert "Words matched: backups, kept" in page and "full-text rank 1" in page and "meaning rank" in page
    assert "score 0." not in page


def test_inline_markdown_reads_as_emphasis_escaped_and_passages_count_from_one(offline_embedding, user_client):
    """A Markdown document's **bold** is bold on the passage page, its HTML stays text; the first passage is 1."""
    document = add_library_document(
        "Backups",
        "We keep **35 days** of *hourly* backups made by `pg_dump`. <img src=x onerror=alert(1)> **<b>x</b>**",
    )
    chunk = Chunk.objects.get(document=document)
    assert chunk.position == 0
    passage_page = user_client.get(f"/library/chunks/{chunk.pk}/").content.decode()
    assert "We keep <strong>35 days</strong> of <em>hourly</em> backups made by <code>pg_dump</code>." in passage_page
    assert "**" not in passage_page and "<img" not in passage_page and "<b>x</b>" not in passage_page
    assert "&lt;img src=x onerror=alert(1)&gt; <strong>&lt;b&gt;x&lt;/b&gt;</strong>" in passage_page
    assert "› passage 1</p>" in passage_page and "passage 0" not in passage_page
    document_page = user_client.get(f"/library/documents/{document.pk}/").content.decode()
    assert f'href="/library/chunks/{chunk.pk}/">#1</a>' in document_page
    search_page = user_client.get("/library/search/", {"q": "hourly backups"}).content.decode()
    assert "<strong>Backups</strong> · passage 1</a>" in search_page


def test_the_document_page_updates_its_status_and_its_passages_together(offline_embedding, user_client):
    data = b"Backups are taken every hour and kept for 35 days."
    document = Document(title="Backups", content_hash=content_hash(data), file_type="text", size_bytes=len(data))
    document.file.save("backups.txt", ContentFile(data), save=False)
    document.skip_auto_embed = True
    document.save()
    page = user_client.get(f"/library/documents/{document.pk}/").content.decode()
    assert "Processing" in page and "Passages appear here when the document is processed." in page

    assert process_document(document.pk).success
    live = user_client.get(f"/library/documents/{document.pk}/status/", headers={"HX-Request": "true"}).content.decode()
    status, passages = live.split('<div id="passages" hx-swap-oob="true">')
    assert "Ready" in status and "1 passage" in status and 'hx-trigger="every 1s"' not in status
    assert "Backups are taken every hour" in passages and "Passages appear here" not in passages
