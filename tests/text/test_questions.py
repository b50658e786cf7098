"""A question read once: what it asks for, its parts in order, its subject, the question it follows up."""

import pytest

from text import questions


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How often are access rights reviewed?", questions.FREQUENCY),
        ("How long are audit logs retained?", questions.DURATION),
        ("How quickly are critical vulnerabilities patched?", questions.TIME),
        ("How many people does the company employ?", questions.COUNT),
        ("Who approves changes to production?", questions.PERSON),
        ("Where is the service hosted?", questions.PLACE),
        ("Confirm that council data stays in the UK or the EU.", questions.PLACE),
        ("Which encryption algorithms protect data at rest?", questions.STANDARD),
        ("List three public-sector customers.", questions.LIST),
        ("Which data centres host the service?", questions.LIST),
        ("Which of the following certifications do you hold?", questions.LIST),
        ("On what date was your last external audit?", questions.TIME),
        ("Describe your migration approach and a typical timeline.", questions.TIME),
        ("What is your turnaround time for a support ticket?", questions.TIME),
        ("What are the lead times for a new environment?", questions.TIME),
        ("Describe your incident response plan.", questions.DESCRIPTION),
        ("State the algorithms and protocol versions.", questions.STANDARD),
        ("Name your certifications.", questions.STANDARD),
        ("List the tools you use to monitor the service.", questions.NAME),
    ],
)
def test_what_a_question_asks_for_is_read_from_its_question_words(question, kind):
    assert kind in questions.read(question).asks


def test_an_imperative_asks_for_the_things_it_names_only_where_it_opens_a_part():
    """ "State the algorithms…" after a yes/no question asks for a standard; "the name of the protocols" inside a
    question is no imperative."""
    parts = questions.read("Is data encrypted in transit? State the algorithms and protocol versions.").parts
    assert [p.checkable for p in parts] == [set(), {questions.STANDARD}]
    assert questions.read("Is the name of the protocols logged?").checkable == set()


def test_which_and_one_thing_asks_for_no_list():
    """ "Which external firm…" asks for one: read as a list, a four-word list item ("During a penetration
    test.") could answer it."""
    assert questions.LIST not in questions.read("Which external firm performed your most recent penetration test?").asks


def test_a_yes_no_question_asks_yes_or_no_whatever_relative_clause_follows():
    reading = questions.read("Do staff who handle personal data receive training?")
    assert reading.asks == {questions.YES_NO}
    assert not reading.checkable  # any sentence on the subject may answer a yes/no question


@pytest.mark.parametrize(
    ("question", "kind", "asked"),
    [
        ("What steps does your team follow when a server is suspected to be compromised?", questions.TIME, False),
        ("What is the procedure for disabling the account of an employee who leaves?", questions.PERSON, False),
        ("How are backups encrypted in the region where the customer signed up?", questions.PLACE, False),
        ("During a long session, when does a user have to authenticate again?", questions.TIME, True),
        ("Describe your company: when it was founded and where it is based.", questions.TIME, True),
        ("What high availability and failover capabilities does the database offer?", questions.COUNT, False),
        ("What monthly availability do you commit to?", questions.COUNT, True),
    ],
)
def test_a_clause_is_not_a_question_word(question, kind, asked):
    """ "the employee who leaves" asks for no person, "high availability" for no figure."""
    assert (kind in {k for part in questions.read(question).parts for k in part.asks}) is asked


def test_each_part_keeps_its_own_kind_in_the_questions_order():
    parts = questions.read("How often are backups taken and how long are they retained?").parts
    assert [p.checkable for p in parts] == [{questions.FREQUENCY}, {questions.DURATION}]
    assert "backups" in parts[1].words  # "they" read with the head of the question


@pytest.mark.parametrize(
    "question, pointing_back",
    [
        ("How do staff connect to servers remotely, and is that session encrypted?", True),
        ("Where are backups stored, and how is that access limited?", True),
        ("Are backups encrypted? Confirm that keys are rotated yearly.", False),
    ],
)
def test_that_after_a_verb_points_back_to_the_head_of_the_question(question, pointing_back):
    """ "…and is that session encrypted" asks of the first part's session: its words are read with the head, so the
    search for its evidence looks for the remote login's, not any session's. "Confirm that…" points nowhere."""
    head_words = questions.read(question).parts[0].words
    assert (head_words in questions.read(question).parts[1].words) is pointing_back


@pytest.mark.parametrize(
    "question, asked",
    [
        ("In the event of data corruption, can the database be restored to a point in time?", {questions.YES_NO}),
        ("When an account still has an old hash, how is it moved to a stronger algorithm?", {questions.DESCRIPTION}),
        ("During a long session, when does a user have to sign in again?", {questions.TIME}),
        ("Do you apply a secret, kept apart from the database, when hashing passwords?", {questions.YES_NO}),
    ],
)
def test_a_condition_around_the_question_is_no_part_of_its_own(question, asked):
    """ "In the event of data corruption" asks nothing: split off as a part, it was answered by whatever sentence
    spoke of corruption, and "can the database be restored" lost its yes or no."""
    (part,) = questions.read(question).parts
    assert part.text == question
    assert part.asks == asked
    assert questions.read(question).asks == asked


def test_a_question_that_opens_with_when_and_its_verb_is_a_part_of_its_own():
    parts = questions.read("When does the backup run, and how long is it kept?").parts
    assert [p.asks for p in parts] == [{questions.TIME}, {questions.DURATION}]
    parts = questions.read("On a server, where are the hashed passwords kept, and who can read that file?").parts
    assert [p.text for p in parts] == ["On a server, where are the hashed passwords kept", "who can read that file"]


def test_a_question_that_opens_with_in_which_is_no_condition():
    """ "In which…" asks where: once read as a condition ("In the event of…"), it was kept with the yes/no after
    it, and the question lost its "where" part."""
    parts = questions.read("In which hosting region are the archives kept, and is that the primary region?").parts
    assert [p.text for p in parts] == [
        "In which hosting region are the archives kept",
        "is that the primary region (In which hosting region are the archives kept)",  # "that": the region
    ]
    assert [p.asks for p in parts] == [{questions.PLACE}, {questions.YES_NO}]


def test_examples_after_such_as_are_no_parts_and_ask_nothing():
    """ "…such as when it happened, where, who was involved and what was done?" illustrates the attributes asked
    for: split at its commas, the question became two parts, the second asking "who" alone."""
    parts = questions.read(
        "What attributes does each event carry, such as when it happened, where, who was involved and what was done?"
    ).parts
    assert len(parts) == 1
    assert parts[0].asks == {questions.DESCRIPTION}
    assert questions.read("What standard, such as WCAG 2.1 AA, does the interface meet?").parts[0].asks == {
        questions.STANDARD
    }
    # the examples end with their sentence: the next one still asks what it asks
    assert questions.FREQUENCY in questions.asks("Describe backups, such as the tools used. How often do they run?")


def test_a_condition_after_a_semicolon_goes_with_the_question_after_it():
    parts = questions.read("How are the archives written; if a write fails, who is told?").parts
    assert [p.text for p in parts] == ["How are the archives written", "if a write fails, who is told"]
    assert parts[1].asks == {questions.PERSON}


def test_a_timeline_after_and_is_a_part_of_its_own_asked_of_the_first():
    """ "…approach and a typical timeline" asks two things: the approach, and how long it takes. Read as one part
    asking for a time, a sentence on the approach that states none could not answer it."""
    parts = questions.read("Describe your migration approach and a typical timeline.").parts
    assert [p.words for p in parts] == ["Describe your migration approach", "a typical timeline"]
    assert [p.checkable for p in parts] == [set(), {questions.TIME}]
    assert parts[1].head == "Describe your migration approach"  # the timeline is the migration's
    assert len(questions.read("What is the expected timeframe for onboarding?").parts) == 1


def test_a_follow_up_is_read_with_its_parent_question():
    parent = "Do you run penetration tests on the platform?"
    reading = questions.read("If yes, describe how findings are fixed.", parent)
    assert reading.follows_up and reading.parent == parent
    assert {"penetr", "platfo"} <= reading.subject  # the parent's subject is the follow-up's
    assert questions.read("Describe how findings are fixed.", parent).parent == ""  # not a follow-up: no parent


def test_what_a_follow_up_asks_is_read_with_its_parent_and_a_question_alone_as_written():
    parent = "Do you run penetration tests on the platform?"
    follow_up = questions.read("If yes, describe how findings are fixed.", parent)
    assert follow_up.asked == f"{parent} If yes, describe how findings are fixed."
    assert questions.read("Describe how findings are fixed.", parent).asked == "Describe how findings are fixed."


@pytest.mark.parametrize(
    ("kind", "sentence", "states"),
    [
        (questions.FREQUENCY, "Access rights are reviewed quarterly by the system owner.", True),
        (questions.FREQUENCY, "An access review is a check of who holds which rights.", False),
        (questions.DURATION, "Audit logs are kept for 90 days.", True),
        (questions.DURATION, "Audit logs record every administrative action.", False),
        (questions.PLACE, "Data is hosted in Microsoft Azure data centres in the EU.", True),
        (questions.COUNT, "The company employs 185 people.", True),
        (questions.COUNT, "The company is proud of its people.", False),
        (questions.TIME, "Customers are notified within one business day.", True),
        # "who" is answered by an organisation too: an audit firm, a supplier
        (questions.PERSON, "The accounts are audited every year by Harwood & Lane LLP, a firm of accountants.", True),
        (questions.PERSON, "Card payments are handled by Acme Payments Ltd.", True),
        (questions.PERSON, "Penetration tests are run by an independent firm.", True),
        (questions.PERSON, "The accounts are audited every year.", False),
    ],
)
def test_whether_a_sentence_states_the_kind_of_thing_asked(kind, sentence, states):
    assert questions.states(kind, sentence) is states


@pytest.mark.parametrize(
    ("kind", "sentence"),
    [
        (questions.COUNT, "The verifier keeps what throttling needs, as described in Section 5.2.2."),
        (questions.COUNT, "Breaches are handled as clause 4.1.2 sets out [3]."),
        (questions.COUNT, "9.10. Backup Backups are taken by the administrators."),
        (questions.PLACE, "Reauthentication is required after a time-out, as described in Section 7.2."),
        (questions.TIME, "A breach could be used as evidence of a weak security culture within the organization."),
    ],
)
def test_a_reference_or_a_place_is_no_figure(kind, sentence):
    """A section number, a citation marker or a heading's number counts nothing, "in Section 7.2" is no place,
    "within the organization" no time. Read as figures, they let a near miss ("Within how many hours…?") be drafted from a sentence
    that says no time at all."""
    assert not questions.states(kind, sentence)


def test_a_time_set_by_the_event_asked_about_says_nothing_of_when():
    """ "At the time of authentication" does not say when a user authenticates again; it does say when an
    identity is checked, and a time by the clock says when whatever is asked."""
    again = questions.read("During a long session, when does a user have to authenticate again?").parts[-1]
    secret = "A session secret is issued by the verifier at the time of authentication."
    assert questions.TIME in again.checkable
    assert not questions.states(questions.TIME, secret, again.words)
    assert questions.states(questions.TIME, secret, "When is the session secret issued?")
    assert questions.states(questions.TIME, "Reauthentication is required at least once per 12 hours.", again.words)


@pytest.mark.parametrize("keyword", ["SHALL", "MUST", "SHOULD NOT", "MAY"])
def test_a_requirement_keyword_is_neither_a_name_nor_a_standard(keyword):
    """Standards write their requirements in capitals ("the records SHALL be kept"); the capitals name nothing.
    Read as a name, they let a general sentence answer "which standard?" or "which tool?"."""
    sentence = f"The records {keyword} be kept by the service."
    assert not questions.states(questions.STANDARD, sentence)
    assert not questions.states(questions.NAME, sentence)
    assert questions.states(questions.STANDARD, f"The records {keyword} be signed with SHA-256.")


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("The logcheck program monitors log files every hour by default.", True),
        ("This is typically done with the adduser command.", True),
        ("Every service is checked by the same program.", False),
        ("Backups are copied by the backup program every night.", False),
        ("The program monitors log files every hour by default.", False),
    ],
)
def test_a_program_a_manual_names_in_lower_case_is_a_name(sentence, names):
    """Manuals name their tools in lower case, as they are typed ("the logcheck program"); "which tool?" or "how are
    accounts created?" is answered by the sentence that names it, not by one on the subject in general."""
    assert questions.states(questions.NAME, sentence) is names


@pytest.mark.parametrize(
    ("sentence", "defines"),
    [
        ("Monitoring is a generic term for watching resources and services.", True),
        ("Single sign-on refers to signing in once for every application.", True),
        ("RPO stands for recovery point objective.", True),
        ("Nagios checks each service every minute and sends alerts by e-mail.", False),
        ("The term of the contract is three years.", False),
    ],
)
def test_a_sentence_that_says_what_a_word_means_is_a_definition(sentence, defines):
    assert questions.defines(sentence) is defines


def test_the_draft_says_what_it_is_when_it_states_no_checkable_kind():
    assert questions.what_it_says("Backups are copies of data.") == "what it is"
    assert questions.what_it_says("Backups run nightly.") == "how often"


@pytest.mark.parametrize(
    "question, about, against",
    [
        ("Are backups encrypted rather than stored in plain form?", "backups encrypted", "stored in plain form"),
        (
            "Do staff sign in with hardware tokens instead of SMS codes when working remotely?",
            "hardware tokens",
            "SMS codes",
        ),
        (
            "Can the cluster grow by adding nodes in place instead of a full rebuild?",
            "adding nodes in place",
            "a full rebuild",
        ),
    ],
)
def test_rather_than_reads_what_is_asked_about_and_what_against(question, about, against):
    (contrast,) = questions.read(question).contrasts
    assert (contrast.about_text, contrast.against_text) == (about, against)


def test_a_text_on_the_thing_asked_against_alone_speaks_only_of_the_other():
    (contrast,) = questions.read("Are backups encrypted rather than stored in plain form?").contrasts
    assert contrast.only_the_other("Backups are stored on tape in plain form.")
    assert not contrast.only_the_other("Backups are encrypted with AES-256 before they are stored.")
    assert not contrast.only_the_other("Backups are copied to a second site.")  # neither: other checks' business
    assert questions.read("Are backups encrypted?").contrasts == ()


def test_a_means_is_what_something_is_done_with():
    assert questions.names_a_means("Each disk is copied with dd and kept as evidence.")
    assert questions.names_a_means("Files are synchronised using rsync.")
    assert not questions.names_a_means("Traffic is sent through a tunnel.")
    assert not questions.names_a_means("Servers work together with the primary.")


@pytest.mark.parametrize(
    "question, names",
    [
        ("Do your public websites use Extended Validation certificates?", ("Extended Validation",)),
        ("Which security certifications do you hold (for example ISO 27001 or SOC 2)?", ("ISO 27001", "SOC 2")),
        ("Is an intrusion detection system in place? Please describe.", ()),
        ("Once I've logged in, how does the system remember me?", ()),
        # a number the import left in the text: the word after it starts the sentence
        ("Z.1 Who is your external financial auditor?", ()),
        ("1.2 Do you hold ISO 27001?", ("ISO 27001",)),
        ("(b) Which SIEM do you use?", ("SIEM",)),
    ],
)
def test_a_question_names_its_capitalised_things_not_its_sentence_starts(question, names):
    assert questions.read(question).names == names


def test_the_client_s_own_name_is_not_a_thing_the_question_asks_the_draft_to_name():
    question = "Will Eastbrook County Council own the records, and are they kept in ISO 27001 data centres?"
    assert questions.read(question).names == ("Eastbrook County Council", "ISO 27001")
    read = questions.read(question, asker="Eastbrook County Council")
    assert read.names == ("ISO 27001",) and read.asker == {"eastbrook", "county", "council"}


@pytest.mark.parametrize(
    "text, name, mentioned",
    [
        ("We are certified to ISO/IEC 27001:2022.", "ISO 27001", True),
        ("Staff sign in with single sign-on.", "SSO", True),
        ("The certificate chain validation is always ensured.", "Extended Validation", False),
    ],
)
def test_a_name_is_mentioned_in_other_spacing_or_written_out(text, name, mentioned):
    assert questions.mentions(text, name) is mentioned
