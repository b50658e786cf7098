"""A database's schema as comparable text: what its migrations made, whatever order they made it in.

Columns added by a later migration sit at the end of their table, while a squashed history creates them
in the model's order; a column's place changes nothing the application sees, so each table's columns
and constraints are sorted. Everything else (types, defaults, indexes, triggers, functions, FTS5
tables, column storage, index options) is compared as the database itself prints it.
"""

import re
import sqlite3
import subprocess

BLANKS = re.compile(r"\s+")


def sqlite_schema(path) -> list[str]:
    with sqlite3.connect(path) as database:
        rows = database.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    return sorted(f"{kind} {name}: {_sorted_parts(sql)}" for kind, name, sql in rows)


def postgres_schema(url: str) -> list[str]:
    dump = subprocess.run(
        ["pg_dump", "--schema-only", "--no-owner", "--no-privileges", url], capture_output=True, text=True, check=True
    ).stdout
    return sorted(_sorted_parts(statement) for statement in _statements(dump))


def _statements(dump: str) -> list[str]:
    """pg_dump's statements, without its comments and session settings (a function's body is kept whole)."""
    statements, current = [], ""
    for line in dump.splitlines():
        in_body = current.count("$$") % 2 == 1
        if not in_body and (not line or line.startswith(("--", "\\", "SET ", "SELECT pg_catalog.set_config"))):
            continue
        current += line + "\n"
        if line.endswith(";") and current.count("$$") % 2 == 0:
            statements.append(current)
            current = ""
    return statements


def _sorted_parts(statement: str) -> str:
    """A CREATE TABLE with its column and constraint definitions sorted; anything else as it is, spaces squeezed."""
    statement = BLANKS.sub(" ", statement).strip().rstrip(";")
    if not statement.upper().startswith("CREATE TABLE"):
        return statement
    head, body = statement.split("(", 1)
    body, tail = body.rsplit(")", 1)
    return f"{head}({', '.join(sorted(_top_level_parts(body)))}){tail}"


def _top_level_parts(body: str) -> list[str]:
    """Split at the commas outside parentheses: one part per column or table constraint."""
    parts, depth, current = [], 0, ""
    for char in body:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    return [*parts, current.strip()]
