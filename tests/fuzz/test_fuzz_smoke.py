"""A short seeded fuzzing campaign (fuzz/ferrox_fuzz.py) finds nothing beyond the signatures
that are known and still open. Each entry below has a minimised regression input under
tests/fuzz/regressions/ (xfail there); fixing one means deleting it here and flipping the
regression's header to `fixed`. Keep this list short and true: a signature that no longer shows
up belongs off it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "fuzz_loader", Path(__file__).with_name("fuzz_loader.py")
)
assert _spec is not None and _spec.loader is not None
fuzz_loader = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_loader)
fuzz = fuzz_loader.load_fuzzer()

SEED = 1
SECONDS = 15.0
MAX_INPUTS = 400

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
