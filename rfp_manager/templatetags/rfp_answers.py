"""What a page asks of a question or an answer that only the services know."""

from django import template

from ..services import choices

register = template.Library()


@register.filter
def takes_choice(question) -> bool:
    """Whether the question gets a Yes / No / Partly / N/A at all (services/choices.takes_choice)."""
    return choices.takes_choice(question)
