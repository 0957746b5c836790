"""The SIMT surface beyond the examples, each construct checked by value on the interpreter
against NumPy (outputs poisoned with NaN, or a sentinel for integers): device functions,
`while`, f16 arithmetic, math, casts and Python's integer `//` and `%`, compile-time constants,
warp votes, atomics, `where`/`min`/`max`/`abs`; bf16 compiles to PTX."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ferrox import simt
from ferrox.simt import (
    SPACE_WARP,
    AtomicSlice,
    Constexpr,
    DisjointSlice,
    Slice,
    bf16,
    f16,
    f32,
    i32,
    index,
)

N = 1000
GRID = (-(-N // 256),)
RNG = np.random.default_rng()


def f32s(n: int = N, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return RNG.uniform(lo, hi, n).astype(np.float32)


def poisoned(dtype, n: int = N) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return np.full(n, np.nan, dtype)
    return np.full(n, np.iinfo(dtype).min, dtype)


@simt.device
def axpy(a: f32, x: f32, y: f32) -> f32:
    return a * x + y


@simt.kernel(block=256, requires=["len(x) >= len(y)"])
def device_call(a: f32, x: Slice[f32], y: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    with y[w] as slot:
        slot.value = axpy(a, x[i], slot.value)


def test_device_function_returns_its_value():
    x, y = f32s(), f32s()
    expected = np.float32(0.5) * x + y
    device_call.on("cpu")[GRID, 256](0.5, x, y)
    assert np.array_equal(y, expected)
    unlocated = re.sub(r' loc\("[^"]*":\d+:\d+\)', "", device_call.ir())
    assert "simt.func @axpy(%a: f32, %x: f32, %y: f32) -> f32" in unlocated


@simt.kernel(block=256, requires=["len(x) >= len(steps)"])
def collatz(x: Slice[i32], steps: DisjointSlice[i32]):
    w = simt.thread_index_1d()
    i = w.value
    with steps[w] as slot:
        v = x[i]
        count = i32(0)
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            count += 1
        slot.value = count


def test_while_carries_the_names_its_body_rebinds():
    x = RNG.integers(1, 200, N).astype(np.int32)
    steps = poisoned(np.int32)
    collatz.on("cpu")[GRID, 256](x, steps)

    def reference(v: int) -> int:
        count = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            count += 1
        return count

    assert steps.tolist() == [reference(int(v)) for v in x]


@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def fma_f16(a: Slice[f16], b: Slice[f16], out: DisjointSlice[f16]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] * b[i] + f16(0.5)


def test_f16_arithmetic_rounds_each_operation_to_f16():
    a, b = f32s().astype(np.float16), f32s().astype(np.float16)
    out = poisoned(np.float16)
    fma_f16.on("cpu")[GRID, 256](a, b, out)
    assert np.array_equal(out, (a * b) + np.float16(0.5))


@simt.kernel(block=256, requires=["len(a) >= len(out)"])
def to_bf16(a: Slice[bf16], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value  # read before the write moves w
    out[w] = f32(a[i] * bf16(2.0))


def test_bf16_compiles_to_ptx():
    assert "simt.slice<bf16>" in to_bf16.ir()
    assert ".entry to_bf16" in to_bf16.ptx()


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def math_fns(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:  # reads x[i] only where i < len(out) <= len(x)
        v = x[i]
        slot.value = simt.exp(v) + simt.sqrt(abs(v)) + simt.tanh(v) + simt.fma(v, v, 1.0)


def test_math_functions_match_numpy():
    x = f32s()
    out = poisoned(np.float32)
    math_fns.on("cpu")[GRID, 256](x, out)
    expected = np.exp(x) + np.sqrt(np.abs(x)) + np.tanh(x) + (x * x + 1)
    assert np.allclose(out, expected, rtol=1e-6, atol=1e-6)


@simt.kernel(block=256, requires=["len(a) >= len(q)", "len(b) >= len(q)", "len(r) == len(q)"])
def divmod_i32(a: Slice[i32], b: Slice[i32], q: DisjointSlice[i32], r: DisjointSlice[i32]):
    i = simt.thread_index_1d()
    j = simt.thread_index_1d()
    k = i.value
    q[i] = a[k] // b[k]
    r[j] = a[k] % b[k]


def test_integer_floor_division_and_remainder_follow_python():
    a = RNG.integers(-1000, 1000, N).astype(np.int32)
    b = RNG.choice([-7, -3, -1, 1, 2, 5, 9], N).astype(np.int32)
    q, r = poisoned(np.int32), poisoned(np.int32)
    divmod_i32.on("cpu")[GRID, 256](a, b, q, r)
    assert np.array_equal(q, a // b) and np.array_equal(r, a % b)


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def casts(x: Slice[f32], out: DisjointSlice[i32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = i32(x[i] * 100.0) + i32(i)


def test_casts_convert_between_element_types():
    x = f32s()
    out = poisoned(np.int32)
    casts.on("cpu")[GRID, 256](x, out)
    assert np.array_equal(
        out, (x * np.float32(100)).astype(np.int32) + np.arange(N, dtype=np.int32)
    )


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def scaled(x: Slice[f32], out: DisjointSlice[f32], SCALE: Constexpr, SQUARE: Constexpr = False):
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:
        v = x[i] * SCALE
        if SQUARE:  # decided at compile time: no branch in the IR
            v = v * v
        slot.value = v


def test_constants_specialise_the_kernel():
    x = f32s()
    out = poisoned(np.float32)
    scaled.on("cpu")[GRID, 256](x, out, 3.0)
    assert np.array_equal(out, x * np.float32(3))
    scaled.on("cpu")[GRID, 256](x, out, SCALE=2.0, SQUARE=True)
    assert np.array_equal(out, (x * np.float32(2)) ** 2)
    assert "scf.if" not in scaled.ir(SCALE=2.0, SQUARE=True)
    assert scaled.ptx(SCALE=2.0) != scaled.ptx(SCALE=3.0)


@simt.kernel(block=64)
def votes(
    x: Slice[f32], low: DisjointSlice[i32, SPACE_WARP], anyneg: DisjointSlice[i32, SPACE_WARP]
):
    lane = simt.lane_id()
    i = simt.block_id.x * simt.block_dim.x + simt.thread_id.x
    v = x[i] if i < len(x) else 1.0
    mask = simt.ballot(lane < 16)
    neg = simt.vote_any(v < 0.0)
    every = simt.vote_all(v < 2.0)
    low[simt.warp_index()] = mask
    anyneg[simt.warp_index()] = i32(neg) + 2 * i32(every)


def test_warp_votes():
    x = f32s(128, lo=0.0)
    x[40] = -1.0  # warp 1 sees a negative value
    low, anyneg = poisoned(np.int32, 4), poisoned(np.int32, 4)
    votes.on("cpu")[2, 64](x, low, anyneg)
    assert low.tolist() == [0xFFFF] * 4
    assert anyneg.tolist() == [2, 3, 2, 2]


@simt.kernel(block=256, requires=["len(hi) >= 1", "len(seen) >= 1"])
def extremes(x: Slice[i32], hi: AtomicSlice[i32], seen: AtomicSlice[i32]):
    i = simt.block_id.x * simt.block_dim.x + simt.thread_id.x
    if i < len(x):
        simt.atomic_max(hi, 0, x[i])
        simt.atomic_cas(seen, 0, 0, 1, scope="gpu", ordering="acq_rel")


def test_atomics_max_and_cas():
    x = RNG.integers(-10_000, 10_000, N).astype(np.int32)
    hi = np.full(1, np.iinfo(np.int32).min, np.int32)
    seen = np.zeros(1, np.int32)
    extremes.on("cpu")[GRID, 256](x, hi, seen)
    assert hi[0] == x.max() and seen[0] == 1


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def clamp(x: Slice[f32], out: DisjointSlice[f32], lo: f32, hi: f32):
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:
        v = x[i]
        slot.value = simt.where(v < 0.0, -min(abs(v), hi), max(v, lo))


def test_where_min_max_abs():
    x = f32s()
    out = poisoned(np.float32)
    clamp.on("cpu")[GRID, 256](x, out, 0.25, 0.5)
    expected = np.where(x < 0, -np.minimum(np.abs(x), 0.5), np.maximum(x, 0.25))
    assert np.array_equal(out, expected.astype(np.float32))


@pytest.mark.parametrize("n", [1, 300])
def test_static_range_unrolls_with_constant_offsets(n):
    kernel = _unrolled()
    x = f32s(n)
    out = poisoned(np.float32, n)
    kernel.on("cpu")[-(-n // 256), 256](x, out)
    assert np.array_equal(out, x * np.float32(1 + 2 + 3))
    assert "scf.for" not in kernel.ir()


def _unrolled():
    @simt.kernel(block=256, requires=["len(x) >= len(out)"])
    def unrolled(x: Slice[f32], out: DisjointSlice[f32]):
        w = simt.thread_index_1d()
        i = w.value
        with out[w] as slot:
            v = x[i]
            total = 0.0 * v
            for k in simt.static_range(1, 4):
                total += v * f32(k)
            slot.value = total

    return unrolled


_ = index


@simt.kernel(block=256, requires=["len(a) >= 4 * len(out)"])
def sum4_f16(a: Slice[f16], out: DisjointSlice[f16]):
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:
        slot.value = 0.0  # takes the slot's type, f16
        for k in range(4):
            slot.value += a[4 * i + k]


def test_a_slot_takes_constants_in_its_element_type():
    a = f32s(4 * N).astype(np.float16)
    out = poisoned(np.float16)
    sum4_f16.on("cpu")[GRID, 256](a, out)
    expected = np.zeros(N, np.float16)
    for k in range(4):
        expected = expected + a[k::4]
    assert np.array_equal(out, expected)


@simt.kernel(block=256)
def constants_by_path(out: DisjointSlice[f32], n: index):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = 1.5 if i < n else 3  # two Python constants: one f32 value


def test_constants_merged_from_two_paths_take_one_type():
    out = poisoned(np.float32, 300)
    constants_by_path.on("cpu")[2, 256](out, 100)
    assert out.tolist() == [1.5] * 100 + [3.0] * 200


@simt.kernel(block=256, requires=["len(x) >= len(acc)", "len(x) >= len(scaled)"])
def index_inside_write(x: Slice[f32], acc: DisjointSlice[f32], scaled: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    with acc[w] as slot:  # an accumulate that reads the index of the element it owns
        if w.value % 2 == 0:
            slot.value = slot.value + x[w.value]
    v = simt.thread_index_1d()
    scaled[v] = x[v] * f32(v.value)  # the witness as an index, and its value, inside the write


def test_a_witness_index_is_read_inside_its_own_guarded_write():
    x, acc = f32s(), f32s()
    scaled = poisoned(np.float32)
    expected = acc.copy()
    expected[::2] += x[::2]
    index_inside_write.on("cpu")[GRID, 256](x, acc, scaled)
    assert np.array_equal(acc, expected)
    assert np.array_equal(scaled, x * np.arange(N, dtype=np.float32))
    # one simt.witness_value per witness, taken before the write that moves it
    ir = index_inside_write.ir()
    assert ir.count("simt.witness_value") == 2
    assert ir.index("simt.witness_value %w") < ir.index("simt.get_mut %acc[%w]")
    assert ir.index("simt.witness_value %v") < ir.index("simt.get_mut %scaled[%v]")


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def skips(x: Slice[f32], out: DisjointSlice[f32], n: index):
    w = simt.thread_index_1d()
    start = w.value
    total = 0.0
    for k in range(n):
        v = x[(start + k) % len(x)]
        if v < 0.0:
            continue  # the rest of the trip runs only on the other path
        total += v
    k = 0
    while k < n:
        v = x[(start + k) % len(x)]
        k += 1
        if v > 0.5:
            total += 1.0
            continue
        elif v < -0.5:
            continue
        total += 100.0
    for j in simt.static_range(3):
        if j == 1:
            continue  # decided at compile time
        total += f32(j) * 1000.0
    out[w] = total


def test_continue_at_the_end_of_an_if_branch_skips_the_rest_of_the_trip():
    x, out = f32s(), poisoned(np.float32)
    skips.on("cpu")[GRID, 256](x, out, 7)
    expected = np.empty(N, np.float32)
    for t in range(N):
        total = np.float32(0)
        for k in range(7):
            v = x[(t + k) % N]
            if v < 0:
                continue
            total += v
        for k in range(7):
            v = x[(t + k) % N]
            if v > 0.5:
                total += np.float32(1)
                continue
            elif v < -0.5:
                continue
            total += np.float32(100)
        for j in (0, 2):
            total += np.float32(j * 1000)
        expected[t] = total
    assert np.array_equal(out, expected)
    # no flag and no copy: each `continue` became the `if` whose else runs the rest
    ir = skips.ir()
    assert ir.count("scf.for") == 1 and ir.count("scf.while") == 1
    assert ir.count("arith.addf") == 1 + 2 + 2  # one per `total +=` that can run


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def stops(x: Slice[f32], out: DisjointSlice[i32], n: index):
    w = simt.thread_index_1d()
    start = w.value
    found = i32(-1)
    for k in range(n):
        if x[(start + k) % len(x)] < 0.0:
            found = i32(k)
            break  # the remaining trips do nothing
    j = start
    while j < len(x):
        if x[j] > 0.9:
            break  # `j < len(x)` is not evaluated again
        j += 1
    for m in simt.static_range(4):
        if x[(start + m) % len(x)] > 0.5:
            break
        found += 10000
    out[w] = found * 100 + i32(j - start)


def test_break_ends_the_loop():
    x, out = f32s(), poisoned(np.int32)
    stops.on("cpu")[GRID, 256](x, out, 9)
    expected = np.empty(N, np.int32)
    for t in range(N):
        found = -1
        for k in range(9):
            if x[(t + k) % N] < 0:
                found = k
                break
        j = t
        while j < N:
            if x[j] > 0.9:
                break
            j += 1
        for m in range(4):
            if x[(t + m) % N] > 0.5:
                break
            found += 10000
        expected[t] = found * 100 + (j - t)
    assert np.array_equal(out, expected)
