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
