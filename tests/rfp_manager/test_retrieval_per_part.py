"""A question of several parts is also searched part by part: a part that another document answers gets its evidence.

With all-MiniLM-L6-v2 (the default embedding model) on a library where the question's first part fills the
question's own passages by itself.
"""

import pytest

from llm_manager.models import LLMApi, LLMModel
from rfp_manager.services import answering
from solution_library.services.search import search_passages

from .conftest import make_rfp

QUESTION = (
    "How often are backups taken, how long are they kept, where are they stored, and which tool monitors replication?"
)
# Every guide answers the first three parts; only the runbook says which tool monitors replication.
SYSTEMS = (
    "customer database, file store, search index, mail archive, audit log, configuration store, analytics warehouse, "
    "billing ledger, document archive, message queue, identity directory, reporting database, build cache, "
    "ticket history, payment records, media library, chat history, metrics store, secrets vault, web content"
).split(", ")
BACKUP_GUIDES = {
    f"Backup guide for the {system}": (
        f"Backups of the {system} are taken every {('hour', 'night', 'day', 'week')[n % 4]}, kept for {30 + n} days "
        "and stored in a second region."
    )
    for n, system in enumerate(SYSTEMS)
}
REPLICATION = {
    "Replication runbook": "Replication lag on the standby is watched by Prometheus, which pages the on-call engineer."
}


@pytest.fixture
def library(llm_api):
    from llm_manager.services import make_default
    from solution_library.testing import add_library_document

    make_default(LLMModel.objects.get(api__kind=LLMApi.KIND_LOCAL, name="all-MiniLM-L6-v2"))
    return [add_library_document(title, text) for title, text in {**BACKUP_GUIDES, **REPLICATION}.items()]


def _titles(passages) -> list[str]:
    return [p["document_title"] if isinstance(p, dict) else p.document_title for p in passages]


def test_a_part_answered_by_another_document_brings_its_passage(user, library):
    question = make_rfp(user, [QUESTION]).questions.get()
    # The question as a whole: its nearest passages are all about backups.
    assert "Replication runbook" not in _titles(search_passages(QUESTION, limit=answering.PASSAGES_PER_QUESTION))

    passages = answering.retrieve_passages(question)

    assert "Replication runbook" in _titles(passages)
    assert [p["n"] for p in passages] == list(range(1, len(passages) + 1))  # numbered as the prompt cites them
    assert len({p["chunk_id"] for p in passages}) == len(passages)  # a passage both searches found comes once


def test_a_question_of_one_part_keeps_its_own_passages(user, library):
    question = make_rfp(user, ["How often are backups taken?"]).questions.get()

    passages = answering.retrieve_passages(question)

    assert _titles(passages) == _titles(search_passages(question.text, limit=answering.PASSAGES_PER_QUESTION))


def test_each_passage_keeps_its_place_in_the_questions_own_search_and_the_gate_reads_the_first_five(user, library):
    question = make_rfp(user, [QUESTION]).questions.get()

    passages = answering.retrieve_passages(question)

    own = search_passages(QUESTION, limit=answering.PASSAGES_PER_QUESTION)
    assert len(own) == answering.PASSAGES_PER_QUESTION == 7
    assert [p["rank"] for p in passages] == [1, 2, 3, 4, 5, 6, 7, None]  # the runbook: a part's nearest
    assert [p["rank"] for p in answering.gate_passages(passages)] == [1, 2, 3, 4, 5, None]
