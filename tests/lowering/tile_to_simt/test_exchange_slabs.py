"""Layout changes through shared memory a slab of rows at a time
(lowering/tile_to_simt/exchange_slabs.py): the fused attention's output staging at
`attention_wgmma.OUTPUT_SLABS` (2 by default since the fourteenth session), every other exchange
at the knob `SLABS` (1 by default). Which layout pairs it takes, the staging it saves in the
fused attention kernel (d 64 at 64 x 64: four blocks an SM), the barriers it adds, that the two
counts stay apart and are in the compile cache's key, and results on the CPU interpreter (which
checks every shared index and race) against NumPy with poisoned outputs: the attention kernel
at 1, 2 and 4 slabs, and a kernel whose exchanges are a transpose and a permute."""

# The fixtures `example` and `run` come from other test modules; ruff takes their uses for
# redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import pytest

from ferrox.dialects import simt
from ferrox.lowering import knobs
from ferrox.lowering.tile_to_simt import attention_wgmma, exchange_slabs
from ferrox.lowering.tile_to_simt.layout import Layout, chunked
from ferrox.lowering.tile_to_simt.matrix import row_tensor_core_layout
from ferrox.passes.verify_disjoint import collect

from .test_attention_fused import count, example  # noqa: F401
from .test_attention_short import blocks_by_shared
from .test_attention_tma import lowered, matches_numpy
from .test_ops import run, test_shapes_in_three_dims  # noqa: F401


@pytest.fixture
def slabs(monkeypatch):
    """Sets `SLABS`, every exchange's count but the fused attention's output staging."""

    def set_to(n: int) -> None:
        monkeypatch.setattr(exchange_slabs, "SLABS", n)

    return set_to


@pytest.fixture
def output_slabs(monkeypatch):
    """Sets `attention_wgmma.OUTPUT_SLABS`, the fused attention's output staging's count."""

    def set_to(n: int) -> None:
        monkeypatch.setattr(attention_wgmma, "OUTPUT_SLABS", n)

    return set_to


def test_the_defaults():
    """Two slabs for the attention's output staging, none elsewhere."""
    assert exchange_slabs.SLABS == 1 and attention_wgmma.OUTPUT_SLABS == 2
    rows = row_tensor_core_layout(64, 64, 128)
    assert rows is not None and not exchange_slabs.applies(rows, chunked((64, 64), 128, 4), 1)


def test_which_targets():
    """The target must set the slab bits with register bits: the store's chunked layout of
    64 x 64 over 128 threads does (its top 3 bits are chunk bits), of 8 x 64 it does not."""
    rows = row_tensor_core_layout(64, 64, 128)
    assert isinstance(rows, Layout)
    assert exchange_slabs.applies(rows, chunked((64, 64), 128, 4), 2)
    assert not exchange_slabs.applies(rows, chunked((8, 64), 128, 4), 2)
    assert not exchange_slabs.applies(rows, chunked((64, 64), 128, 4), 16)  # 3 chunk bits


@pytest.mark.parametrize(
    "dim, bn, n, size, blocks", [(64, 64, 2, 49360, 4), (128, 32, 2, 65744, 3)]
)
def test_the_staging_shrinks(example, output_slabs, dim, bn, n, size, blocks):
    """By default (`n` = 2) against the staging at once (1); 16 bytes of each are q's
    barrier."""
    assert attention_wgmma.OUTPUT_SLABS == n
    _, kernel = lowered(example.attention, D=dim, CAUSAL=True, BM=64, BN=bn)
    output_slabs(1)
    _, plain = lowered(example.attention, D=dim, CAUSAL=True, BM=64, BN=bn)
    assert kernel.contract is not None and kernel.contract.shared_bytes.data == size
    assert blocks_by_shared(kernel) == blocks > blocks_by_shared(plain)
    syncs = count(kernel, simt.SyncThreadsOp)
    assert syncs == count(plain, simt.SyncThreadsOp) + 2 * (n - 1)
    assert collect(kernel) == []


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bm, bn, n",
    [
        (1, 200, 64, True, 64, 64, 2),
        (2, 130, 128, False, 64, 32, 4),
        (1, 190, 64, False, 128, 64, 2),  # two warpgroups: a warp bit picks the slab's writers
    ],
)
def test_attention_matches_numpy_on_the_interpreter(
    example, interpreter, output_slabs, heads, seq, dim, causal, bm, bn, n
):
    output_slabs(n)
    module, op = lowered(example.attention, D=dim, CAUSAL=causal, BM=bm, BN=bn)
    assert count(op, simt.SyncThreadsOp) >= 2 * n
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bm, bn",
    [(1, 200, 64, True, 64, 64), (2, 130, 128, False, 128, 128)],
)
def test_attention_staged_whole_matches_numpy_on_the_interpreter(
    example, interpreter, output_slabs, heads, seq, dim, causal, bm, bn
):
    """`OUTPUT_SLABS = 1` (`oslabs=1`, the staging before the fourteenth session) still right."""
    _, default = lowered(example.attention, D=dim, CAUSAL=causal, BM=bm, BN=bn)
    output_slabs(1)
    module, op = lowered(example.attention, D=dim, CAUSAL=causal, BM=bm, BN=bn)
    syncs = count(op, simt.SyncThreadsOp)
    assert syncs == count(default, simt.SyncThreadsOp) - 2
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)


def test_the_counts_stay_apart(example, slabs, output_slabs):
    """`SLABS` leaves the attention's output staging to `OUTPUT_SLABS`, and either, moved, is in
    the compile cache's key (`knobs.changed`)."""
    tiles = dict(D=64, CAUSAL=True, BM=64, BN=64)
    before = dict(knobs.changed())  # () unless a test before this one left a knob moved
    _, default = lowered(example.attention, **tiles)
    slabs(4)
    assert dict(knobs.changed()) == {**before, f"{exchange_slabs.__name__}.SLABS": 4}
    _, global_four = lowered(example.attention, **tiles)
    assert str(global_four) == str(default)
    slabs(1)
    output_slabs(4)
    assert dict(knobs.changed()) == {**before, f"{attention_wgmma.__name__}.OUTPUT_SLABS": 4}
    _, four = lowered(example.attention, **tiles)
    assert count(four, simt.SyncThreadsOp) == count(default, simt.SyncThreadsOp) + 4


@pytest.mark.parametrize("threads", [32, 64])
def test_a_transpose_and_a_permute_in_slabs(run, slabs, threads):
    slabs(2)
    test_shapes_in_three_dims(run, threads)
