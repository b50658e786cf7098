"""The evaluation set: shipped public documents and questionnaire-style questions about them.

documents/ holds the documents, HTML, Markdown, PDF and Word (their sources,
licences and format conversions are in documents/SOURCES.md); questions.json
holds the questions, each with the documents that answer it — an empty list
means the library has no answer —, its kind (answerable, near_miss: on the library's topics but not answered by
it, off_topic), its topic, and its split (dev: tune on it; test: report it;
see split.py). Some carry a hand-written plausible but wrong answer, a fault
for the reviewer. Relevance is judged per document: a passage of a listed
document answers.
"""

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from django.core.files.base import ContentFile

HERE = Path(__file__).resolve().parent
DOCUMENTS = HERE / "documents"
QUESTIONS = HERE / "questions.json"
DOCUMENT_SUFFIXES = (".html", ".md", ".pdf", ".docx")
NOT_A_DOCUMENT = "SOURCES.md"  # the folder's own record of sources and licences


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    text: str
    relevant: frozenset[str]  # document names (file stems); empty = no answer in the library
    kind: str = "answerable"
    topic: str = ""
    split: str = "test"
    wrong_answer: str = ""  # hand-written, plausible and wrong; "" when the set has none for this question
    origin: str = ""  # which batch of the set: v1 (tuned on before the split), v2, v3 (client-worded, see split.py)

    @property
    def answerable(self) -> bool:
        return bool(self.relevant)


def load_questions(path: Path = QUESTIONS, split: str | None = None) -> list[EvalQuestion]:
    """The questions, all of them or those of one split."""
    questions = [
        EvalQuestion(
            q["id"],
            q["question"],
            frozenset(q["relevant"]),
            q["kind"],
            q["topic"],
            q["split"],
            q.get("wrong_answer", ""),
            q.get("origin", ""),
        )
        for q in json.loads(path.read_text())
    ]
    return [q for q in questions if split is None or q.split == split]


def document_paths(names: set[str] | None = None) -> list[Path]:
    paths = sorted(p for p in DOCUMENTS.iterdir() if p.suffix in DOCUMENT_SUFFIXES and p.name != NOT_A_DOCUMENT)
    return [p for p in paths if names is None or p.stem in names]


def document_formats() -> dict[str, int]:
    """{format: number of documents}, e.g. {"HTML": 23, "PDF": 12}."""
    from solution_library.models import DocumentType
    from solution_library.services.parsing import detect_type

    found = Counter(DocumentType(detect_type(p.read_bytes(), p.name)).label for p in document_paths())
    return dict(found)


def document_text(path: Path) -> str:
    """The document's text as the library extracts it from an upload of that file."""
    from solution_library.services.parsing import detect_type, extract_text

    data = path.read_bytes()
    return extract_text(data, detect_type(data, path.name))


def document_sentences() -> list[str]:
    """The sentences of the evaluation documents (public manuals) in document order, 20 to 400 characters."""
    from llm_manager.providers.grounding import sentences

    found = []
    for path in document_paths():
        found += [s for s in sentences(" ".join(document_text(path).split())) if 20 <= len(s) <= 400]
    return found


def ingest(paths: list[Path]) -> dict[int, str]:
    """Store and process each document the way an upload is processed; {document id: document name}.

    The title is the HTML page's own title, else the file's name, as an upload gets it.
    """
    from solution_library.models import Document, DocumentType
    from solution_library.services.documents import content_hash, process_document
    from solution_library.services.parsing import detect_type, html_title

    names = {}
    for path in paths:
        data = path.read_bytes()
        file_type = detect_type(data, path.name)
        title = (html_title(data) if file_type == DocumentType.HTML else "") or path.stem
        document, created = Document.objects.get_or_create(
            content_hash=content_hash(data),
            source__isnull=True,
            defaults={"title": title, "file_type": file_type, "size_bytes": len(data)},
        )
        if created or not document.file:
            document.file.save(path.name, ContentFile(data), save=True)
        result = process_document(document.pk)
        if not result.success:
            raise RuntimeError(f"{path.name} could not be processed: {result.error}")
        names[document.pk] = path.stem
    return names
