"""Workbook analysis: which sheets hold questions and, per sheet, the header row and each column's role.

The result is a *mapping*, a plain JSON-able dict the user can correct in the
preview and that is remembered for the next file of the same structure:

    {"sheets": [{"name": "Domain 1", "include": True, "reason": "",
                 "header_row": 4, "headers": {"1": "ID", "2": "Question", …},
                 "roles": {"1": "id", "2": "question", "3": "choice", "4": "text"}}]}

Columns are 1-based and keyed by strings (JSON object keys). A column that is
not in `roles` is ignored.
"""

import hashlib
import re
from statistics import median

from .sheets import Sheet

ROLES = ("question", "id", "section", "choice", "text", "ignore")
HEADER_SCAN_ROWS = 30  # the issue says "about 15"; SAMM's Interview header is on row 17
SAMPLE_ROWS = 400  # rows below the header that the column statistics look at

QUESTION_WORDS = frozenset(
    "do does did is are was were have has had how what which who whom whose when where why can could will would "
    "should shall may must describe explain provide list please indicate identify specify detail outline confirm "
    "state verify ensure demonstrate share attach summarize summarise give".split()
)
ID_HEADERS = (
    "id",
    "question id",
    "req id",
    "requirement id",
    "control id",
    "ref",
    "ref.",
    "reference",
    "ref no",
    "ref #",
    "#",
    "no",
    "no.",
    "number",
    "item no",
    "item #",
    "q#",
    "q no",
    "question no",
    "question number",
    "question #",
)
SECTION_WORDS = ("section", "category", "area", "topic", "chapter", "domain", "family", "theme", "group", "subject")
QUESTION_HEADER_WORDS = (
    "question",
    "requirement",
    "control",
    "query",
    "description",
    "criteria",
    "item",
    "specification",
)
CHOICE_HEADER_WORDS = (
    "yes/no",
    "y/n",
    "compliance",
    "compliant",
    "complies",
    "implemented",
    "status",
    "applicable",
    "choice",
    "select",
    "owner",
    "ownership",
    "responsibility",
    "responsible",
)
TEXT_HEADER_WORDS = (
    "answer",
    "response",
    "implementation",
    "additional",
    "note",
    "comment",
    "evidence",
    "remark",
    "justification",
    "explanation",
    "details",
    "supporting",
    "reply",
)
KNOWN_HEADER_WORDS = QUESTION_HEADER_WORDS + TEXT_HEADER_WORDS + CHOICE_HEADER_WORDS + SECTION_WORDS
# Columns beside the answers that are not the respondent's to fill: the client's guidance, the analyst's columns.
# Tested before the answer words ("Analyst notes" is not the answer's "notes"); the reason shows in the preview.
NOT_FOR_RESPONDENT = [
    (
        (
            "analyst",
            "assessor",
            "evaluator",
            "reviewer",
            "internal use",
            "office use",
            "institution use",
            "score",
            "scoring",
            "weight",
        ),
        "for the client's analyst, not an answer column",
    ),
    (
        ("guidance", "instruction", "help text", "hint", "example", "how to answer"),
        "guidance for the respondent, not an answer column",
    ),
]
# Sheet names that say "not for the respondent", by whole words.
SKIP_NAME_WORDS = {
    "instructions": "instructions sheet",
    "instruction": "instructions sheet",
    "introduction": "introduction sheet",
    "intro": "introduction sheet",
    "readme": "instructions sheet",
    "guidance": "instructions sheet",
    "overview": "introduction sheet",
    "cover": "cover sheet",
    "licence": "licence sheet",
    "license": "licence sheet",
    "attribution": "licence sheet",
    "glossary": "glossary",
    "definitions": "glossary",
    "changelog": "change log",
    "lookup": "lookup sheet",
    "lookups": "lookup sheet",
    "lists": "lookup sheet",
    "dropdowns": "lookup sheet",
    "score": "scoring sheet",
    "scoring": "scoring sheet",
    "scorecard": "scoring sheet",
    "dashboard": "scoring sheet",
    "evaluation": "analyst evaluation sheet",
    "analyst": "analyst evaluation sheet",
    "assessor": "analyst evaluation sheet",
}
SKIP_NAME_PHRASES = {
    "start here": "instructions sheet",
    "read me": "instructions sheet",
    "change log": "change log",
    "version history": "change log",
}
MIN_QUESTIONS = 3
# Header words that say "this column holds the questions" (any other header over the questions names their domain).
GENERIC_QUESTION_WORDS = (
    "question",
    "requirement",
    "query",
    "description",
    "criteria",
    "item",
    "specification",
    "statement",
    "text",
)


def says_question(header) -> bool:
    return any(w in normalize_header(header) for w in ("question", "requirement"))


def names_a_domain(header: str) -> bool:
    """A question column headed "Access Control" (not "Question") gives its rows that section."""
    normalized = normalize_header(header)
    return (
        bool(normalized)
        and normalized not in ("control", "controls")
        and not any(w in normalized for w in GENERIC_QUESTION_WORDS)
    )


QUESTION_SHARE = 0.25  # of a question column's cells; prose, labels and notes fall below it
# "1.2 Text", "Q3) Text", "Question 4: Text", "A.1 Text", "SEC-01 Text" (pasted lines, Word paragraphs, PDF lines):
# the number, the question. A lettered number needs its dot or dash and a capital after it: "SOC-2 report…" is prose.
NUMBERED_LINE = re.compile(
    r"^\s*(?:Q(?:uestion)?\s*)?"
    r"((?-i:[A-Z]{1,4})[.\-]\d+(?:\.\d+)*(?=[.):]?\s+(?-i:[A-Z(\"“]))|\d+(?:\.\d+)*)"
    r"[.):]?\s+(\S.*)$",
    re.IGNORECASE,
)


def normalize_header(value) -> str:
    return " ".join(str(value or "").strip().lower().replace("_", " ").split())


def cell_text(value) -> str:
    """A cell as text: line breaks kept (bullet lists read as lists), runs of spaces folded."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    lines = (" ".join(line.split()) for line in str(value).splitlines())
    return "\n".join(line for line in lines if line)


def looks_like_question(text: str) -> bool:
    if len(text) < 10:
        return False
    first = re.split(r"[\s,:;(]", text.lstrip("•-*0123456789.) ").lower(), maxsplit=1)[0]
    return "?" in text or first in QUESTION_WORDS or bool(re.search(r"\b(shall|must|should)\b", text.lower()))


def is_id_header(header: str) -> bool:
    return header in ID_HEADERS or header.endswith((" id", " ref", " #", " no", " no.", " number"))


# --- the header row ----------------------------------------------------------------


def _header_score(sheet: Sheet, row: int) -> int:
    """How much a row looks like a table header: short labels, several of them, known words."""
    values = [v for v in sheet.cells.get(row, {}).values()]
    labels = [normalize_header(v) for v in values if isinstance(v, str) and 0 < len(v.strip()) <= 60 and "?" not in v]
    if len(labels) != len(values) or not labels:
        return 0
    known = sum(1 for h in labels if is_id_header(h) or any(w in h for w in KNOWN_HEADER_WORDS))
    if len(labels) == 1:
        return 3 if known else 0  # a lone "Question" heads a one-column list; a lone title does not
    return len(labels) + 2 * known


def find_header_row(sheet: Sheet) -> int | None:
    """The best-looking header among the first rows (a title block may sit above it)."""
    best, best_score = None, 0
    for row in sorted(r for r in sheet.cells if r <= HEADER_SCAN_ROWS):
        score = _header_score(sheet, row)
        if score > best_score:
            best, best_score = row, score
    return best if best_score >= 3 else None


# --- column roles ---------------------------------------------------------------------


def _column_texts(sheet: Sheet, header_row: int, column: int) -> list[str]:
    rows = [r for r in sorted(sheet.cells) if r > header_row][:SAMPLE_ROWS]
    return [t for t in (cell_text(sheet.value(r, column)) for r in rows) if t]


def _question_score(texts: list[str]) -> float:
    """Distinct question-like and long texts: guidance repeated on every row scores as one."""
    distinct = set(texts)
    questions = sum(1 for t in distinct if looks_like_question(t))
    long = sum(1 for t in distinct if len(t) >= 25)
    return questions * 2 + long


def not_for_respondent(header: str) -> str:
    """Why a column beside the answers is not one (its header says guidance or analyst), else ""."""
    return next((why for words, why in NOT_FOR_RESPONDENT if any(w in header for w in words)), "")


def _id_like(texts: list[str]) -> bool:
    """Short, distinct codes with a digit; words without a digit between them are section rows, not counted."""
    counted = [t for t in texts if re.search(r"\d", t) or " " not in t]
    short = [t for t in counted if len(t) <= 20 and " " not in t and re.search(r"\d", t)]
    return len(short) >= MIN_QUESTIONS and len(short) >= 0.8 * len(counted) and len(set(short)) >= 0.9 * len(short)


def column_notes(sheet: Sheet, header_row: int | None) -> dict[str, str]:
    """Why a headed column is left out of the answers (shown beside its role in the preview)."""
    headers = {c: normalize_header(v) for c, v in sheet.cells.get(header_row or 0, {}).items()} if header_row else {}
    return {str(c): why for c, h in sorted(headers.items()) if (why := not_for_respondent(h))}


def propose_roles(sheet: Sheet, header_row: int | None, min_questions: int = MIN_QUESTIONS) -> dict[str, str]:
    """Each column's role, from its values first (where the questions and IDs are), its header words and its dropdowns."""
    top = header_row or 0
    headers = {c: normalize_header(v) for c, v in sheet.cells.get(top, {}).items()} if header_row else {}
    columns = range(1, sheet.max_column + 1)
    texts = {c: _column_texts(sheet, top, c) for c in columns}
    # Dropdowns right of the table are helper cells, not the respondent's answer column.
    dropdowns = {c for c in sheet.dropdown_columns(top) if not headers or c <= max(headers)}
    roles: dict[int, str] = {}

    for column in columns:
        header = headers.get(column, "")
        if column in sheet.hidden_columns and not _id_like(texts[column]) or not_for_respondent(header):
            continue
        if column in dropdowns or any(w in header for w in CHOICE_HEADER_WORDS):
            roles[column] = "choice"
        elif any(w in header for w in TEXT_HEADER_WORDS) and not is_id_header(header):
            roles[column] = "text"
        elif any(w in header for w in SECTION_WORDS) and not is_id_header(header) and len(header.split()) <= 4:
            roles[column] = "section"

    left_out = {c for c, h in headers.items() if not_for_respondent(h)}
    id_column = _pick_id_column(headers, texts, roles, left_out)
    if id_column:
        roles[id_column] = "id"
    question = _pick_question_column(sheet, headers, texts, roles | dict.fromkeys(left_out, "ignore"), min_questions)
    if question:
        roles[question] = "question"
    return {str(c): r for c, r in sorted(roles.items())}


def _pick_id_column(headers: dict, texts: dict, roles: dict, left_out: set) -> int | None:
    """A column named like an ID (the one with the most distinct values), else one whose values look like IDs —
    whatever its header says: a "Question" header often spans the ID column and the question beside it."""
    named = [c for c, h in headers.items() if is_id_header(h) and c not in roles and texts.get(c)]
    if named:
        return max(named, key=lambda c: (len(set(texts[c])), -c))
    unnamed = [c for c, t in texts.items() if c not in roles and c not in left_out and _id_like(t)]
    return min(unnamed) if unnamed else None


def _pick_question_column(sheet: Sheet, headers: dict, texts: dict, roles: dict, min_questions: int) -> int | None:
    """The column where the question-like text is; a "Question" header only breaks a near tie (x 1.25)."""
    candidates = [
        c for c in texts if c not in roles and c not in sheet.hidden_columns and not is_id_header(headers.get(c, ""))
    ]
    named = {
        c
        for c in candidates
        if any(w in headers.get(c, "") for w in QUESTION_HEADER_WORDS) and any(len(t) >= 15 for t in texts[c])
    }
    best = max(candidates, key=lambda c: (_question_score(texts[c]) * (1.25 if c in named else 1), -c), default=None)
    if best is None or (best not in named and sum(1 for t in texts[best] if looks_like_question(t)) < min_questions):
        return None
    return best


# --- sheets -----------------------------------------------------------------------------


def _name_reason(name: str) -> str:
    lowered = normalize_header(name)
    for phrase, reason in SKIP_NAME_PHRASES.items():
        if phrase in lowered:
            return reason
    for word in re.findall(r"[a-z]+", lowered):
        if word in SKIP_NAME_WORDS:
            return SKIP_NAME_WORDS[word]
    return ""


def _content_reason(sheet: Sheet, header_row: int | None, roles: dict, min_questions: int = MIN_QUESTIONS) -> str:
    question = next((int(c) for c, r in roles.items() if r == "question"), None)
    if question is None:
        non_empty = sum(len(r) for r in sheet.cells.values())
        if non_empty and len(sheet.formulas) >= 0.4 * non_empty:
            return f"lookup or scoring sheet ({len(sheet.formulas)} formulas, no question column)"
        return "no question-like column"
    texts = _column_texts(sheet, header_row or 0, question)
    asked = [t for t in texts if looks_like_question(t)]
    if says_question(sheet.value(header_row or 0, question)):
        min_questions = 1  # the client headed it "Question": a short sheet is still a sheet of questions
    if len(asked) < min_questions or len(asked) < QUESTION_SHARE * len(texts):
        return f"few question-like rows ({len(asked)} of {len(texts)})"
    return ""


def _repeats(mapping: dict, sheets: list[Sheet]) -> None:
    """An analyst-evaluation sheet repeats the questions of a respondent sheet before it: leave it out."""
    seen: dict[str, str] = {}
    for sheet, proposed in zip(sheets, mapping["sheets"]):
        if not proposed["include"]:
            continue
        question = next(int(c) for c, r in proposed["roles"].items() if r == "question")
        texts = {t for t in _column_texts(sheet, proposed["header_row"] or 0, question) if looks_like_question(t)}
        earlier = [seen[t] for t in texts if t in seen]
        if texts and len(earlier) >= 0.5 * len(texts):
            proposed.update(
                include=False, reason=f"repeats the questions of sheet “{max(set(earlier), key=earlier.count)}”"
            )
            continue
        seen.update(dict.fromkeys(texts, sheet.name))


def analyse_sheet(sheet: Sheet, header_row: int | None = None, min_questions: int = MIN_QUESTIONS) -> dict:
    """The proposed mapping of one sheet, with the reason when it is left out."""
    if header_row is None:
        header_row = find_header_row(sheet)
    roles = propose_roles(sheet, header_row, min_questions)
    reason = ""
    if sheet.state != "visible":
        reason = "hidden sheet"
    elif not sheet.cells:
        reason = "empty sheet"
    else:
        # The content decides: a sheet whose name says "not for the respondent" is still included when it holds
        # questions and a column for their answers.
        content = _content_reason(sheet, header_row, roles, min_questions)
        holds_questions = not content and any(r in ("choice", "text") for r in roles.values())
        reason = "" if holds_questions else (_name_reason(sheet.name) or content)
    return {
        "name": sheet.name,
        "include": not reason,
        "reason": reason,
        "header_row": header_row,
        "last_row": sheet.max_row,
        "headers": {str(c): cell_text(v)[:80] for c, v in sheet.cells.get(header_row or 0, {}).items()},
        "roles": roles,
        "notes": column_notes(sheet, header_row),
    }


def analyse(sheets: list[Sheet]) -> dict:
    """The proposed mapping of a whole workbook (or a CSV, as one sheet)."""
    mapping = {"sheets": [analyse_sheet(sheet) for sheet in sheets]}
    visible = [i for i, sheet in enumerate(sheets) if sheet.state == "visible"]
    if len(visible) == 1 and not mapping["sheets"][visible[0]]["include"]:
        # A file with one visible sheet is a questionnaire by being uploaded: a short list of questions
        # counts, and its name cannot rule it out; only its content can.
        only = analyse_sheet(sheets[visible[0]], min_questions=1)
        only["reason"] = _content_reason(sheets[visible[0]], only["header_row"], only["roles"], min_questions=1)
        only["include"] = not only["reason"]
        mapping["sheets"][visible[0]] = only
    _without_table(mapping)
    _repeats(mapping, sheets)
    return mapping


def _without_table(mapping: dict) -> None:
    """Beside sheets with a table, a sheet without a header row is prose (an introduction, notes)."""
    if any(s["include"] and s["header_row"] for s in mapping["sheets"]):
        for proposed in mapping["sheets"]:
            if proposed["include"] and not proposed["header_row"]:
                proposed.update(include=False, reason="no table header (introduction or notes)")


def fingerprint(sheets: list[Sheet], mapping: dict) -> str:
    """The structure of a file: its sheet names and each sheet's header labels (not its questions)."""
    parts = []
    for sheet, proposed in zip(sheets, mapping["sheets"]):
        headers = "|".join(normalize_header(proposed["headers"][c]) for c in sorted(proposed["headers"], key=int))
        parts.append(f"{sheet.name}\t{proposed['header_row']}\t{headers}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def typical_filled_cells(sheet: Sheet, header_row: int, question: int) -> float:
    """How many cells a question row usually fills: tells a lone heading from a lone question."""
    counts = [len(row) for r, row in sheet.cells.items() if r > header_row and cell_text(row.get(question))]
    return median(counts) if counts else 1
