"""A small world for the security tests: an RFP owned by alice with everything under it,
library content, a source, jobs of every kind — and bob, who owns none of it."""

from types import SimpleNamespace

import pytest
from django.core.files.base import ContentFile
from django.urls import resolve, reverse

from jobs.models import SystemCheck
from llm_manager.models import ValidationRun
from rfp_manager.models import RFP, InformationDocument, Question, QuestionImportJob, RFPBatchJob
from solution_library.models import DocumentationSource, EmbedBatchJob, SyncJob
from solution_library.testing import add_library_document
from tests.solution_library.conftest import offline_embedding  # noqa: F401  (a fixture `world` needs)


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-12345")


@pytest.fixture
def bob_client(client, bob):
    client.force_login(bob)
    return client


def _import_questions(owner_client, rfp) -> int:
    """A question import made the way a person makes one (its preview is the object under test)."""
    response = owner_client.post(reverse("rfp_manager:import", args=[rfp.pk]), {"text": "1. Do you encrypt backups?"})
    assert response.status_code == 302, response.content.decode()[:500]
    return resolve(response["Location"]).kwargs["pk"]


@pytest.fixture
def world(db, offline_embedding, user, staff_user, client_factory):
    """Alice's RFP with a question, an import, a document and a job; shared library and staff objects."""
    rfp = RFP.objects.create(name="Alice's confidential RFP", client="Acme", owner=user)
    question = Question.objects.create(
        rfp=rfp, number="1", text="Do you encrypt data at rest?", order=0, import_key="n:|1"
    )
    information_document = InformationDocument(rfp=rfp, title="Client brief", uploaded_by=user)
    information_document.file.save("brief.txt", ContentFile(b"The client wants answers by Friday."))
    job = RFPBatchJob.objects.create(
        rfp=rfp, job_type="responder", started_by=user, question_ids=[question.pk], total_items=1, status="completed"
    )
    document = add_library_document("Security handbook", "All customer data is encrypted at rest with AES-256.")
    source = DocumentationSource.objects.create(
        name="Docs", start_url="https://docs.example.com/", allowed_host="docs.example.com"
    )
    api = offline_embedding.api
    return SimpleNamespace(
        rfp=rfp,
        question=question,
        information_document=information_document,
        rfp_job=job,
        question_import=SimpleNamespace(pk=(import_id := _import_questions(client_factory(user), rfp))),
        import_job=QuestionImportJob.objects.create(question_import_id=import_id, status="completed"),
        document=document,
        chunk=document.chunks.order_by("pk").first(),
        source=source,
        sync_job=SyncJob.objects.create(source=source, status="completed"),
        embed_job=EmbedBatchJob.objects.create(status="completed"),
        llm_api=api,
        validation_run=ValidationRun.objects.create(api=api, status="completed"),
        system_check=SystemCheck.objects.create(status="completed"),
        notification=_failed_email(user),
        **_library_world(question, user),
        **_trust_world(document, staff_user),
    )


def _failed_email(user):
    from teamwork.models import Notification

    return Notification.objects.create(
        recipient=user,
        kind="assigned",
        text="Assigned Q1",
        email_status=Notification.Email.FAILED,
        email_error="550 no such user",
    )


def _trust_world(document, team) -> dict:
    """A live trust center with a logo, a public and an on-request document, and an approved visitor's link."""
    from trust_center.models import PublishedDocument, TrustCenter
    from trust_center.services import access

    center = TrustCenter.objects.create(
        slug="acme", name="Acme", is_live=True, overview="Safe.", nda_text="Keep it secret.", inbox_owner=team
    )
    center.logo.save("logo.png", ContentFile(b"\x89PNG\r\n\x1a\n"))
    public = PublishedDocument.objects.create(center=center, document=document, title="Overview", access="public")
    on_request = PublishedDocument.objects.create(center=center, document=document, title="SOC 2", access="on_request")
    request = access.request_access(on_request, name="Vera", company="Prospect", email="vera@prospect.example")
    access.decide(request, team, approve=True)
    return {
        "trust": SimpleNamespace(slug=center.slug, uuid=on_request.uuid, token=access.make_token(request)),
        "trust_public": SimpleNamespace(slug=center.slug, uuid=public.uuid),
    }


def member_client(world, client_factory, django_user_model, name: str, role: str):
    """A signed-in client of a new user holding `role` on alice's RFP (and nothing assigned)."""
    from teamwork.models import Membership

    member = django_user_model.objects.create_user(name, password=f"pw-{name}-12345")
    Membership.objects.create(rfp=world.rfp, user=member, role=role)
    return client_factory(member)


def _library_world(question, user) -> dict:
    """An answered question (approvable), its candidate, two entries with a finding, an import and its job."""
    from answer_library.models import Candidate, Entry, Finding, LibraryImport, LibraryJob
    from answer_library.services.entries import save_entry
    from rfp_manager.models import Answer

    answer = Answer.objects.create(question=question, draft_text="Yes, with AES-256.")
    candidate = Candidate.objects.create(answer=answer, text="Yes, AES-256 at rest.", edited_by=user)
    first = save_entry(Entry(), user, "test", question="Is data encrypted at rest?", answer_text="Yes.")
    second = save_entry(Entry(), user, "test", question="Do you encrypt stored data?", answer_text="Yes, AES.")
    library_import = LibraryImport(original_name="past.csv", kind="csv", created_by=user)
    library_import.file.save("past.csv", ContentFile(b"Question,Answer\nIs data encrypted?,Yes\n"))
    return {
        "answer": answer,
        "candidate": candidate,
        "library_entry": first,
        "finding": Finding.objects.create(kind="duplicate", first=first, second=second, similarity=0.9),
        "library_import": library_import,
        "library_job": LibraryJob.objects.create(job_type="import", library_import=library_import, status="completed"),
    }


@pytest.fixture
def client_factory():
    """A fresh test client signed in as the given user (several users in one test)."""
    from django.test import Client

    def make(user=None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    return make


def pytest_sessionfinish(session):
    """The hostile-file suite recorded its cases: rewrite docs/reliability.md from them (tests/faults/report.py)."""
    from tests.faults.report import write_report_after

    write_report_after(session)
