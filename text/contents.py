"""Table-of-contents and index pages: lists of where things are, not passages that say anything.

"Backups ........ 12" matches every question about backups by its words and answers none of them; indexed as a
passage it ranks in search and is cited in drafts. A piece of text is such a page when most of its lines are
entries: a title, a dot leader and a page number ("Backups . . . . 12", "Backups …… xii"), or, under a "Contents"
or "Index" heading, a title and page numbers ("Backups 12, 45").
"""

import re

# A title, a leader (three dots or more, spaced or not, middle dots, underscores, or ellipses), a page number.
LEADER_ENTRY = re.compile(r"\S.*?(?:(?:\s?[.·_]){3,}|\s?…+)\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*$", re.IGNORECASE)
# Under a contents or index heading: a title and its page numbers ("Backups 12", "Backups 12, 45–47").
PAGE_ENTRY = re.compile(r"\S.{0,120}?\s\d{1,4}(?:\s*[,–-]\s*\d{1,4})*\s*$")
CONTENTS_HEADING = re.compile(r"^\s*#*\s*(?:table of contents|contents|index)\s*$", re.IGNORECASE | re.MULTILINE)
MIN_ENTRIES = 3
LEADER_SHARE = 0.5  # half the lines with dot leaders: nothing else is written that way
TITLED_SHARE = 0.6  # under a "Contents"/"Index" heading, most lines ending in page numbers


def is_contents_or_index(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip() and not CONTENTS_HEADING.fullmatch(line)]
    if len(lines) < MIN_ENTRIES:
        return False
    if sum(1 for line in lines if LEADER_ENTRY.fullmatch(line.strip())) >= LEADER_SHARE * len(lines):
        return True
    titled = CONTENTS_HEADING.search(text) is not None
    return titled and sum(1 for line in lines if PAGE_ENTRY.fullmatch(line.strip())) >= TITLED_SHARE * len(lines)
