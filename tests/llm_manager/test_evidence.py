"""Evidence chosen by meaning: sentence choice, multi-part order, lists, Markdown and headings as structure.

The similarity is the offline baseline embedding model's own (hashed vectors, as
a fresh install and the tests embed): relevance must behave with it too.
The passages are written here as the demo library's documents are laid out
(Markdown sections, a PDF's heading lines, a DOCX table as the parser writes it).
"""

from types import SimpleNamespace

import numpy as np
import pytest

from llm_manager.providers import evidence, grounding, local
from llm_manager.providers.offline import extractive_answer, hashed_embedding
from text import questions


def offline_similarity(queries, texts):
    vectors = np.asarray([hashed_embedding(t) for t in [*queries, *texts]])
    return (vectors[: len(queries)] @ vectors[len(queries) :].T).tolist()


@pytest.fixture(scope="module")
def minilm_similarity():
    """A fresh install's default embedding model (all-MiniLM-L6-v2), where the hashed vectors read too little."""
    encoder = local.BertEncoder(local.model_folder("all-MiniLM-L6-v2"))

    def similarity(queries, texts):
        vectors = encoder.embed([*queries, *texts])
        return (vectors[: len(queries)] @ vectors[len(queries) :].T).tolist()

    return similarity


def chosen_texts(question, passages, similarity=offline_similarity):
    return [c.text for c in evidence.choose(question, passages, similarity)]


def candidate_texts(passage):
    return [c.text for c in evidence.candidates({1: passage})]


API_GUIDE = """# Orrery API guide

Orrery offers a REST API over HTTPS with JSON payloads, documented in an OpenAPI 3.1 description.

## Authentication

The API uses OAuth 2.0 with the client credentials flow. Access tokens expire after one hour.

## Rate limits

Each tenant may make 600 requests per minute per integration. A client over the limit receives HTTP 429.

## SDKs

Official client libraries exist for Python, .NET and Java."""
PRICE_LIST = """## What the licence includes

Every licence includes hosting, backups, upgrades, the API, single sign-on, multi-factor authentication and support.
Read-only users are free of charge in every edition."""


# --- Markdown and headings ---------------------------------------------------------------------
def test_markdown_is_read_as_plain_sentences_and_list_items():
    passage = (
        "## Recovery objectives\n\n"
        "- **Recovery point objective (RPO):** 1 hour — at most one hour of changes can be lost.\n"
        "- **Recovery time objective (RTO):** 4 hours — see [the plan](https://example.org/dr) and `drctl`.\n"
    )
    units = grounding.passage_units(passage)

    assert [u.kind for u in units] == ["heading", "item", "item"]
    assert units[1].text == "Recovery point objective (RPO): 1 hour — at most one hour of changes can be lost."
    assert units[2].text.endswith("see the plan and drctl.") and units[2].heading == "Recovery objectives"
    prose = grounding.readable(passage)
    assert "**" not in prose and "#" not in prose and "](" not in prose and "`" not in prose


def test_underscored_emphasis_is_read_as_its_words_and_a_snake_case_name_keeps_its_underscores():
    """OWASP's pages set a zone's name as _DMZ Inbound_: a draft quoting it must not show the marks."""
    passage = "- _DMZ Inbound_ - a segment for services reachable from the Internet, set by log_min_duration_statement."

    assert [u.text for u in grounding.passage_units(passage)] == [
        "DMZ Inbound - a segment for services reachable from the Internet, set by log_min_duration_statement."
    ]


def test_a_table_row_reads_as_a_sentence_and_a_separator_row_as_nothing():
    docx = grounding.passage_units("Fact: Employees. Value: 185, of whom 70 in engineering.")
    markdown = grounding.passage_units("| Priority | First response |\n|---|---|\n| P1 critical | 30 minutes, 24x7 |")
    assert [u.text for u in docx] == ["Employees: 185, of whom 70 in engineering."]
    assert [u.text for u in markdown] == ["Priority: First response.", "P1 critical: 30 minutes, 24x7."]


def test_a_table_row_whose_cell_holds_a_colon_is_one_row():
    """A DOCX table's row as ingestion writes it, a cell saying "set up: roles…": one row, not three sentences."""
    row = "Phase: Configure. What happens: The tenant is set up: roles, single sign-on. Typical duration: 3 weeks."

    assert [(u.kind, u.text) for u in grounding.passage_units(row)] == [
        ("item", "Configure: What happens: The tenant is set up: roles, single sign-on; Typical duration: 3 weeks.")
    ]


def test_heading_fragments_are_context_never_quoted():
    """A PDF's heading lines ("Multi-factor authentication") head the sentences under them."""
    pdf = (
        "Identity and access\nMulti-factor authentication\n"
        "Multi-factor authentication is available to every user in every edition, at no extra cost.\n"
        "Administrators can make it mandatory.\nRoles and permissions\n"
        "Access is granted by roles and can be restricted per folder."
    )
    chosen = chosen_texts("Is multi-factor authentication available for all users?", {1: pdf})

    assert chosen and chosen[0].startswith("Multi-factor authentication is available to every user")
    assert "Multi-factor authentication." not in chosen and "Identity and access." not in chosen
    answer = extractive_answer("Is multi-factor authentication available for all users?", {1: pdf})
    assert not answer.startswith("Multi-factor authentication [1]")


def test_a_line_of_quotation_marks_alone_heads_nothing():
    """An HTML page's <quote> sets “ and ” on lines of their own: neither is read as a heading of the sentences
    after it (the heading a sentence is read with counts towards its relevance)."""
    page = "## Authentication Methods\n\n“\n\nIdentification Protocol\n\n”\n\nLDAP authentication relies on a server."
    units = grounding.passage_units(page)
    assert {u.heading for u in units} == {"Authentication Methods", "Identification Protocol"}


# --- sentence choice -------------------------------------------------------------------------------
def test_each_part_is_answered_by_the_sentence_about_it_not_by_one_that_shares_a_word():
    """The price list names "the API"; the rate limits are in the API guide, under their heading."""
    question = "Describe the API available to the council's developers, including authentication and rate limits."
    choices = evidence.choose(question, {1: PRICE_LIST, 2: API_GUIDE}, offline_similarity)
    rate_limits = [c for c in choices if c.part == 2]

    assert rate_limits and all(c.n == 2 for c in rate_limits)
    assert any("HTTP 429" in c.text or "600 requests" in c.text for c in rate_limits)
    assert [c.part for c in choices] == sorted(c.part for c in choices)


API_QUESTION = "Describe the API available to the council's developers, including authentication and rate limits."


@pytest.mark.parametrize(
    "other_subject, not_quoted",
    [
        # "Authentication" is asked of the API: the sign-in's authenticator apps answer another subject.
        (
            "## Multi-factor authentication\n\nOrrery supports authenticator apps (TOTP) and FIDO2 security keys "
            "for authentication.",
            "authenticator apps",
        ),
        # The certification names a standard and shares a stem with "developers" ("development"), but it is not
        # about the API: naming things lifts only a sentence relevant to the part without it.
        (
            "## Certifications\n\nKestrel Peak Software is certified to ISO/IEC 27001:2022 for the development and "
            "operation of Orrery, and holds Cyber Essentials Plus.",
            "ISO/IEC 27001",
        ),
    ],
    ids=["authentication of the sign-in", "a certification that names a standard"],
)
def test_an_api_question_is_not_answered_from_a_passage_about_another_subject(
    minilm_similarity, other_subject, not_quoted
):
    chosen = chosen_texts(API_QUESTION, {1: other_subject, 2: API_GUIDE}, minilm_similarity)

    assert not any(not_quoted in text for text in chosen)
    assert any("OAuth 2.0" in text for text in chosen) and any("HTTP 429" in text for text in chosen)


def test_no_sentence_is_padded_in_from_the_same_passage():
    passage = (
        "Backups are taken every hour and kept for 35 days. Our office dog is called Biscuit. "
        "Support is available around the clock."
    )
    assert chosen_texts("How often are backups taken?", {1: passage}) == [
        "Backups are taken every hour and kept for 35 days."
    ]


def test_a_sentence_about_the_document_itself_is_never_quoted():
    """Signposts ("This section reviews…", "We will describe…") say what a text covers, never the answer."""
    passage = (
        "This policy sets out how backups are handled. "
        "Rather than detailing every tool, this section will present how backups are taken. "
        "We will describe the backup server first. "
        "The remainder of this guide mainly discusses restores. "
        "Backups are taken every hour by the backup server and kept for 35 days."
    )
    assert candidate_texts(passage) == ["Backups are taken every hour by the backup server and kept for 35 days."]


def test_a_sentence_that_sends_the_reader_elsewhere_is_never_quoted():
    """ "See Section 25.3 for details." says where the manual says more; the client needs the answer itself."""
    passage = (
        "Backups are taken every hour and kept for 35 days. "
        "See Section 25.3 for details. "
        "For more details on restores, see the Recovery Guide. "
        "Refer to the vendor's documentation. "
        "For details, the team keeps a restore log for every test."
    )
    assert candidate_texts(passage) == [
        "Backups are taken every hour and kept for 35 days.",
        "For details, the team keeps a restore log for every test.",
    ]


def test_a_faqs_question_is_never_quoted_and_a_sentence_closing_its_bracket_after_the_stop_is():
    """A sentence ends as one (its stop, perhaps then a bracket or a quote); a question ending so is the FAQ's own."""
    passage = (
        "How long are backups kept? Backups are kept for 35 days. (They are kept longer on request, for up to a year.)"
    )
    assert candidate_texts(passage) == [
        "Backups are kept for 35 days.",
        "(They are kept longer on request, for up to a year.)",
    ]


ALERTED = "Are administrators alerted automatically when a service becomes unavailable?"
MONITORING = (
    "## Monitoring\n\n"
    "Our office dog is called Biscuit. "
    "Monitoring alerts the administrator as soon as a service is unavailable, so that problems are fixed sooner. "
    "Nagios checks each service every minute and sends alerts by e-mail and text message."
)


def test_a_chosen_sentence_brings_the_sentences_beside_it_in_its_paragraph_that_are_about_the_question():
    """The embedding model tells the paragraph that answers better than the sentence in it: the general sentence
    it chooses comes with the next one, which names the tool and how it alerts. The sentence before it is about
    something else. (A sentence of the next paragraph stays out: test_grounded_answers' backup question.)"""
    assert chosen_texts(ALERTED, {1: MONITORING}) == [
        "Monitoring alerts the administrator as soon as a service is unavailable, so that problems are fixed sooner.",
        "Nagios checks each service every minute and sends alerts by e-mail and text message.",
    ]


def test_the_sentences_beside_a_chosen_one_stop_at_the_quotation_length(monkeypatch):
    passage = MONITORING.replace("Our office dog is called Biscuit. ", "")
    first = (
        "Monitoring alerts the administrator as soon as a service is unavailable, so that problems are fixed sooner."
    )
    monkeypatch.setattr(evidence, "CONTEXT_CHARS", len(first) + 40)
    assert chosen_texts(ALERTED, {1: passage}) == [first]


def test_without_similarity_the_words_alone_choose_and_say_when_nothing_answers():
    passages = {1: "Customer data is encrypted at rest with AES-256. Keys are rotated every 90 days."}
    assert chosen_texts("How is customer data encrypted at rest?", passages, None) == [
        "Customer data is encrypted at rest with AES-256."
    ]
    assert chosen_texts("What colour is the office carpet?", passages, None) == []


def test_runners_up_are_the_sentences_about_the_question_the_draft_does_not_quote_best_first(monkeypatch):
    """What the editor offers beside a draft: neither a quoted sentence nor one about another subject."""
    passages = {
        1: "Backups are encrypted with AES-256. Our office dog is called Biscuit.",
        2: "Backup keys are kept in a vault. Encrypted backups are copied to a second site.",
    }
    quoted = ["Backups are encrypted with AES-256."]
    sentences = evidence.read_sentences("How are backups encrypted?", passages)
    offered = evidence.runners_up(sentences, quoted)
    assert offered == [(2, "Encrypted backups are copied to a second site."), (2, "Backup keys are kept in a vault.")]
    monkeypatch.setattr(evidence, "RUNNERS_UP", 1)
    assert evidence.runners_up(sentences, quoted) == offered[:1]


# --- the parts of a question, in its order --------------------------------------------------------
def parts_of(question: str) -> list[str]:
    return [part.text for part in questions.read(question).parts]


def test_a_question_is_divided_into_the_things_it_asks():
    assert parts_of(
        "Describe your company: when it was founded, where it is based and how many people it employs."
    ) == ["when it was founded", "where it is based", "how many people it employs"]
    assert parts_of("How often are backups taken and how long are they retained?") == [
        "How often are backups taken",
        "how long are they retained (How often are backups taken)",
    ]
    assert parts_of("How is data encrypted?") == ["How is data encrypted?"]
    assert len(parts_of("Describe the API available to developers, including authentication and rate limits.")) == 3


def test_the_parts_are_answered_in_the_questions_order_not_the_passages():
    """The hosting question must not open with deletion and GDPR (the demo's first passage)."""
    privacy = (
        "We process personal data in line with the UK GDPR. After the contract ends, data is deleted "
        "from the live service within 30 days."
    )
    architecture = (
        "## Regions\n\nThe service is hosted in data centres in London and Manchester, "
        "and customer data never leaves the United Kingdom."
    )
    question = "Where is the service hosted? Confirm that council data stays in the UK."
    choices = evidence.choose(question, {1: privacy, 2: architecture}, offline_similarity)

    assert choices[0].n == 2 and "hosted in data centres" in choices[0].text
    assert "deleted" not in choices[0].text


def test_data_that_stays_in_a_place_is_answered_by_where_it_is_kept_not_by_the_law_that_names_the_place():
    """The demo's hosting question quoted the GDPR sentence for "Confirm that council data stays in the UK or the
    EU": it names both places, but says where no data is kept."""
    privacy = (
        "We process personal data in line with the UK GDPR, the EU GDPR and the Data Protection Act 2018. "
        "Customer data is stored and processed only in the region the customer chose: the United Kingdom or "
        "the European Union."
    )
    question = "Where is the service hosted? Confirm that council data stays in the UK or the EU."
    chosen = chosen_texts(question, {1: "Hosted in London or Frankfurt, as the customer chooses.", 2: privacy})

    assert any("only in the region the customer chose" in text for text in chosen)
    assert not any("GDPR" in text for text in chosen)


def test_where_is_answered_by_the_sentence_that_names_the_place_not_by_one_that_names_a_kind_of_place(
    minilm_similarity,
):
    """The demo's "Where is the service hosted?" opened with the environmental statement's "Hosting: Orrery runs in
    data centres powered by…": a kind of place, said of the electricity. The datasheet names the countries."""
    energy = "## Energy\n\nHosting: the service runs in data centres powered by 100% renewable electricity."
    datasheet = "## Hosting\n\nHosted in the UK or the EU, as the customer chooses."
    chosen = chosen_texts("Where is the service hosted?", {1: energy, 2: datasheet}, minilm_similarity)

    assert "Hosted in the UK or the EU, as the customer chooses." in chosen


def test_a_sentence_that_names_the_place_states_where_more_than_one_that_names_a_kind_of_place():
    part = questions.read("Where is the service hosted?").parts[0]
    sentences = [
        "Hosted in the UK or the EU, as the customer chooses.",
        "Backups are copied to /srv/backup every night.",
        "Orrery runs in data centres powered by renewable electricity.",
        "Orrery is a records management platform.",
    ]
    named, path, kind, none = (evidence.states_asked(part, evidence.candidates({1: s})[0]) for s in sentences)
    assert named == path == 1.0
    assert none < kind < named


def test_a_heading_names_no_tool_for_a_question_that_asks_for_one():
    """Under the heading "History", "Processor load … vary" names nothing; "Munin charts them" names the tool."""
    part = questions.read("Describe the tooling used to track disk space over time.").parts[0]
    general, named = evidence.candidates(
        {1: "## History\n\nProcessor load and free disk space vary constantly. Munin charts them over time."}
    )

    assert evidence.states_asked(part, general) < 0
    assert evidence.states_asked(part, named) > 0


def test_a_sentence_that_points_back_is_read_and_quoted_with_the_sentence_it_points_to(minilm_similarity):
    """ "this decision" stands for "to accept the risk": the sentence that names who decides answers "who decides"."""
    dependencies = (
        "When a security issue is detected in a component, it is possible to decide to accept the risk. "
        "However, this decision must be taken by the Chief Risk Officer of the company."
    )
    disclosure = "A researcher discovers a flaw in a component, and the component provider publishes a fix."
    chosen = chosen_texts(
        "Who decides whether to accept the risk of a known flaw in a component?",
        {1: disclosure, 2: dependencies},
        minilm_similarity,
    )

    decision = chosen.index("However, this decision must be taken by the Chief Risk Officer of the company.")
    assert chosen[decision - 1].endswith("it is possible to decide to accept the risk.")  # what "this decision" is


def test_a_sentence_that_points_back_never_outranks_the_one_it_points_to():
    """It borrows the words of the sentence before it ("encrypted at rest"), up to that sentence's relevance:
    "This covers…" must not crowd out the sentences that say more."""
    found = evidence.candidates({1: "All data is encrypted at rest with AES-256. This covers every backup copy."})
    parts = list(questions.read("Is data encrypted at rest?").parts)
    scores = evidence._read_with_what_they_point_to(parts, found, [[0.3, 0.1]], None)

    assert 0.1 < scores[0][1] <= scores[0][0] == 0.3


def test_two_part_question_answers_the_first_part_first():
    backups = (
        "Hourly snapshots are retained for 7 days and daily backups for 35 days. "
        "Orrery takes a snapshot backup of every tenant every hour."
    )
    choices = evidence.choose(
        "How often are backups taken and how long are they retained?", {1: backups}, offline_similarity
    )
    assert [c.text for c in choices] == [
        "Orrery takes a snapshot backup of every tenant every hour.",
        "Hourly snapshots are retained for 7 days and daily backups for 35 days.",
    ]
    assert [c.part for c in choices] == [0, 1]


def test_a_sentence_best_for_two_parts_goes_to_the_part_it_answers_far_more_clearly():
    """The credits sentence leads the commitment by 0.09 for "what availability do you commit to" and the next
    sentence by 0.23 for "what credits apply": it is left to the second part, and the first takes its runner-up."""
    found = [SimpleNamespace(rank=0, position=i) for i in range(3)]
    credits, commitment = 0, 1
    clear = evidence._margins_of_the_best([[1.23, 1.14, 0.90], [1.03, 0.50, 0.80]], found)
    assert evidence._left_to_a_later_part(credits, 0, clear)
    assert not evidence._left_to_a_later_part(commitment, 0, clear)  # it is not the first part's best
    assert not evidence._left_to_a_later_part(credits, 1, clear)  # the last part has no later part to leave it to
    narrow = evidence._margins_of_the_best([[1.23, 1.14, 0.90], [1.03, 0.90, 0.80]], found)
    assert not evidence._left_to_a_later_part(credits, 0, narrow)  # a lead only a little wider: the first part keeps it


# --- lists ---------------------------------------------------------------------------------------------
def test_a_list_question_is_answered_with_the_names_it_asks_for():
    profile = (
        "The company serves more than 240 organisations in the public sector, utilities and finance.\n\n"
        "## Public-sector customers\n\n"
        "Orrery is used by public bodies including Fenmoor Water Authority, Harrowgate Borough Council "
        "and the North Vale Fire and Rescue Service. References can be provided on request."
    )
    chosen = chosen_texts("List three public-sector customers using the proposed platform today.", {1: profile})

    assert len(chosen) == 1 and "Fenmoor Water Authority, Harrowgate Borough Council" in chosen[0]


def test_a_list_question_reads_a_table_as_a_list():
    certifications = (
        "## Certifications\n\n| Certificate | Scope |\n|---|---|\n"
        "| ISO/IEC 27001:2022 | Development and operation of Orrery |\n"
        "| Cyber Essentials Plus | The whole company |\n"
        "| SOC 2 Type II | Security and availability, reported every year |\n\n"
        "## Office\n\nOur office is in Bristol."
    )
    chosen = chosen_texts("Which security certifications do you hold?", {1: certifications})

    assert [c.split(":")[0] for c in chosen if not c.startswith("Certificate")] == [
        "ISO/IEC 27001",
        "Cyber Essentials Plus",
        "SOC 2 Type II",
    ]
    assert "Our office is in Bristol." not in chosen


def test_a_sentence_announcing_the_phases_brings_the_whole_table_in_its_order():
    """A sentence ending "…in four phases" announces the table after it: the draft quotes its four rows in order after the sentence
    (the header row left out); a count the table does not hold brings in no row."""
    method = (
        "# Implementation\n\nWe implement the platform with a fixed method in four phases. "
        "A typical project takes 10 weeks.\n\n"
        "| Phase | What happens | Duration |\n|---|---|---|\n"
        "| Discover | Workshops on record classes and retention | 2 weeks |\n"
        "| Configure | The tenant is set up with roles and single sign-on | 3 weeks |\n"
        "| Migrate | Existing records are migrated and checked | 4 weeks |\n"
        "| Go live | Launch and hand-over to support | 1 week |\n"
    )
    chosen = chosen_texts("Describe your implementation method.", {1: method})
    assert [c.split(":")[0] for c in chosen] == [
        "We implement the platform with a fixed method in four phases.",
        "Discover",
        "Configure",
        "Migrate",
        "Go live",
    ]

    miscounted = chosen_texts("Describe your implementation method.", {1: method.replace("four", "three")})
    assert miscounted == ["We implement the platform with a fixed method in three phases."]


def test_a_question_naming_one_item_of_an_announced_list_gets_that_item_not_the_list(minilm_similarity):
    """A table announced by "…in three editions": a question that names the Enterprise edition is answered by its
    row, not by all three."""
    editions = (
        "Licensing\n\nThe platform is sold per named user per year, in three editions.\n\n"
        "Edition: Standard. Price per named user per year: 96 GBP. Storage included: 1 TB per tenant.\n\n"
        "Edition: Professional. Price per named user per year: 144 GBP. Storage included: 5 TB per tenant.\n\n"
        "Edition: Enterprise. Price per named user per year: 210 GBP. Storage included: 20 TB per tenant.\n"
    )
    named = chosen_texts("What does the Enterprise edition cost per user?", {1: editions}, minilm_similarity)
    assert any(c.startswith("Enterprise: ") for c in named)
    assert not any(c.startswith(("Standard: ", "Professional: ")) for c in named)


def test_a_list_cut_from_its_heading_is_read_by_the_subject_its_items_name():
    """A passage that begins inside a list has no heading to say the list is what was asked: its items that name
    the chosen item's subject word are the list ("LDAP authentication…", "RADIUS authentication…"); an item
    about something else is not."""
    passage = (
        "- LDAP authentication, which relies on an LDAP authentication server.\n"
        "- RADIUS authentication, which relies on a RADIUS authentication server.\n"
        "- Certificate authentication, which requires an SSL connection.\n"
        "- Connection limits, which cap the sessions of each role.\n"
    )
    chosen = chosen_texts("Which authentication methods are supported, for example LDAP or RADIUS?", {1: passage})

    assert [text.split(",")[0] for text in chosen] == [
        "LDAP authentication",
        "RADIUS authentication",
        "Certificate authentication",
    ]


def test_each_sentence_of_a_quoted_list_item_cites_its_passage_and_is_checked_on_its_own():
    """An item of two sentences, quoted: each cites the passage, and the second's "not" is not held against the
    first (the reviewer compares a sentence with the passage's closest sentence, not the whole item)."""
    item = "Peer authentication relies on operating system facilities. This is not supported for remote connections."
    claims = grounding.cited_sentences(grounding.cited_text([(1, item)]))

    assert [numbers for _, numbers in claims] == [[1], [1]]
    assert grounding.support_problems(claims, {1: f"- {item}\n"}) == []


def test_a_quoted_sentence_leaves_out_its_pointers_to_other_parts_of_the_source_and_stays_supported():
    """ "(see Section 12.1.1, “Software RAID”)" sends the client to a manual they do not have."""
    sentence = "Data is backed up on a server whose software RAID (see Section 12.1.1, “Software RAID”) protects it."
    draft = grounding.cited_text([(1, sentence)])

    assert draft == "Data is backed up on a server whose software RAID protects it [1]."
    assert grounding.support_problems(grounding.cited_sentences(draft), {1: sentence}) == []


def test_a_body_line_extraction_escaped_reads_as_the_document_wrote_it():
    """Extraction escapes a shell prompt (`\\# apt …`) so the chunker does not take it for a heading; a prompt's
    passage shows it as written."""
    passage = "## Firewall\n\nInstall the tools with:\n\n\\# apt install nftables\n\nRules load at every boot."
    assert "# apt install nftables" in grounding.readable(passage)
    assert "\\#" not in grounding.readable(passage)


def test_a_sentence_an_html_page_cut_at_its_inline_marks_is_read_whole():
    """An extraction puts a link's or code word's text on a line of its own; the sentence is one unit again."""
    passage = (
        "## Monitoring\n\nMonitoring has two goals.\n\nNagios\n\ncovers the second area, by sending alerts.\n\n"
        "This is typically done using the\n\nadduser\n\ncommand, which asks a few questions."
    )
    units = [u.text for u in grounding.passage_units(passage) if u.kind != grounding.HEADING]
    assert units == [
        "Monitoring has two goals.",
        "Nagios covers the second area, by sending alerts.",
        "This is typically done using the adduser command, which asks a few questions.",
    ]


def test_a_term_a_manual_defines_on_its_own_line_heads_its_definition():
    """A PDF manual's definition list: the term's line starts in lower case, yet it goes on no sentence. Joined to
    the line before, it glued "NOINHERIT. connection limit Connection limit can…" into one quoted sentence."""
    passage = (
        "A role inherits privileges by\ndefault. To create a role without them, use CREATE ROLE name\nNOINHERIT.\n"
        "connection limit\nConnection limit can specify how many concurrent connections a role can make.\n"
        "This line goes on\nin lower case, as a wrapped line does."
    )
    assert [(u.kind, u.heading, u.text) for u in grounding.passage_units(passage)] == [
        (grounding.SENTENCE, "", "A role inherits privileges by default."),
        (grounding.SENTENCE, "", "To create a role without them, use CREATE ROLE name NOINHERIT."),
        (grounding.HEADING, "connection limit", "connection limit"),
        (
            grounding.SENTENCE,
            "connection limit",
            "Connection limit can specify how many concurrent connections a role can make.",
        ),
        (grounding.SENTENCE, "connection limit", "This line goes on in lower case, as a wrapped line does."),
    ]


def test_a_definitions_first_sentence_that_leaves_its_term_out_is_quoted_with_it():
    """ "Controls which SQL statements are logged." alone does not say what does; under its term it is read (and
    quoted) as "log_statement (enum): Controls…". A definition that names its term, and the sentences after the
    first, are read as written."""
    passage = (
        "Set these in postgresql.conf.\nlog_statement (enum)\nControls which SQL statements are logged. Valid "
        "values are none, ddl, mod and all.\nconnection limit\nConnection limit can specify how many connections "
        "a role can make."
    )
    defined = "log_statement (enum): Controls which SQL statements are logged."
    assert [u.text for u in grounding.passage_units(passage) if u.kind == grounding.SENTENCE] == [
        "Set these in postgresql.conf.",
        defined,
        "Valid values are none, ddl, mod and all.",
        "Connection limit can specify how many connections a role can make.",
    ]
    assert defined in candidate_texts(passage)
    assert not grounding.support_problems([(defined.removesuffix("."), [1])], {1: passage})


def test_a_listing_joins_no_sentence_and_is_never_quoted():
    """A PDF's configuration example: its short lines start in lower case and end on no full stop, so they were
    read as one sentence with the caption before them and the prose after them, and a draft quoted all three."""
    passage = (
        "The script is stored under /usr/local/etc/arrakis.fw.\nExample 14.1. interfaces file calling the script\n"
        "auto eth0\niface eth0 inet static\naddress 192.168.0.1\nup /usr/local/etc/arrakis.fw\n"
        "This obviously assumes that you are using ifupdown to configure the network interfaces."
    )
    assert candidate_texts(passage) == [
        "The script is stored under /usr/local/etc/arrakis.fw.",
        "This obviously assumes that you are using ifupdown to configure the network interfaces.",
    ]


def test_e_g_and_i_e_end_no_sentence():
    """Cut after "e.g.", the half a draft quotes ends on "…to other systems e.g." and names no format."""
    passage = (
        "Send event data to other systems e.g. Common Event Format (CEF) over syslog. "
        "Keep the clocks in step, i.e. Use NTP on every host."
    )
    assert [u.text for u in grounding.passage_units(passage)] == [
        "Send event data to other systems e.g. Common Event Format (CEF) over syslog.",
        "Keep the clocks in step, i.e. Use NTP on every host.",
    ]


def test_a_list_item_a_chunk_cut_after_e_g_is_never_quoted():
    """A draft would end on "…the time of logging e.g [1]." and name none of the examples."""
    passage = "- Log date and time (international format)\n- Event time may differ from the time of logging e.g."
    assert candidate_texts(passage) == ["Log date and time (international format)."]


def test_how_often_is_answered_by_the_sentence_that_says_how_often_not_by_a_definition():
    """The purpose sentence shares more of the question's words; the one that says how often answers it."""
    passage = (
        "## Access reviews\n\nAccess reviews are performed to confirm that each person still needs their access "
        "rights.\n\nEach system owner repeats the access review every quarter."
    )
    chosen = chosen_texts("How often are access reviews performed?", {1: passage})
    assert chosen == ["Each system owner repeats the access review every quarter."]


def test_a_yes_no_question_is_answered_by_what_is_done_not_by_what_a_word_means():
    """The definition shares more of the question's words; the sentence that says it is done answers whether."""
    passage = (
        "## Monitoring\n\nMonitoring is a generic term: it covers following the resources a service uses and "
        "alerting administrators when a service is unavailable.\n\n"
        "Nagios alerts the administrators automatically when a service check fails."
    )
    chosen = chosen_texts("Are administrators alerted automatically when a service becomes unavailable?", {1: passage})
    assert chosen == ["Nagios alerts the administrators automatically when a service check fails."]


# --- does an answer address the question -------------------------------------------------------------
def test_a_draft_that_states_what_each_part_asks_is_not_told_it_misses_a_part():
    """ "Browser-based" shares a word with "where it is based"; "in Bristol" says where the company is."""
    question = "Describe your company: when it was founded, where it is based and how many people it employs."
    profile = (
        "Kestrel Peak Software Ltd was founded in 2011 in Bristol, United Kingdom. Employees: 185, of whom 70 "
        "in engineering."
    )
    datasheet = "Browser-based: current versions of Edge, Chrome, Firefox and Safari."
    claims = [(sentence, [1]) for sentence in grounding.sentences(profile)]

    verdict, reasons = evidence.addressing_problems(question, claims, {1: profile, 2: datasheet}, offline_similarity)
    assert (verdict, reasons) == ("", [])


PRICING = """# Orrery pricing and licensing

## Pricing model

Orrery is licensed per named user per year, in three editions. Read-only users (people who only view records) are free \
of charge in every edition. Prices are fixed for the first three years of a contract.

## What the licence includes

Every licence includes hosting in the UK or the EU, backups, upgrades, the API, single sign-on and standard support."""


def test_a_sentence_that_names_the_model_answers_a_question_about_the_model(minilm_similarity):
    """ "Describe your pricing model": "licensed per named user per year" is the model; fixed prices are a term of it."""
    chosen = chosen_texts(
        "Describe your pricing model and what is included in the licence.", {1: PRICING}, minilm_similarity
    )

    assert chosen[0] == "Orrery is licensed per named user per year, in three editions."
    assert any("Every licence includes" in text for text in chosen)


# The demo library's security whitepaper and architecture overview, as the demo RFP's key question retrieves them.
ENCRYPTION = """# Encryption

## Data at rest

All customer data in Orrery is encrypted at rest with AES-256. This covers the stored documents, their metadata, the \
search index and every backup copy. Each customer tenant has its own data encryption key, so one customer's data can \
never be read with another customer's key.

## Data in transit

All traffic to and from Orrery is encrypted in transit with TLS 1.3. TLS 1.2 is still accepted for older clients \
with strong cipher suites only; TLS 1.0 and 1.1 are refused.

## Key management and rotation

Tenant keys are wrapped by master keys that never leave a FIPS 140-3 validated hardware security module (HSM). Master \
keys are rotated automatically every 12 months, and immediately if a compromise is suspected."""
ARCHITECTURE = """# Orrery architecture overview

Orrery is a multi-tenant software-as-a-service platform. Each customer is a tenant with its own encryption keys, its \
own search index and its own storage containers.

## Components

- **Web application and API** — stateless services behind load balancers in two availability zones.
- **Records store** — object storage for documents, with every version kept.
- **Metadata database** — PostgreSQL, replicated synchronously between two availability zones."""


def test_a_part_is_answered_from_the_passage_about_it_not_by_a_sentence_that_mentions_it(minilm_similarity):
    """ "Each customer is a tenant with its own encryption keys" names the keys, but its passage is about the
    architecture: the passage about encryption, read whole, is the one that answers how keys are managed."""
    chosen = chosen_texts(
        "How are encryption keys managed and rotated?", {1: ENCRYPTION, 2: ARCHITECTURE}, minilm_similarity
    )

    assert any("rotated automatically every 12 months" in text for text in chosen)
    assert not any(text.startswith(("Orrery is a multi-tenant", "Each customer is a tenant")) for text in chosen)


def test_the_reviewer_does_not_offer_a_sentence_about_another_subject_as_the_missed_answer(minilm_similarity):
    """ "Browser-based: current versions of Edge…" matches "protocol versions" by a word and its passage's
    meaning, but is about the browsers the product supports: a draft that states the algorithms and versions
    misses nothing there."""
    question = "Is customer data encrypted at rest and in transit? State the algorithms and protocol versions."
    security = (
        "All customer data in Orrery is encrypted at rest with AES-256. All traffic to and from Orrery is encrypted "
        "in transit with TLS 1.3. TLS 1.2 is still accepted for older clients with strong cipher suites only; TLS 1.0 "
        "and 1.1 are refused."
    )
    datasheet = "## Supported browsers\n\nBrowser-based: current versions of Edge, Chrome, Firefox and Safari."
    claims = [(sentence, [1]) for sentence in grounding.sentences(security)]

    verdict, reasons = evidence.addressing_problems(question, claims, {1: security, 2: datasheet}, minilm_similarity)
    assert not any("Browser-based" in reason for reason in reasons)


RETENTION_FAQ = """Can retention schedules be applied automatically?
Yes. Each record class carries a retention schedule (for example "keep for 6 years after the case closes, then \
destroy"). Orrery starts the retention period from the trigger event and, when it ends, either destroys the record, \
sends it for review or transfers it to an archive, as the schedule says.

What is a legal hold?
A legal hold stops the disposal of records that may be needed for litigation, an inquiry or a freedom of information \
request. Records managers place holds on records, folders or saved searches. A record under hold cannot be changed or \
destroyed until every hold on it is released."""
DATASHEET = """| Capability | What it does |
|---|---|
| Classification | Suggests a record class from the content; records managers approve or correct it |
| Retention | Applies retention schedules automatically, with legal holds that pause any disposal |
| Search | Full-text and metadata search across every record the user may see |"""


def test_a_draft_quoting_the_passage_about_a_part_is_not_told_another_passage_answers_it(minilm_similarity):
    """The FAQ's answer on legal holds, read with its passage, answers "including legal holds" as well as the
    datasheet's row that names them: the reviewer weighs each sentence with its passage, as the responder does."""
    question = "Can retention schedules be applied automatically to records, including legal holds?"
    passages = {1: RETENTION_FAQ, 2: DATASHEET}
    claims = [(choice.text, [choice.n]) for choice in evidence.choose(question, passages, minilm_similarity)]
    assert any("A legal hold stops the disposal" in sentence for sentence, _ in claims)

    verdict, reasons = evidence.addressing_problems(question, claims, passages, minilm_similarity)
    assert (verdict, reasons) == ("", [])


def test_an_alignment_orders_the_sentences_but_relevance_decides_which_are_relevant_enough(minilm_similarity):
    """Word by word, an unrelated sentence still meets each word somewhere ("council" in a list of customers),
    so its scores sit close to the answer's: whether it is nearly as relevant is read by meaning and words."""
    question = "Will the council have a named account manager?"
    answer = "Enterprise customers have a named account manager who holds a review every quarter."
    customers = "Orrery is used by public bodies including Harrowgate Borough Council and the North Vale Fire Service."

    def alignment(queries, texts):  # the answer first, the customer list nearly as close
        return [[0.9 if text == answer else 0.8 for text in texts] for _ in queries]

    chosen = [c.text for c in evidence.choose(question, {1: answer, 2: customers}, minilm_similarity, None, alignment)]

    assert chosen == [answer]


def test_the_sentence_an_alignment_puts_first_is_quoted_when_relevant_enough(minilm_similarity):
    """Cosine and words put the sentence that repeats the question's words (0.94) far above the one that names
    what does it (0.45, over PART_MIN): the alignment's first is quoted, not passed over for being under 0.7 of that."""
    question = "Are administrators alerted automatically when a service becomes unavailable?"
    repeats = "Administrators can be alerted automatically when a service becomes unavailable, a goal of monitoring."
    names = "Nagios e-mails the on-call administrator when a service check fails."

    def alignment(queries, texts):  # the sentence that names the tool first
        return [[0.9 if text == names else 0.8 for text in texts] for _ in queries]

    chosen = [c.text for c in evidence.choose(question, {1: repeats, 2: names}, minilm_similarity, None, alignment)]

    assert names in chosen


@pytest.mark.parametrize(("score", "shown"), [(0.6496, "0.64"), (0.57, "0.57"), (0.299, "0.29"), (0.0, "0.00")])
def test_a_score_under_a_bar_is_cut_not_rounded(score, shown):
    """So the reviewer never writes "relevance 0.30" for a draft it turned down for falling under 0.30."""
    assert evidence.under_bar(score) == shown


def test_a_sentence_with_a_figure_of_its_own_is_not_a_repeat_of_one_with_nearly_its_words():
    """Overlapping chunks repeat sentences, quoted once; but "…encrypted in transit with TLS 1.3" and "…also
    encrypted with mutual TLS" share nearly all their words, and only the first says which version."""
    versioned = "All traffic to and from the service is encrypted in transit with TLS 1.3."
    assert not evidence.same_sentence(versioned, "Traffic between the service's components is encrypted with TLS.")
    assert evidence.same_sentence(versioned, "all traffic to and from the service is encrypted in transit with TLS 1.3")


SUMMARY_TABLE = """| Area | Control |
| Key management | Keys held in a hardware security module, rotated every 12 months |
| Certification | ISO/IEC 27001:2022 certified; SOC 2 Type II report every year |"""
CERTIFICATIONS = """## Certifications

Kestrel Peak Software is certified to ISO/IEC 27001:2022 for the development and operation of Orrery, and holds \
Cyber Essentials Plus. An independent auditor issues a SOC 2 Type II report every year; customers can request the \
latest report under a non-disclosure agreement."""
KEY_MANAGEMENT = """## Key management and rotation

Tenant keys are wrapped by master keys that never leave a FIPS 140-3 validated hardware security module (HSM). \
Master keys are rotated automatically every 12 months, and immediately if a compromise is suspected."""


def test_a_summary_row_that_the_quoted_prose_says_again_is_left_out(minilm_similarity):
    """The demo's B.5 quoted the summary table's certification row, then the two sentences that say all of it and
    more: the client read it twice."""
    passages = {1: SUMMARY_TABLE, 2: CERTIFICATIONS}
    chosen = chosen_texts(
        "Which security certifications do you hold (for example ISO 27001 or SOC 2)?", passages, minilm_similarity
    )

    assert not any(text.startswith("Certification:") for text in chosen)
    assert any("Cyber Essentials Plus" in text for text in chosen) and any("SOC 2 Type II" in text for text in chosen)


def test_a_summary_row_that_alone_holds_a_word_of_the_question_stays(minilm_similarity):
    """ "Key management: …" says what the prose does, but only it says "management" for "How are … keys managed":
    without it the draft leaves the reader to see that wrapping keys in an HSM is how they are managed."""
    chosen = chosen_texts(
        "How are encryption keys managed and rotated?", {1: KEY_MANAGEMENT, 2: SUMMARY_TABLE}, minilm_similarity
    )

    assert any(text.startswith("Key management:") for text in chosen)
    assert any("master keys" in text for text in chosen)


def test_a_second_sentence_from_another_document_must_be_nearly_as_relevant_as_the_first(minilm_similarity):
    """A part's second sentence, 0.75 as relevant as its first, is quoted from the first's document and left out
    from another: there it is on the question's topic, not its subject (padding, issue 33)."""
    question = "Can the database be restored to a specific point in time?"
    passages = {
        1: "Point-in-time recovery restores the database to its state at any moment since the base backup was taken.",
        2: "Each specific restore of the database is written to the audit log.",
    }

    def quoted(documents):
        return [c.n for c in evidence.choose(question, passages, minilm_similarity, documents=documents)]

    assert quoted({1: 10, 2: 10}) == [1, 2]
    assert quoted({1: 10, 2: 20}) == [1]
    assert quoted(None) == [1, 2]  # documents unknown (the offline provider reads only the prompt)


def fixed_similarity(cosines: dict[str, float]):
    """Each text's cosine to any query: the value of the first key it contains, else 0."""

    def similarity(queries, texts):
        return [[next((v for k, v in cosines.items() if k in t), 0.0) for t in texts] for _ in queries]

    return similarity


def test_a_second_sentence_nearly_as_relevant_as_the_first_is_quoted_though_the_first_names_its_words():
    """The first sentence may be the wrong one ("…once it is scanned" for "who can open"): a second one nearly as
    relevant (NEW_WORDS_NEAR) is quoted even when every subject word it names is the first's. A less relevant one
    that adds no subject word is not: it says nothing of the question the first does not."""
    question = "Who can open a file that another user uploaded?"
    passages = {
        1: "Any user can open a file that another user uploaded, once it is scanned.\n\n"
        "Another user may open an upload only after its owner shares the upload."
    }

    def quoted(second_cosine):
        similarity = fixed_similarity({"once it is scanned": 0.8, "owner shares": second_cosine})
        return [c.text.split()[0] for c in evidence.choose(question, passages, similarity)]

    assert quoted(0.8) == ["Any", "Another"]
    assert quoted(0.5) == ["Any"]


def test_another_row_of_the_first_rows_table_must_add_what_is_asked():
    """Nearly as relevant is not enough for a row of the same table when the question asks for no list: "Train: …
    2 weeks" after "Discover: … 2 weeks" is one more phase, not the typical implementation's length."""
    question = "How long does a typical implementation take?"
    passages = {
        1: "## Implementation phases\n\n"
        "- Discover: a typical implementation starts with workshops; duration: 2 weeks.\n"
        "- Train: a typical implementation trains the administrators; duration: 2 weeks."
    }
    chosen = evidence.choose(question, passages, fixed_similarity({"Discover": 0.8, "Train": 0.78}))
    assert [c.text.split(":")[0] for c in chosen] == ["Discover"]
