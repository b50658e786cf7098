"""A document's text shown for reading: its heading lines as headings, not as the `#` marks the parsers write, and
a Markdown document's inline marks (**bold**, *emphasis*, `code`) as what they mean, not as asterisks."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from text.headings import HEADING, as_written

register = template.Library()

# Inline marks only, raw HTML off: whatever the document holds is escaped (a link or an image stays its text).
INLINE_MARKDOWN = MarkdownIt("zero").enable(["emphasis", "backticks", "escape"])


@register.filter
def reading_text(text: str) -> str:
    """Escaped text with line breaks and inline Markdown; a whole `# Heading` line (an HTML, Word or PDF heading, as
    extraction marks it for the chunker and search) shown in bold without its marks, and a body line's escaped `#`
    as written."""
    lines = []
    for line in str(text).split("\n"):
        heading = HEADING.fullmatch(line)
        lines.append(
            format_html('<strong class="text-heading">{}</strong>', heading.group(1))
            if heading
            else INLINE_MARKDOWN.renderInline(as_written(line))
        )
    return mark_safe("<br>".join(lines))
