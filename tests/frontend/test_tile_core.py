"""The tile surface piece by piece: what each Python construct builds, where it is located, the
frontend's own refusals (at the Python line), Constexpr specialisation, the JIT's forms (ir, ptx,
dumps) and what a host program reads from a tile kernel."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ferrox import tile
from ferrox.dialects import tile as tile_dialect
from ferrox.tile import Constexpr, FrontendError, Partition, Tensor, f32, i32

HERE = Path(__file__)

# Tile shapes below name the kernels' Constexpr parameters, which linters cannot see.
# ruff: noqa: F821
LINES = {
    m.group(1): number
    for number, line in enumerate(HERE.read_text(encoding="utf-8").splitlines(), 1)
    if (m := re.search(r"# <- (\w+)", line))
}


def at(marker: str, col: int) -> str:
    return f"{HERE}:{LINES[marker]}:{col}"


def refused(kernel, **constants) -> list[str]:
    with pytest.raises(FrontendError) as error:
        kernel.module(**constants)
    return [d.format() for d in error.value.diagnostics]


# -- what constructs build --------------------------------------------------------------------


@tile.kernel
def ops(out: Partition[f32, (4, 8)], x: Tensor[f32, (None, None)], s: f32):
    t = tile.load_like(x, out, padding=float("-inf"))  # <- load_like
    u = t * s + 1.0  # <- splat
    v = tile.maximum(u, -t)
    w = tile.where(v > 0.0, tile.exp(v), tile.zeros((4, 8)))
    r = tile.sum(w, -1, keepdims=True)  # <- reduce
    b = tile.broadcast(r.astype(f32), w.shape)
    tile.store(b + tile.reshape(tile.permute(w.T, (1, 0)), (4, 8)), out)


def test_each_construct_is_one_tile_op_located_at_its_python_line():
    ir = ops.ir()
    assert (
        f"%t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, "
        f'!tile.partition<f32, [4, 8]> -> !tile.tile<f32, [4, 8]> loc("{HERE}":'
        f"{LINES['load_like']}:9)" in ir
    )
    splat = f'loc("{HERE}":{LINES["splat"]}:9)'
    assert f"tile.full %s : f32 -> !tile.tile<f32, [4, 8]> {splat}" in ir  # an IR scalar
    assert f"tile.constant dense<1.000000e+00> : !tile.tile<f32, [4, 8]> {splat}" in ir
    assert "tile.neg" in ir and "tile.maximum" in ir and "tile.cmp gt" in ir
    assert "tile.select" in ir and "tile.exp" in ir and "tile.transpose" in ir
    assert "tile.permute %" in ir and "[1, 0]" in ir and "tile.reshape" in ir
    assert (
        "tile.reduce_sum %w axis = 1 keepdims : !tile.tile<f32, [4, 8]> -> !tile.tile<f32, [4, 1]>"
        in ir
    )
    assert "tile.astype" not in ir  # f32 to f32 is no conversion


@tile.kernel
def matmuls(c: Partition[f32, (16, 16)], a: Tensor[f32, (None, None)], K: Constexpr = 2):
    acc = tile.zeros((16, 16))
    first = tile.load(a, (0, 0), (16, 16)) @ tile.load(a, (0, 1), (16, 16))  # <- product
    for k in range(K):  # <- loop
        x = tile.load(a, (tile.block_id(0), k), (16, 16))
        acc += x @ x.T
    tile.store(acc + first, c)


def test_at_is_mma_and_the_accumulator_is_carried_through_the_loop():
    ir = matmuls.ir()
    mmas = [line for line in ir.splitlines() if "tile.mma" in line]
    assert len(mmas) == 2  # `acc += x @ x.T` is one mma on acc, not an mma and an add
    assert f'loc("{HERE}":{LINES["product"]}:13)' in mmas[0]
    loop = re.search(
        r"%acc_\d+ = scf.for %k = %\w+ to %\w+ step %\w+ iter_args\(%acc_\d+ = %acc\) -> "
        r"\(!tile.tile<f32, \[16, 16\]>\) \{",
        ir,
    )
    assert loop is not None, ir
    assert ir.count("tile.add") == 1


def test_constexpr_values_specialise_the_kernel():
    assert "arith.constant 2 : index" in matmuls.ir()
    assert "arith.constant 5 : index" in matmuls.ir(K=5)
    with pytest.raises(TypeError, match="KK: not Constexpr parameters of matmuls"):
        matmuls.ir(KK=1)


@tile.kernel
def shaped(out: Partition[f32, (R, C)], x: Tensor[f32, (None, C)], R: Constexpr, C: Constexpr):
    tile.store(tile.load_like(x, out), out)


def test_annotations_take_their_shapes_from_constexpr_parameters():
    sig = shaped.signature(R=2, C=64)
    assert [(p.name, p.kind, str(p.type)) for p in sig] == [
        ("out", "partition", "!tile.partition<f32, [2, 64]>"),
        ("x", "tensor", "!tile.tensor<f32, [?, 64]>"),
    ]
    with pytest.raises(TypeError, match="Constexpr R, C of shaped needs a value"):
        shaped.ir()


# -- the frontend's own refusals --------------------------------------------------------------


@tile.kernel
def tile_condition(out: Partition[f32, 16], x: Tensor[f32, None]):
    t = tile.load_like(x, out)
    if t > 0.0:  # <- tile_if
        t = -t
    tile.store(t, out)


@tile.kernel
def scalar_of_another_type(out: Partition[f32, 16], n: i32):
    tile.store(tile.zeros(16) + n, out)  # <- other_type


@tile.kernel
def indexes_a_tile(out: Partition[f32, 16], x: Tensor[f32, None]):
    tile.store(tile.load_like(x, out)[0], out)  # <- subscript


@tile.kernel
def bad_padding(out: Partition[f32, 16], x: Tensor[f32, None]):
    tile.store(tile.load_like(x, out, padding="one"), out)  # <- padding


@tile.kernel
def returns(out: Partition[f32, 16]):
    return out  # <- return


@tile.kernel
def bad_annotation(out: Partition[f32, 16], x: list):  # <- annotation
    tile.store(tile.zeros(16), out)


@tile.kernel
def unknown_reduction_axis(out: Partition[f32, 16], x: Tensor[f32, (None, None)]):
    tile.store(tile.sum(tile.load(x, (0, 0), (16, 16)), 2), out)  # <- axis


FRONTEND = {
    "tile_condition": [
        f"{at('tile_if', 8)}: error: an `if` condition must be one bool, found the tile "
        "!tile.tile<i1, [16]> (a tile condition chooses per element: where(cond, a, b))"
    ],
    "scalar_of_another_type": [
        f"{at('other_type', 16)}: error: a i32 scalar cannot fill a tile of f32 (convert it: "
        "f32(x))"
    ],
    "indexes_a_tile": [
        f"{at('subscript', 16)}: error: a tile kernel does not index elements: load tiles with "
        "load(x, index, shape) or load_like(x, out)"
    ],
    "bad_padding": [
        f"{at('padding', 16)}: error: padding must be one of 'zero', 'neg_inf', 'pos_inf', 'nan' "
        "(or 0, -inf, inf, nan), found 'one'"
    ],
    "returns": [
        f"{at('return', 5)}: error: a tile kernel returns nothing: it writes its output "
        "partitions with store()"
    ],
    "bad_annotation": [
        f"{at('annotation', 48)}: error: a tile kernel parameter is a Partition[dtype, shape], a "
        "Tensor[dtype, shape], a scalar type (f32, i32, index, ...) or Constexpr; found "
        "<class 'list'>"
    ],
    "unknown_reduction_axis": [
        f"{at('axis', 16)}: error: reduce axis 2 is out of range for rank 2"
    ],
}


@pytest.mark.parametrize("name", sorted(FRONTEND))
def test_the_frontend_refuses_at_the_python_line(name):
    assert refused(globals()[name]) == FRONTEND[name]


def test_a_tile_kernel_called_with_a_grid_says_how_to_call_it():
    with pytest.raises(TypeError, match=r"its grid is its output partition's tile grid"):
        ops[4, 256]


def test_tile_functions_outside_a_kernel_say_so():
    with pytest.raises(TypeError, match=r"load\(\.\.\.\) can only be used inside a ferrox tile"):
        tile.load(None, 0, 16)


# -- the JIT's forms and what host programs read ----------------------------------------------


def test_ptx_and_artifact_are_the_lowered_kernel():
    artifact = shaped.artifact(R=2, C=64)
    kernel = artifact.kernels["shaped"]
    assert kernel.tile is not None and kernel.tile.grid_tile == (2, 64)
    assert ".entry shaped" in shaped.ptx(R=2, C=64)
    assert shaped.artifact(R=2, C=64) is artifact  # memoised per specialisation


def test_kernel_op_is_a_fresh_detached_tile_kernel_for_a_host_module():
    op = shaped.kernel_op(R=4, C=128)
    assert isinstance(op, tile_dialect.KernelOp) and op.parent is None
    assert op.sym_name.data == "shaped"
    assert [str(a.type) for a in op.args][0] == "!tile.partition<f32, [4, 128]>"
    assert shaped.kernel_op(R=4, C=128) is not op


def test_dump_writes_each_stage(tmp_path, monkeypatch):
    @tile.kernel
    def dumped(out: Partition[f32, 64], x: Tensor[f32, None], scale: f32):
        tile.store(tile.load_like(x, out) * scale, out)

    monkeypatch.setenv("FERROX_DUMP", "ir,ptx")
    monkeypatch.setenv("FERROX_DUMP_DIR", str(tmp_path))
    x = np.random.default_rng().uniform(-1, 1, 100).astype(np.float32)
    out = np.full(100, np.nan, np.float32)
    dumped.on("cpu")(out, x, 3.0)
    assert np.array_equal(out, x * np.float32(3.0))
    assert "tile.kernel @dumped" in (tmp_path / "dumped.ir.txt").read_text()
    assert ".entry dumped" in (tmp_path / "dumped.ptx.txt").read_text()


SCALE = 2.0


@tile.kernel
def scaled(out: Partition[f32, 64], x: Tensor[f32, None]):
    tile.store(tile.load_like(x, out) * SCALE, out)


def test_a_global_constant_is_part_of_the_key(monkeypatch):
    """A repeated call is a dictionary look-up, but the constants a kernel reads from its
    globals are read again: changing one compiles the kernel again."""
    x = np.random.default_rng().uniform(-1, 1, 100).astype(np.float32)
    out = np.full(100, np.nan, np.float32)
    scaled.on("cpu")(out, x)
    assert np.array_equal(out, x * np.float32(2.0))
    monkeypatch.setitem(globals(), "SCALE", 3.0)
    scaled.on("cpu")(out, x)
    assert np.array_equal(out, x * np.float32(3.0))


@tile.kernel
def branches(out: Partition[f32, 256], x: Tensor[f32, None], flip: tile.index):
    t = tile.load_like(x, out)
    if flip > 0:  # a run-time scalar: scf.if yielding the tile
        t = -t
    for s in tile.static_range(3):  # unrolled: three tile.add
        t = t + float(s)
    tile.store(t, out)


def test_an_if_on_a_scalar_carries_tiles_and_static_range_unrolls():
    ir = branches.ir()
    assert "scf.if" in ir and "-> (!tile.tile<f32, [256]>)" in ir
    assert ir.count("tile.add") == 3
    x = np.random.default_rng().uniform(-1, 1, 1000).astype(np.float32)
    out = np.full(1000, np.nan, np.float32)
    branches.on("cpu")(out, x, 1)
    assert np.array_equal(out, ((-x + np.float32(0)) + np.float32(1)) + np.float32(2))
    branches.on("cpu")(out, x, 0)
    assert np.array_equal(out, ((x + np.float32(0)) + np.float32(1)) + np.float32(2))


def test_check_shows_the_launch_the_checker_makes_running_nothing():
    c = np.full((70, 65), np.nan, np.float32)
    launch = matmuls.on("cpu").check(c[:16, :16].copy(), np.ones((16, 32), np.float32), K=1)
    # one thread per 4-element chunk of the largest tile: 16 x 16 / 4
    assert (launch.grid, launch.block) == ((1, 1, 1), (64, 1, 1))
    launch = shaped.on("cpu").check(c, np.ones((70, 64), np.float32), R=32, C=64)
    assert launch.grid == (3, 2, 1)  # ceil(70 / 32), ceil(65 / 64)
    assert np.isnan(c).all()
