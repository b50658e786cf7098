"""The demo-drafts reading aid drafts what `make run`'s demo drafts: from the demo library and the pages of the
demo's documentation site, which the app syncs as a documentation source."""

import pytest

from evaluation.demo_drafts import DOCS_SITE, draft_demo

pytestmark = pytest.mark.django_db


def test_the_demo_drafts_are_made_from_the_demo_library_and_its_documentation_site():
    drafts = {item["label"]: item for item in draft_demo({"B.3", "D.1"})}
    assert set(drafts) == {"B.3", "D.1"}
    assert "SAML 2.0" in drafts["B.3"]["draft"] and "Orrery_security_whitepaper" in drafts["B.3"]["cited"]
    assert drafts["B.3"]["verdict"] == "approved"
    # D.1's legal holds are on the documentation site's retention page, which an upload-only library lacks
    retention = (DOCS_SITE / "retention.html").read_text()
    assert "legal hold" in retention.lower() and "A legal hold suspends disposal" in drafts["D.1"]["draft"]


def test_a_list_announced_by_its_count_is_drafted_whole_and_in_order():
    """The sentences "…a fixed method in five phases" and "…in three editions" announce the table after them: the drafts give
    every phase and every edition, in the table's order, where the question's words met two of each."""
    drafts = {item["label"]: item["draft"] for item in draft_demo({"F.3", "G.1"})}
    phases = ["Discover:", "Configure:", "Migrate:", "Train:", "Go live:"]
    assert sorted(phases, key=drafts["F.3"].find) == phases and all(p in drafts["F.3"] for p in phases)
    editions = ["in three editions", "Standard:", "Professional:", "Enterprise:"]
    assert sorted(editions, key=drafts["G.1"].find) == editions and all(e in drafts["G.1"] for e in editions)


def test_a_lone_row_of_a_summary_table_leaves_room_for_the_sentence_naming_more_and_is_then_not_said_twice():
    """For "Which security certifications do you hold?" the security summary's row names ISO 27001 and SOC 2; the
    whitepaper's sentence also names Cyber Essentials Plus, and the draft quotes it too. The whitepaper's two
    sentences then say everything the row says, so the row is left out: the client reads each certification once."""
    (draft,) = draft_demo({"B.5"})
    assert "holds Cyber Essentials Plus" in draft["draft"]
    assert draft["draft"].count("SOC 2 Type II report every year") == 1
    assert "Certification:" not in draft["draft"]


def test_each_part_of_a_two_part_question_gets_its_own_sentence():
    """For "What monthly availability do you commit to, and what service credits apply if it is missed?" the credits
    sentence ("If monthly availability falls below 99.9%…") matches the first part best too, but answers the second
    far more clearly; the first part quotes the commitment, and the draft opens on it."""
    (draft,) = draft_demo({"C.2"})
    commitment, credits = "Orrery is available 99.9% of every calendar month", "If monthly availability falls below"
    assert draft["draft"].startswith(commitment) and credits in draft["draft"]
