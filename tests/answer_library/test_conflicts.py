"""No contradictions: near-duplicates and conflicting entries are found and listed; facts are checked before export."""

import pytest

from answer_library import tasks
from answer_library.models import CanonicalFact, Entry, Finding, LibraryJob
from answer_library.services import conflicts, entries
from rfp_manager.models import Answer

from .conftest import make_rfp

pytestmark = pytest.mark.django_db


def entry(user, question, answer, **extra) -> Entry:
    return entries.save_entry(Entry(), user, "test", question=question, answer_text=answer, **extra)


@pytest.fixture
def library_entries(user, llm_api):
    return {
        "rotation_90": entry(user, "How often must users change their passwords?", "Passwords expire every 90 days."),
        "rotation_180": entry(user, "How often do users have to change their password?", "Every 180 days."),
        "mfa_yes": entry(
            user, "Is multi-factor authentication enforced for all accounts?", "Yes, for all.", choice="yes"
        ),
        "mfa_no": entry(
            user, "Is multi-factor authentication enforced for all user accounts?", "Only for admins.", choice="no"
        ),
        "dc_a": entry(user, "Which data centres host the service?", "Frankfurt and Dublin."),
        "dc_b": entry(user, "Which data centres host your service?", "Our data centres are in Frankfurt and Dublin."),
        "keys": entry(user, "How often are encryption keys rotated?", "Yearly."),
    }


def pair(a: Entry, b: Entry) -> Finding:
    return Finding.objects.get(first_id=min(a.pk, b.pk), second_id=max(a.pk, b.pk))


def test_two_conflicting_entries_are_found(library_entries, user, user_client):
    job = LibraryJob.objects.create(job_type=LibraryJob.CONFLICTS, started_by=user)

    result = tasks.batch_find_duplicates_and_conflicts.apply(args=[job.pk]).get()

    e = library_entries
    assert result["success"]
    assert pair(e["rotation_90"], e["rotation_180"]).kind == Finding.Kind.CONFLICT
    assert "180" in pair(e["rotation_90"], e["rotation_180"]).detail
    assert pair(e["mfa_yes"], e["mfa_no"]).kind == Finding.Kind.CONFLICT
    assert pair(e["dc_a"], e["dc_b"]).kind == Finding.Kind.DUPLICATE
    assert (
        not Finding.objects.filter(first=e["keys"]).exists() and not Finding.objects.filter(second=e["keys"]).exists()
    )
    assert Finding.objects.count() == 3
    page = user_client.get("/answers/findings/").content.decode()
    assert "Passwords expire every 90 days." in page and "Every 180 days." in page


def test_a_second_scan_adds_nothing_and_keeps_decisions(library_entries, user):
    conflicts.scan()
    dismissed = pair(library_entries["mfa_yes"], library_entries["mfa_no"])
    conflicts.dismiss(dismissed, user)

    conflicts.scan()

    assert Finding.objects.count() == 3
    dismissed.refresh_from_db()
    assert dismissed.status == Finding.Status.DISMISSED


def test_keeping_one_merges_the_other_into_it(library_entries, user, user_client):
    conflicts.scan()
    finding = pair(library_entries["dc_a"], library_entries["dc_b"])
    kept_first = finding.first

    user_client.post(f"/answers/findings/{finding.pk}/decide/", {"decision": "keep_first"})

    kept_first.refresh_from_db()
    merged = finding.second
    merged.refresh_from_db()
    assert merged.status == Entry.Status.MERGED and merged.merged_into == kept_first
    assert merged.question in kept_first.alternatives and kept_first.version == 2


def test_the_scan_starts_from_the_page_as_a_job(library_entries, user_client):
    response = user_client.post("/answers/findings/scan/")
    job = LibraryJob.objects.get(job_type=LibraryJob.CONFLICTS)
    assert response.status_code == 302 and response["Location"] == f"/answers/jobs/{job.pk}/"
    assert job.status == "pending"  # queued after commit through the outbox; a worker runs it


def test_a_canonical_fact_stated_differently_is_shown_before_export(user, user_client, llm_api):
    CanonicalFact.objects.create(name="Password rotation (days)", pattern=r"password[^.]*?(\d+)\s*days", value="90")
    rfp = make_rfp(user, ["How often are passwords changed?", "What is your backup policy?"])
    first, second = rfp.questions.order_by("order")
    Answer.objects.create(question=first, draft_text="User passwords expire every 180 days.")
    Answer.objects.create(question=second, draft_text="Backups run hourly.")

    page = user_client.get(f"/rfps/{rfp.pk}/").content.decode()

    assert 'id="fact-mismatches"' in page
    assert "Password rotation (days) is “180” here, but “90” is canonical" in page


def test_answers_that_agree_with_the_facts_show_no_warning(user, user_client, llm_api):
    CanonicalFact.objects.create(
        name="Legal name", pattern=r"(Kestrel Peak Software(?:,? (?:Ltd|Inc)\.?)?)", value="Kestrel Peak Software Ltd"
    )
    rfp = make_rfp(user, ["Who are you?"])
    Answer.objects.create(question=rfp.questions.get(), draft_text="We are Kestrel Peak Software Ltd.")

    assert 'id="fact-mismatches"' not in user_client.get(f"/rfps/{rfp.pk}/").content.decode()


def test_citation_marks_are_not_figures():
    assert conflicts.numbers("Backups are kept for 35 days [1], restored every 3 months [2].") == {"35", "3"}
