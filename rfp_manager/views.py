"""RFP pages: list, detail, import with preview, documents, batch jobs, answers, export.

Views never do long work: they write rows and dispatch tasks after commit.
Every lookup goes through `RFP.objects.visible_to(user)`, so an RFP, its
questions, answers, jobs and exports are only reachable by the people who
work on it (404 for anyone else); each lookup then names the role the action
needs (`access`: viewer or owner, and who may edit each answer — 403 with
the reason when it is missing).
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from jobs.models import JobStatus
from jobs.views import job_status_response, progress_context
from llm_manager.exceptions import LLMError
from questionnaires import analysis, pdf, word
from solution_library.models import Document
from solution_library.services import snippets
from solution_library.services.search import search_passages

from . import access, tasks
from .forms import (
    AnswerEditForm,
    ImportRemapForm,
    InformationDocumentForm,
    QuestionImportForm,
    RFPForm,
    WorkspaceFilterForm,
)
from .models import (
    RFP,
    Answer,
    InformationDocument,
    JobQuestionResult,
    Question,
    QuestionImport,
    QuestionImportJob,
    RFPBatchJob,
)
from .reuse import approved_answers
from .services import (
    answering,
    batch,
    choices,
    deliverable,
    document_export,
    export,
    importing,
    workflow,
    workspace,
)

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
SOURCES_LISTED = 5  # passages and entries the answer editor offers to insert


# --- lookups that enforce who may see what -------------------------------------


def _rfp(request, pk, need: str = access.VIEWER) -> RFP:
    rfp = get_object_or_404(RFP.objects.visible_to(request.user), pk=pk)
    access.require(rfp, request.user, need)
    return rfp


def _visible(model, request, pk, rfp_path: str, need: str = access.VIEWER):
    """An object under an RFP the user sees (`rfp_path` leads to it), if they hold the role `need`."""
    obj = get_object_or_404(model.objects.filter(**{f"{rfp_path}__in": RFP.objects.visible_to(request.user)}), pk=pk)
    access.require(obj.rfp, request.user, need)
    return obj


def _owner_on_post(request) -> str:
    """Pages anyone on the RFP may read, whose form only an owner may send."""
    return access.OWNER if request.method == "POST" else access.VIEWER


# --- RFPs ------------------------------------------------------------------------


def index(request):
    rfps = RFP.objects.visible_to(request.user).with_progress().select_related("owner")
    return render(request, "rfp_manager/index.html", {"rfps": rfps})


def rfp_create(request):
    form = RFPForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        rfp = form.save(commit=False)
        rfp.owner = request.user
        rfp.save()
        form.save_m2m()
        return redirect("rfp_manager:detail", pk=rfp.pk)
    return render(request, "rfp_manager/rfp_form.html", {"form": form})


def rfp_edit(request, pk):
    rfp = _rfp(request, pk, _owner_on_post(request))
    role = access.access(rfp, request.user)
    if not role.owns:  # the details to read, not a form whose saving would be refused
        return render(request, "rfp_manager/rfp_form.html", {"rfp": rfp, "read_only": role})
    form = RFPForm(request.POST or None, instance=rfp, user=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        return redirect("rfp_manager:detail", pk=rfp.pk)
    return render(request, "rfp_manager/rfp_form.html", {"form": form, "rfp": rfp})


def _workspace_context(request, rfp) -> dict:
    """The answers workspace: the filter form, one page of questions, the counts per status."""
    form = WorkspaceFilterForm(request.GET or None, sections=workspace.sections(rfp), assignees=access.people(rfp))
    filters = form.cleaned_data if form.is_valid() else {}
    page = workspace.page_of(workspace.filtered_questions(rfp, filters, request.user), filters.get("page"))
    return {
        "rfp": rfp,
        "filter_form": form,
        "page": page,
        "page_range": page.paginator.get_elided_page_range(page.number, on_each_side=2, on_ends=1),
        "filtered": any(v for k, v in filters.items() if k not in ("page", "sort")),
        **_progress_context(rfp),
        **_controls(request, rfp),
    }


def _progress_context(rfp) -> dict:
    """The workspace's bar and counts per status (_workspace_progress.html)."""
    counts = workflow.status_counts(rfp)
    return {
        "counts": counts,
        "status_chips": [(value, label, counts[value]) for value, label in Question.Status.choices],
        "percent": workflow.progress_percent(counts),
    }


def _controls(request, rfp) -> dict:
    """What the page needs to show each person only the controls they may use (the views still refuse the rest)."""
    return {"access": access.access(rfp, request.user), "assign_url": workspace.assign_url(rfp)}


def _render_rfp(request, rfp, status=200, error=""):
    workspace_context = _workspace_context(request, rfp)
    jobs = list(rfp.batch_jobs.select_related("started_by")[:10])
    # A redraft is the owner's to start, and not while a responder drafts (its answers are about to change).
    drafting = any(job.is_active and job.job_type == RFPBatchJob.JOB_TYPE_RESPONDER for job in jobs)
    offer_redraft = workspace_context["access"].owns and not drafting
    context = {
        **workspace_context,
        "documents": rfp.information_documents.all(),
        "jobs": jobs,
        "import_form": QuestionImportForm(),
        "document_form": InformationDocumentForm(),
        "reviewer_blocker": batch.reviewer_blocker(rfp),
        "library_processing": Document.objects.processing().count(),  # answers started now would miss them
        "library_grew": batch.drafted_before_library_grew(rfp) if offer_redraft else None,
        "source_workbook": export.source_file_import(rfp),
        "source_document": document_export.source_document_import(rfp),
        # Checked before export: the page shows every answer that states a canonical fact differently.
        "fact_mismatches": approved_answers().fact_mismatches(rfp),
        "error": error,
    }
    return render(request, "rfp_manager/rfp_detail.html", context, status=status)


def _render_workspace(request, rfp, **extra):
    return render(request, "rfp_manager/_workspace.html", {**_workspace_context(request, rfp), **extra})


def rfp_detail(request, pk):
    rfp = _rfp(request, pk)
    if request.htmx and request.htmx.target == "workspace":  # a filter, sort or page change
        return _render_workspace(request, rfp)
    return _render_rfp(request, rfp)


# --- question import -----------------------------------------------------------------


@require_POST
def import_upload(request, pk):
    rfp = _rfp(request, pk, access.OWNER)
    form = QuestionImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render_rfp(request, rfp, status=400, error=" ".join(m for ms in form.errors.values() for m in ms))
    upload = form.cleaned_data.get("file")
    try:
        if importing.read_in_a_job(upload):  # the request answers at once; the preview opens when the job is done
            with transaction.atomic():
                record = importing.store_for_analysis(rfp, request.user, upload)
                tasks.dispatch_import_analysis(importing.create_analysis_job(record, request.user))
        else:
            record = importing.prepare_import(
                rfp, request.user, upload=upload, pasted_text=form.cleaned_data.get("text") or ""
            )
    except importing.QuestionImportError as exc:
        return _render_rfp(request, rfp, status=400, error=str(exc))
    return redirect("rfp_manager:import_preview", pk=record.pk)


def _preview_context(record) -> dict:
    return {
        "record": record,
        "rfp": record.rfp,
        "rows": importing.preview(record),
        "sheets": importing.sheet_summaries(record),
        "roles": analysis.ROLES,
    }


def import_preview(request, pk):
    record = _visible(QuestionImport, request, pk, "rfp", _owner_on_post(request))
    job = record.analysis_job()
    if job is not None and _no_preview_yet(job):
        context = progress_context(job, _import_analysis_poll_url(job), rfp=record.rfp, record=record)
        return render(
            request, "rfp_manager/import_analysis.html", context, status=409 if request.method == "POST" else 200
        )
    if job is not None and job.changes and job.status != JobStatus.COMPLETED and request.method == "GET":
        messages.error(request, f"Your last change to the mapping was not applied: {job.message}")
    if request.method == "POST":
        counts = importing.apply_import(record)
        messages.success(
            request,
            f"Imported: {counts['created']} new, {counts['updated']} already there (updated), {counts['rejected']} rejected.",
        )
        return redirect("rfp_manager:detail", pk=record.rfp_id)
    return render(request, "rfp_manager/import_preview.html", _preview_context(record))


def _no_preview_yet(job: QuestionImportJob) -> bool:
    """Still being read (or a change still being applied), or refused when first read: no preview to show or apply.
    A change that failed leaves the mapping as it was: the preview shows that, and says so."""
    return job.is_active or (not job.changes and job.status != JobStatus.COMPLETED)


def _import_analysis_poll_url(job) -> str:
    return reverse("rfp_manager:import_analysis_status", args=[job.pk])


def import_analysis_status(request, pk):
    """The reading job's progress; the page reloads into the preview once it is done."""
    return job_status_response(
        request,
        QuestionImportJob,
        pk,
        "rfp_manager:import_analysis_status",
        load=lambda: _visible(QuestionImportJob, request, pk, "question_import__rfp"),
        reload_page_when_done=True,
    )


@require_POST
def import_remap(request, pk):
    """One correction of the mapping; htmx swaps the preview in place, a plain POST goes back to it."""
    record = _visible(QuestionImport, request, pk, "rfp", access.OWNER)
    form = ImportRemapForm(request.POST, sheet_count=len(record.mapping.get("sheets", [])))
    if not form.is_valid():
        return HttpResponse(" ".join(m for ms in form.errors.values() for m in ms), status=400)
    if importing.remap_in_a_job(record):  # the file is read again by a worker; the preview page shows its progress
        with transaction.atomic():
            tasks.dispatch_import_analysis(importing.create_analysis_job(record, request.user, form.changes()))
        url = reverse("rfp_manager:import_preview", args=[record.pk])
        return HttpResponse(headers={"HX-Redirect": url}) if request.htmx else redirect(url)
    try:
        importing.remap(record, **form.changes())
    except importing.QuestionImportError as exc:
        return HttpResponse(str(exc), status=400)
    if not request.htmx:
        return redirect("rfp_manager:import_preview", pk=record.pk)
    return render(request, "rfp_manager/_import_preview_body.html", _preview_context(record))


# --- information documents -----------------------------------------------------------


@require_POST
def document_upload(request, pk):
    rfp = _rfp(request, pk, access.OWNER)
    form = InformationDocumentForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render_rfp(request, rfp, status=400, error=" ".join(m for ms in form.errors.values() for m in ms))
    with transaction.atomic():
        document = form.save(commit=False)
        document.rfp, document.uploaded_by = rfp, request.user
        document.save()
        tasks.dispatch_summary(document)
    messages.info(request, f"Uploaded “{document.title}”; its summary is being written.")
    return redirect("rfp_manager:detail", pk=rfp.pk)


@require_POST
def document_summarize(request, pk):
    document = _visible(InformationDocument, request, pk, "rfp", access.OWNER)
    with transaction.atomic():
        tasks.dispatch_summary(document)
    messages.info(request, f"Summarizing “{document.title}”.")
    return redirect("rfp_manager:detail", pk=document.rfp_id)


# --- batch jobs ------------------------------------------------------------------------


def _start(request, rfp, create):
    """Create a job row and dispatch it after commit; a second active job is a 409."""
    try:
        with transaction.atomic():
            job = create()
            tasks.dispatch_batch_job(job)
    except batch.JobAlreadyRunning as exc:
        return _render_rfp(request, rfp, status=409, error=f"{exc} Follow it on its progress page.")
    except batch.JobNotStarted as exc:
        return _render_rfp(request, rfp, status=400, error=str(exc))
    return redirect("rfp_manager:job", pk=job.pk)


@require_POST
def start_responder(request, pk):
    rfp = _rfp(request, pk, access.OWNER)
    review = request.POST.get("review_when_done") == "on"
    return _start(
        request,
        rfp,
        lambda: batch.create_batch_job(rfp, RFPBatchJob.JOB_TYPE_RESPONDER, request.user, review_when_done=review),
    )


@require_POST
def start_reviewer(request, pk):
    rfp = _rfp(request, pk, access.OWNER)
    blocker = batch.reviewer_blocker(rfp)
    if blocker:
        return _render_rfp(request, rfp, status=409, error=blocker)
    return _start(request, rfp, lambda: batch.create_batch_job(rfp, RFPBatchJob.JOB_TYPE_REVIEWER, request.user))


def _job_poll_url(job) -> str:
    return reverse("rfp_manager:job_status", args=[job.pk])


def job_detail(request, pk):
    job = _visible(RFPBatchJob, request, pk, "rfp")
    return render(request, "rfp_manager/job_detail.html", progress_context(job, _job_poll_url(job), rfp=job.rfp))


def job_status(request, pk):
    return job_status_response(
        request,
        RFPBatchJob,
        pk,
        "rfp_manager:job_status",
        load=lambda: _visible(RFPBatchJob, request, pk, "rfp"),
        partial="rfp_manager/_job_progress.html",
    )


@require_POST
def job_cancel(request, pk):
    job = _visible(RFPBatchJob, request, pk, "rfp", access.OWNER)
    if job.request_cancel(f"Cancelled by {request.user.get_username()}"):
        messages.info(request, "Cancelled: questions in flight finish, no new ones start. Answers so far are kept.")
    else:
        messages.warning(request, f"The job had already finished ({job.get_status_display().lower()}).")
    return redirect("rfp_manager:job", pk=job.pk)


@require_POST
def job_retry(request, pk):
    job = _visible(RFPBatchJob, request, pk, "rfp", access.OWNER)
    return _start(request, job.rfp, lambda: batch.create_retry_job(job, request.user))


# --- answers ----------------------------------------------------------------------------


def answer_edit(request, pk):
    question = _visible(Question, request, pk, "rfp")
    if request.method == "POST":
        access.require_edit(question, request.user)
    answer, _ = Answer.objects.annotate(**approved_answers().answer_flags()).get_or_create(question=question)
    form = AnswerEditForm(request.POST or None, instance=answer, initial={"final_text": answer.final_answer})
    if request.method == "POST" and form.is_valid():
        answering.save_final_text(answer, form.cleaned_data["final_text"], request.user, request.POST.getlist("cite"))
        if "choice" in form.changed_data or (question.answer_cells.get("choice") and "choice" in request.POST):
            choices.save_choice(answer, form.cleaned_data["choice"])  # a person set or confirmed it
        messages.success(request, f"Saved the final answer to {question.label}.")
        return redirect(reverse("rfp_manager:detail", args=[question.rfp_id]) + f"#q{question.pk}")
    next_citation = max((c.get("n", 0) for c in answer.citations), default=0) + 1
    numbers = answering.citation_numbers(answer)
    return render(
        request,
        "rfp_manager/answer_edit.html",
        {
            "form": form,
            "question": question,
            "answer": answer,
            "rfp": question.rfp,
            "next_citation": next_citation,
            "may_answer": [{**s, "n": numbers.get(s["chunk_id"])} for s in answer.may_answer],
            "edit_refusal": access.edit_refusal(question, request.user),
            "for_client": deliverable.outgoing(answer, deliverable.ExportChoices()),
            "suggestions": approved_answers().suggestions(question.pk),
        },
    )


def _suggestions_response(request, question, message: str, level: str = "success"):
    """htmx: the editor's suggestions again, with the confirmation; a plain POST goes back to the editor."""
    if request.htmx:
        context = {"question": question, "suggestions": approved_answers().suggestions(question.pk)}
        return render(request, "rfp_manager/_library_suggestions.html", {**context, "message": message, "level": level})
    getattr(messages, level)(request, message)
    return redirect("rfp_manager:answer_edit", question.pk)


@require_POST
def suggestion_use(request, pk, suggestion_pk):
    """The person picks a library suggestion: it becomes the answer (the editor reloads to show it)."""
    question = _question(request, pk)
    access.require_edit(question, request.user)  # it replaces the answer: whoever may edit it
    if not approved_answers().use_suggestion(question, suggestion_pk, request.user):
        return _suggestions_response(request, question, "That suggestion was already decided or is gone.", "warning")
    messages.success(request, f"Used the library answer for {question.label}.")
    url = reverse("rfp_manager:answer_edit", args=[question.pk])
    return HttpResponse(headers={"HX-Redirect": url}) if request.htmx else redirect(url)


@require_POST
def suggestion_reject(request, pk, suggestion_pk):
    """The entry does not answer this question: it is not suggested for it again."""
    question = _question(request, pk)
    access.require_edit(question, request.user)
    if not approved_answers().reject_suggestion(question, suggestion_pk, request.user):
        return _suggestions_response(request, question, "That suggestion was already decided or is gone.", "warning")
    return _suggestions_response(request, question, "Rejected: not suggested for this question again.")


# --- export ----------------------------------------------------------------------------


def _download(content: bytes, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _export_name(rfp, suffix: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in rfp.name)[:60] or "rfp"
    return f"{safe}-answers.{suffix}"


def export_xlsx(request, pk):
    rfp = _rfp(request, pk)
    return _download(export.export_xlsx(rfp), _export_name(rfp, "xlsx"), XLSX_TYPE)


def export_csv(request, pk):
    rfp = _rfp(request, pk)
    return _download(export.export_csv(rfp), _export_name(rfp, "csv"), "text/csv; charset=utf-8")


def _answered_name(original: str) -> tuple[str, str]:
    """The download's name (the client's, "-answered") and its content type: a CSV comes back as a CSV."""
    suffix = original.rpartition(".")[2].lower()
    if suffix in ("csv", "tsv", "txt"):
        return deliverable.answered_name(original, suffix), "text/csv; charset=utf-8"
    return deliverable.answered_name(original, "xlsx"), XLSX_TYPE


def export_choices(request, pk):
    """Before the download: what goes into the client's file, chosen by the user, and the report of it."""
    rfp = _rfp(request, pk)
    chosen = deliverable.ExportChoices.from_params(request.GET)
    try:
        _, original, report = export.export_into_source_file(rfp, chosen)
    except LookupError as exc:
        return _render_rfp(request, rfp, status=404, error=str(exc))
    return render(
        request,
        "rfp_manager/export_choices.html",
        {
            "rfp": rfp,
            "chosen": chosen,
            "report": report,
            "filename": _answered_name(original)[0],
            "answer_options": deliverable.ANSWERS,
            "citation_options": deliverable.CITATIONS,
            "query": urlencode(chosen.as_params()),
            "source_workbook": export.source_file_import(rfp),
        },
    )


def export_workbook(request, pk):
    rfp = _rfp(request, pk)
    try:
        content, original, _ = export.export_into_source_file(rfp, deliverable.ExportChoices.from_params(request.GET))
    except LookupError as exc:
        return _render_rfp(request, rfp, status=404, error=str(exc))
    return _download(content, *_answered_name(original))


def export_sources(request, pk):
    """The companion CSV: each answered question and the library passages its answer comes from."""
    rfp = _rfp(request, pk)
    content = export.sources_csv(rfp, deliverable.ExportChoices.from_params(request.GET))
    return _download(content, _export_name(rfp, "csv").replace("-answers.", "-sources."), "text/csv; charset=utf-8")


def export_docx(request, pk):
    rfp = _rfp(request, pk)
    content = document_export.export_docx(rfp, deliverable.ExportChoices.from_params(request.GET))
    return _download(content, _export_name(rfp, "docx"), document_export.DOCX_TYPE)


def _document_export(request, rfp, chosen):
    """(content, import, report), or the RFP page with why not (no Word/PDF source, or its file unreadable)."""
    try:
        return document_export.export_into_source_document(rfp, chosen), None
    except (LookupError, word.WordReadError, pdf.PdfQuestionnaireError) as exc:
        return None, _render_rfp(request, rfp, status=404 if isinstance(exc, LookupError) else 400, error=str(exc))


def export_document(request, pk):
    """What goes into the client's Word or PDF file, where, and what stays empty, before the download."""
    rfp = _rfp(request, pk)
    chosen = deliverable.ExportChoices.from_params(request.GET)
    result, refusal = _document_export(request, rfp, chosen)
    if refusal:
        return refusal
    _, record, report = result
    return render(
        request,
        "rfp_manager/export_document.html",
        {
            "rfp": rfp,
            "record": record,
            "report": report,
            "written": sum(1 for line in report if line.written),
            "unapproved": [line for line in report if line.unapproved],
            "guessed": [line for line in report if line.guessed],
            "chosen": chosen,
            "answer_options": deliverable.ANSWERS,
            "query": urlencode(chosen.as_params()),
        },
    )


def export_document_download(request, pk):
    rfp = _rfp(request, pk)
    result, refusal = _document_export(request, rfp, deliverable.ExportChoices.from_params(request.GET))
    if refusal:
        return refusal
    content, record, _ = result
    return _download(
        content,
        deliverable.answered_name(record.original_name, record.kind),
        document_export.CONTENT_TYPES[record.kind],
    )


# --- the workspace's actions: on one question (htmx swaps its row) or on many ------------------


def _question(request, pk, need: str = access.VIEWER) -> Question:
    visible = Question.objects.filter(rfp__in=RFP.objects.visible_to(request.user)).select_related("rfp")
    question = get_object_or_404(workspace.rows(visible), pk=pk)
    access.require(question.rfp, request.user, need)
    return workspace.with_parents([question])[0]


def _row_response(request, question, message: str, level: str = "success", redraft_job=None):
    """htmx: the question's row again, with the confirmation beside it, and the bar, counts and RFP status it changed
    (one response: nothing on the page is stale after it); a plain POST goes back to the row."""
    if request.htmx:
        question = _question(request, question.pk)  # re-read: the action changed its answer and status
        question.rfp.refresh_from_db(fields=["status"])
        return render(
            request,
            "rfp_manager/_question_row_changed.html",
            {
                "q": question,
                "rfp": question.rfp,
                "message": message,
                "level": level,
                "redraft_job": redraft_job,
                **_progress_context(question.rfp),
                **_controls(request, question.rfp),
            },
        )
    getattr(messages, level)(request, message)
    return redirect(reverse("rfp_manager:detail", args=[question.rfp_id]) + f"#q{question.pk}")


def _start_redraft(rfp, question_ids: list[int], user, review: bool = False) -> tuple[RFPBatchJob | None, str]:
    """A responder job over these questions only (`review`: the reviewer judges them when it is done); (job, "") or
    (None, why not)."""
    try:
        with transaction.atomic():
            job = batch.create_batch_job(
                rfp, RFPBatchJob.JOB_TYPE_RESPONDER, user, question_ids=question_ids, review_when_done=review
            )
            tasks.dispatch_batch_job(job)
    except batch.JobNotStarted as exc:
        return None, f"{exc} Wait for it to finish, then re-draft." if isinstance(
            exc, batch.JobAlreadyRunning
        ) else str(exc)
    return job, ""


@require_POST
def redraft_no_support(request, pk):
    """Redraft the "no supporting content" drafts made before library documents became ready (the scope is read
    again here, not taken from the page: a second click, or a page left open, redrafts only what is still stale)."""
    rfp = _rfp(request, pk, access.OWNER)
    grown = batch.drafted_before_library_grew(rfp)
    if grown is None:
        messages.info(request, "No “no supporting content” draft is older than the library's documents.")
    else:
        review = request.POST.get("review_when_done") == "on"
        job, why_not = _start_redraft(rfp, grown.question_ids, request.user, review)
        if job:
            messages.success(request, _redrafting(job, len(grown.question_ids)))
        else:
            messages.warning(request, why_not)
    return redirect("rfp_manager:detail", pk=rfp.pk)


@require_POST
def question_approve(request, pk):
    question = _question(request, pk, access.OWNER)  # approval is the owner's: contributors answer, owners approve
    approved, _ = workflow.approve([question], request.user)
    if not approved:
        return _row_response(request, question, f"{question.label} has no answer to approve yet.", "warning")
    return _row_response(request, question, f"Approved {question.label}.")


@require_POST
def question_redraft(request, pk):
    question = _question(request, pk)
    access.require_edit(question, request.user)  # a new draft replaces the answer: whoever may edit it
    job, why_not = _start_redraft(question.rfp, [question.pk], request.user)
    if job is None:
        return _row_response(request, question, why_not, "warning")
    return _row_response(request, question, *_redraft_outcome(job, question), redraft_job=job)


def question_row(request, pk):
    """The row polled while its re-draft job (`?job=`) runs: the new draft replaces it once the job is done."""
    question = _question(request, pk)
    job_id = request.GET.get("job", "")
    job = get_object_or_404(question.rfp.batch_jobs, pk=job_id if job_id.isdigit() else None)
    return _row_response(
        request, question, *_redraft_outcome(job, question), redraft_job=job if job.is_active else None
    )


def _redraft_outcome(job, question) -> tuple[str, str]:
    """What the row says about its re-draft: running, done, or why it is not (the job's record for this question)."""
    if job.is_active:
        return f"Re-drafting {question.label}: the new draft appears here when it is ready.", "info"
    result = job.results.filter(question=question).first()
    if result and result.outcome == JobQuestionResult.Outcome.SUCCEEDED:
        return f"New draft for {question.label}.", "success"
    why = result.error if result else job.get_status_display().lower()
    return f"The re-draft of {question.label} did not finish ({why}). Try again, or edit the answer.", "warning"


BULK_ACTIONS = {"approve", "redraft", "expert", "clear", "suggestion"}


@require_POST
def workspace_bulk(request, pk):
    """One action on the selected questions; the workspace comes back with the result beside the action bar."""
    rfp = _rfp(request, pk, access.OWNER)  # approving, assigning, clearing many answers is the owner's
    action = request.POST.get("action", "")
    questions = list(rfp.questions.filter(pk__in=[v for v in request.POST.getlist("question") if v.isdigit()]))
    assigning = action == "assign"
    if action not in BULK_ACTIONS and not assigning:
        message, level = "Choose an action.", "error"
    elif not questions:
        message, level = "Select at least one question first.", "warning"
    elif assigning:
        # Who and by when are chosen on the assignment page, which checks that the assignee may answer.
        url = workspace.assign_url(rfp, [q.pk for q in questions])
        return HttpResponse(headers={"HX-Redirect": url}) if request.htmx else redirect(url)
    else:
        message, level = _bulk(action, rfp, questions, request.user)
    if not request.htmx:
        getattr(messages, level)(request, message)
        return redirect(reverse("rfp_manager:detail", args=[rfp.pk]) + "?" + request.GET.urlencode())
    changed = {q.pk for q in questions} if level == "success" else set()
    return _render_workspace(request, rfp, bulk_message=message, bulk_level=level, changed=changed)


def _bulk(action: str, rfp, questions: list[Question], user) -> tuple[str, str]:
    """(the confirmation, its level) after doing `action` on the questions."""
    count = len(questions)
    if action == "approve":
        approved, skipped = workflow.approve(questions, user)
        return (
            f"Approved {approved} of {count} selected" + (f"; {skipped} had no answer to approve." if skipped else "."),
            "success" if approved else "warning",
        )
    if action == "expert":
        return f"Marked {workflow.mark_for_expert(questions)} for a subject-matter expert.", "success"
    if action == "clear":
        return f"Cleared the answers of {workflow.clear(questions)} question{'s' if count != 1 else ''}.", "success"
    if action == "suggestion":
        used = approved_answers().apply_first_suggestions(questions, user)
        return (
            f"Used the first library suggestion for {used} of {count} selected"
            + ("." if used == count else f"; {count - used} had none."),
            "success" if used else "warning",
        )
    # What is left is "redraft": one responder job over the selection.
    job, why_not = _start_redraft(rfp, [q.pk for q in questions], user)
    return (_redrafting(job, count), "success") if job else (why_not, "warning")


def _redrafting(job, count: int) -> str:
    return f"Re-drafting {count} question{'s' if count != 1 else ''} (job {job.pk})."


def answer_sources(request, pk):
    """The editor's search: library passages and answer-library entries to insert, with their citations."""
    question = _question(request, pk)
    query = request.GET.get("q", "").strip() or question.text
    numbers = answering.citation_numbers(Answer.objects.filter(question=question).first())
    try:
        passages = [
            {"passage": p, "snippet": snippets.best_snippet(query, p.text), "n": numbers.get(p.chunk_id)}
            for p in search_passages(query, SOURCES_LISTED)
        ]
        entries = approved_answers().search(query, SOURCES_LISTED)
    except LLMError as exc:  # no embedding model, or its API is down: say so where the results would be
        return render(
            request, "rfp_manager/_answer_sources.html", {"question": question, "query": query, "error": str(exc)}
        )
    return render(
        request,
        "rfp_manager/_answer_sources.html",
        {"question": question, "query": query, "passages": passages, "entries": entries},
    )
