"""`verify-disjoint` on a module as the parser made it says what it says on the lowering's copy
of it (`targets/compile.py` checks a module it parsed itself, while LLVM works on the copy):
the same diagnostics, in the same order, at the same places, for every example and every
FileCheck input (each split part) that parses and passes the op verifiers."""

from __future__ import annotations

from pathlib import Path

from ferrox.parser import parse_module
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context
from ferrox.verify import verify_module

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "examples").rglob("*.mlir")) + sorted(
    (ROOT / "tests" / "filecheck").rglob("*.mlir")
)


def said(diagnostics) -> list[str]:
    return [d.format() for d in diagnostics]


def test_the_parsed_module_and_its_copy_get_the_same_diagnostics():
    checked = refused = 0
    for path in FILES:
        for i, part in enumerate(path.read_text().split("// -----")):
            try:
                module = parse_module(make_context(), part, f"{path.name}#{i}")
                verify_module(module)
            except Exception:  # noqa: BLE001 - not a module the compile would lower
                continue
            copy = module.clone()
            found = said(collect(module))
            assert found == said(collect(copy)), f"{path.relative_to(ROOT)}#{i}"
            checked += 1
            refused += bool(found)
    assert checked > 200 and refused > 50, (checked, refused)  # (the inputs are still there)
