"""The quality page's int8 decision is generated from the figures int8 changes, never written by hand."""

from evaluation import report
from evaluation.library import LibraryScore
from evaluation.measures import KeyFactScore as Facts
from evaluation.measures import RetrievalScore

MODEL = "all-MiniLM-L6-v2"
HYBRID = f"Hybrid: search_passages() with {MODEL} (RRF of lexical and vector)"


def _figures(recall: float, stated: int, false_match: bool) -> dict:
    retrieval = {
        "BM25 baseline (bm25 over passage text, question as written)": {
            split: RetrievalScore(0.5, 0.5, 0.5, []) for split in ("test", "dev")
        },
        HYBRID: {split: RetrievalScore(recall, 0.8, 0.8, []) for split in ("test", "dev")},
    }
    library = LibraryScore(
        MODEL,
        0.59,
        1,
        questions=[("e1", "reworded"), (None, "unrelated")],
        matches={("reworded", 0.59): "e1", ("unrelated", 0.59): "e1" if false_match else None},
        splits={"reworded": "test", "unrelated": "test"},
    )
    return {
        "vendor": "sqlite",
        "models": (MODEL, "chat"),
        "retrieval": retrieval,
        "key_facts": {"test": Facts(100, stated, 0), "dev": Facts(100, stated, 0)},
        "library": [library],
    }


def test_int8_within_the_tolerance_on_every_figure_is_called_the_default():
    fp32, int8 = _figures(0.900, 60, False), _figures(0.895, 60, False)
    section = "\n".join(report._precision_section(int8, fp32, int8_default=True))
    assert f"| test recall@5: {HYBRID} | 0.900 | 0.895 | +0.005 |" in section
    assert "BM25 baseline" not in section  # the lexical rankings do not use the encoder
    assert "**int8 is within 0.01 of fp32 on every figure" in section and "it is the default." in section


def test_a_figure_int8_costs_more_than_the_tolerance_is_named_and_fp32_stays():
    fp32, int8 = _figures(0.900, 60, False), _figures(0.900, 58, True)
    section = "\n".join(report._precision_section(fp32, int8, int8_default=False))
    assert "| test drafts stating the key fact | 0.600 | 0.580 | +0.020 |" in section
    assert "| test answer library false-match rate | 0.000 | 1.000 | +1.000 |" in section
    assert "**int8 costs more than 0.01: test drafts stating the key fact +0.020; test answer library false-match" in (
        section
    )
    assert "fp32 stays the default.**" in section


def test_no_second_run_no_section():
    assert report._precision_section(_figures(0.9, 60, False), None, int8_default=False) == []
