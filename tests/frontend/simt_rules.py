"""Kernels that break each SIMT safety rule (docs/safety.md#simt-rules), and the kernels that
keep it; test_rules.py pins each refusal's diagnostic at its Python line. The comment `# <-
NAME` marks the line a diagnostic names."""

from __future__ import annotations

from ferrox import simt
from ferrox.simt import (
    SPACE_1D,
    SPACE_2D_RUNTIME,
    SPACE_WARP,
    AtomicSlice,
    DisjointSlice,
    Ptr,
    Slice,
    Witness,
    f32,
    i32,
    index,
    space_2d,
)

# -- SIMT 1: only trusted index ops make witnesses ----------------------------------------------


@simt.device
def write_one(out: DisjointSlice[f32], w: Witness[SPACE_1D]) -> None:  # <- param_witness
    out[w] = 1.0


@simt.kernel(block=256)
def witness_from_parameter(out: DisjointSlice[f32]):
    write_one(out, simt.thread_index_1d())  # <- param_witness_call


@simt.kernel(block=256)
def witness_from_if(out: DisjointSlice[f32], flag: i32):
    w = simt.thread_index_1d() if flag > 0 else simt.thread_index_1d()  # <- if_witness
    out[w] = 1.0  # <- if_witness_use


@simt.kernel(block=256)
def witness_trusted(out: DisjointSlice[f32], flag: i32):
    w = simt.thread_index_1d()
    if flag > 0:
        out[w] = 1.0
    else:
        out[w] = 2.0  # moves in alternative branches: one per path


# -- SIMT 2: a witness is linear and never escapes ------------------------------------------


# doc:begin moved_twice
@simt.kernel(block=256)
def moved_twice(out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    out[w] = 1.0  # <- first_move
    out[w] = 2.0  # <- second_move


# doc:end


@simt.kernel(block=256)
def borrowed_after_move(out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    out[w] = 1.0  # <- moved
    i = w.value  # <- borrowed
    out[simt.thread_index_1d()] = f32(i)


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def index_read_inside_its_write(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    with out[w] as slot:  # the write owns the element: reading its index is safe
        slot.value = slot.value + x[w.value] * f32(simt.witness_value(w))


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def index_read_after_its_write_block(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    with out[w] as slot:  # <- write_block
        slot.value = slot.value + x[w.value]
    i = w.value  # <- after_block
    out[simt.thread_index_1d()] = f32(i)


@simt.kernel(block=256)
def moved_in_loop(out: DisjointSlice[f32], n: index):
    w = simt.thread_index_1d()
    for k in range(n):
        out[w] = f32(k)  # <- loop_move


@simt.kernel(block=256)
def moved_in_loop_fresh(out: DisjointSlice[f32], n: index):
    for k in range(n):
        out[simt.thread_index_1d()] = f32(k)  # a fresh witness each trip; the last write wins


# -- SIMT 3: a witness indexes only a slice of its own index space ---------------------------


@simt.kernel(block=(16, 16))
def space_mismatch(out: DisjointSlice[f32]):
    out[simt.index_2d(32)] = 1.0  # <- mismatch


@simt.kernel(block=(16, 16))
def width_not_parameter(x: Slice[f32], out: DisjointSlice[f32, SPACE_2D_RUNTIME]):
    out[simt.index_2d_runtime(len(x))] = 1.0  # <- width


@simt.kernel(block=(16, 16))
def space_2d_matches(out: DisjointSlice[f32, space_2d(32)]):
    out[simt.index_2d(32)] = 1.0


# -- SIMT 4: slices are used only as their kind allows --------------------------------------


@simt.kernel(block=256)
def reads_disjoint(out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    v = out[w.value]  # <- read_disjoint
    out[w] = v + 1.0


@simt.kernel(block=256, requires=["len(x) >= 1"])
def updates_shared_slice(x: Slice[f32]):
    simt.atomic_add(x, 0, 1.0)  # <- atomic_shared


@simt.kernel(block=256, requires=["len(bins) >= 1"])
def reads_atomic(bins: AtomicSlice[i32], out: DisjointSlice[i32]):
    v = bins[0]  # <- read_atomic
    out[simt.thread_index_1d()] = v


@simt.device
def total(x: Slice[f32]) -> f32:
    return x[0]


@simt.kernel(block=256)
def passes_disjoint_as_shared(out: DisjointSlice[f32]):
    t = total(out)  # <- pass_disjoint
    out[simt.thread_index_1d()] = t


@simt.kernel(block=256, requires=["len(bins) >= 1"])
def updates_atomic(bins: AtomicSlice[i32]):
    simt.atomic_add(bins, 0, 1)


# -- SIMT 5: the launch contract fits the kernel and the hardware ----------------------------


@simt.kernel(block=2048)
def block_too_big(out: DisjointSlice[f32]):  # <- too_big
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=(16, 16), domain=1)
def block_rank_over_domain(out: DisjointSlice[f32]):  # <- rank
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=(16, 16))
def one_d_space_on_2d(out: DisjointSlice[f32]):
    out[simt.thread_index_1d()] = 1.0  # <- domain


@simt.kernel(block=48)
def warp_space_odd_block(out: DisjointSlice[f32, SPACE_WARP]):
    out[simt.warp_index()] = 1.0  # <- warp_block


@simt.kernel(block=64)
def warp_space_fits(out: DisjointSlice[f32, SPACE_WARP]):
    out[simt.warp_index()] = 1.0


# -- SIMT 6: raw memory only in unsafe code -------------------------------------------------


@simt.kernel(block=256)
def contract_with_pointer(p: Ptr[f32]):  # <- raw_param
    pass


@simt.kernel(contract=False)
def pointer_outside_unsafe(p: Ptr[f32], n: index):
    i = simt.thread_id.x
    if i < n:
        p[i] = p[i] + 1.0  # <- raw_deref


@simt.kernel(block=64)
def shared_outside_unsafe(out: DisjointSlice[f32]):
    tile = simt.shared(f32, 64)
    t = simt.thread_id.x
    tile[t] = 1.0  # <- shared_store
    simt.sync_threads()
    out[simt.thread_index_1d()] = tile[63 - t]  # <- shared_load


@simt.kernel(contract=False)
def pointer_in_unsafe(p: Ptr[f32], n: index):
    i = simt.thread_id.x
    if i < n:
        with simt.unsafe():
            p[i] = p[i] + 1.0


@simt.kernel(contract=False, unsafe=True)
def pointer_in_unsafe_kernel(p: Ptr[f32], n: index):
    i = simt.thread_id.x
    if i < n:
        p[i] = p[i] + 1.0


# -- SIMT 7: barriers and warp collectives are convergent ------------------------------------


@simt.kernel(block=256)
def barrier_in_divergent_if(out: DisjointSlice[f32]):
    t = simt.thread_id.x
    if t < 100:  # <- divergent_if
        simt.sync_threads()  # <- divergent_barrier
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def barrier_skipped_by_continue(out: DisjointSlice[f32], n: index):
    t = simt.thread_id.x
    for _k in range(n):
        if t < 100:  # <- continue_if
            continue
        simt.sync_threads()  # <- skipped_barrier
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def barrier_after_divergent_break(out: DisjointSlice[f32], n: index):
    t = simt.thread_id.x
    for _k in range(n):
        simt.sync_threads()  # <- after_break_barrier
        if t < 100:
            break  # <- divergent_break
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def barrier_after_uniform_break(out: DisjointSlice[f32], n: index):
    for k in range(n):
        simt.sync_threads()  # every thread leaves at the same trip
        if k == 3:
            break
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def barrier_after_uniform_continue(out: DisjointSlice[f32], n: index):
    for k in range(n):
        if k % 2 == 0:
            continue
        simt.sync_threads()  # every thread skips the same trips
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def shuffle_in_divergent_if(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    v = 0.0
    if i < len(x):  # <- shuffle_if
        v = simt.shuffle_xor(x[i], 1)  # <- divergent_shuffle
    out[w] = v


@simt.device
def wait() -> None:
    simt.sync_threads()


@simt.kernel(block=256)
def convergent_call_in_divergent_if(out: DisjointSlice[f32]):
    t = simt.thread_id.x
    if t == 0:  # <- call_if
        wait()  # <- divergent_call
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def barrier_in_uniform_if(out: DisjointSlice[f32], n: index):
    b = simt.block_id.x
    if b < n:  # the same for every thread of a block
        simt.sync_threads()
    wait()
    out[simt.thread_index_1d()] = 1.0
