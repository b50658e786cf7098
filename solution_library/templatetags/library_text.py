"""A document's text shown for reading: its heading lines as headings, not as the `#` marks the parsers write."""

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe

from text.headings import HEADING, as_written

register = template.Library()


@register.filter(needs_autoescape=True)
def reading_text(text: str, autoescape: bool = True) -> str:
    """Escaped text with line breaks; a whole `# Heading` line (an HTML, Word or PDF heading, as extraction marks
    it for the chunker and search) shown in bold without its marks, and a body line's escaped `#` as written."""
    escape = conditional_escape if autoescape else str
    lines = []
    for line in str(text).split("\n"):
        heading = HEADING.fullmatch(line)
        lines.append(
            format_html('<strong class="text-heading">{}</strong>', heading.group(1))
            if heading
            else escape(as_written(line))
        )
    return mark_safe("<br>".join(lines))
