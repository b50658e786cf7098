"""{% question_team question %}: who the question is assigned to, and the comment form — on the answer's page
(and on any page that lists questions: the RFP workspace may include it per row)."""

from django import template

from ..forms import CommentForm
from ..models import Assignment, Role
from ..services import roles

register = template.Library()


@register.inclusion_tag("teamwork/_question_team.html", takes_context=True)
def question_team(context, question):
    user = context["request"].user
    access = roles.access(question.rfp, user)
    return {
        "question": question,
        "assignment": Assignment.objects.filter(question=question).select_related("assignee", "assigned_by").first(),
        "may_comment": access.at_least(Role.CONTRIBUTOR),
        "may_assign": access.at_least(Role.OWNER),
        "comment_form": CommentForm(),
        "csrf_token": context.get("csrf_token"),
    }


@register.filter
def edits(access, question) -> bool:
    """{% if access|edits:q %}: may this person edit and re-draft the answer to `q` (roles.Access.edits)?"""
    return access.edits(question)
