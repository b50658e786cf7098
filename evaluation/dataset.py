"""The evaluation set: shipped public documents and questionnaire-style questions about them.

documents/ holds the documents (their sources and licences are in
documents/SOURCES.md); questions.json holds the questions, each with the
documents that answer it — an empty list means the library has no answer.
Relevance is judged per document: a passage of a listed document answers.
"""
import json
from dataclasses import dataclass
from pathlib import Path

from django.core.files.base import ContentFile

HERE = Path(__file__).resolve().parent
DOCUMENTS = HERE / "documents"
QUESTIONS = HERE / "questions.json"


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    text: str
    relevant: frozenset[str]  # document names (file stems); empty = no answer in the library

    @property
    def answerable(self) -> bool:
        return bool(self.relevant)


def load_questions(path: Path = QUESTIONS) -> list[EvalQuestion]:
    return [EvalQuestion(q["id"], q["question"], frozenset(q["relevant"])) for q in json.loads(path.read_text())]


def document_paths(names: set[str] | None = None) -> list[Path]:
    paths = sorted(DOCUMENTS.glob("*.html"))
    return [p for p in paths if names is None or p.stem in names]


def document_sentences() -> list[str]:
    """The sentences of the evaluation documents (public manuals) in document order, 20 to 400 characters."""
    from llm_manager.providers.grounding import sentences
    from solution_library.services.parsing import html_to_text

    found = []
    for path in document_paths():
        text = " ".join(html_to_text(path.read_bytes()).split())
        found += [s for s in sentences(text) if 20 <= len(s) <= 400]
    return found


def ingest(paths: list[Path]) -> dict[int, str]:
    """Store and process each document the way an upload is processed; {document id: document name}."""
    from solution_library.models import Document, DocumentType
    from solution_library.services.documents import content_hash, process_document
    from solution_library.services.parsing import html_title

    names = {}
    for path in paths:
        data = path.read_bytes()
        document, created = Document.objects.get_or_create(
            content_hash=content_hash(data), source__isnull=True,
            defaults={"title": html_title(data) or path.stem, "file_type": DocumentType.HTML, "size_bytes": len(data)},
        )
        if created or not document.file:
            document.file.save(path.name, ContentFile(data), save=True)
        result = process_document(document.pk)
        if not result.success:
            raise RuntimeError(f"{path.name} could not be processed: {result.error}")
        names[document.pk] = path.stem
    return names
