"""In Chromium, the whole trust center: the team's page with three published entries and two documents; an anonymous
visitor reads it, downloads the public document, requests the other with the NDA; a team member approves in the
admin; the visitor opens the emailed link (a real worker, a real SMTP server) and downloads a copy watermarked with
their email; the team reads every step in the visitor log; an unpublished entry is never found by the search. The
page works without JavaScript and passes axe-core. SPELUNKER_WRITE_DOCS=1 writes the README's screenshot."""

import io
import json
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.files.base import ContentFile
from PIL import Image, ImageDraw
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.screenshots import shot

from .conftest import PUBLISHED, UNPUBLISHED

AXE_DIR = Path(__file__).resolve().parents[2] / "var" / "axe"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core from npm, installed into var/axe/ the first time (var/ is not in git)."""
    if not AXE_JS.exists():
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(AXE_DIR), "axe-core@4"],
            check=True,
            capture_output=True,
            timeout=300,
        )
    return AXE_JS.read_text()


def axe_violations(page, axe_source: str) -> list[str]:
    """The page's accessibility violations by axe-core (WCAG 2 A and AA rules)."""
    page.add_script_tag(content=axe_source)
    result = page.evaluate("axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa']})")
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])} node(s))" for v in result["violations"]]


def _logo_png() -> bytes:
    """A small logo: the brand colour's rounded square with an "A"."""
    image = Image.new("RGBA", (96, 96), (0, 0, 0, 0))
    drawing = ImageDraw.Draw(image)
    drawing.rounded_rectangle((0, 0, 95, 95), radius=18, fill="#0b3d91")
    drawing.polygon([(48, 14), (80, 82), (64, 82), (48, 46), (32, 82), (16, 82)], fill="#ffffff")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def visitor_context(browser, live_server, **options):
    # bypass_csp: only so that the test can inject axe-core; the page itself runs no script at all.
    return browser.new_context(base_url=live_server.url, accept_downloads=True, bypass_csp=True, **options)


def test_visitor_reads_downloads_requests_team_approves_link_downloads_watermarked_and_the_log_shows_it(
    browser, live_server, live_worker, mail_server, acme, team, logged_in_page, axe_source, tmp_path
):
    # Given the team's live page with its logo, read by an anonymous visitor with JavaScript off (nothing needs it),
    acme.center.logo.save("acme.png", ContentFile(_logo_png()))
    visitor = visitor_context(browser, live_server, java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = visitor.new_page()
    page.goto(acme.url)
    body = page.inner_text("body")
    for title, rows in PUBLISHED.items():
        assert title in body and all(q in body and a in body for q, a in rows)
    assert UNPUBLISHED[0] not in body and "Last reviewed" in body
    assert page.evaluate("document.querySelector('.trust-logo').naturalWidth") == 96  # the logo loaded
    shot(page, tmp_path, "trust-center")

    # the public document downloads at once,
    with page.expect_download() as public:
        page.click("a:has-text('Download')")
    assert Path(public.value.path()).read_bytes().startswith(b"%PDF")

    # and the visitor's search finds a published answer but never the unpublished entry, even word for word.
    page.fill("#id_q", "Is customer data encrypted at rest?")
    page.click("button:has-text('Search')")
    assert "AES-256" in page.inner_text(".trust-result")
    page.fill("#id_q", UNPUBLISHED[0])
    page.click("button:has-text('Search')")
    expect(page.locator(".trust-result")).to_contain_text("We have no published answer")  # waits for the new page
    assert UNPUBLISHED[1] not in page.inner_text(".trust-result")

    # When the visitor requests the on-request document, accepting the NDA,
    page.goto(acme.url)
    page.click("a:has-text('Request access')")
    assert acme.center.nda_text in page.inner_text(".trust-nda")
    page.fill("#id_name", "Vera Visitor")
    page.fill("#id_company", "Prospect GmbH")
    page.fill("#id_email", "vera@prospect.example")
    page.check("#id_accept_nda")
    page.click("button:has-text('Accept and request access')")
    expect(page.locator("main")).to_contain_text("email a download link to vera@prospect.example")

    # and a team member approves it in the admin,
    sam = logged_in_page(team, "pw-sam-12345")
    sam.goto("/admin/trust_center/accessrequest/")
    sam.check("input[name=_selected_action]")
    sam.select_option("select[name=action]", "approve")
    sam.click("button[name=index]")
    sam.wait_for_selector("text=the links are being emailed")

    # then the worker emails the visitor a link, which opens their document, downloaded with their email on it.
    [email] = mail_server.wait_for("vera@prospect.example")
    body_text = email.get_body().get_content() if email.is_multipart() else email.get_payload(decode=True).decode()
    link = next(line.strip() for line in body_text.splitlines() if "/access/" in line)
    page.goto(urlsplit(link).path)
    with page.expect_download() as marked:
        page.click("a:has-text('Download SOC 2 Type II report')")
    pdf = PdfReader(io.BytesIO(Path(marked.value.path()).read_bytes()))
    assert pdf.metadata["/SpelunkerRecipient"] == "vera@prospect.example"
    assert "Provided by Acme Cloud to vera@prospect.example" in pdf.pages[0].extract_text()

    # The team sees every step in the visitor log.
    sam.goto("/admin/trust_center/visitorevent/?q=vera%40prospect.example")
    log = sam.inner_text("#result_list")
    for step in ("Requested a document", "Opened their link", "Downloaded a document"):
        assert step in log, step
    sam.goto("/admin/trust_center/visitorevent/")
    everyone = sam.inner_text("#result_list")
    assert "Viewed the page" in everyone and "Searched" in everyone
    visitor.close()


@pytest.mark.django_db
def test_the_page_and_the_request_form_pass_axe_core(browser, live_server, acme, axe_source):
    context = visitor_context(browser, live_server, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems = {}
    for path in (acme.url, f"{acme.url}?q=backups", f"{acme.url}documents/{acme.on_request.uuid}/request/"):
        page.goto(path)
        if found := axe_violations(page, axe_source):
            problems[path] = found
    page.set_content("<html lang='en'><body><main><img src='logo.png'></main></body></html>")
    assert any(v.startswith("image-alt") for v in axe_violations(page, axe_source))  # axe really ran
    context.close()
    assert not problems, json.dumps(problems, indent=2)
