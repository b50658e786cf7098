"""The row walk on its own: the questions pasted text holds, each with its section and number, and the lines left out."""

from questionnaires import row_walk


def test_pasted_text_keeps_sections_and_numbers():
    table = row_walk.parse_text(
        "# Security\n1.1 Do you encrypt data?\n\nSection: Support\nQ2) What are your hours?\nok\n"
    )
    assert [(r["section"], r["number"], r["text"]) for r in table.rows] == [
        ("Security", "1.1", "Do you encrypt data?"),
        ("Support", "2", "What are your hours?"),
    ]
    assert table.bad_rows == [{"sheet": "", "row": 6, "reason": "question too short", "text": "ok"}]


def test_pasted_lines_keep_lettered_numbers_and_leave_prose_whole():
    """Questionnaires number questions "A.1" or "SEC-01" as often as "1.2": the number is the question's, not its
    text's first word (where "Who" would read as a name). A line that only starts with a lettered figure is prose."""
    table = row_walk.parse_text(
        "A.1 Who is your external auditor?\nSEC-01. Do you encrypt data at rest?\nB.2.3) (If yes) Describe how.\n"
        "SOC-2 reports are available on request?\nCOVID-19 measures: describe them.\nIPv6 supported on every service?\n"
    )
    assert [(r["number"], r["text"]) for r in table.rows] == [
        ("A.1", "Who is your external auditor?"),
        ("SEC-01", "Do you encrypt data at rest?"),
        ("B.2.3", "(If yes) Describe how."),
        ("", "SOC-2 reports are available on request?"),
        ("", "COVID-19 measures: describe them."),
        ("", "IPv6 supported on every service?"),
    ]
