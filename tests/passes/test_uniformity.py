"""The uniformity analysis (passes/analysis/uniformity.py, docs/uniformity-analysis.md): the level
of each kind of value, the control level of ops under each kind of construct, the lattice, the
fixpoint's internal error, and order() on unstructured control flow."""

from __future__ import annotations

from pathlib import Path

import in_process  # tests/support
import pytest
from xdsl.ir import Operation, SSAValue

from ferrox.dialects import simt
from ferrox.parser import parse_module
from ferrox.passes.analysis.cfg import RegionGraph
from ferrox.passes.analysis.uniformity import (
    LANE,
    THREAD,
    Fact,
    Level,
    Uniformity,
    UniformityInternalError,
    region_uniformity,
    uniformity,
)
from ferrox.passes.disjoint.common import loop_between, order
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context

G, B, W, T = Level.GRID, Level.BLOCK, Level.WARP, Level.THREAD


def parse(text: str) -> Operation:
    return parse_module(make_context(), text)


def kernel(text: str) -> simt.KernelOp | simt.FuncOp:
    fns = [op for op in parse(text).walk() if isinstance(op, simt.KernelOp | simt.FuncOp)]
    return fns[-1]


def value(fn: Operation, name: str) -> SSAValue:
    for op in fn.walk():
        for r in op.results:
            if r.name_hint == name:
                return r
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    if a.name_hint == name:
                        return a
    raise KeyError(name)


def op_named(fn: Operation, name: str, nth: int = 0) -> Operation:
    return [op for op in fn.walk() if op.name == name][nth]


def levels(block: str, body: str, params: str = "%n: index, %x: !simt.slice<f32>") -> Uniformity:
    contract = f" contract<domain = {block.count(',') + 1}, block = [{block}]>" if block else ""
    fn = kernel(f"simt.kernel @k({params}){contract} {{\n{body}\n  simt.return\n}}")
    return uniformity(fn)


SOURCES = """
  %c32 = arith.constant 32 : index
  %c16 = arith.constant 16 : index
  %c5 = arith.constant 5 : index
  %m = arith.constant -32 : index
  %tx = simt.thread_id x
  %ty = simt.thread_id y
  %bx = simt.block_id x
  %bd = simt.block_dim x
  %gd = simt.grid_dim x
  %len = simt.len %x : !simt.slice<f32>
  %lane = simt.lane_id
  %warp = arith.divui %tx, %c32 : index
  %shr = arith.shrui %tx, %c5 : index
  %masked = arith.andi %tx, %m : index
  %half = arith.divui %tx, %c16 : index
  %base = arith.muli %bx, %bd : index
  %gid = arith.addi %base, %tx : index
  %gwarp = arith.divui %gid, %c32 : index
  %odd = arith.addi %gid, %n : index
  %oddwarp = arith.divui %odd, %c32 : index
  %mixed = arith.addi %bx, %n : index
  %loaded = simt.load %x[%tx] : !simt.slice<f32>
  %i32 = arith.index_cast %tx : index to i32
  %c32i = arith.constant 32 : i32
  %warp32 = arith.divui %i32, %c32i : i32
"""


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("c32", G),
        ("n", G),
        ("bd", G),
        ("gd", G),
        ("len", G),
        ("bx", B),
        ("mixed", B),
        ("base", B),
        ("tx", T),
        ("lane", T),
        ("warp", W),
        ("shr", W),
        ("masked", W),
        ("half", T),
        ("gwarp", W),
        ("oddwarp", T),  # + a kernel scalar of unknown alignment breaks the warp's alignment
        ("loaded", T),
        ("warp32", W),
        ("ty", W),  # block x = 64: each warp lies in one row
    ],
)
def test_levels_of_values_with_block_64_by_2(name: str, level: Level):
    u = levels("64, 2", SOURCES)
    assert u[value(u.fn, name)] == level


@pytest.mark.parametrize(
    ("block", "name", "level"),
    [
        ("48, 2", "warp", T),  # a warp spans two rows of 48
        ("48, 2", "ty", T),
        ("256", "ty", G),  # block y = 1: thread id y is always 0
        ("", "warp", T),  # no contract: the block shape is unknown
        ("", "ty", T),
        ("", "bd", G),
        ("32, 32", "gwarp", W),
    ],
)
def test_levels_depend_on_the_block_shape(block: str, name: str, level: Level):
    u = levels(block, SOURCES)
    assert u[value(u.fn, name)] == level


def test_device_function_parameters_are_divergent_unless_told():
    fn = kernel("simt.func @f(%a: index) {\n  %b = arith.addi %a, %a : index\n  simt.return\n}")
    assert uniformity(fn)[value(fn, "b")] == T
    assert uniformity(fn, params=Level.BLOCK)[value(fn, "b")] == B


def test_mapping_interface():
    u = levels("64", "  %c = arith.constant 1 : index\n  %t = simt.thread_id x")
    c, t = value(u.fn, "c"), value(u.fn, "t")
    assert c in u and t in u
    assert dict(u)[c] == G and u.fact(t) == LANE
    assert len(u) == len(list(u)) == 4  # two parameters, two results
    # values of another function are divergent
    other = kernel("simt.kernel @o(%z: index) {\n  simt.return\n}")
    assert u.fact(other.params[0]) == THREAD


def test_lattice_join_and_cap():
    assert Fact(G, 64).join(Fact(B, 32)) == Fact(B, 32)
    assert LANE.join(LANE) == LANE
    assert LANE.join(Fact(W, 32)) == Fact(T, 1)
    assert LANE.cap(W) == LANE  # a warp-uniform choice keeps the lane shape
    assert LANE.cap(T) == Fact(T, 1)  # a divergent one does not
    assert Fact(G, 8).cap(B) == Fact(B, 8)
    assert Fact(W).cap(B) == Fact(W)


COLLECTIVES = """
  %t = simt.thread_id x
  %v = simt.load %x[%t] : !simt.slice<f32>
  %zero = arith.constant 0.0 : f32
  %p = arith.cmpf ogt, %v, %zero : f32
  %all = simt.vote_all %p
  %bal = simt.ballot %p
  %lane0 = arith.constant 0 : i32
  %src = simt.shuffle idx %v, %lane0 : f32
  %x1 = simt.shuffle xor %v, %lane0 : f32
  %ti = arith.index_cast %t : index to i32
  %moving = simt.shuffle idx %v, %ti : f32
  %uni = arith.constant 1.0 : f32
  %same = simt.shuffle xor %uni, %lane0 : f32
  %blockp = arith.cmpi eq, %n, %n : index
  %blockvote = simt.vote_any %blockp
"""


@pytest.mark.parametrize(
    ("name", "level"),
    [
        ("all", W),
        ("bal", W),
        ("src", W),
        ("x1", T),
        ("moving", T),
        ("same", G),
        ("blockvote", G),
    ],
)
def test_levels_of_collective_results(name: str, level: Level):
    u = levels("64", COLLECTIVES)
    assert u[value(u.fn, name)] == level


def test_loop_carried_values():
    u = levels(
        "64",
        """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = simt.thread_id x
  %u = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %a2 = arith.addi %a, %i : index
    scf.yield %a2 : index
  }
  %d = scf.for %j = %c0 to %n step %c1 iter_args(%b = %c0) -> (index) {
    %b2 = arith.addi %b, %t : index
    scf.yield %b2 : index
  }
  %e = scf.for %k = %c0 to %t step %c1 iter_args(%e0 = %c0) -> (index) {
    scf.yield %e0 : index
  }
  %w = scf.while (%q = %c0) : (index) -> index {
    %go = arith.cmpi ult, %q, %n : index
    scf.condition(%go) %q : index
  } do {
  ^bb0(%q2: index):
    %q3 = arith.addi %q2, %c1 : index
    scf.yield %q3 : index
  }""",
    )
    fn = u.fn
    assert [u[value(fn, n)] for n in ("u", "a", "i", "d", "b", "e", "k", "w", "q", "q2")] == [
        G,
        G,
        G,
        T,
        T,
        T,  # the trip count differs between threads: so does the result
        T,
        G,
        G,
        G,
    ]


CFG = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = simt.thread_id x
  %div = arith.cmpi ult, %t, %n : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %next = arith.addi %i, %c1 : index
  %again = arith.cmpi ult, %next, %n : index
  cf.cond_br %again, ^loop(%next : index), ^split
^split:
  cf.cond_br %div, ^a, ^b(%c0 : index)
^a:
  %in_a = arith.addi %c0, %c1 : index
  cf.br ^b(%c1 : index)
^b(%phi: index):
  %after = arith.addi %phi, %c1 : index
"""


def test_unstructured_control_and_phis():
    u = levels("64", CFG)
    fn = u.fn
    assert u[value(fn, "i")] == G  # the loop's exit is uniform
    assert u[value(fn, "phi")] == T  # merged after the divergent branch
    assert u[value(fn, "after")] == T
    assert u.control(value(fn, "next").owner) == G  # type: ignore[arg-type]
    assert u.control(value(fn, "in_a").owner) == T  # type: ignore[arg-type]
    assert u.control(value(fn, "after").owner) == G  # type: ignore[arg-type]  # rejoined
    decision = u.divergence(value(fn, "in_a").owner, B)  # type: ignore[arg-type]
    assert decision is not None and decision.kind == "branch"
    assert decision.value is value(fn, "div")


def test_region_uniformity_of_structured_ops():
    fn = kernel(
        """simt.kernel @k(%n: index, %out: !simt.disjoint_slice<f32, 1d>, %v: f32)
    contract<domain = 1, block = [64]> {
  %b = simt.block_id x
  %t = simt.thread_id x
  %c32 = arith.constant 32 : index
  %w = arith.divui %t, %c32 : index
  %cb = arith.cmpi ult, %b, %n : index
  %cw = arith.cmpi ult, %w, %n : index
  %ct = arith.cmpi ult, %t, %n : index
  simt.sync_threads
  scf.if %cb {
    simt.sync_threads
    scf.if %cw {
      simt.sync_threads
      scf.if %ct {
        simt.sync_threads
      }
    }
  }
  %x = simt.thread_index_1d
  simt.get_mut %out[%x] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.sync_threads
    simt.yield %v : f32
  }
  simt.return
}"""
    )
    syncs = [op for op in fn.walk() if isinstance(op, simt.SyncThreadsOp)]
    assert [region_uniformity(op) for op in syncs] == [G, B, W, T, T]
    u = uniformity(fn)
    assert [region_uniformity(op, u) for op in syncs] == [G, B, W, T, T]
    innermost = u.divergence(syncs[3], W)
    assert innermost is not None and innermost.value is value(fn, "ct")
    assert u.divergence(syncs[2], B) is not None and u.divergence(syncs[2], W) is None
    assert u.divergence(syncs[4], W).kind == "in_bounds"  # type: ignore[union-attr]


def test_rule_extends_the_analysis_to_unknown_ops():
    fn = kernel(
        """simt.kernel @k(%x: !simt.slice<f32>) contract<domain = 1, block = [64]> {
  %c0 = arith.constant 0 : index
  %v = simt.load %x[%c0] : !simt.slice<f32>
  simt.return
}"""
    )
    v = value(fn, "v")
    assert uniformity(fn)[v] == T

    def rule(op: Operation, _: Uniformity) -> list[Level] | None:
        return [Level.BLOCK] if isinstance(op, simt.LoadOp) else None

    assert uniformity(fn, rule=rule)[v] == B


def test_a_fixpoint_that_does_not_end_is_an_internal_error(monkeypatch: pytest.MonkeyPatch):
    fn = kernel("simt.kernel @spin(%n: index) {\n  simt.return\n}")

    def always_changed(self: Uniformity, block, level) -> None:
        self.controls[block] = level
        self._changed = True

    monkeypatch.setattr(Uniformity, "_set_control", always_changed)
    with pytest.raises(
        UniformityInternalError, match="internal error: the uniformity analysis of "
    ):
        uniformity(fn)


def test_region_graph_post_dominators_and_control_dependence():
    fn = kernel(
        """simt.kernel @g(%p: i1, %q: i1) {
  cf.cond_br %p, ^a, ^b
^a:
  cf.br ^c
^b:
  cf.cond_br %q, ^b, ^c
^c:
  simt.return
}"""
    )
    graph = RegionGraph.of(fn.body)
    pdom = graph.post_dominators()
    assert pdom[0] == {0, 3} and pdom[1] == {1, 3} and pdom[2] == {2, 3}
    deps = graph.control_dependences()
    assert deps == [set(), {0}, {0, 2}, set()]
    assert graph.on_cycle_avoiding(2, None) and not graph.on_cycle_avoiding(1, None)


def test_order_on_unstructured_control_flow():
    fn = kernel(
        """simt.kernel @o(%p: i1, %q: i1) {
  %c0 = arith.constant 0 : index
  cf.cond_br %p, ^a, ^b
^a:
  %in_a = arith.addi %c0, %c0 : index
  cf.br ^c
^b:
  %in_b = arith.addi %c0, %c0 : index
  cf.br ^c
^c:
  %in_c = arith.addi %c0, %c0 : index
  cf.cond_br %q, ^d, ^e
^d:
  %in_d = arith.addi %c0, %c0 : index
  cf.br ^c
^e:
  simt.return
}"""
    )

    def at(name: str) -> Operation:
        owner = value(fn, name).owner
        assert isinstance(owner, Operation)
        return owner

    assert order(at("in_a"), at("in_b")) == "exclusive"
    assert order(at("in_a"), at("in_c")) == "before"
    assert order(at("in_c"), at("in_a")) == "after"
    assert order(at("in_c"), at("in_d")) == "unknown"  # a cycle: either order, repeatedly
    assert loop_between(at("in_d"), value(fn, "c0")) is fn
    assert loop_between(at("in_a"), value(fn, "c0")) is None
    other = kernel("simt.kernel @z() {\n  %c = arith.constant 0 : index\n  simt.return\n}")
    assert order(at("in_a"), value(other, "c").owner) == "unknown"  # type: ignore[arg-type]


def test_order_cuts_paths_through_the_block_that_makes_the_value_anew():
    fn = kernel(
        """simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>, %p: i1, %q: i1, %v: f32) {
  cf.br ^head
^head:
  %w = simt.thread_index_1d
  cf.cond_br %p, ^a, ^b
^a:
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  cf.cond_br %q, ^head, ^exit
^b:
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %v : f32
  }
  cf.br ^a
^exit:
  simt.return
}"""
    )
    move_a, move_b = op_named(fn, "simt.get_mut", 0), op_named(fn, "simt.get_mut", 1)
    make = op_named(fn, "simt.thread_index_1d")
    assert order(move_a, move_b) == "unknown"
    assert order(move_b, move_a, make) == "before"  # ^b falls into ^a: a real second move
    assert order(move_a, move_b, make) == "after"
    assert order(make, move_a, make) == "before"


REDUCE_IN_IF = """tile.kernel @reduce_in_if(%out: !tile.partition<f32, [4]>,
    %x: !tile.tensor<f32, [?, ?]>, %flag: i32) {
  %z = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %t = tile.load %x[%z, %z] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [4, 64]>
  %c = arith.cmpi ne, %flag, %zero : i32
  %r = scf.if %c -> (!tile.tile<f32, [4]>) {
    %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [4, 64]> -> !tile.tile<f32, [4]>
    scf.yield %s : !tile.tile<f32, [4]>
  } else {
    %s = tile.reduce_max %t axis = 1 : !tile.tile<f32, [4, 64]> -> !tile.tile<f32, [4]>
    scf.yield %s : !tile.tile<f32, [4]>
  }
  tile.store %r, %out : !tile.tile<f32, [4]>, !tile.partition<f32, [4]>
  tile.return
}
"""


def test_tile_reduction_under_a_kernel_scalar_condition_verifies(tmp_path: Path):
    """The lowered shuffles and barriers sit under an scf.if on a kernel scalar: uniform across
    the grid, so verify-disjoint accepts the lowered kernel (it refused it before)."""
    src = tmp_path / "reduce_in_if.mlir"
    src.write_text(REDUCE_IN_IF)
    run = in_process.ferrox_opt(src, "-p", "convert-tile-to-simt")  # its main, in this process
    assert run.returncode == 0, run.stderr
    lowered = kernel(run.stdout)
    assert isinstance(lowered, simt.KernelOp)
    shuffles = [op for op in lowered.walk() if isinstance(op, simt.ShuffleOp)]
    assert shuffles and all(isinstance(op.parent_op(), Operation) for op in shuffles)
    assert any(region_uniformity(op) == G for op in shuffles)
    assert collect(lowered) == []
