"""A short seeded fuzzing campaign (fuzz/ferrox_fuzz.py) finds nothing beyond the signatures
that are known and still open. Each entry below has a minimised regression input under
tests/fuzz/regressions/ (xfail there); fixing one means deleting it here and flipping the
regression's header to `fixed`. Keep this list short and true: a signature that no longer shows
up belongs off it."""

from __future__ import annotations

import os
from pathlib import Path

import ferrox_fuzz as fuzz  # fuzz/ is on pytest's pythonpath

SEED = 1
SECONDS = 600.0  # a backstop only: the campaign is bounded by MAX_INPUTS, so it is the same
# campaign on every machine (a time bound would let a faster machine fuzz further)
# 200 mutants (about 200 tool runs, each verdict checked): a real campaign at half the cost of
# the 400 it was, which the suite's time on CI's two cores could no longer afford; longer ones
# are `python fuzz/ferrox_fuzz.py`'s job (docs/fuzzing.md)
MAX_INPUTS = 200

# Open signatures (their cause is outside the tools' own files); see docs/fuzzing.md.
OPEN: set[str] = set()


def test_a_short_seeded_campaign_finds_nothing_new():
    # Seeds up to 8 kB (three quarters of the corpus) run in well under a second each, so a
    # 15-second limit means a hang even on a loaded CI machine; the biggest files take seconds.
    findings, verdicts = fuzz.campaign(
        SEED,
        SECONDS,
        MAX_INPUTS,
        limit=15.0,
        minimise_tests=0,
        log=lambda line: None,
        max_seed_bytes=8000,
    )
    assert verdicts["inputs"] > 0
    new = {
        sig: (f.config, f.seed_file, f.mutations) for sig, f in findings.items() if sig not in OPEN
    }
    assert new == {}


def test_the_open_list_names_saved_regressions():
    regressions = Path(__file__).with_name("regressions")
    saved = {
        line.partition(":")[2].strip()
        for path in regressions.glob("*.mlir")
        for line in path.read_bytes().decode("utf-8", "replace").splitlines()[:1]
    }
    assert OPEN <= saved


def test_an_unlocated_diagnostic_is_a_finding_in_either_error_format():
    # The short form (what the fuzzer asks the tools for) may carry a rule code; the human form
    # puts the location on an arrow line below the message.
    for err in (
        "<unknown>: error[E0101]: operand of 300 is out of range\n",
        "k.mlir:0:0: error: operand of 300 is out of range\n",
        "error[E0101]: operand of 300 is out of range\n  --> <unknown>\n",
    ):
        outcome = fuzz.classify(1, "", err, None)
        assert outcome == fuzz.Outcome(
            "finding", "unlocated diagnostic: operand of _ is out of range", err[:300]
        )
    assert fuzz.classify(1, "", "k.mlir:3:5: error[E0101]: bad\n", None).verdict == "diagnostic"


def test_the_tools_run_with_the_short_error_format(tmp_path: Path, monkeypatch):
    from ferrox.driver.tools import opt

    seen = []
    monkeypatch.setattr(opt, "main", lambda argv: seen.append(os.environ.get(FORMAT)) or 1)
    monkeypatch.setenv(FORMAT, "human")
    path = tmp_path / "k.mlir"
    path.write_text("func.func @f() {\n  func.return\n}\n")
    assert fuzz.run_in_process("opt-parse", str(path), 30.0).verdict == "finding"  # no message
    assert seen == ["short"]
    assert os.environ[FORMAT] == "human"


FORMAT = fuzz.ERROR_FORMAT_ENV
