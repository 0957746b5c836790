"""The incremental uniformity sweep (passes/analysis/uniformity.py) reaches the same fixpoint as
the plain one that evaluates every op on every sweep: the same fact (level, alignment, lane) for
every value and the same control level for every block, on every example kernel (SIMT, tile ones
lowered to SIMT, tile ones as the tile lowering analyses them) and every FileCheck input of the
passes."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from ferrox.dialects import simt, tile
from ferrox.lowering.tile_to_simt.convert import convert_tile_to_simt
from ferrox.lowering.tile_to_simt.uniform import tile_rule
from ferrox.parser import parse_module
from ferrox.passes.analysis.uniformity import Level, Uniformity
from ferrox.registry import make_context

ROOT = Path(__file__).resolve().parents[3]
SIMT_EXAMPLES = sorted((ROOT / "examples" / "simt").glob("*.mlir"))
TILE_EXAMPLES = sorted((ROOT / "examples" / "tile").glob("*.mlir"))
PASS_INPUTS = sorted((ROOT / "tests" / "filecheck" / "passes").glob("*.mlir"))


class FullSweep(Uniformity):
    """The plain algorithm: every sweep evaluates every op."""

    incremental = False


Snapshot = tuple[list[tuple[int, int, bool]], list[int]]


def snapshot(analysis: Uniformity, fn: Operation) -> Snapshot:
    """Every value's fact and every block's control, in the function's order."""
    facts, controls = [], []
    for op in fn.walk():
        for region in op.regions:
            for block in region.blocks:
                if block in analysis.controls:
                    controls.append(int(analysis.controls[block]))
                values = [*block.args, *(r for o in block.ops for r in o.results)]
                for v in values:
                    f = analysis.facts.get(v)
                    facts.append((-1, 0, False) if f is None else (int(f.level), f.align, f.lane))
    return facts, controls


def variants(op: Operation) -> list[dict]:
    if isinstance(op, simt.KernelOp):
        return [{}]
    if isinstance(op, simt.FuncOp):
        return [{}, {"params": Level.GRID}, {"params": Level.WARP}]
    if isinstance(op, tile.KernelOp):
        return [{"block": (t, 1, 1), "rule": tile_rule} for t in (32, 128, 256)]
    return []


def compare(module: ModuleOp) -> int:
    """Compare both algorithms on every function of `module`; how many analyses agreed."""
    count = 0
    for fn in list(module.walk()):
        for options in variants(fn):
            fast = Uniformity(fn, **options)
            plain = FullSweep(fn, **options)
            assert fast.incremental and not plain.incremental
            got, want = snapshot(fast, fn), snapshot(plain, fn)
            assert got == want, f"'{fn.name}' with {options}: the sweeps disagree"
            assert len(fast) == len(plain)
            count += 1
    return count


def parse(text: str) -> ModuleOp:
    return parse_module(make_context(), text)


@cache
def lowered(path: Path) -> ModuleOp:
    module = parse(path.read_text())
    convert_tile_to_simt(module)
    return module


@pytest.mark.parametrize("path", SIMT_EXAMPLES, ids=lambda p: p.stem)
def test_simt_examples(path: Path):
    assert compare(parse(path.read_text())) >= 1


@pytest.mark.parametrize("path", TILE_EXAMPLES, ids=lambda p: p.stem)
def test_tile_examples_lowered(path: Path):
    module = lowered(path)
    assert not any(isinstance(op, tile.KernelOp) for op in module.walk())
    assert compare(module) >= 1


@pytest.mark.parametrize("path", TILE_EXAMPLES, ids=lambda p: p.stem)
def test_tile_examples_as_the_tile_lowering_sees_them(path: Path):
    assert compare(parse(path.read_text())) == 3


@pytest.mark.parametrize("path", PASS_INPUTS, ids=lambda p: p.stem)
def test_pass_inputs(path: Path):
    """Each `// -----` case of the file."""
    count = 0
    for chunk in path.read_text().split("// -----"):
        count += compare(parse(chunk))
    assert count >= 1


CHAINS = """
simt.kernel @chains(%n: index) contract<domain = 1, block = [64]> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %t = simt.thread_id x
  %bx = simt.block_id x
  %u:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c32, %g = %c0) -> (index, index) {
    %a1 = arith.addi %a, %c1 : index
    %a2 = arith.muli %a1, %c32 : index
    %a3 = arith.subi %a2, %c1 : index
    %a4 = arith.addi %a3, %t : index
    %g1 = arith.addi %g, %i : index
    %g2 = arith.muli %g1, %c32 : index
    %g3 = arith.addi %g2, %bx : index
    %lt = arith.cmpi ult, %a3, %n : index
    %s = arith.select %lt, %g3, %a4 : index
    scf.yield %s, %g3 : index, index
  }
  %w = scf.while (%q = %c0) : (index) -> index {
    %q1 = arith.addi %q, %c1 : index
    %q2 = arith.muli %q1, %c32 : index
    %go = arith.cmpi ult, %q2, %n : index
    scf.condition(%go) %q2 : index
  } do {
  ^bb0(%r: index):
    %r1 = arith.addi %r, %t : index
    %r2 = arith.divui %r1, %c32 : index
    scf.yield %r2 : index
  }
  %h = arith.addi %w, %c1 : index
  %h2 = arith.muli %h, %h : index
  simt.return
}
"""


def test_changes_propagate_down_chains():
    """A loop-carried value that falls on a later sweep takes every value computed from it, at
    any distance, down with it (the sweeps skip only ops whose inputs did not change)."""
    module = parse(CHAINS)
    assert compare(module) == 1
    fn = next(op for op in module.walk() if isinstance(op, simt.KernelOp))
    analysis = Uniformity(fn)
    names = {v.name_hint: analysis.fact(v) for v in analysis if v.name_hint}
    for name in ("a", "a1", "a2", "a3", "a4", "lt", "s"):
        assert names[name].level == Level.THREAD, name
    for name in ("g", "g1", "g2", "g3"):
        assert names[name].level == Level.BLOCK, name
    # q falls to the warp level through the back edge: (q2 + thread id x) / 32, q2 a multiple of 32
    for name in ("q", "q1", "q2", "go", "r", "r2", "w", "h", "h2"):
        assert names[name].level == Level.WARP, name
    assert names["r1"].lane and names["a2"].align == 32 and names["q2"].align == 32


def test_the_sweeps_skip_work():
    """The incremental sweep evaluates fewer ops than the plain one on a loop-carried kernel (the
    comparison above would pass trivially if it never skipped)."""
    module = lowered(ROOT / "examples" / "tile" / "matmul_f32.mlir")
    fn = next(op for op in module.walk() if isinstance(op, simt.KernelOp))
    calls = {"fast": 0, "plain": 0}

    def counting(cls: type[Uniformity], key: str) -> type[Uniformity]:
        class Counted(cls):  # type: ignore[misc, valid-type]
            def _transfer(self, op, kind, control):
                calls[key] += 1
                return super()._transfer(op, kind, control)

        return Counted

    counting(Uniformity, "fast")(fn)
    counting(FullSweep, "plain")(fn)
    assert 0 < calls["fast"] < calls["plain"]
