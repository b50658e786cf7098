"""{% answer_history answer %}: an answer's revisions and its question's comments, newest first, on the question's page."""

from django import template

from teamwork.models import Comment

register = template.Library()


@register.inclusion_tag("audit/_answer_history.html")
def answer_history(answer):
    if not (answer and answer.pk):
        return {"items": []}
    revisions = [{"revision": r, "at": r.at} for r in answer.revisions.select_related("actor")]
    comments = [
        {"comment": c, "at": c.created_at}
        for c in Comment.objects.filter(question_id=answer.question_id).select_related("author")
    ]
    return {"items": sorted(revisions + comments, key=lambda item: item["at"], reverse=True)}
