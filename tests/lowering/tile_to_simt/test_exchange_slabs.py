"""Layout changes through shared memory a slab of rows at a time
(lowering/tile_to_simt/exchange_slabs.py, the knob `SLABS`, 1 by default): which layout pairs it
takes, the staging it saves in the fused attention kernel (d 64 at 64 x 64: four blocks an SM),
the barriers it adds, and results on the CPU interpreter (which checks every shared index and
race) against NumPy with poisoned outputs: the attention kernel at 2 and 4 slabs, and a kernel
whose exchanges are a transpose and a permute."""

# The fixtures `example` and `run` come from other test modules; ruff takes their uses for
# redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import pytest

from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt import exchange_slabs
from ferrox.lowering.tile_to_simt.layout import Layout, chunked
from ferrox.lowering.tile_to_simt.matrix import row_tensor_core_layout
from ferrox.passes.verify_disjoint import collect

from .test_attention_fused import count, example  # noqa: F401
from .test_attention_short import blocks_by_shared
from .test_attention_tma import lowered, matches_numpy
from .test_ops import run, test_shapes_in_three_dims  # noqa: F401


@pytest.fixture
def slabs(monkeypatch):
    def set_to(n: int) -> None:
        monkeypatch.setattr(exchange_slabs, "SLABS", n)

    return set_to


def test_off_by_default():
    assert exchange_slabs.SLABS == 1
    rows = row_tensor_core_layout(64, 64, 128)
    assert rows is not None and not exchange_slabs.applies(rows, chunked((64, 64), 128, 4))


def test_which_targets(slabs):
    """The target must set the slab bits with register bits: the store's chunked layout of
    64 x 64 over 128 threads does (its top 3 bits are chunk bits), of 8 x 64 it does not."""
    slabs(2)
    rows = row_tensor_core_layout(64, 64, 128)
    assert isinstance(rows, Layout)
    assert exchange_slabs.applies(rows, chunked((64, 64), 128, 4))
    assert not exchange_slabs.applies(rows, chunked((8, 64), 128, 4))
    slabs(16)
    assert not exchange_slabs.applies(rows, chunked((64, 64), 128, 4))  # only 3 chunk bits


@pytest.mark.parametrize(
    "dim, bn, n, size, blocks", [(64, 64, 2, 49344, 4), (128, 32, 2, 65728, 3)]
)
def test_the_staging_shrinks(example, slabs, dim, bn, n, size, blocks):
    _, plain = lowered(example.attention, D=dim, CAUSAL=True, BM=64, BN=bn)
    slabs(n)
    _, kernel = lowered(example.attention, D=dim, CAUSAL=True, BM=64, BN=bn)
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
    example, interpreter, slabs, heads, seq, dim, causal, bm, bn, n
):
    slabs(n)
    module, op = lowered(example.attention, D=dim, CAUSAL=causal, BM=bm, BN=bn)
    assert count(op, simt.SyncThreadsOp) >= 2 * n
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)


@pytest.mark.parametrize("threads", [32, 64])
def test_a_transpose_and_a_permute_in_slabs(run, slabs, threads):
    slabs(2)
    test_shapes_in_three_dims(run, threads)
