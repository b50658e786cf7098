"""Fixtures for the answer library tests: the rfp_manager fake-LLM front and library, and an approved answer."""

import pytest

from answer_library.models import Entry
from answer_library.services import entries
from rfp_manager.services import answering
from tests.rfp_manager.conftest import chat_requests, library, llm_api, llm_front, make_rfp  # noqa: F401

BACKUP_QUESTION = "How often are backups taken and how long are they kept?"
BACKUP_REWORDED = "How frequently are backups taken, and for how long are they kept?"


@pytest.fixture
def chat_model(library):
    from llm_manager.models import LLMModel

    return LLMModel.objects.get(name="fake-chat")


@pytest.fixture
def approved_entry(user, library, chat_model) -> Entry:
    """The backup question answered in a first RFP from the documents, then approved by a person."""
    first = make_rfp(user, [BACKUP_QUESTION], name="First RFP")
    answer = answering.generate_answer(first.questions.get(), model=chat_model)
    assert answer.library_entry_id is None and answer.cited_passages  # drafted from the documents, with a citation
    return entries.approve_answer(answer, user, tags=["backup"])


@pytest.fixture
def user(user):
    """Alice edits the answer library in these tests (answer_library.edit_library); tests/teamwork covers the others."""
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="edit_library"))
    return user
