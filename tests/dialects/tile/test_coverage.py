"""The FileCheck tests cover the dialect: every op round-trips, every verifier has a negative
case."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from ferrox.dialects.tile import OPS, ReturnOp
from ferrox.parser import parse_module
from ferrox.registry import make_context

FILECHECK = Path(__file__).resolve().parents[2] / "filecheck" / "dialects" / "tile"


def _ops_in(path: Path) -> set[str]:
    module = parse_module(make_context(), path.read_text(), str(path))
    return {op.name for op in module.walk()}


def test_ops_mlir_round_trips_every_op():
    missing = {op.name for op in OPS} - _ops_in(FILECHECK / "ops.mlir")
    assert not missing, f"ops.mlir lacks {sorted(missing)}"


def test_ops_mlir_checks_every_op():
    text = (FILECHECK / "ops.mlir").read_text()
    checked = set(re.findall(r"//\s*CHECK[-A-Z]*:.*?\b(tile\.\w+)", text))
    missing = {op.name for op in OPS} - checked
    assert not missing, f"no CHECK line in ops.mlir for {sorted(missing)}"


def _rule_owner(op: type) -> type | None:
    """The class whose source holds the op's `verify_` (shared by an op family), if any."""
    for cls in op.__mro__:
        if cls.__module__.startswith("ferrox.") and "def verify_" in inspect.getsource(cls):
            return cls
    return None


def test_invalid_mlir_has_a_case_for_every_verifier():
    text = (FILECHECK / "invalid.mlir").read_text()
    # The op a case is about is on the line an `expected-error@+1` points at.
    lines = text.splitlines()
    targets = {
        name
        for i, line in enumerate(lines[:-1])
        if "expected-error@+1" in line
        for name in re.findall(r"(?<![!\w])(tile\.\w+)", lines[i + 1])
    }
    owners: dict[type, set[str]] = {}
    for op in OPS:
        owner = _rule_owner(op)
        if owner is not None:
            owners.setdefault(owner, set()).add(op.name)
    assert ReturnOp.name in targets, "tile.return's parent rule has no case"
    missing = [sorted(names) for names in owners.values() if not names & targets]
    assert not missing, f"invalid.mlir has no case for the verifier of {missing}"
    assert len(owners) >= 20  # the detection itself works


def test_every_invalid_case_expects_exactly_one_error_or_a_note():
    for case in (FILECHECK / "invalid.mlir").read_text().split("// -----")[1:]:
        assert "expected-error" in case, f"a case with nothing expected:\n{case}"
