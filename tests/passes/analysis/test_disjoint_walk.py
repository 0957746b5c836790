"""The verify-disjoint checks walk each function once (passes/disjoint/common.py): `walk` lists
exactly the ops of xDSL's `walk()`, in its order (diagnostics come out in that order), and
`type_test` answers as `isinstance` does."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, scf

from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt.convert import convert_tile_to_simt
from ferrox.parser import parse_module
from ferrox.passes.disjoint.common import Context, functions, type_test, walk
from ferrox.registry import make_context

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples" / "simt").glob("*.mlir")) + sorted(
    (ROOT / "examples" / "tile").glob("*.mlir")
)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_walk_is_xdsl_walk(path: Path):
    module = parse_module(make_context(), path.read_text())
    convert_tile_to_simt(module)  # a tile kernel becomes a SIMT one; SIMT examples stay as they are
    assert [id(op) for op in walk(module)] == [id(op) for op in module.walk()]
    fns = list(functions(module))
    assert fns and fns == [
        op for op in module.walk() if isinstance(op, simt.KernelOp | simt.FuncOp)
    ]
    ctx = Context()
    for fn in fns:
        ops = ctx.ops(fn)
        assert [id(op) for op in ops] == [id(op) for op in fn.walk()]
        assert ctx.ops(fn) is ops  # made once


def test_type_test_is_isinstance():
    module = parse_module(make_context(), (ROOT / "examples" / "simt" / "gcd.mlir").read_text())
    loops = type_test((scf.WhileOp, scf.ForOp))
    constants = type_test(arith.ConstantOp)
    ops = list(module.walk())
    for op in ops + ops:  # the second time from what it remembered
        assert loops(op) == isinstance(op, scf.WhileOp | scf.ForOp)
        assert constants(op) == isinstance(op, arith.ConstantOp)
    assert any(map(loops, ops)) and any(map(constants, ops))
