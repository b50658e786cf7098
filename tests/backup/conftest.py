"""A team's work to back up: a teamwork RFP as people leave it, and an install to restore it into."""

import importlib
from datetime import date, timedelta

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.files.base import ContentFile
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from answer_library.services.entries import approve_answer
from rfp_manager.models import Answer, InformationDocument
from rfp_manager.services import answering, workflow
from teamwork.models import Role
from teamwork.services.assignments import assign_questions
from teamwork.services.comments import add_comment
from tests.teamwork.conftest import add_member, draft_answers, make_rfp


def build_teamwork_rfp(owner, django_user_model):
    """An RFP shared with a group, with roles, an assignment, an edit, a mention, approvals, a library entry and a file."""
    group = Group.objects.create(name="Bid team")
    group.permissions.add(Permission.objects.get(codename="edit_library"))
    owner.groups.add(group)
    rfp = make_rfp(owner, name="Acme tender (teamwork)")
    rfp.shared_with.add(group)
    bob = add_member(rfp, django_user_model, "bob", Role.CONTRIBUTOR)
    add_member(rfp, django_user_model, "carol", Role.VIEWER)
    questions = list(rfp.questions.order_by("order"))
    draft_answers(questions)
    assign_questions(rfp, questions[:3], bob, date.today() + timedelta(days=3), by=owner)
    answering.save_final_text(Answer.objects.get(question=questions[0]), "Yes, with AES-256 at rest.", bob)
    add_comment(questions[0], owner, "Thanks @bob, approving it.")
    workflow.approve(questions[:2], owner)
    approve_answer(Answer.objects.get(question=questions[0]), owner, tags=["encryption"])
    InformationDocument.objects.create(
        rfp=rfp, title="Tender terms", file=ContentFile(b"Submit by 1 March.", name="terms.txt"), uploaded_by=owner
    )
    return rfp


def seed_like_migrate() -> None:
    """The LLM APIs and models `migrate` makes on a fresh install (a flush empties them).

    With the migration's own historical models, as migrate runs it: no signal fires, so no audit event.
    """
    state = MigrationLoader(connection).project_state(("llm_manager", "0002_local_minilm_default"))
    importlib.import_module("llm_manager.migrations.0001_squashed").create_offline_baseline(state.apps, None)
    importlib.import_module("llm_manager.migrations.0002_local_minilm_default").register_local_default(state.apps, None)


@pytest.fixture
def local_media(settings, tmp_path):
    """Media on this machine's disk, in a folder of the test's own; `new_machine()` moves to an empty one."""

    def new_machine(name: str):
        settings.MEDIA_ROOT = tmp_path / name / "media"
        settings.SEARCH_INDEX_DIR = tmp_path / name / "search-index"

    new_machine("old")
    return new_machine
