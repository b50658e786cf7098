"""RFP pages: list, detail, import with preview, documents, batch jobs, answers, export.

Views never do long work: they write rows and dispatch tasks after commit.
Every lookup goes through `RFP.objects.visible_to(user)`, so an RFP, its
questions, answers, jobs and exports are only reachable by the people who
work on it (404 for anyone else); each lookup then names the role the action
needs (teamwork.services.roles: owner, contributor, viewer — 403 with the
reason when it is missing).
"""
from django.contrib import messages
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from answer_library.services import facts
from spelunker.jobs.views import job_progress_response, progress_context
from teamwork.models import Role
from teamwork.services import roles

from . import tasks
from .forms import AnswerEditForm, ImportRemapForm, InformationDocumentForm, QuestionImportForm, RFPForm
from .models import RFP, Answer, InformationDocument, Question, QuestionImport, RFPBatchJob
from .services import analysis, answering, batch, choices, export, importing

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


# --- lookups that enforce who may see what -------------------------------------

def _rfp(request, pk, need: str = Role.VIEWER) -> RFP:
    rfp = get_object_or_404(RFP.objects.visible_to(request.user), pk=pk)
    roles.require(rfp, request.user, need)
    return rfp


def _visible(model, request, pk, rfp_path: str, need: str = Role.VIEWER):
    """An object under an RFP the user sees (`rfp_path` leads to it), if they hold the role `need`."""
    obj = get_object_or_404(model.objects.filter(**{f"{rfp_path}__in": RFP.objects.visible_to(request.user)}), pk=pk)
    roles.require(obj.rfp, request.user, need)
    return obj


def _owner_on_post(request) -> str:
    """Pages anyone on the RFP may read, whose form only an owner may send."""
    return Role.OWNER if request.method == "POST" else Role.VIEWER


# --- RFPs ------------------------------------------------------------------------

def index(request):
    rfps = RFP.objects.visible_to(request.user).select_related("owner")
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
    form = RFPForm(request.POST or None, instance=rfp, user=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        return redirect("rfp_manager:detail", pk=rfp.pk)
    return render(request, "rfp_manager/rfp_form.html", {"form": form, "rfp": rfp})


def _render_rfp(request, rfp, status=200, error=""):
    questions = rfp.questions.select_related("answer", "answer__library_entry", "answer__edited_by")
    by_attention = request.GET.get("order") != "document"
    questions = answering.attention_order(questions) if by_attention else questions.order_by("order", "pk")
    context = {
        "rfp": rfp,
        "questions": questions,
        "by_attention": by_attention,
        "documents": rfp.information_documents.all(),
        "jobs": rfp.batch_jobs.select_related("started_by")[:10],
        "import_form": QuestionImportForm(),
        "document_form": InformationDocumentForm(),
        "reviewer_blocker": batch.reviewer_blocker(rfp),
        "source_workbook": export.source_workbook_import(rfp),
        # Checked before export: the page shows every answer that states a canonical fact differently.
        "fact_mismatches": facts.check_rfp(rfp),
        "error": error,
    }
    return render(request, "rfp_manager/rfp_detail.html", context, status=status)


def rfp_detail(request, pk):
    return _render_rfp(request, _rfp(request, pk))


# --- question import -----------------------------------------------------------------

@require_POST
def import_upload(request, pk):
    rfp = _rfp(request, pk, Role.OWNER)
    form = QuestionImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _render_rfp(request, rfp, status=400, error=" ".join(m for ms in form.errors.values() for m in ms))
    try:
        record = importing.prepare_import(
            rfp, request.user, upload=form.cleaned_data.get("file"), pasted_text=form.cleaned_data.get("text") or ""
        )
    except importing.QuestionImportError as exc:
        return _render_rfp(request, rfp, status=400, error=str(exc))
    return redirect("rfp_manager:import_preview", pk=record.pk)


def _preview_context(record) -> dict:
    return {"record": record, "rfp": record.rfp, "rows": importing.preview(record), "sheets": importing.sheet_summaries(record),
            "roles": analysis.ROLES}


def import_preview(request, pk):
    record = _visible(QuestionImport, request, pk, "rfp", _owner_on_post(request))
    if request.method == "POST":
        counts = importing.apply_import(record)
        messages.success(
            request,
            f"Imported: {counts['created']} new, {counts['updated']} already there (updated), {counts['rejected']} rejected.",
        )
        return redirect("rfp_manager:detail", pk=record.rfp_id)
    return render(request, "rfp_manager/import_preview.html", _preview_context(record))


@require_POST
def import_remap(request, pk):
    """One correction of the mapping; htmx swaps the preview in place, a plain POST goes back to it."""
    record = _visible(QuestionImport, request, pk, "rfp", Role.OWNER)
    form = ImportRemapForm(request.POST, sheet_count=len(record.mapping.get("sheets", [])))
    if not form.is_valid():
        return HttpResponse(" ".join(m for ms in form.errors.values() for m in ms), status=400)
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
    rfp = _rfp(request, pk, Role.OWNER)
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
    document = _visible(InformationDocument, request, pk, "rfp", Role.OWNER)
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
    rfp = _rfp(request, pk, Role.OWNER)
    review = request.POST.get("review_when_done") == "on"
    return _start(request, rfp, lambda: batch.create_batch_job(
        rfp, RFPBatchJob.JOB_TYPE_RESPONDER, request.user, review_when_done=review))


@require_POST
def start_reviewer(request, pk):
    rfp = _rfp(request, pk, Role.OWNER)
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
    job = _visible(RFPBatchJob, request, pk, "rfp")
    return job_progress_response(request, job, _job_poll_url(job), partial="rfp_manager/_job_progress.html")


@require_POST
def job_cancel(request, pk):
    job = _visible(RFPBatchJob, request, pk, "rfp", Role.OWNER)
    if job.request_cancel(f"Cancelled by {request.user.get_username()}"):
        messages.info(request, "Cancelled: questions in flight finish, no new ones start. Answers so far are kept.")
    else:
        messages.warning(request, f"The job had already finished ({job.get_status_display().lower()}).")
    return redirect("rfp_manager:job", pk=job.pk)


@require_POST
def job_retry(request, pk):
    job = _visible(RFPBatchJob, request, pk, "rfp", Role.OWNER)
    return _start(request, job.rfp, lambda: batch.create_retry_job(job, request.user))


# --- answers ----------------------------------------------------------------------------

def answer_edit(request, pk):
    question = _visible(Question, request, pk, "rfp")
    if request.method == "POST":
        roles.require_edit(question, request.user)
    answer, _ = Answer.objects.get_or_create(question=question)
    form = AnswerEditForm(request.POST or None, instance=answer, initial={"final_text": answer.final_answer})
    if request.method == "POST" and form.is_valid():
        answering.save_final_text(answer, form.cleaned_data["final_text"], request.user)
        if "choice" in form.changed_data or (question.answer_cells.get("choice") and "choice" in request.POST):
            choices.save_choice(answer, form.cleaned_data["choice"])  # a person set or confirmed it
        messages.success(request, f"Saved the final answer to {question.label}.")
        return redirect(reverse("rfp_manager:detail", args=[question.rfp_id]) + f"#q{question.pk}")
    return render(request, "rfp_manager/answer_edit.html", {"form": form, "question": question, "answer": answer, "rfp": question.rfp,
                                                            "edit_refusal": roles.edit_refusal(question, request.user)})


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


def export_workbook(request, pk):
    rfp = _rfp(request, pk)
    try:
        content, original = export.export_into_source_workbook(rfp)
    except LookupError as exc:
        return _render_rfp(request, rfp, status=404, error=str(exc))
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in original.rsplit(".", 1)[0])[:60]
    return _download(content, f"{stem}-answered.xlsx", XLSX_TYPE)
