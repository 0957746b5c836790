"""The fused attention example (issue 13 item 5) on the CPU interpreter, which runs the lowered
kernel the GPU runs: full and causal, head dims 64 and 128, a ragged last block of keys and
queries, checked against NumPy with a poisoned output (examples/python/tile_attention.py).

The causal case with two heads runs seq 70 (was 130): with 64-row blocks it still has every
boundary the longer one had: a second head (the head index), a query block whose diagonal key
block is whole (rows 0-63) and one whose diagonal block is also the ragged last block (rows
64-69), a key block wholly below the diagonal (block 0 for rows 64-69: unmasked, and the
running maximum and sum rescaled across two key blocks), and a key block past the diagonal that
the loop skips (block 1 for rows 0-63), at under half the interpreter's work."""

from __future__ import annotations

import importlib.util
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest
from compiled import assembled

import ferrox
from ferrox.targets.toolchain import find_ptxas

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "python" / "tile_attention.py"


def example():
    spec = importlib.util.spec_from_file_location("tile_attention", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "heads, seq, dim, causal",
    [(1, 100, 64, False), (2, 70, 64, True), (1, 40, 128, True)],
)
def test_attention_matches_numpy_on_the_cpu(heads, seq, dim, causal, capsys):
    assert example().main("cpu", heads, seq, dim, causal) == 0
    kind = "causal" if causal else "full"
    assert capsys.readouterr().out == (
        f"tile attention ({kind}) {heads}x{seq}x{dim} on cpu: matches NumPy\n"
    )


@pytest.mark.parametrize("dim, causal", [(64, True), (128, False)])
def test_seq_major_output_matches_numpy(dim, causal, capsys):
    """`SEQ_MAJOR`: the output as [seq, heads, dim], the grid's first axis over query blocks
    (two heads, a ragged last block of 6 rows, poisoned output)."""
    assert example().main("cpu", 2, 70, dim, causal, 128, seq_major=True) == 0
    kind = "causal" if causal else "full"
    expected = f"tile attention ({kind}, seq-major) 2x70x{dim} on cpu: matches NumPy\n"
    assert capsys.readouterr().out == expected


def test_seq_major_orders_the_grid_by_query_block():
    """The two layouts' tile grids for 5 heads of 300 queries in 128-row blocks: heads first
    ([heads, seq, D] in [1, BM, D] tiles), or query blocks first ([seq, heads, D] in [BM, 1, D]
    tiles); either way the grid order puts one head's query blocks on blockIdx.x (the CUDA
    grid is (3, 5, 1)), and `HEADS_FIRST` puts the heads there (5, 3, 1)."""
    ex = example()
    for seq_major, shape, tiles in (
        (False, (5, 300, 64), (5, 3, 1)),
        (True, (300, 5, 64), (3, 5, 1)),
    ):
        for heads_first, launched in ((False, (3, 5, 1)), (True, (5, 3, 1))):
            constants = dict(D=64, BM=128, SEQ_MAJOR=seq_major, HEADS_FIRST=heads_first)
            kernel = ex.attention.artifact("sm_80", **constants)["attention"]
            assert kernel.tile is not None
            grid = tuple(-(-s // t) for s, t in zip(shape, kernel.tile.grid_tile))
            assert grid == tiles
            assert kernel.tile.launch_grid(grid) == launched


def test_the_default_grid_order_walks_a_heads_query_blocks_on_x():
    """[heads, seq, D] stays the default layout; the kernel's grid order is [1, 0, 2] (tile-grid
    axis 1, the query blocks, on blockIdx.x), in the artifact, its witnesses' space and the
    launch the checker makes (2 heads of 300 queries: 3 query blocks on x, 2 heads on y)."""
    ex = example()
    kernel = ex.attention.artifact("sm_80")["attention"]
    assert kernel.tile is not None and kernel.tile.grid_order == (1, 0, 2)
    assert {w.space.order for w in kernel.writes} == {(1, 0, 2)}
    old = ex.attention.artifact("sm_80", HEADS_FIRST=True)["attention"]
    assert old.tile is not None and old.tile.grid_order == ()
    q = ferrox.to_bf16(np.zeros((2, 300, 64)))
    out = np.full((2, 300, 64), np.nan, np.float32)
    assert ex.attention.on("cpu").check(out, q, q, q).grid == (3, 2, 1)
    assert ex.attention.on("cpu").check(out, q, q, q, HEADS_FIRST=True).grid == (2, 3, 1)


@pytest.mark.parametrize("dim, causal, seq_major", [(64, True, False), (128, False, True)])
def test_the_old_heads_first_order_matches_numpy(dim, causal, seq_major, capsys):
    """`HEADS_FIRST` (the order before the grid order, kept for the benchmark's A/B): two heads,
    a ragged last block of 6 rows, poisoned output."""
    assert example().main("cpu", 2, 70, dim, causal, 128, seq_major, heads_first=True) == 0
    kind = "causal" if causal else "full"
    layout = ", seq-major" if seq_major else ""
    expected = f"tile attention ({kind}{layout}, heads first) 2x70x{dim} on cpu: matches NumPy\n"
    assert capsys.readouterr().out == expected


def test_causal_walks_its_query_blocks_heaviest_first():
    """When causal, `CAUSAL_HEAVY_FIRST` (the default) reverses the query-block axis: the block
    on blockIdx.x = 0 takes the last query block (the most keys); the launch grid is the same.
    Off, or not causal, nothing is reversed. In either layout and either order. (The
    interpreter's artifacts: the tile grid is the same with PTX, which the GPU tests launch.)"""
    ex = example()

    def kernel(**constants):
        text = str(ex.attention.module(**constants))
        return ferrox.compile(text, chip="sm_80", ptx=False, cache=False)["attention"]

    for seq_major, heads_first, reverse in (
        (False, False, (1,)),
        (True, False, (0,)),
        (False, True, (1,)),
        (True, True, (0,)),
    ):
        constants = dict(SEQ_MAJOR=seq_major, HEADS_FIRST=heads_first)
        heavy = kernel(CAUSAL=True, **constants)
        assert heavy.tile is not None and heavy.tile.grid_reverse == reverse
        assert {w.space.reverse for w in heavy.writes} == {reverse}
        plain = kernel(CAUSAL=True, CAUSAL_HEAVY_FIRST=False, **constants)
        assert plain.tile is not None and plain.tile.grid_order == heavy.tile.grid_order
        assert plain.tile.grid_reverse == ()
    full = kernel(CAUSAL=False)
    assert full.tile is not None and full.tile.grid_reverse == ()
    q = ferrox.to_bf16(np.zeros((2, 300, 64)))
    out = np.full((2, 300, 64), np.nan, np.float32)
    assert ex.attention.on("cpu").check(out, q, q, q, CAUSAL=True).grid == (3, 2, 1)


@pytest.mark.parametrize("heavy_first", [True, False])
def test_causal_in_either_walk_matches_numpy(heavy_first, capsys):
    """Heaviest first (the default) and `CAUSAL_HEAVY_FIRST=False` (the walk before, kept for
    the benchmark's A/B), with two query blocks so the walk shows: 130 queries in 128-row
    blocks, the second (block 0's when reversed) ragged at 2 rows and the heavier (3 key blocks
    of 64, the last ragged and masked, against 2); poisoned output."""
    assert example().main("cpu", 1, 130, 64, True, 128, heavy_first=heavy_first) == 0
    walk = "" if heavy_first else ", light first"
    expected = f"tile attention (causal{walk}) 1x130x64 on cpu: matches NumPy\n"
    assert capsys.readouterr().out == expected


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas")
@pytest.mark.parametrize("dim", [64, 128])
def test_the_ordered_kernel_assembles_for_sm90(dim):
    """ptxas takes the causal attention PTX with its grid order (ctaid.y for the head, ctaid.x
    for the query block) and the query blocks walked heaviest first, on the default sm_90 path,
    without spills."""
    text = str(example().attention.module(D=dim, CAUSAL=True))
    art = ferrox.compile(text, chip="sm_90")
    assert art["attention"].tile is not None and art["attention"].tile.grid_order == (1, 0, 2)
    assert art["attention"].tile.grid_reverse == (1,)
    assert "%ctaid.y" in art.ptx and "%ctaid.x" in art.ptx
    info = assembled(art.ptx, art.chip).resources["attention"]  # the compile's ptxas run
    assert info.spill_stores == 0 and info.spill_loads == 0


def test_the_check_catches_a_wrong_mask():
    """The tolerance is tight enough to see the causal mask: full attention is not causal's."""
    ex = example()
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((1, 70, 64))) for _ in range(3))
    out = np.full((1, 70, 64), np.nan, np.float32)
    ex.attention.on("cpu")(out, q, k, v, CAUSAL=False)
    x, y, z = q.float32(), k.float32(), v.float32()
    assert np.allclose(out, ex.reference(x, y, z, False), rtol=1e-2, atol=1e-2)
    assert not np.allclose(out, ex.reference(x, y, z, True), rtol=1e-2, atol=1e-2)


def test_the_command_line(monkeypatch, capsys):
    """The script as `python tile_attention.py ...` runs it (`__main__`, its argument parser),
    in this process: a new Python would spend most of the test importing ferrox again."""
    argv = [str(EXAMPLE), "--device", "cpu", "--heads", "1", "--seq", "33"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(EXAMPLE), run_name="__main__")
    assert done.value.code == 0
    assert capsys.readouterr().out == "tile attention (full) 1x33x64 on cpu: matches NumPy\n"


def test_the_command_line_with_a_bf16_output(monkeypatch, capsys):
    """`--bf16-out` (`OUT_BF16`): the output in bf16, ragged and causal."""
    argv = [str(EXAMPLE), "--device", "cpu", "--heads", "1", "--seq", "33", "--causal"]
    monkeypatch.setattr(sys, "argv", [*argv, "--bf16-out"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(EXAMPLE), run_name="__main__")
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out == "tile attention (causal, bf16 out) 1x33x64 on cpu: matches NumPy\n"
