"""Documents: public ones download at once; on-request ones after the NDA, a team member's approval and the emailed,
signed, time-limited link — watermarked with the visitor's email; every step logged and in the audit trail."""

import io
from urllib.parse import urlsplit

import pytest
from pypdf import PdfReader

from audit.models import AuditEvent
from jobs.models import OutboxMessage
from solution_library.models import DocumentType
from trust_center.models import AccessRequest, PublishedDocument, VisitorEvent
from trust_center.services import access
from trust_center.tasks import send_access_link

from .conftest import add_document

pytestmark = pytest.mark.django_db

VISITOR = {"name": "Vera Visitor", "company": "Prospect GmbH", "email": "vera@prospect.example", "accept_nda": "on"}


def _request(client, acme, address="127.0.0.1", **changes):
    url = f"{acme.url}documents/{acme.on_request.uuid}/request/"
    return client.post(url, {**VISITOR, **changes}, REMOTE_ADDR=address)


def _approve_in_admin(client, team, access_request):
    client.force_login(team)
    response = client.post(
        "/admin/trust_center/accessrequest/", {"action": "approve", "_selected_action": [access_request.pk]}
    )
    client.logout()
    assert response.status_code == 302


def test_a_public_document_downloads_and_is_logged(client, acme):
    response = client.get(f"{acme.url}documents/{acme.public.uuid}/")
    assert response.status_code == 200
    assert b"".join(response).startswith(b"%PDF")
    assert VisitorEvent.objects.filter(kind="download", document=acme.public).count() == 1


def test_an_on_request_document_does_not_download_without_the_link(client, acme):
    assert client.get(f"{acme.url}documents/{acme.on_request.uuid}/").status_code == 404


def test_the_request_form_shows_the_nda_and_refuses_a_request_without_it(client, acme):
    form = client.get(f"{acme.url}documents/{acme.on_request.uuid}/request/")
    assert form.status_code == 200 and acme.center.nda_text in form.content.decode()
    response = _request(client, acme, accept_nda="")
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    assert not AccessRequest.objects.exists()


def test_a_public_document_has_no_request_form(client, acme):
    assert client.get(f"{acme.url}documents/{acme.public.uuid}/request/").status_code == 404


def test_request_approve_email_link_and_watermarked_download(client, acme, team, mailoutbox):
    response = _request(client, acme)
    assert response.status_code == 200 and "email a download link to vera@prospect.example" in response.content.decode()
    made = AccessRequest.objects.get()
    assert made.status == "pending" and made.nda_text == acme.center.nda_text and made.nda_accepted_at

    _approve_in_admin(client, team, made)
    made.refresh_from_db()
    assert made.status == "approved" and made.decided_by == team
    assert OutboxMessage.objects.filter(task_name="trust_center.send_access_link", args=[made.pk]).exists()

    assert send_access_link.apply(args=[made.pk]).get()["sent"] is True  # what the worker runs
    [email] = mailoutbox
    assert email.to == ["vera@prospect.example"] and "7 days" in email.body
    link = next(line for line in email.body.splitlines() if "/trust/acme/access/" in line)
    path = urlsplit(link.strip()).path

    page = client.get(path)
    assert page.status_code == 200 and "SOC 2 Type II report" in page.content.decode()
    download = client.get(f"{path}download/")
    assert download.status_code == 200
    pdf = PdfReader(io.BytesIO(download.content))
    assert pdf.metadata["/SpelunkerRecipient"] == "vera@prospect.example"
    assert "vera@prospect.example" in pdf.metadata["/Subject"]
    for pdf_page in pdf.pages:  # the footer on every page, the original text kept
        text = pdf_page.extract_text()
        assert "Provided by Acme Cloud to vera@prospect.example" in text and "Acme SOC 2 Type II report" in text

    kinds = list(VisitorEvent.objects.filter(email="vera@prospect.example").values_list("kind", flat=True))
    assert sorted(kinds) == ["download", "link_opened", "request"]
    trail = AuditEvent.objects.filter(action="trust_center").values_list("target", flat=True)
    assert any("vera@prospect.example downloaded a document “SOC 2 Type II report”" in t for t in trail)
    assert any("approved vera@prospect.example's request" in t for t in trail)
    client.force_login(team)
    audit_page = client.get("/audit/").content.decode()  # the team reads them on the audit page
    assert "vera@prospect.example opened their link" in audit_page


def test_the_link_opens_only_its_own_document_and_stops_when_declined_forged_or_expired(client, acme, team):
    made = access.request_access(acme.on_request, name="V", company="P", email="v@p.example")
    token = access.make_token(made)
    assert client.get(f"{acme.url}access/{token}/").status_code == 404  # not approved yet
    access.decide(made, team, approve=True)
    assert client.get(f"{acme.url}access/{token}/").status_code == 200
    assert client.get(f"/trust/other/access/{token}/").status_code == 404  # another center's address
    assert client.get(f"{acme.url}access/{token[:-2]}xx/").status_code == 404  # forged
    acme.center.link_valid_days = 0
    acme.center.save()
    assert client.get(f"{acme.url}access/{token}/download/").status_code == 404  # expired
    acme.center.link_valid_days = 7
    acme.center.save()
    access.decide(made, team, approve=False)
    assert client.get(f"{acme.url}access/{token}/download/").status_code == 404  # declined afterwards


def test_a_declined_request_gets_no_email(acme, team, mailoutbox):
    made = access.request_access(acme.on_request, name="V", company="P", email="v@p.example")
    access.decide(made, team, approve=False)
    assert send_access_link.apply(args=[made.pk]).get()["sent"] is False
    assert mailoutbox == []


def test_requests_are_rate_limited_per_visitor_address(client, acme, settings):
    settings.TRUST_CENTER_REQUESTS_PER_HOUR = 2
    assert _request(client, acme).status_code == 200
    assert _request(client, acme).status_code == 200
    assert _request(client, acme).status_code == 429
    assert AccessRequest.objects.count() == 2
    assert _request(client, acme, address="10.1.1.1").status_code == 200  # another visitor is not held back


def test_the_team_reads_the_visitor_log_in_the_admin(client, acme, team):
    _request(client, acme)
    client.force_login(team)
    page = client.get("/admin/trust_center/visitorevent/")
    assert page.status_code == 200 and "vera@prospect.example" in page.content.decode()


def test_another_centers_document_is_not_reachable_through_this_center(client, acme, team):
    from trust_center.models import PublishedDocument, TrustCenter

    other = TrustCenter.objects.create(
        slug="other", name="Other", is_live=True, overview=".", nda_text=".", inbox_owner=team
    )
    theirs = PublishedDocument.objects.create(center=other, document=acme.secret, title="Theirs", access="public")
    assert client.get(f"/trust/other/documents/{theirs.uuid}/").status_code == 200
    assert client.get(f"{acme.url}documents/{theirs.uuid}/").status_code == 404
    assert client.get(f"{acme.url}documents/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_a_document_that_cannot_carry_the_mark_is_never_said_to_be_marked(client, acme, team, mailoutbox):
    """Only a PDF gets the visitor's address written into it: the email and the link's page said "Your copy is marked
    with your email address" of a text file served as it is."""
    word = add_document("Security policy", b"Plain policy text.", DocumentType.TEXT, "policy.txt")
    policy = PublishedDocument.objects.create(
        center=acme.center, document=word, title="Security policy", access=PublishedDocument.Access.ON_REQUEST
    )
    for published in (acme.on_request, policy):
        access.decide(access.request_access(published, name="V", company="P", email="v@p.example"), team, approve=True)
    send_access_link.apply(args=[AccessRequest.objects.get(document=acme.on_request).pk]).get()
    send_access_link.apply(args=[AccessRequest.objects.get(document=policy).pk]).get()
    pdf_email, text_email = mailoutbox
    assert "Your copy is marked with your email address, v@p.example." in pdf_email.body
    assert "marked with" not in text_email.body and "download is recorded against your email address" in text_email.body

    page = client.get(f"{acme.url}access/{access.make_token(AccessRequest.objects.get(document=policy))}/")
    assert "recorded against your email address" in page.content.decode()
    assert "marked with" not in page.content.decode()
    download = client.get(f"{acme.url}access/{access.make_token(AccessRequest.objects.get(document=policy))}/download/")
    assert b"".join(download) == b"Plain policy text."  # served as it is: nothing in it says otherwise
