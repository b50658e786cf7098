"""Contents and index pages are told from passages that say something."""

import pytest

from text.contents import is_contents_or_index

CONTENTS = [
    "# Contents\n\n1 Introduction ........ 1\n2 Backups ........ 12\n3 Restores ........ 19\n4 Monitoring ........ 25",
    "Backups . . . . . . . 12\nRestores . . . . . . . 19\nRetention . . . . . . . 23\nMonitoring . . . . 25",
    "Preface …… iii\nBackups …… 12\nRestores …… 19",
    "# Index\n\nbackups 12, 45\nencryption 7, 33–35\nkeys 33\nrestores 19\nTLS 8",
]
PASSAGES = [
    "Backups are taken every hour and kept for 35 days.\nRestores are tested every quarter.\nSee page 12.",
    "# Retention\n\nLogs: 90\nBackups: 35\nAudit trail: 365",  # a table of figures, not under a contents heading
    "The service runs in 2 regions...\nIt fails over in 60 seconds...\nSupport answers within 1 hour.",
    "Wait for it . . .\nThen press OK.",
]


@pytest.mark.parametrize("text", CONTENTS)
def test_contents_and_index_pages_are_recognised(text):
    assert is_contents_or_index(text)


@pytest.mark.parametrize("text", PASSAGES)
def test_passages_are_not(text):
    assert not is_contents_or_index(text)
