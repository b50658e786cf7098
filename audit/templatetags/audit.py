"""{% answer_history answer %}: an answer's revisions, newest first, on the question's page."""
from django import template

register = template.Library()


@register.inclusion_tag("audit/_answer_history.html")
def answer_history(answer):
    revisions = answer.revisions.select_related("actor") if answer and answer.pk else []
    return {"revisions": revisions}
