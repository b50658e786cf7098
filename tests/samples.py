"""The real published questionnaires of ../shared/samples/ (their licences are there), read where they are.

They sit beside the checkout, not in it. A clone placed elsewhere names their folder with
SPELUNKER_SAMPLES_DIR; a missing file fails the test with that advice instead of a bare FileNotFoundError.
"""

import os
from pathlib import Path

import pytest

SAMPLES_DIR = Path(
    os.environ.get("SPELUNKER_SAMPLES_DIR") or Path(__file__).resolve().parents[1].parent / "shared" / "samples"
)


def sample_questionnaire(name: str) -> bytes:
    """The bytes of one published questionnaire (samples/questionnaires/NAME)."""
    path = SAMPLES_DIR / "questionnaires" / name
    if not path.is_file():
        pytest.fail(
            f"{path} is not there: the real questionnaires are read from shared/samples/ beside the checkout;"
            " set SPELUNKER_SAMPLES_DIR to the samples folder when the clone is elsewhere"
        )
    return path.read_bytes()
