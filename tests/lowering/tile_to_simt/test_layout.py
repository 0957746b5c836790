"""The bit layouts: the chunked layout is exactly what `simt.tile_index` names, reductions,
broadcasts, permutes and the mma layout map the bits they say, and the lowering's choices of
threads and chunk width."""

from __future__ import annotations

import itertools

import pytest
from xdsl.dialects.builtin import BFloat16Type, Float32Type, IntegerType

from ferrox.lowering.tile_to_simt.config import Config, choose_threads
from ferrox.lowering.tile_to_simt.layout import Layout, chunked, replicated, same_elements
from ferrox.lowering.tile_to_simt.matrix import mma_layout, tensor_core_layout
from ferrox.lowering.tile_to_simt.reduction import reduced_layout
from ferrox.lowering.tile_to_simt.shape import broadcast_source, permuted


def element(layout: Layout, t: int, r: int) -> int:
    e = layout.static_element(r)
    for q, b in enumerate(layout.lanes):
        if b is not None and t >> q & 1:
            e |= 1 << b
    return e


@pytest.mark.parametrize(
    "shape, threads, w",
    [
        ((1024,), 256, 4),
        ((4, 1024), 256, 4),
        ((16,), 256, 4),
        ((16, 128), 128, 2),
        ((2, 4, 16), 32, 8),
        ((8,), 32, 16),
    ],
)
def test_chunked_is_the_witness_mapping(shape, threads, w):
    layout = chunked(shape, threads, w)
    n = layout.num_elements
    w = min(w, shape[-1])
    for t in range(threads):
        for r in range(layout.num_regs):
            j, k = r % w, r // w
            flat = (k * threads + t) * w + j
            if flat < n:  # threads past the tile hold replicas and their witnesses write nothing
                assert element(layout, t, r) == flat
    assert layout.chunk_width() == w


def test_every_element_has_an_owner_exactly_once_up_to_replication():
    for layout in (chunked((4, 1024), 256, 4), mma_layout(64, 64, 256), mma_layout(32, 16, 128)):
        owners = {}
        for t, r in itertools.product(range(layout.threads), layout.distinct_regs()):
            if t & layout.replica_mask:
                continue
            e = element(layout, t, r)
            assert e not in owners
            owners[e] = (t, r)
        assert len(owners) == layout.num_elements


def test_mma_layout_is_4x4_blocks():
    layout = mma_layout(64, 64, 256)
    assert layout.regs == (0, 1, 6, 7)
    assert layout.lanes == (2, 3, 4, 5, 8, 9, 10, 11)
    small = mma_layout(16, 16, 256)  # fewer elements than threads: replicated
    assert small.regs == () and small.lanes[:8] == (0, 1, 2, 3, 4, 5, 6, 7)


def test_softmax_row_reduction_is_replicated_over_threads():
    layout = chunked((4, 1024), 256, 4)
    assert layout.regs == (0, 1, 10, 11) and layout.lanes == tuple(range(2, 10))
    reduced = reduced_layout(layout, 1, (4, 1))
    assert reduced.regs == (0, 1) and reduced.lanes == (None,) * 8
    # ...and the broadcast back over the row asks for exactly that: no data moves.
    assert same_elements(broadcast_source(layout, (4, 1)), reduced)


def test_row_sum_reduction_keeps_warp_bits():
    layout = chunked((16, 128), 256, 4)
    reduced = reduced_layout(layout, 1, (16,))
    assert reduced.lanes == (None, None, None, None, None, 0, 1, 2) and reduced.regs == (3,)


def test_broadcast_of_a_row_vector_is_in_place():
    layout = chunked((4, 1024), 256, 4)
    source = broadcast_source(layout, (1024,))
    assert source.regs == (0, 1, None, None)
    assert same_elements(source, chunked((1024,), 256, 4))


def test_transpose_renames_bits():
    layout = chunked((64, 32), 256, 4)
    moved = permuted(layout, [1, 0], (32, 64))
    for t in range(256):
        for r in range(layout.num_regs):
            i, j = divmod(element(layout, t, r), 32)
            assert element(moved, t, r) == j * 64 + i
    assert not same_elements(moved, chunked((32, 64), 256, 4))


def test_replicated_holds_everything():
    layout = replicated((4, 8), 64)
    assert layout.num_regs == 32 and layout.replica_mask == 63


@pytest.mark.parametrize(
    "tiles, elems, threads",
    [
        ([(1024, Float32Type(), 1024)], 0, 256),
        ([(128, Float32Type(), 128)], 0, 32),
        ([(512, Float32Type(), 512)], 0, 128),
        ([(2048, BFloat16Type(), 32)], 0, 256),
        ([(16, Float32Type(), 16)], 0, 32),
        ([(1024, Float32Type(), 1024)], 1, 256),
    ],
)
def test_thread_choice(tiles, elems, threads):
    assert choose_threads(tiles, elems) == threads


def test_chunk_width_is_16_bytes_capped_by_the_row():
    config = Config(256)
    assert config.width(Float32Type(), 1024) == 4
    assert config.width(BFloat16Type(), 1024) == 8
    assert config.width(IntegerType(8), 1024) == 16
    assert config.width(Float32Type(), 2) == 2
    assert Config(256, elems=8).width(Float32Type(), 1024) == 8


def test_tensor_core_layout_is_the_m16n8_fragment():
    layout = tensor_core_layout(64, 64, 256)
    # c0, r3 in registers, then the warp's n8 and m16 tile bits; lanes c1 c2 r0 r1 r2, then the
    # warp grid (2 x 4 warps of 32 x 16): column bits 4 and 5, then row bit 5.
    assert layout.regs == (0, 9, 3, 10)
    assert layout.lanes == (1, 2, 6, 7, 8, 4, 5, 11)
    for lane in range(32):
        g, q = lane >> 2, lane & 3
        for i in range(4):  # PTX's C/D fragment of tile 0 for warp 0
            row, col = divmod(element(layout, lane, i), 64)
            assert (row, col) == (g + 8 * (i >> 1), 2 * q + (i & 1))
