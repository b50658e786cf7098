"""The job kind of the answer library, for the jobs page and the sweeper (registered by apps.py)."""

from jobs.kinds import JobKind

from .tasks import dispatch_job

KINDS = (
    # Imports and scans write entries idempotently (keyed by file row / entry pair): safe to send again.
    JobKind(
        "library",
        "Answer library import / scan",
        "answer_library.LibraryJob",
        "answer_library:job",
        redispatch=dispatch_job,
    ),
)
