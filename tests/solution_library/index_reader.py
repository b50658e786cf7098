"""Another process on the test database: a stand-in for a second web or worker process that searches.

    python tests/solution_library/index_reader.py      (DATABASE_URL of the test database in the environment)

Reads one query per line on stdin and answers each with one JSON line: the
vector ranking of its own shared index (`vector`), search_passages()'s chunk
ids (`passages`), its pid and the pid that wrote the index generation it used.
It keeps its index open between queries, as a long-running process does.
"""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spelunker.settings")

import django  # noqa: E402

django.setup()

from llm_manager.services import get_default_model  # noqa: E402
from solution_library.services import search_index  # noqa: E402
from solution_library.services.search import search_passages, vector_ranking  # noqa: E402


def answer(query: str) -> dict:
    model = get_default_model("embedding")
    passages = search_passages(query, limit=5)
    index = search_index.index_for(model.pk)
    manifest = search_index.SharedIndexFolder(model.pk, index.version).manifest() or {}
    return {
        "passages": [p.chunk_id for p in passages],
        "vector": [chunk_id for chunk_id, _ in vector_ranking(query, model, 20, index=index)],
        "pid": os.getpid(),
        "written_by": manifest.get("written_by"),
        "segments": len(index.segments),
    }


for line in sys.stdin:
    print(json.dumps(answer(line.strip())), flush=True)
