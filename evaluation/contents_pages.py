"""How many passages are table-of-contents or index pages, before and after the chunker leaves them out.

    .venv/bin/python -m evaluation.contents_pages [FILE_OR_FOLDER …]

Reads the evaluation set's documents (or the files given) with the library's own parser and chunker, and counts
the passages text.contents recognises: "before" is every paragraph packed (chunk_text(keep_contents=True)), "after"
what chunk_text returns. Nothing is written; the figures go to stdout.
"""

import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")


def documents(paths: list[str]) -> list[Path]:
    from evaluation.dataset import DOCUMENTS

    found = []
    for path in map(Path, paths or [DOCUMENTS]):
        found += (
            sorted(p for p in path.iterdir() if p.suffix != ".md" or p.name != "SOURCES.md")
            if path.is_dir()
            else [path]
        )
    return [p for p in found if p.suffix.lower() in (".pdf", ".docx", ".html", ".htm", ".md", ".txt")]


def main(paths: list[str]) -> int:
    import django

    django.setup()
    from solution_library.services import parsing
    from solution_library.services.chunking import chunk_text
    from text.contents import is_contents_or_index

    totals = {"passages before": 0, "contents/index before": 0, "passages after": 0, "contents/index after": 0}
    for path in documents(paths):
        data = path.read_bytes()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            text = parsing.extract_text(data, parsing.detect_type(data, path.name))
        before = chunk_text(text, keep_contents=True)
        after = chunk_text(text)
        counts = (
            len(before),
            sum(is_contents_or_index(c.text) for c in before),
            len(after),
            sum(is_contents_or_index(c.text) for c in after),
        )
        for key, n in zip(totals, counts):
            totals[key] += n
        if counts[1]:
            print(f"{path.name}: {counts[1]} of {counts[0]} passages were contents/index pages; {counts[3]} now")
    print(", ".join(f"{key}: {n}" for key, n in totals.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
