"""Answer library pages: the library, an entry, approving an RFP answer, the review queue, duplicates and
conflicts, the import of an answered questionnaire and its job.

The library is read by everyone signed in, like the document library; only
library editors (the `answer_library.edit_library` permission) approve, edit,
retire, merge, import and decide conflicts — the others propose (an open
candidate an editor decides on). The approval of an RFP answer goes through
`RFP.objects.visible_to` and needs the right to edit that answer; an entry's
"where used" lists only the RFPs the reader may see. Views never do long
work: imports and scans are job rows dispatched after commit.
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from jobs.models import JobStatus
from jobs.views import job_status_response, progress_context
from llm_manager.exceptions import LLMError
from rfp_manager import access
from rfp_manager.models import RFP, Answer

from . import tasks
from .forms import ApproveForm, EntryFieldsForm, LibraryImportForm
from .models import Candidate, Entry, Finding, LibraryImport, LibraryJob
from .services import conflicts, entries, exporting, importing, matching, suggestions

PAGE_SIZE = 100
# An entry is indexed (embedded) as it is saved, in the same transaction: without the embedding API nothing is saved.
INDEX_UNAVAILABLE = "Not saved: the embedding model that indexes entries is unavailable ({}). Try again shortly."


EDITOR_PERMISSION = "answer_library.edit_library"
NOT_AN_EDITOR = "Only answer library editors may do this; you may propose answers. Ask an administrator for the role."


def is_editor(user) -> bool:
    return user.has_perm(EDITOR_PERMISSION)


def editor_required(view):
    """Library editors only: everyone else gets 403 with the reason."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not is_editor(request.user):
            raise PermissionDenied(NOT_AN_EDITOR)
        return view(request, *args, **kwargs)

    return wrapper


# --- the library ---------------------------------------------------------------------


def _filtered(request):
    rows = Entry.objects.exclude(status=Entry.Status.MERGED).select_related("owner")
    tag, owner, status = request.GET.get("tag", ""), request.GET.get("owner", ""), request.GET.get("status", "")
    if tag:
        rows = rows.filter(tags__icontains=f'"{tag}"')  # JSON text of the list: an exact tag between quotes
    if owner.isdigit():
        rows = rows.filter(owner_id=int(owner))
    if status in Entry.Status.values:
        rows = rows.filter(status=status)
    return rows, {"tag": tag, "owner": owner, "status": status}


def export_workbook(request):
    """The usable entries as a workbook (question, wordings, answer, owner, last approved, citations)."""
    response = HttpResponse(
        exporting.library_workbook(),
        content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    )
    response["Content-Disposition"] = 'attachment; filename="answer-library.xlsx"'
    return response


def index(request):
    rows, filters = _filtered(request)
    query = request.GET.get("q", "").strip()
    scores = {}
    if query:
        # The responder's own retrieval: what the responder would pick comes first.
        matches = matching.ranked_matches(query, limit=20)
        scores = {m.entry.pk: m.score for m in matches}
        rows = sorted(rows.filter(pk__in=scores), key=lambda e: -scores[e.pk])
    else:
        rows = list(rows[:PAGE_SIZE])
    context = {
        "entries": [(e, scores.get(e.pk)) for e in rows],
        "query": query,
        "filters": filters,
        "threshold": matching.MATCH_THRESHOLD,
        "tags": sorted({t for tags in Entry.objects.values_list("tags", flat=True) for t in tags}),
        "owners": get_user_model().objects.filter(library_entries__isnull=False).distinct(),
        "statuses": Entry.Status.choices,
        "candidates": Candidate.objects.filter(
            status=Candidate.Status.OPEN, answer__question__rfp__in=RFP.objects.visible_to(request.user)
        ).select_related("answer__question__rfp", "edited_by")[:20],
        "import_form": LibraryImportForm(),
        "queue_count": Entry.objects.filter(status=Entry.Status.NEEDS_REVIEW).count(),
        "open_findings": Finding.objects.filter(status=Finding.Status.OPEN).count(),
        "is_editor": is_editor(request.user),
    }
    return render(request, "answer_library/index.html", context)


def entry_detail(request, pk):
    entry = get_object_or_404(Entry, pk=pk)
    if request.method == "POST" and not is_editor(request.user):
        raise PermissionDenied(NOT_AN_EDITOR)
    form = EntryFieldsForm(request.POST or None, initial=EntryFieldsForm.initial_for(entry))
    if request.method == "POST" and form.is_valid():
        try:
            entries.save_entry(entry, request.user, "Edited in the library", **form.entry_values())
        except LLMError as exc:
            messages.error(request, INDEX_UNAVAILABLE.format(exc))
        else:
            messages.success(request, f"Saved version {entry.version}.")
            return redirect("answer_library:entry", pk=entry.pk)
    visible = RFP.objects.visible_to(request.user)
    uses = Answer.objects.filter(library_entry_id=entry.pk, question__rfp__in=visible).select_related("question__rfp")
    context = {
        "entry": entry,
        "form": form,
        "versions": entry.versions.select_related("changed_by"),
        "uses": uses,
        "origin_answer": Answer.objects.filter(pk=entry.origin_answer_id, question__rfp__in=visible)
        .select_related("question__rfp")
        .first(),
        "is_editor": is_editor(request.user),
    }
    return render(request, "answer_library/entry.html", context)


@require_POST
@editor_required
def entry_reviewed(request, pk):
    entry = get_object_or_404(Entry, pk=pk)
    entries.mark_reviewed(entry, request.user)
    messages.success(request, "Marked as reviewed: its sources are stamped as they are now.")
    return redirect(
        request.POST.get("next") == "queue"
        and reverse("answer_library:review_queue")
        or reverse("answer_library:entry", args=[entry.pk])
    )


@require_POST
@editor_required
def entry_retire(request, pk):
    entry = get_object_or_404(Entry, pk=pk)
    entries.save_entry(entry, request.user, "Retired", status=Entry.Status.RETIRED)
    entry.phrasing_rows.all().delete()  # a retired entry is no longer reused
    messages.info(request, "Retired: the responder no longer reuses it.")
    return redirect("answer_library:entry", pk=entry.pk)


# --- approving an RFP answer -------------------------------------------------------------


def approve(request, pk):
    """Save an RFP answer to the library: a new entry, or a new version of the entry it came from.

    Someone who may answer the question but not edit the library proposes it instead (an open candidate)."""
    answer = get_object_or_404(
        Answer.objects.filter(question__rfp__in=RFP.objects.visible_to(request.user)).select_related("question__rfp"),
        pk=pk,
    )
    access.require_edit(answer.question, request.user)
    source = entries.entry_from_answer(answer)
    initial = {
        "question": answer.question.text,
        "answer_text": answer.final_answer,
        "choice": answer.choice,
        "owner": request.user.pk,
        "review_by": entries.default_review_by(),
    }
    if source is not None:
        initial.update(tags=", ".join(source.tags), owner=source.owner_id or request.user.pk)
    form = ApproveForm(request.POST or None, initial=initial, source_entry=source)
    if request.method == "POST" and form.is_valid() and not is_editor(request.user):
        entries.propose(answer, request.user, form.cleaned_data["answer_text"])
        messages.success(request, "Proposed for the library: an answer library editor will approve it.")
        return redirect(reverse("rfp_manager:detail", args=[answer.question.rfp_id]) + f"#q{answer.question_id}")
    if request.method == "POST" and form.is_valid():
        values = form.entry_values()
        update = source if form.cleaned_data["mode"] == "update" else None
        try:
            entry = entries.approve_answer(answer, request.user, update=update, **values)
        except LLMError as exc:
            messages.error(request, INDEX_UNAVAILABLE.format(exc))
        else:
            messages.success(request, f"Saved to the library as entry {entry.pk} (version {entry.version}).")
            return redirect(reverse("rfp_manager:detail", args=[answer.question.rfp_id]) + f"#q{answer.question_id}")
    return render(
        request,
        "answer_library/approve.html",
        {
            "form": form,
            "answer": answer,
            "question": answer.question,
            "rfp": answer.question.rfp,
            "source": source,
            "is_editor": is_editor(request.user),
        },
    )


@require_POST
def candidate_dismiss(request, pk):
    candidate = get_object_or_404(
        Candidate.objects.filter(answer__question__rfp__in=RFP.objects.visible_to(request.user)), pk=pk
    )
    if not is_editor(request.user):  # after the lookup: an RFP one cannot see stays a 404
        raise PermissionDenied(NOT_AN_EDITOR)
    candidate.status = Candidate.Status.DISMISSED
    candidate.save(update_fields=["status", "updated_at"])
    return redirect("answer_library:index")


# --- review queue, duplicates and conflicts ---------------------------------------------------


def review_queue(request):
    rows = Entry.objects.filter(status=Entry.Status.NEEDS_REVIEW).select_related("owner").order_by("review_by", "pk")
    mine = request.GET.get("mine") == "1"
    if mine:
        rows = rows.filter(owner=request.user)
    rejected = suggestions.often_rejected()
    often_rejected = Entry.objects.filter(pk__in=rejected).select_related("owner").order_by("pk")
    if mine:
        often_rejected = often_rejected.filter(owner=request.user)
    for entry in often_rejected:
        entry.rejected, entry.used = rejected[entry.pk]
    return render(
        request,
        "answer_library/review_queue.html",
        {"entries": rows, "mine": mine, "often_rejected": often_rejected},
    )


def findings(request):
    rows = Finding.objects.select_related("first", "second").order_by("status", "kind", "-similarity")
    scan = LibraryJob.objects.filter(job_type=LibraryJob.CONFLICTS).first()
    return render(request, "answer_library/findings.html", {"findings": rows, "scan": scan})


@require_POST
@editor_required
def findings_scan(request):
    try:
        with transaction.atomic():
            job = conflicts.create_scan_job(request.user)
            tasks.dispatch_job(job)
    except IntegrityError:
        messages.warning(request, "A scan is already running.")
        return redirect("answer_library:findings")
    return redirect("answer_library:job", pk=job.pk)


@require_POST
@editor_required
def finding_decide(request, pk):
    finding = get_object_or_404(Finding, pk=pk, status=Finding.Status.OPEN)
    decision = request.POST.get("decision", "")
    if decision == "dismiss":
        conflicts.dismiss(finding, request.user)
        messages.info(request, "Dismissed: not a problem.")
    elif decision in ("keep_first", "keep_second"):
        kept = finding.first if decision == "keep_first" else finding.second
        conflicts.keep(finding, kept, request.user)
        messages.success(request, f"Kept entry {kept.pk}; the other is merged into it.")
    return redirect("answer_library:findings")


# --- importing an answered questionnaire -------------------------------------------------------


@require_POST
@editor_required
def import_upload(request):
    form = LibraryImportForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, " ".join(m for ms in form.errors.values() for m in ms))
        return redirect("answer_library:index")
    upload = form.cleaned_data["file"]
    read_later = importing.read_in_a_job(upload)  # the request answers at once; the preview opens when it is read
    try:
        with transaction.atomic():
            record = importing.prepare(
                upload,
                request.user,
                tags=form.cleaned_data["tags"],
                review_by=form.cleaned_data["review_by"],
                read=not read_later,
            )
            if read_later:
                tasks.dispatch_job(importing.create_job(record, request.user, LibraryJob.READ))
    except importing.LibraryImportError as exc:
        messages.error(request, str(exc))
        return redirect("answer_library:index")
    return redirect("answer_library:import_preview", pk=record.pk)


def import_preview(request, pk):
    record = get_object_or_404(LibraryImport, pk=pk)
    if request.method == "POST" and not is_editor(request.user):
        raise PermissionDenied(NOT_AN_EDITOR)
    reading = importing.reading_job(record)
    if reading is not None and reading.status != JobStatus.COMPLETED:  # still being read, or refused: no preview
        context = progress_context(reading, _poll_url(reading), record=record)
        status = 409 if request.method == "POST" else 200
        return render(request, "answer_library/import_reading.html", context, status=status)
    if request.method == "POST":
        try:
            with transaction.atomic():
                job = importing.create_job(record, request.user)
                tasks.dispatch_job(job)
        except IntegrityError:
            messages.warning(request, "This file is being imported already.")
            return redirect("answer_library:import_preview", pk=record.pk)
        return redirect("answer_library:job", pk=job.pk)
    imports = record.jobs.filter(job_type=LibraryJob.IMPORT)[:5]
    return render(request, "answer_library/import_preview.html", {"record": record, "jobs": imports})


def _poll_url(job) -> str:
    return reverse("answer_library:job_status", args=[job.pk])


def job_detail(request, pk):
    job = get_object_or_404(LibraryJob, pk=pk)
    return render(request, "answer_library/job.html", progress_context(job, _poll_url(job)))


def job_status(request, pk):
    return job_status_response(
        request,
        LibraryJob,
        pk,
        "answer_library:job_status",
        reload_page_when_done=True,
    )
