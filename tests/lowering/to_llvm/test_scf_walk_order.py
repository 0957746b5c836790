"""`convert-to-llvm` takes scf to cf each block's last op first (a block split is then cheap:
`lowering/to_llvm/convert.py`). That order must give what the first-to-last walk gave: the same
blocks, in the same order, with the same ops. Pinned on sibling, nested, value-yielding and
loop-carried `scf.if` / `scf.for` / `scf.while` / `scf.index_switch`, and on the lowered
examples (their PTX is compared whole by `benchmarks/artifacts_identical.py`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from ferrox.lowering.conversion import rewrite_module
from ferrox.lowering.pipeline import COMPILE_STAGES, lower_to_llvm
from ferrox.lowering.to_llvm.convert import SCF_TO_CF_PATTERNS, Located
from ferrox.parser import parse_module
from ferrox.registry import make_context

ROOT = Path(__file__).resolve().parents[3]

FUNC = """
func.func @f(%c: i1, %d: i1, %n: index, %x: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = scf.if %c -> (i32) {
    %b = scf.if %d -> (i32) {
      %y = arith.addi %x, %x : i32
      scf.yield %y : i32
    } else {
      scf.yield %x : i32
    }
    scf.yield %b : i32
  } else {
    scf.yield %x : i32
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (i32) {
    %t = scf.if %c -> (i32) {
      %z = arith.muli %acc, %x : i32
      scf.yield %z : i32
    } else {
      scf.yield %acc : i32
    }
    scf.yield %t : i32
  }
  scf.if %d {
    %w = arith.subi %s, %x : i32
  }
  %r = scf.while (%v = %s) : (i32) -> i32 {
    %go = arith.cmpi slt, %v, %x : i32
    scf.condition(%go) %v : i32
  } do {
  ^bb0(%v: i32):
    %v2 = arith.addi %v, %x : i32
    scf.yield %v2 : i32
  }
  %k = scf.index_switch %n -> i32
  case 1 {
    scf.yield %r : i32
  }
  default {
    %q = scf.if %c -> (i32) {
      scf.yield %x : i32
    } else {
      scf.yield %r : i32
    }
    scf.yield %q : i32
  }
  func.return %k : i32
}
"""


def _generic(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def _scf_to_cf(module: ModuleOp, reverse: bool) -> str:
    rewrite_module([Located(p) for p in SCF_TO_CF_PATTERNS], module, reverse=reverse)
    return _generic(module)


def test_last_first_gives_the_blocks_first_to_last_gave():
    ctx = make_context()
    forward = _scf_to_cf(parse_module(ctx, FUNC), reverse=False)
    assert "scf." not in forward
    assert _scf_to_cf(parse_module(ctx, FUNC), reverse=True) == forward


@pytest.mark.parametrize("example", ["tile/matmul_bf16", "tile/softmax", "simt/transpose"])
def test_examples_lower_the_same_either_way(example, monkeypatch):
    import ferrox.lowering.to_llvm.convert as convert

    text = (ROOT / "examples" / f"{example}.mlir").read_text()
    ctx = make_context()
    lowered = []
    for reverse in (True, False):
        monkeypatch.setattr(convert, "SCF_LAST_FIRST", reverse)
        module = parse_module(ctx, text)
        lower_to_llvm(module, ctx, stages=COMPILE_STAGES)
        lowered.append(_generic(module))
    assert lowered[0] == lowered[1]
