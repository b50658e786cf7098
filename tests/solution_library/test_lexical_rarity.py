"""The lexical ranking weighs a question's words by their rarity, on both databases.

A question's one rare word names its subject; its common words ("data", "access") are in most
passages. SQLite's bm25 weighs each word by its inverse document frequency; PostgreSQL's
ts_rank_cd over an OR of the words did not, and ranked a passage repeating the common words above
the one passage holding the rare word (make eval: lexical recall@5 0.635 on PostgreSQL against 0.774
on SQLite, dev split). lexical.postgres_ranking_sql now weighs each word by BM25's idf.
"""

from solution_library.models import Chunk
from solution_library.services.lexical import inverse_document_frequency, lexical_ranking
from solution_library.testing import add_library_document

COMMON = "Data access is logged. Access to customer data is reviewed, and data access requests are approved."


def test_the_passage_with_the_rare_word_outranks_those_repeating_the_common_ones(offline_embedding):
    common = [add_library_document(f"Handbook {n}", f"{COMMON} Section {n} of the handbook.") for n in range(6)]
    rare = add_library_document("Disposal", "Disks are zeroized before they leave the building.")
    model_id = Chunk.objects.values_list("embedding_model_id", flat=True).first()

    ranked = [chunk_id for chunk_id, _ in lexical_ranking(["data", "access", "zeroized"], 10, model_id)]

    documents = dict(Chunk.objects.filter(id__in=ranked).values_list("id", "document_id"))
    assert documents[ranked[0]] == rare.pk
    assert {documents[c] for c in ranked[1:]} == {d.pk for d in common}  # the common words still match


def test_a_word_held_by_fewer_chunks_weighs_more_and_never_negative():
    assert inverse_document_frequency(100, 1) > inverse_document_frequency(100, 50) > 0
    assert inverse_document_frequency(100, 100) > 0
