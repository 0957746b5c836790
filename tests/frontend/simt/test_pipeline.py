"""The GEMM pipeline surface (`simt.async_copy`, `async_commit`, `async_wait`,
`shared_load_vector`, `ldmatrix`) and tuples carried by loops: kernels that keep the rules
compute what NumPy computes on the interpreter (outputs poisoned), each misuse is refused at its
Python line with the op verifier's or verify-disjoint's words, and the frontend IR reads back
through `ferrox-opt` unchanged. The kernels are in pipeline_kernels.py (`# <- NAME` marks)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import in_process  # tests/support
import numpy as np
import pytest

from ferrox.simt import FrontendError

KERNELS_FILE = Path(__file__).with_name("pipeline_kernels.py")
KERNELS = runpy.run_path(str(KERNELS_FILE), run_name="pipeline_kernels")
LINES = {
    m.group(1): number
    for number, line in enumerate(KERNELS_FILE.read_text(encoding="utf-8").splitlines(), 1)
    if (m := re.search(r"# <- (\w+)", line))
}


def at(marker: str, col: int) -> str:
    return f"{KERNELS_FILE}:{LINES[marker]}:{col}"


def diagnostics(name: str) -> list[str]:
    """The diagnostics of a refused kernel, as tests/frontend/test_rules.py reads them."""
    with pytest.raises(FrontendError) as refused:
        KERNELS[name].artifact()
    return [d.format() for d in refused.value.diagnostics]


REFUSED = {
    # async_copy: 16 bytes a copy (the op verifier), shared memory only in unsafe code (SIMT 6),
    # from a read-only Slice (the op's operand type)
    "copy_wrong_width": [
        f"{at('copy_width', 9)}: error: 'simt.async_copy' copies 16 bytes: width must be 4 for "
        "f32, got 8"
    ],
    "copy_outside_unsafe": [
        f"{at('copy_unsafe', 5)}: error: access to shared memory is unsafe and requires an "
        "unsafe region or kernel"
    ],
    "copy_from_disjoint": [
        f"{at('copy_disjoint', 9)}: error: operand 'source' at position 0 does not verify: "
        "!simt.disjoint_slice<f32, 1d> should be of base attribute simt.slice"
    ],
    # async_wait: 0 to 7 groups, a compile-time count; async_commit takes nothing
    "wait_too_many": [
        f"{at('wait_pending', 5)}: error: 'simt.async_wait' pending must be 0 to 7, got 8"
    ],
    "wait_run_time": [
        f"{at('wait_run_time', 5)}: error: async_wait's pending count is a compile-time "
        "integer, found index"
    ],
    "commit_with_argument": [
        f"{at('commit_argument', 5)}: error: async_commit takes 0 arguments, found 1"
    ],
    # shared_load_vector: at most 16 bytes; unsafe code only
    "vector_too_wide": [
        f"{at('vector_wide', 13)}: error: 'simt.shared_load_vector' reads 2 to 16 elements, at "
        "most 16 bytes, got 8 of f32"
    ],
    "vector_outside_unsafe": [
        f"{at('vector_unsafe', 9)}: error: access to shared memory is unsafe and requires an "
        "unsafe region or kernel"
    ],
    # ldmatrix: 16-bit elements; a warp collective (SIMT 7)
    "ldmatrix_of_f32": [
        f"{at('ldmatrix_f32', 13)}: error: 'simt.ldmatrix' reads 16-bit elements, found f32"
    ],
    "ldmatrix_divergent": [
        f"{at('ldmatrix_divergent', 17)}: error: warp collective under divergent control flow: "
        "'simt.ldmatrix' must be reached by every lane of the warp\n"
        f"{at('ldmatrix_if', 5)}: note: control flow diverges here: not every thread may take "
        "this branch (its operand is not uniform across the warp)"
    ],
    # mma_sync: 4 A, 2 B, 4 C fragments (the op verifier); bf16 or f16 (the frontend)
    "mma_three_fragments": [
        f"{at('mma_fragments', 9)}: error: 'simt.mma_sync' takes 4 A registers, got 3"
    ],
    "mma_of_f32": [
        f"{at('mma_f32', 9)}: error: mma_sync multiplies bf16 or f16 (its first argument), not f32"
    ],
    # a chunk witness's store takes the chunk's width of values
    "chunk_wrong_width": [
        f"{at('chunk_width', 5)}: error: 'simt.store_chunk' to chunks of 8 takes 8 values, got 4"
    ],
    # a tuple a loop carries keeps its length
    "tuple_changes_length": [
        f"{at('tuple_length', 5)}: error: `acc` is a tuple of 4 values before the loop and a "
        "tuple of 5 after its body (a carried tuple keeps its length)"
    ],
    # a tuple merged by an `if` keeps its length
    "tuple_if_lengths": [
        f"{at('if_lengths', 5)}: error: `acc` is a tuple of 3 and a tuple of 2 on the paths of "
        "this `if` (a tuple of numbers keeps its length)"
    ],
    # tuples are sliced at compile time; a name leaves an unsafe block as numbers
    "tuple_sliced_at_run_time": [
        f"{at('run_time_slice', 16)}: error: a slice's bounds are compile-time integers (tuples "
        "are sliced as built)"
    ],
    "nested_tuple_leaves_unsafe": [
        f"{at('nested_tuple', 5)}: error: `pairs` leaves a `with unsafe():` block: a name bound "
        "there holds a number or a flat tuple of numbers"
    ],
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_misuse_is_refused_at_the_python_line(name):
    assert diagnostics(name) == REFUSED[name]


def test_a_staged_copy_and_vector_load_compute_the_sums():
    rng = np.random.default_rng()
    for n_out, n_x in ((192, 700), (130, 517)):  # x shorter than the copies: zeros past it
        x = rng.uniform(-1, 1, n_x).astype(np.float32)
        out = np.full(n_out, np.nan, np.float32)
        blocks = -(-n_out // 64)
        KERNELS["staged_sum"].on("cpu")[blocks, 64](x, out)
        padded = np.zeros(blocks * 256, np.float32)
        padded[: min(n_x, blocks * 256)] = x[: blocks * 256]
        chunks = padded.reshape(blocks, 64, 4)[:, ::-1, :]  # thread t reads thread 63 - t's copy
        expected = ((chunks[..., 0] + chunks[..., 1]) + (chunks[..., 2] + chunks[..., 3])).ravel()
        assert np.array_equal(out, expected[:n_out])


def _pack(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Two 16-bit elements in one 32-bit register, the first in the low half."""
    bits = (hi.astype(np.int64) << 16) | (lo.astype(np.int64) & 0xFFFF)
    return bits.astype(np.uint32).view(np.int32)


def test_ldmatrix_gives_each_lane_its_fragments():
    rng = np.random.default_rng()
    blocks = 3
    n = 256 * blocks
    x = rng.integers(-(1 << 15), 1 << 15, n, dtype=np.int16)
    out = np.full(n, -1, np.int32)  # every element is written (no -1 packs from these inputs)
    KERNELS["fragments"].on("cpu")[blocks, 32](x, out, n)
    lane = np.arange(32)
    row, col = lane // 4, 2 * (lane % 4)
    expected = np.empty((blocks, 2, 32, 4), np.int32)
    for b in range(blocks):
        mats = x[256 * b : 256 * (b + 1)].reshape(4, 8, 8)
        for r in range(4):
            expected[b, 0, :, r] = _pack(mats[r][row, col], mats[r][row, col + 1])
            expected[b, 1, :, r] = _pack(mats[r][col, row], mats[r][col + 1, row])
    assert np.array_equal(out, expected.ravel())


def test_ldmatrix_fragments_feed_mma_sync():
    rng = np.random.default_rng()
    blocks = 3
    a = rng.uniform(-1, 1, 256 * blocks).astype(np.float16)
    b = rng.uniform(-1, 1, 128 * blocks).astype(np.float16)
    c = rng.uniform(-1, 1, 128 * blocks).astype(np.float32)
    out = np.full(128 * blocks, np.nan, np.float32)
    KERNELS["warp_mma"].on("cpu")[blocks, 32](a, b, c, out, 128 * blocks)
    x = a.astype(np.float64).reshape(blocks, 16, 16)
    y = b.astype(np.float64).reshape(blocks, 16, 8)
    z = c.astype(np.float64).reshape(blocks, 16, 8)
    # f16 products are exact in f64; the interpreter rounds each sum once, as here
    np.testing.assert_allclose(out, (x @ y + z).astype(np.float32).ravel(), rtol=1e-6, atol=1e-6)


def test_a_for_and_a_while_carry_a_tuple():
    rng = np.random.default_rng()
    n, steps = 200, 3
    x = rng.uniform(-1, 1, 4 * n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    KERNELS["carried_tuple"].on("cpu")[-(-n // 64), 64](x, out, steps)
    acc = np.zeros((4, n), np.float32)
    for _ in range(steps):
        for j in range(4):
            acc[j] = acc[j] + x[j::4] * np.float32(j + 1)
    assert np.array_equal(out, (acc[0] + acc[1]) + (acc[2] + acc[3]))


def test_an_if_merges_a_tuple_element_by_element():
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, 300).astype(np.float32)
    out = np.full(300, np.nan, np.float32)
    KERNELS["tuple_through_if"].on("cpu")[5, 64](x, out)
    expected = np.where(x > 0, x * np.float32(2) + np.float32(1), x - np.float32(3))
    assert np.array_equal(out, expected)


def test_the_tuple_is_carried_as_its_elements():
    ir = KERNELS["carried_tuple"].ir()
    loop = next(line for line in ir.splitlines() if "scf.for" in line)
    carried = re.search(r"iter_args\((.*)\) -> \((.*)\) \{", loop)
    assert carried is not None, loop
    # four f32 accumulators, and nothing for the unrolled `j`
    assert len(carried.group(1).split(", ")) == 4
    assert carried.group(2) == "f32, f32, f32, f32"


@pytest.mark.parametrize("name", ["staged_sum", "fragments", "warp_mma"])
def test_ferrox_opt_prints_the_frontend_ir_back_unchanged(name, tmp_path):
    ir = KERNELS[name].ir()
    path = tmp_path / "kernel.mlir"
    path.write_text(ir, encoding="utf-8")
    # ferrox-opt's main in this process (tests/support/in_process.py): a new Python per case
    # spent most of the test importing ferrox again.
    done = in_process.ferrox_opt(path, "--print-debuginfo", "-p", "verify-disjoint")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ir.strip()
    for op in ("simt.async_copy", "simt.async_commit", "simt.async_wait"):
        assert f"{op} " in done.stdout
    expected = {"staged_sum": "simt.shared_load_vector", "fragments": "simt.ldmatrix"}
    assert expected.get(name, "simt.mma_sync") in done.stdout
