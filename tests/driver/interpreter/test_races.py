"""Race detection: per element of shared memory (and of global memory behind raw pointers), the
last writer and the readers since the last barrier; a conflicting access by another thread in
the same barrier interval is a `data race` naming both threads, the element and both ops."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter import KernelRace, run_simt_kernel

# A thread's id %t in its block, its block %b, the block's width %n, its global id %g.
GLOBAL_ID = """    %t = simt.thread_id x
    %b = simt.block_id x
    %n = simt.block_dim x
    %base = arith.muli %b, %n : index
    %g = arith.addi %base, %t : index"""


def shift(barrier: bool) -> str:
    """out[t] = in[t - 1] through shared memory (thread 0 reads in[0]): t writes tile[t], then
    reads tile[t - 1], with or without a barrier between."""
    sync = "simt.sync_threads" if barrier else ""
    return f"""
  simt.kernel @shift(%in: !simt.ptr<f32>, %out: !simt.ptr<f32>) unsafe {{
    %tile = simt.shared_alloc : !simt.shared<f32, [64]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
{GLOBAL_ID}
    %v = simt.ptr_load %in[%g] : !simt.ptr<f32>
    simt.shared_store %v, %tile[%t] : !simt.shared<f32, [64]>
    {sync}
    %first = arith.cmpi eq, %t, %c0 : index
    %tm1 = arith.subi %t, %c1 : index
    %j = arith.select %first, %c0, %tm1 : index
    %x = simt.shared_load %tile[%j] : !simt.shared<f32, [64]>
    simt.ptr_store %x, %out[%g] : !simt.ptr<f32>
    simt.return
  }}
"""


def test_read_of_a_neighbours_write_without_a_barrier_is_a_data_race(kernel, rng):
    x = rng.standard_normal(128, dtype=np.float32)
    out = np.full(128, np.nan, np.float32)
    with pytest.raises(KernelRace) as info:
        run_simt_kernel(kernel(shift(False)), "shift", (2, 1, 1), (64, 1, 1), [x, out])
    assert str(info.value) == (
        "test.mlir:18:5: error: data race on element 0 of %tile: thread (1, 0, 0) reads it "
        "here, and thread (0, 0, 0) wrote it at test.mlir:13:5 in the same barrier interval (no "
        "simt.sync_threads between them) (block (0, 0, 0), thread (1, 0, 0))\n"
        "test.mlir:13:5: note: thread (0, 0, 0) of block (0, 0, 0) wrote element 0 of %tile here"
    )
    e = info.value
    assert (e.block, e.thread) == ((0, 0, 0), (1, 0, 0))


def test_the_same_kernel_with_the_barrier_passes(kernel, rng):
    x = rng.standard_normal(128, dtype=np.float32)
    out = np.full(128, np.nan, np.float32)
    run_simt_kernel(kernel(shift(True)), "shift", (2, 1, 1), (64, 1, 1), [x, out])
    blocks = x.reshape(2, 64)
    want = np.concatenate([blocks[:, :1], blocks[:, :-1]], axis=1).reshape(-1)
    assert np.array_equal(out, want)


def test_a_read_then_a_write_by_another_thread_is_a_race(kernel):
    # Each thread reads tile[t + 1 mod 4] and then writes tile[t]: write-after-read, no barrier.
    text = """
  simt.kernel @war(%out: !simt.ptr<i32>) unsafe {
    %tile = simt.shared_alloc : !simt.shared<i32, [4]>
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %t = simt.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %n = arith.andi %t1, %c3 : index
    %x = simt.shared_load %tile[%n] : !simt.shared<i32, [4]>
    %t32 = arith.index_cast %t : index to i32
    simt.shared_store %t32, %tile[%t] : !simt.shared<i32, [4]>
    simt.return
  }
"""
    with pytest.raises(KernelRace) as info:
        run_simt_kernel(kernel(text), "war", (1, 1, 1), (4, 1, 1), [np.zeros(4, np.int32)])
    assert str(info.value).startswith(
        "test.mlir:12:5: error: data race on element 0 of %tile: thread (0, 0, 0) writes it "
        "here, and thread (3, 0, 0) read it at test.mlir:10:5 in the same barrier interval"
    )


def test_two_threads_writing_one_element_in_one_op_race(kernel):
    text = """
  simt.kernel @ww(%out: !simt.ptr<i32>) unsafe {
    %tile = simt.shared_alloc : !simt.shared<i32, [4]>
    %c0 = arith.constant 0 : index
    %t = simt.thread_id x
    %t32 = arith.index_cast %t : index to i32
    simt.shared_store %t32, %tile[%c0] : !simt.shared<i32, [4]>
    simt.return
  }
"""
    with pytest.raises(KernelRace) as info:
        run_simt_kernel(kernel(text), "ww", (1, 1, 1), (2, 1, 1), [np.zeros(1, np.int32)])
    assert str(info.value).startswith(
        "test.mlir:8:5: error: data race on element 0 of %tile: thread (1, 0, 0) writes it "
        "here, and thread (0, 0, 0) wrote it in this op in the same barrier interval"
    )


@pytest.mark.parametrize(
    "blocks, threads",
    [(1, 32), (2, 64), (2, 48)],  # one warp; two blocks of whole warps; a partial last warp
)
def test_a_warp_collective_orders_its_lanes(kernel, blocks, threads):
    # Lane t writes tile[t], the warp shuffles, lane t reads tile[t ^ 1]: ordered by the
    # collective (all lanes of one warp), so no race; without the shuffle it would be one. The
    # ordering is per warp, found from the recorded thread's block and lane (in two blocks of
    # two warps, block 1's are the launch's warps 2 and 3).
    def text(collective: str) -> str:
        return f"""
  simt.kernel @pairs(%out: !simt.ptr<i32>) unsafe {{
    %tile = simt.shared_alloc : !simt.shared<i32, [64]>
    %one = arith.constant 1 : i32
    %c1 = arith.constant 1 : index
{GLOBAL_ID}
    %t32 = arith.index_cast %t : index to i32
    simt.shared_store %t32, %tile[%t] : !simt.shared<i32, [64]>
    {collective}
    %p = arith.xori %t, %c1 : index
    %x = simt.shared_load %tile[%p] : !simt.shared<i32, [64]>
    simt.ptr_store %x, %out[%g] : !simt.ptr<i32>
    simt.return
  }}
"""

    out = np.full(blocks * threads, -1, np.int32)
    shuffle = "%s = simt.shuffle xor %t32, %one : i32"
    run_simt_kernel(kernel(text(shuffle)), "pairs", (blocks, 1, 1), (threads, 1, 1), [out])
    assert out.tolist() == (np.arange(threads) ^ 1).tolist() * blocks
    with pytest.raises(KernelRace, match="data race on element 1 of %tile"):
        run_simt_kernel(kernel(text("")), "pairs", (blocks, 1, 1), (threads, 1, 1), [out])


def test_atomics_take_no_part(kernel):
    text = """
  simt.kernel @count(%out: !simt.ptr<i32>) unsafe {
    %s = simt.shared_alloc : !simt.shared<i32, [1]>
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %t = simt.thread_id x
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      simt.shared_store %zero, %s[%c0] : !simt.shared<i32, [1]>
    }
    simt.sync_threads
    %old = simt.atomic_add %s[%c0], %one scope cta : !simt.shared<i32, [1]>
    simt.ptr_store %old, %out[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.full(64, -1, np.int32)
    run_simt_kernel(kernel(text), "count", (1, 1, 1), (64, 1, 1), [out])
    assert out.tolist() == list(range(64))  # the old values of one defined order: launch order


def test_raw_pointer_writes_of_two_blocks_race(kernel):
    text = """
  simt.kernel @both(%out: !simt.ptr<i32>) unsafe {
    %c0 = arith.constant 0 : index
    %b = simt.block_id x
    %b32 = arith.index_cast %b : index to i32
    simt.ptr_store %b32, %out[%c0] : !simt.ptr<i32>
    simt.return
  }
"""
    with pytest.raises(KernelRace) as info:
        run_simt_kernel(kernel(text), "both", (2, 1, 1), (1, 1, 1), [np.zeros(1, np.int32)])
    assert str(info.value) == (
        "test.mlir:7:5: error: data race on element 0 of %out: thread (0, 0, 0) writes it here, "
        "and thread (0, 0, 0) of block (0, 0, 0) wrote it in this op in another block (nothing "
        "orders two blocks' accesses within a launch) (block (1, 0, 0), thread (0, 0, 0))\n"
        "test.mlir:7:5: note: thread (0, 0, 0) of block (0, 0, 0) wrote element 0 of %out here"
    )


def test_a_barrier_orders_global_memory_within_a_block(kernel):
    text = """
  simt.kernel @rotate(%buf: !simt.ptr<i32>) unsafe {
    %c1 = arith.constant 1 : index
    %c31 = arith.constant 31 : index
    %t = simt.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %n = arith.andi %t1, %c31 : index
    %x = simt.ptr_load %buf[%n] : !simt.ptr<i32>
    simt.sync_threads
    simt.ptr_store %x, %buf[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    buf = np.arange(32, dtype=np.int32)
    run_simt_kernel(kernel(text), "rotate", (1, 1, 1), (32, 1, 1), [buf])
    assert buf.tolist() == np.roll(np.arange(32), -1).tolist()


@pytest.mark.parametrize("threads", [32, 48])  # a power of two; not one
def test_a_barrier_orders_global_memory_within_each_block(kernel, threads):
    # Each block rotates its own run of the buffer: thread t reads element (t + 1) mod w of the
    # run, a barrier, then writes element t. With w the block's width that is ordered within
    # each block (block 1's reads recorded as its own threads'); with w one more, the last
    # thread of block 0 reads the first element of block 1's run, which block 1 then writes.
    def text(width: str) -> str:
        return f"""
  simt.kernel @rotate(%buf: !simt.ptr<i32>) unsafe {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = simt.thread_id x
    %b = simt.block_id x
    %n = simt.block_dim x
    %w = arith.addi %n, {width} : index
    %base = arith.muli %b, %n : index
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %w : index
    %src = arith.addi %base, %r : index
    %x = simt.ptr_load %buf[%src] : !simt.ptr<i32>
    simt.sync_threads
    %g = arith.addi %base, %t : index
    simt.ptr_store %x, %buf[%g] : !simt.ptr<i32>
    simt.return
  }}
"""

    buf = np.arange(3 * threads, dtype=np.int32)
    run_simt_kernel(kernel(text("%c0")), "rotate", (2, 1, 1), (threads, 1, 1), [buf])
    runs = np.arange(3 * threads).reshape(3, threads)
    assert buf.tolist() == [*np.roll(runs[:2], -1, axis=1).reshape(-1), *runs[2]]
    buf = np.arange(3 * threads, dtype=np.int32)
    with pytest.raises(
        KernelRace, match=f"data race on element {threads} of %buf: .* another block"
    ):
        run_simt_kernel(kernel(text("%c1")), "rotate", (2, 1, 1), (threads, 1, 1), [buf])
