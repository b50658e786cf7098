"""Teamwork pages: "My questions", notifications, assigning questions, people and roles, comments.

Every RFP lookup goes through `RFP.objects.visible_to` (404 for anyone else)
and then names the role it needs (services/roles.py: 403 with the reason).
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.permissions import staff_required
from rfp_manager.models import RFP, Question

from . import tasks
from .forms import AssignForm, CommentForm, RoleForm
from .models import Membership, Notification, Role
from .services import assignments, comments, members, notifications, roles

NOTIFICATIONS_SHOWN = 100


def _rfp(request, pk, need: str) -> RFP:
    rfp = get_object_or_404(RFP.objects.visible_to(request.user), pk=pk)
    roles.require(rfp, request.user, need)
    return rfp


# --- my questions and notifications --------------------------------------------------------


def my_questions(request):
    show_done = request.GET.get("done") == "1"
    rows = assignments.my_questions(request.user, show_done=show_done)
    return render(
        request,
        "teamwork/my_questions.html",
        {"assignments": rows, "show_done": show_done, "today": timezone.localdate()},
    )


def notification_list(request):
    """The latest notifications, the unread ones marked "new" this once: seeing the list reads them."""
    rows = list(
        Notification.objects.filter(recipient=request.user).select_related("question__rfp")[:NOTIFICATIONS_SHOWN]
    )
    notifications.mark_all_read(request.user)
    return render(request, "teamwork/notifications.html", {"notifications": rows, "unread_notifications": 0})


@require_POST
def notifications_read(request):
    count = notifications.mark_all_read(request.user)
    messages.info(request, f"Marked {count} notification(s) as read.")
    return redirect("teamwork:notifications")


@staff_required
def undelivered(request):
    return render(request, "teamwork/undelivered.html", {"rows": notifications.undelivered()[:NOTIFICATIONS_SHOWN]})


@require_POST
@staff_required
def resend(request, pk):
    """Staff: try a failed email again (after fixing the mail settings or the address)."""
    with transaction.atomic():
        updated = Notification.objects.filter(pk=pk, email_status=Notification.Email.FAILED).update(
            email_status=Notification.Email.QUEUED, email_attempts=0
        )
        if updated:
            tasks.dispatch_notification_email(Notification.objects.get(pk=pk))
    messages.info(request, "Queued again." if updated else "That email is not a failed one.")
    return redirect("teamwork:undelivered")


# --- assigning ----------------------------------------------------------------------------


def assign(request, pk):
    """Owners give questions to a colleague with a due date (GET ?q=1&q=2 ticks them)."""
    rfp = _rfp(request, pk, Role.OWNER)
    form = AssignForm(request.POST or None, rfp=rfp, initial={"questions": request.GET.getlist("q")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            done = assignments.assign_questions(
                rfp, list(data["questions"]), data["assignee"], data["due_date"], request.user
            )
        except assignments.AssignmentRefused as exc:
            form.add_error("assignee", str(exc))
        else:
            messages.success(
                request,
                f"Assigned {len(done)} question(s) to {data['assignee'].get_username()}"
                + (f", due {data['due_date']:%Y-%m-%d}." if data["due_date"] else "."),
            )
            return redirect("rfp_manager:detail", pk=rfp.pk)
    status = 400 if form.errors else 200
    return render(request, "teamwork/assign.html", {"rfp": rfp, "form": form}, status=status)


# --- people and roles ---------------------------------------------------------------------------


def people(request, pk):
    rfp = _rfp(request, pk, Role.OWNER if request.method == "POST" else Role.VIEWER)
    form = RoleForm(request.POST or None, rfp=rfp)
    if request.method == "POST" and request.POST.get("remove", "").isdigit():
        member = get_object_or_404(Membership, rfp=rfp, user_id=int(request.POST["remove"]))
        members.remove(rfp, member.user, request.user)
        messages.info(request, f"{member.user.get_username()} no longer has a role on this RFP.")
        return redirect("teamwork:people", pk=rfp.pk)
    if request.method == "POST" and form.is_valid():
        member = members.set_role(rfp, form.cleaned_data["user"], form.cleaned_data["role"], request.user)
        messages.success(request, f"{member.user.get_username()} is now {member.get_role_display().lower()}.")
        return redirect("teamwork:people", pk=rfp.pk)
    context = {
        "rfp": rfp,
        "form": form,
        "memberships": rfp.memberships.select_related("user").order_by("user__username"),
        "groups": rfp.shared_with.all(),
        "may_manage": roles.access(rfp, request.user).at_least(Role.OWNER),
    }
    return render(request, "teamwork/people.html", context, status=400 if form.errors else 200)


# --- comments -------------------------------------------------------------------------------------


@require_POST
def comment(request, pk):
    """Contributors and owners comment on any question of the RFP; viewers read."""
    question = get_object_or_404(
        Question.objects.filter(rfp__in=RFP.objects.visible_to(request.user)).select_related("rfp"), pk=pk
    )
    if not roles.access(question.rfp, request.user).at_least(Role.CONTRIBUTOR):
        raise PermissionDenied("Viewers read the comments; contributors and owners write them.")
    form = CommentForm(request.POST)
    back = reverse("rfp_manager:answer_edit", args=[question.pk])
    if not form.is_valid():
        messages.error(request, " ".join(m for ms in form.errors.values() for m in ms))
        return redirect(back + "#comments")
    saved, unknown = comments.add_comment(question, request.user, form.cleaned_data["text"])
    notified = [u.get_username() for u in saved.mentions.all() if u != request.user]
    messages.success(
        request,
        "Comment added."
        + (f" Notified {', '.join(notified)}." if notified else "")
        + (f" Nobody on this RFP is called {', '.join('@' + n for n in unknown)}: not notified." if unknown else ""),
    )
    return redirect(back + f"#comment-{saved.pk}")
