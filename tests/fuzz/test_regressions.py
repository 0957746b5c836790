"""Every input the fuzzer minimised (tests/fuzz/regressions/) ends cleanly: success, or a located
diagnostic with exit 1, within the time limit. A file whose header says `fuzz-status: open` is a
known bug not fixed yet: xfail(strict=True) with its signature as the reason, so that fixing it
makes this test fail until the header says `fixed`; a different failure than the recorded one is
an error, not an expected failure."""

from __future__ import annotations

from pathlib import Path

import ferrox_fuzz as fuzz  # fuzz/ is on pytest's pythonpath
import pytest

REGRESSIONS = Path(__file__).with_name("regressions")
LIMIT = 30.0


class SignatureChanged(Exception):
    """The input fails, but not the way it was recorded: not the expected failure."""


def header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_bytes().decode("utf-8", "replace").splitlines():
        if not line.startswith("// fuzz-"):
            break
        key, _, value = line[len("// fuzz-") :].partition(":")
        fields[key.strip()] = value.strip()
    return fields


def cases():
    for path in sorted(REGRESSIONS.glob("*.mlir")):
        fields = header(path)
        marks = []
        if fields.get("status") == "open":
            marks.append(
                pytest.mark.xfail(strict=True, raises=AssertionError, reason=fields["signature"])
            )
        yield pytest.param(path, fields, marks=marks, id=path.stem)


def test_every_regression_has_a_header():
    for path in REGRESSIONS.glob("*.mlir"):
        fields = header(path)
        assert fields.get("signature"), path
        assert fields.get("config") in fuzz.CONFIGS, path
        assert fields.get("status") in ("open", "fixed"), path


@pytest.mark.parametrize("path, fields", list(cases()))
def test_regression_ends_cleanly(path: Path, fields: dict[str, str]):
    outcome = fuzz.run_in_process(fields["config"], str(path), LIMIT)
    if outcome.verdict == "finding" and outcome.signature != fields["signature"]:
        raise SignatureChanged(f"now {outcome.signature!r}, recorded {fields['signature']!r}")
    assert outcome.verdict != "finding", f"{outcome.signature}: {outcome.detail}"
