"""Where a quote sits: the section of a passage that a sentence comes from (text.headings.section_of)."""

from text.headings import section_of

# The chunker names a passage by the heading it starts in, or, when it opens on the document's preamble, by the
# first heading inside it (solution_library.services.chunking).
OPENS_ON_THE_PREAMBLE = (
    "Kestrel Peak Software company profile\n\n"
    "Kestrel Peak Software Ltd was founded in 2011 in Bristol.\n\n"
    "Fact: Employees. Value: 185, of whom 70 in engineering.\n\n"
    "# Public-sector customers\n\n"
    "Orrery is used by Fenmoor Water Authority and Harrowgate Borough Council.\n\n"
    "# Product roadmap\n\n"
    "Kestrel Peak delivers a new Orrery release every month."
)
OPENS_IN_A_SECTION = (
    "Orrery is used by Fenmoor Water Authority and Harrowgate Borough Council.\n\n"
    "# Product roadmap\n\n"
    "Kestrel Peak delivers a new Orrery release every month."
)


def test_a_quote_after_a_heading_line_sits_under_that_line_not_under_the_passage_heading():
    assert (
        section_of(
            OPENS_ON_THE_PREAMBLE, "Public-sector customers", "Kestrel Peak delivers a new Orrery release every month."
        )
        == "Product roadmap"
    )
    assert (
        section_of(
            OPENS_IN_A_SECTION, "Public-sector customers", "Kestrel Peak delivers a new Orrery release every month."
        )
        == "Product roadmap"
    )


def test_a_quote_before_the_first_heading_line_sits_under_the_heading_the_passage_starts_in():
    assert (
        section_of(OPENS_IN_A_SECTION, "Public-sector customers", "Orrery is used by Fenmoor Water Authority.")
        == "Public-sector customers"
    )


def test_a_quote_from_the_preamble_has_no_section_even_reworded():
    assert (
        section_of(
            OPENS_ON_THE_PREAMBLE,
            "Public-sector customers",
            "Kestrel Peak Software Ltd was founded in 2011 in Bristol.",
        )
        == ""
    )
    assert (
        section_of(OPENS_ON_THE_PREAMBLE, "Public-sector customers", "Employees: 185, of whom 70 in engineering.") == ""
    )


def test_without_heading_lines_or_shared_words_the_passage_heading_stands():
    assert section_of("Backups run every hour.", "Operations", "Backups run every hour.") == "Operations"
    assert section_of(OPENS_IN_A_SECTION, "Public-sector customers", "Nothing alike here.") == "Public-sector customers"
