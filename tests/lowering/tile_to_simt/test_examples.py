"""Every example tile kernel (tests/filecheck/dialects/tile/kernels.mlir) lowers to a SIMT kernel
that passes verify-disjoint, carries what the host needs to launch it, compiles to PTX that
ptxas accepts without spills, and computes what NumPy computes on the interpreter (outputs
poisoned with NaN first, sizes that leave ragged tiles)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
from compiled import assembled
from parsed_once import parse_once

from ferrox.diagnostics import DiagnosticError
from ferrox.dialects import simt, tile
from ferrox.driver.interpreter.bf16 import to_bf16
from ferrox.lowering.tile_to_simt import GRID_ATTR, LOWERING_ATTR, PARAMS_ATTR
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module
from ferrox.targets.toolchain import find_ptxas

EXAMPLES = (
    "vector_add",
    "saxpy",
    "row_sum",
    "softmax",
    "layernorm",
    "transpose",
    "matmul_f32",
    "matmul_bf16",
    "attention",
)


@dataclass(frozen=True)
class Expect:
    params: tuple[str, ...]
    grid_tile: tuple[int, ...]
    shuffle: bool = False
    barrier: bool = False
    vector_loads: int = 0
    """`ld.global.nc.v4` in the PTX: one per 4-element chunk a thread loads, in each of the
    two paths (the whole-tile fast path and the masked one: `lowering/tile_to_simt/memory.py`)."""
    vector_stores: int = 1
    """`st.global.v4` likewise, per path."""
    async_copies: int = 0
    tensor_cores: bool = False
    """`mma.sync ... bf16` in the PTX: bf16 products run on tensor cores."""
    """`cp.async.cg.shared.global` in the PTX: a pipelined GEMM main loop's 16-byte copies (per
    issue: one per chunk a thread copies of each operand, in each of the two paths, unchecked
    where all the loop's tiles are whole and checked; S - 1 issues before the loop, one in
    it)."""
    threads: int = 256
    """The lowering's thread count: 512 for the [4, 1024] reductions (two chunks a thread)."""
    masked_only_loads: int = 0
    """Of `vector_loads`, the ones that have no fast path (3-D loads in a loop: memory.py), once."""
    max_registers: int = 128
    """ptxas's registers a thread at most (two blocks of 256 an SM): 255 for a tile whose
    accumulators alone take 128 registers a thread."""


def dims(i: int, rank: int) -> tuple[str, ...]:
    return (f"arg{i}", *(f"arg{i}.dim{d}" for d in range(rank)))


EXPECT = {
    "vector_add": Expect((*dims(0, 1), *dims(1, 1), *dims(2, 1)), (1024,), vector_loads=2),
    "saxpy": Expect((*dims(0, 1), "arg1", *dims(2, 1), *dims(3, 1)), (1024,), vector_loads=2),
    "row_sum": Expect(
        (*dims(0, 1), *dims(1, 2)), (16,), shuffle=True, barrier=True, vector_loads=2
    ),
    "softmax": Expect(
        (*dims(0, 2), *dims(1, 2)),
        (4, 1024),
        shuffle=True,
        barrier=True,
        vector_loads=2,
        vector_stores=2,
        threads=512,
    ),
    "layernorm": Expect(
        (*dims(0, 2), *dims(1, 2), *dims(2, 1), *dims(3, 1), "arg4"),
        (4, 1024),
        True,
        True,
        4,
        2,
        threads=512,
    ),
    "transpose": Expect(
        (*dims(0, 2), *dims(1, 2)), (32, 64), barrier=True, vector_loads=2, vector_stores=2
    ),
    "matmul_f32": Expect(
        (*dims(0, 2), *dims(1, 2), *dims(2, 2)),
        (128, 128),
        barrier=True,
        # 128 threads, 16 x 8 accumulators each (`gemm.fma_threads`); 2 stages of 16 KiB
        # (`gemm.FMA_STAGE_BUDGET`): one issue before the loop, one in it, and x's registers
        # loaded an iteration ahead (`gemm.X_AHEAD`): once more before the loop
        vector_loads=3 * 4,  # x ([128, 16], k-major) through registers: 4 chunks a thread
        vector_stores=32,  # 128 f32 a thread
        async_copies=2 * 2 * 4,  # 4 chunks of y ([16, 128]) a thread
        threads=128,
        max_registers=255,
    ),
    "matmul_bf16": Expect(
        (*dims(0, 2), *dims(1, 2), *dims(2, 2)),
        (128, 256),
        barrier=True,
        vector_stores=32,  # 128 f32 a thread
        # 2 stages (a third would not fit beside the store's exchange); 4 chunks of x ([128,
        # 64]) and 8 of y ([64, 256]) a thread
        async_copies=2 * 2 * (4 + 8),
        tensor_cores=True,
        max_registers=255,  # 128 f32 accumulators a thread
    ),
    "attention": Expect(
        (*dims(0, 3), *dims(1, 3), *dims(2, 3), *dims(3, 3)),
        (1, 64, 64),
        shuffle=True,
        barrier=True,
        vector_loads=6,
        masked_only_loads=4,  # the key and value tiles, loaded in the loop
        vector_stores=4,
        tensor_cores=True,
    ),
}


@pytest.fixture(scope="module")
def lowered(examples_text, lower):
    return lower(examples_text, name="kernels.mlir")


@pytest.fixture(scope="module")
def simt_kernel(find_kernel):
    return find_kernel


@pytest.fixture(scope="module")
def ptx(lowered):
    return compile_module(lowered, chip="sm_90", opt=3, cubin=False)


def test_every_example_is_listed(lowered):
    names = sorted(op.sym_name.data for op in lowered.ops if isinstance(op, simt.KernelOp))
    assert names == sorted(EXAMPLES) == sorted(EXPECT)


def test_checked_chunk_ops_share_one_function_per_signature(lowered):
    """The masked path's chunk reads and the GEMM pipelines' copies are calls of one `simt.func`
    per op and signature (lowering/tile_to_simt/helpers.py), called more than once (a function
    called once is its op again), its body the op alone; the copies' functions are unsafe (the
    shared side is unchecked) and `alwaysinline`, the reads' are neither: `noinline` until the
    LLVM worker inlines them after optimising (`ferrox-inline-late`)."""
    funcs = {op.sym_name.data: op for op in lowered.ops if isinstance(op, simt.FuncOp)}
    calls: dict[str, int] = {}
    for op in lowered.walk():
        if isinstance(op, simt.CallOp):
            name = op.callee.root_reference.data
            calls[name] = calls.get(name, 0) + 1
    assert (
        sorted(funcs)
        == sorted(calls)
        == [
            "__ferrox_async_copy_slice_bf16_x8",  # matmul_bf16's x ([128, 64] stages)
            "__ferrox_async_copy_slice_bf16_x8_1",  # its y: [64, 256] stages, another type
            "__ferrox_async_copy_slice_f32_x4",  # matmul_f32's y (its x: k-major, by loads)
            "__ferrox_load_chunk_slice_bf16_x8",
            "__ferrox_load_chunk_slice_f32_x16",  # matmul_f32's checked x: a row of 16 k a thread
            "__ferrox_load_chunk_slice_f32_x4",
        ]
    )
    assert all(n > 1 for n in calls.values()), calls
    for name, fn in funcs.items():
        copy = name.startswith("__ferrox_async_copy")
        body = "simt.async_copy" if copy else "simt.load_chunk"
        assert [op.name for op in fn.body.ops] == [body, "simt.return"]
        assert (fn.unsafe is not None) == copy
        inlining = '["alwaysinline"]' if copy else '["noinline", "ferrox-inline-late"]'
        assert str(fn.attributes["passthrough"]) == inlining
        assert collect(fn) == []


@pytest.mark.parametrize("name", EXAMPLES)
def test_lowered_kernel_passes_verify_disjoint(lowered, simt_kernel, name):
    assert collect(simt_kernel(lowered, name)) == []


@pytest.mark.parametrize("name", EXAMPLES)
def test_host_attributes(lowered, simt_kernel, name):
    kernel = simt_kernel(lowered, name)
    expect = EXPECT[name]
    lowering = kernel.attributes[LOWERING_ATTR]
    assert lowering.data["threads"].value.data == expect.threads  # type: ignore[attr-defined]
    assert lowering.data["elems_per_thread"].value.data == 4  # type: ignore[attr-defined]
    assert tuple(s.data for s in kernel.attributes[PARAMS_ATTR].data) == expect.params  # type: ignore[attr-defined]
    grid = kernel.attributes[GRID_ATTR]
    assert grid.data["partition"].value.data == 0  # type: ignore[attr-defined]
    assert tuple(grid.data["tile"].get_values()) == expect.grid_tile  # type: ignore[attr-defined]
    contract = kernel.contract
    assert contract is not None
    assert contract.block_xyz == (expect.threads, 1, 1)
    assert contract.domain.data == len(expect.grid_tile)
    # One `len(slice) == product of its dims` relation per tensor.
    slices = [
        i for i, s in enumerate(expect.params) if "." not in s and f"{s}.dim0" in expect.params
    ]
    assert [r.arg_refs()[0] for r in contract.relations] == [("len", i) for i in slices]


@pytest.mark.parametrize("name", EXAMPLES)
def test_ptx(ptx, name):
    expect = EXPECT[name]
    m = re.search(rf"\.entry {name}\((.*?)\n\}}", ptx.ptx, re.S)
    assert m is not None
    body = m.group(0)
    assert f".reqntid {expect.threads}, 1, 1" in body
    assert ("shfl.sync.bfly" in body) == expect.shuffle
    assert ("bar.sync" in body) == expect.barrier
    loads = 2 * expect.vector_loads - expect.masked_only_loads
    assert len(re.findall(r"ld\.global\.nc\.v4\.", body)) == loads
    assert len(re.findall(r"st\.global\.v4\.", body)) == 2 * expect.vector_stores
    assert len(re.findall(r"cp\.async\.cg\.shared\.global", body)) == expect.async_copies
    assert ".local" not in body
    # bf16 inputs run on tensor cores, f32 ones with FMAs (f32 is not rounded to tf32).
    assert ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in body) == expect.tensor_cores
    # Tensor-core fragments come from shared memory by ldmatrix, FMA operands as 16-byte vectors.
    assert ("ldmatrix.sync.aligned.m8n8.x4.shared.b16" in body) == (name == "matmul_bf16")
    if name == "matmul_f32":
        assert re.search(r"ld\.shared\.v4\.(f|b)32", body)


needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")


@needs_ptxas
@pytest.mark.parametrize("name", EXAMPLES)
def test_ptxas_accepts_without_spills(ptx, name):
    # one ptxas run of the examples' PTX (all nine kernels) for the nine tests that read it
    resources = assembled(ptx.ptx, "sm_90").resources[name]
    assert (
        resources.spill_stores == 0 and resources.spill_loads == 0 and resources.local_memory == 0
    )
    assert resources.registers <= EXPECT[name].max_registers
    assert (resources.barriers > 0) == EXPECT[name].barrier


# -- numerics on the interpreter ------------------------------------------------------------

rng = np.random.default_rng(5)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def poisoned(*shape):
    return np.full(shape, np.nan, np.float32)


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def layernorm(x, g, b, eps):
    mu = x.mean(1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(1, keepdims=True) + eps) * g + b


def cases(name):
    """(tile arguments, expected output, tolerance) for `name` on sizes with ragged tiles."""
    if name in ("vector_add", "saxpy"):
        for n in (1, 1024, 2500):
            x, y = f32(n), f32(n)
            if name == "vector_add":
                yield [poisoned(n), x, y], x + y, 0
            else:
                yield [poisoned(n), np.float32(-0.75), x, y], np.float32(-0.75) * x + y, 0
    elif name == "row_sum":
        x = f32(37, 300)
        yield [poisoned(37), x], x.sum(1), 1e-5
    elif name == "softmax":
        for shape in ((9, 700), (4, 1024)):
            x = f32(*shape)
            yield [poisoned(*shape), x], softmax(x), 1e-5
    elif name == "layernorm":
        x, g, b = f32(6, 500), f32(500), f32(500)
        yield (
            [poisoned(6, 500), x, g, b, np.float32(1e-5)],
            layernorm(x, g, b, np.float32(1e-5)),
            1e-4,
        )
    elif name == "transpose":
        x = f32(70, 100)
        yield [poisoned(100, 70), x], x.T, 0
    elif name == "matmul_f32":
        a, b = f32(70, 50), f32(50, 90)
        yield [poisoned(70, 90), a, b], a @ b, 1e-5
    elif name == "matmul_bf16":  # bf16 bits in; each product exact in f32
        a, b = to_bf16(f32(70, 50)), to_bf16(f32(50, 90))
        yield [poisoned(70, 90), a, b], a.float32().astype(np.float64) @ b.float32(), 1e-5
    elif name == "attention":  # causal; a ragged last block; p rounded to bf16 before p @ v
        q, k, v = (to_bf16(f32(2, 100, 64)) for _ in range(3))
        x, y, z = (t.float32().astype(np.float64) for t in (q, k, v))
        s = np.where(np.tri(100, dtype=bool), x @ y.transpose(0, 2, 1) / 8.0, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True))
        yield [poisoned(2, 100, 64), q, k, v], (p / p.sum(-1, keepdims=True)) @ z, 2e-3


@pytest.mark.parametrize("name", EXAMPLES)
def test_numerics(lowered, interpreter, name):
    for args, want, tol in cases(name):
        out = args[0]
        interpreter(lowered, name, args)
        assert not np.isnan(out).any(), "an output element was not written"
        np.testing.assert_allclose(out, want, rtol=tol, atol=tol * 10)


@pytest.fixture(scope="module")
def lowered_with(examples_text, lower):
    """`lowered_with(name, threads, elems)`: kernel `name` of the examples lowered alone with
    those choices (lowering the whole file for each choice took most of each test)."""
    modules: dict[tuple[str, int, int], object] = {}

    def get(name: str, threads: int, elems: int):
        if (name, threads, elems) not in modules:
            module = parse_once(make_context(), examples_text, "kernels.mlir")
            for op in list(module.ops):
                if isinstance(op, tile.KernelOp) and op.sym_name.data != name:
                    op.detach()
                    op.erase()
            text = str(module)
            modules[name, threads, elems] = lower(text, threads, elems, name="kernels.mlir")
        return modules[name, threads, elems]

    return get


CHOICES = [(32, 0), (128, 2), (64, 1), (256, 8)]


@pytest.mark.parametrize(
    ("name", "threads", "elems"),
    [
        *((n, t, e) for n in ["vector_add", "row_sum", "softmax", "transpose"] for t, e in CHOICES),
        # a [128, 128] f32 accumulator is 512 elements a thread over 32 threads: refused below
        *(("matmul_f32", t, e) for t, e in CHOICES if t > 32),
    ],
)
def test_numerics_with_other_choices(lowered_with, simt_kernel, interpreter, name, threads, elems):
    module = lowered_with(name, threads, elems)
    kernel = simt_kernel(module, name)
    lowering = kernel.attributes[LOWERING_ATTR]
    assert lowering.data["threads"].value.data == threads  # type: ignore[attr-defined]
    assert collect(kernel) == []
    args, want, tol = next(iter(cases(name)))
    args[0][...] = np.nan
    interpreter(module, name, args)
    np.testing.assert_allclose(args[0], want, rtol=max(tol, 1e-5), atol=max(tol, 1e-5) * 10)


def test_a_tile_too_big_for_the_threads_is_refused(lowered_with):
    with pytest.raises(DiagnosticError, match="spreads 512 over each of the block's 32 threads"):
        lowered_with("matmul_f32", 32, 0)
