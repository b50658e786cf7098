"""The job kind of the LLM manager, for the jobs page and the sweeper (registered by apps.py)."""

from django.urls import reverse

from jobs.kinds import JobKind

from .tasks import dispatch_validation_run


def validation_url(run) -> str:
    """A validation run shows on its API's page; a run over all APIs on the list of APIs."""
    return reverse("llm_manager:api_detail", args=[run.api_id]) if run.api_id else reverse("llm_manager:index")


KINDS = (
    JobKind(
        "validation",
        "LLM validation",
        "llm_manager.ValidationRun",
        validation_url,
        redispatch=dispatch_validation_run,
        staff_only=True,
        related=("api",),
    ),
)
