"""The public page: what a visitor sees (only what the team published and approved), without signing in."""

import pytest

from answer_library.models import Entry
from answer_library.services.entries import save_entry
from trust_center.models import PublishedEntry, VisitorEvent
from trust_center.services import publishing

from .conftest import PUBLISHED, UNPUBLISHED

pytestmark = pytest.mark.django_db


def test_an_anonymous_visitor_reads_the_overview_sections_entries_and_documents(client, acme):
    response = client.get(acme.url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Acme Cloud keeps customer data safe." in html and "Trust Center" in html
    for title, rows in PUBLISHED.items():
        assert title in html
        for question, answer in rows:
            assert question in html and answer in html
    assert "Last reviewed" in html
    assert UNPUBLISHED[0] not in html and UNPUBLISHED[1] not in html
    assert f"/trust/acme/documents/{acme.public.uuid}/" in html  # public: a download link
    assert f"/trust/acme/documents/{acme.on_request.uuid}/request/" in html  # on request: the request form
    assert f'/trust/acme/documents/{acme.on_request.uuid}/"' not in html
    assert "Internal runbook" not in html
    assert "--brand: #0b3d91" in html  # the team's colours


def test_a_center_that_is_not_live_or_does_not_exist_is_a_plain_404(client, acme):
    acme.center.is_live = False
    acme.center.save()
    assert client.get(acme.url).status_code == 404
    assert client.get("/trust/nobody/").status_code == 404


def test_an_edited_entry_keeps_its_approved_text_on_the_page_until_the_team_approves_the_new_one(client, acme, team):
    question, old_answer = PUBLISHED["Infrastructure"][0]
    published = acme.published[question]
    entry = published.entry
    save_entry(entry, team, "Moved region", answer_text="In AWS us-east-1 only.")
    html = client.get(acme.url).content.decode()
    assert old_answer in html and "us-east-1" not in html
    published.refresh_from_db()
    assert publishing.has_newer_text(published)

    publishing.approve_text(published, team)
    html = client.get(acme.url).content.decode()
    assert "In AWS us-east-1 only." in html and old_answer not in html
    assert not publishing.has_newer_text(published)


def test_a_stale_entry_keeps_showing_its_last_approved_text_and_cannot_be_approved_until_reviewed(client, acme, team):
    question, answer = PUBLISHED["Data protection"][0]
    published = acme.published[question]
    Entry.objects.filter(pk=published.entry_id).update(
        status=Entry.Status.NEEDS_REVIEW, answer_text="Draft: maybe not any more.", version=99
    )
    assert answer in client.get(acme.url).content.decode()
    published.refresh_from_db()
    with pytest.raises(publishing.NotApprovable):
        publishing.approve_text(published, team)
    html = client.get(acme.url).content.decode()
    assert answer in html and "maybe not" not in html


def test_a_retired_entry_leaves_the_page(client, acme):
    question, _ = PUBLISHED["Infrastructure"][1]
    Entry.objects.filter(pk=acme.published[question].entry_id).update(status=Entry.Status.RETIRED)
    assert question not in client.get(acme.url).content.decode()


def test_the_admin_approves_the_new_text_with_an_action(client, acme, team):
    question, old_answer = PUBLISHED["Infrastructure"][0]
    published = acme.published[question]
    save_entry(published.entry, team, "Moved region", answer_text="In AWS us-east-1 only.")
    client.force_login(team)
    listing = client.get("/admin/trust_center/publishedentry/")
    assert listing.status_code == 200
    response = client.post(
        "/admin/trust_center/publishedentry/",
        {"action": "approve_new_text", "_selected_action": [published.pk]},
    )
    assert response.status_code == 302
    published.refresh_from_db()
    assert published.answer_text == "In AWS us-east-1 only." and published.approved_by == team


def test_adding_an_entry_in_the_admin_publishes_its_current_text(client, acme, team):
    client.force_login(team)
    section = acme.center.sections.get(title="Data protection")
    response = client.post(
        "/admin/trust_center/publishedentry/add/", {"section": section.pk, "entry": acme.hidden.pk, "order": 5}
    )
    assert response.status_code == 302
    published = PublishedEntry.objects.get(entry=acme.hidden)
    assert published.answer_text == UNPUBLISHED[1] and published.approved_by == team


def test_every_page_view_is_in_the_visitor_log(client, acme):
    client.get(acme.url)
    client.get(acme.url, REMOTE_ADDR="10.0.0.9")
    views = VisitorEvent.objects.filter(kind=VisitorEvent.Kind.PAGE_VIEW)
    assert views.count() == 2 and len({e.visitor_key for e in views}) == 2  # two visitors, told apart
    assert "10.0.0.9" not in {e.visitor_key for e in views}  # hashed, not kept


def test_the_logo_is_served_to_anonymous_visitors(client, acme):
    from django.core.files.base import ContentFile

    acme.center.logo.save("acme.png", ContentFile(b"\x89PNG\r\n\x1a\nfake"))
    html = client.get(acme.url).content.decode()
    assert 'src="/trust/acme/logo"' in html
    response = client.get("/trust/acme/logo")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
