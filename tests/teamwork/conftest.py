"""Alice owns an RFP of eight questions; bob is a contributor on it, with an email address."""

import pytest

from rfp_manager.models import RFP, Answer, Question
from rfp_manager.services import workflow
from teamwork.models import Membership, Role
from tests.solution_library.conftest import offline_embedding  # noqa: F401  (library tests need it)

QUESTIONS = [
    "Do you encrypt data at rest?",
    "Do you encrypt data in transit?",
    "How often are backups taken?",
    "Where are your data centres?",
    "Do you hold an ISO 27001 certificate?",
    "How do you rotate keys?",
    "Who may access production?",
    "How fast do you patch critical vulnerabilities?",
]


def make_rfp(owner, name="Acme tender", questions=QUESTIONS) -> RFP:
    rfp = RFP.objects.create(name=name, client="Acme", owner=owner)
    Question.objects.bulk_create(
        Question(rfp=rfp, number=str(i + 1), text=text, order=i, import_key=f"n:|{i + 1}")
        for i, text in enumerate(questions)
    )
    return rfp


def draft_answers(questions) -> None:
    """A draft for each question, as the responder job leaves it (status drafted): each could be approved."""
    Answer.objects.bulk_create(Answer(question=q, draft_text=f"Draft answer to {q.label}.") for q in questions)
    workflow.sync_status(Question.objects.filter(pk__in=[q.pk for q in questions]))


@pytest.fixture
def rfp(user):
    return make_rfp(user)


def add_member(rfp, django_user_model, name: str, role: str, email: str = ""):
    member = django_user_model.objects.create_user(
        name, email=email or f"{name}@example.com", password=f"pw-{name}-12345"
    )
    Membership.objects.create(rfp=rfp, user=member, role=role)
    return member


@pytest.fixture
def bob(rfp, django_user_model):
    return add_member(rfp, django_user_model, "bob", Role.CONTRIBUTOR)


@pytest.fixture
def carol(rfp, django_user_model):
    """A viewer of the RFP."""
    return add_member(rfp, django_user_model, "carol", Role.VIEWER)
