""".env.example lists every setting read from the environment, each with one line of meaning and its default.

The reads are found in the code itself: django-environ calls in settings.py, os.environ reads in the
project's Python modules, and ${NAME:-default} / ${NAME:?message} in the shell scripts and the compose
file. A setting added without its line in .env.example fails here, and so does a line left behind for
a setting nothing reads any more.
"""

import ast
import operator
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / ".env.example"
SETTINGS = ROOT / "spelunker" / "settings.py"
# Not the application: its tests, benchmarks and the evaluation set their own environment.
NOT_THE_APP = {".venv", ".run", "tests", "bench", "evaluation", "var", "static", "node_modules"}
SHELL_FILES = [*sorted((ROOT / "bin").iterdir()), ROOT / "docker-compose.yml"]
SHELL_READ = re.compile(r"\$\{([A-Z][A-Z0-9_]*):?[-?]")
# Read by the tools themselves, not by our files.
READ_BY_TOOLS = {"COMPOSE_PROFILES"}
# Read by our scripts, but other tools' conventions they follow (Python's bytecode switch, the XDG cache
# folder): not settings of ours.
CONVENTIONS = {"PYTHONDONTWRITEBYTECODE", "XDG_CACHE_HOME"}
ENTRY = re.compile(r"^(# )?([A-Z][A-Z0-9_]*)=(.*)$")
ARITHMETIC = {ast.Mult: operator.mul, ast.Add: operator.add, ast.Sub: operator.sub}


def entries() -> dict[str, tuple[str, str]]:
    """NAME → (its value, the comment line above it)."""
    lines = EXAMPLE.read_text().splitlines()
    found = {}
    for number, line in enumerate(lines):
        match = ENTRY.match(line)
        if match:
            name = match.group(2)
            assert name not in found, f"{name} is listed twice in .env.example"
            found[name] = (match.group(3), lines[number - 1] if number else "")
    return found


def literal(node: ast.expr):
    """A default written as a constant or constant arithmetic (15 * 60); None for anything computed."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        left, right = literal(node.left), literal(node.right)
        if isinstance(left, int | float) and isinstance(right, int | float):
            return ARITHMETIC[type(node.op)](left, right)
    return None


def settings_reads() -> dict[str, object]:
    """NAME → default, for every env.<type>("NAME", default=...) in settings.py."""
    reads = {}
    for node in ast.walk(ast.parse(SETTINGS.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr != "read_env"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "env"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            default = next((k.value for k in node.keywords if k.arg == "default"), None)
            if default is not None or node.args[0].value not in reads:  # a second read without one keeps it
                reads[node.args[0].value] = literal(default) if default is not None else None
    return reads


def is_environ(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def module_reads() -> set[str]:
    """os.environ.get("NAME"), os.getenv("NAME") and os.environ["NAME"] in the app's own Python modules."""
    names = set()
    for path in ROOT.rglob("*.py"):
        if NOT_THE_APP & set(path.relative_to(ROOT).parts) or path == SETTINGS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            key = None
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                func = node.func
                if isinstance(func, ast.Attribute) and (
                    (func.attr == "get" and is_environ(func.value))
                    or (func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os")
                ):
                    key = node.args[0].value
            elif (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and is_environ(node.value)
                and isinstance(node.slice, ast.Constant)
            ):
                key = node.slice.value
            if key:
                names.add(key)
    return names


def shell_reads() -> set[str]:
    return {name for path in SHELL_FILES if path.is_file() for name in SHELL_READ.findall(path.read_text())}


def all_reads() -> set[str]:
    return set(settings_reads()) | module_reads() | shell_reads()


def test_the_scan_finds_the_reads_of_each_kind():
    """A broken scan would find nothing and pass; these are read in each of the three ways."""
    assert {"DATABASE_URL", "JOB_STALE_SECONDS", "EMAIL_URL"} <= set(settings_reads())
    assert {"WEB_CONCURRENCY", "FLOWER_BASIC_AUTH", "SPELUNKER_ADMIN_PASSWORD"} <= module_reads()
    assert {"RUN_POSTGRES", "POSTGRES_PASSWORD", "STACK_START_TIMEOUT"} <= shell_reads()


def test_every_setting_read_from_the_environment_is_in_env_example():
    missing = sorted(all_reads() - set(entries()) - CONVENTIONS)
    assert not missing, f"add these to .env.example, each under a line saying what it does: {missing}"


def test_env_example_lists_nothing_that_is_not_read():
    stale = sorted(set(entries()) - all_reads() - READ_BY_TOOLS)
    assert not stale, f"nothing reads these any more; remove them from .env.example: {stale}"


@pytest.mark.parametrize("name", sorted(entries()))
def test_each_setting_has_a_line_of_meaning_above_it_and_no_comment_after_its_value(name):
    value, above = entries()[name]
    assert above.startswith("# ") and not ENTRY.match(above), f"{name}: say what it does on the line above"
    # django-environ keeps anything after the value, a comment too ("true  # …" is not true).
    assert "#" not in value, f"{name}: a comment after the value becomes part of it"


@pytest.mark.parametrize(
    "name, default",
    sorted((name, default) for name, default in settings_reads().items() if isinstance(default, bool | int | float)),
    ids=str,
)
def test_numbers_and_switches_show_their_default(name, default):
    value = entries()[name][0]
    shown = value.lower() == str(default).lower() if isinstance(default, bool) else float(value) == default
    assert shown, f"{name}: .env.example shows {value!r}, settings.py's default is {default!r}"
