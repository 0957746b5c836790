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

import ferrox

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
    tiles), so that blockIdx.x walks one head's query blocks."""
    ex = example()
    for seq_major, shape, grid in (
        (False, (5, 300, 64), (5, 3, 1)),
        (True, (300, 5, 64), (3, 5, 1)),
    ):
        kernel = ex.attention.artifact("sm_80", D=64, BM=128, SEQ_MAJOR=seq_major)["attention"]
        assert kernel.tile is not None
        tiles = kernel.tile.grid_tile
        assert tuple(-(-s // t) for s, t in zip(shape, tiles)) == grid


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
