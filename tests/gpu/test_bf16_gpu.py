"""bf16 and f16 end to end on the GPU, and the CPU interpreter against it bit for bit.

- The engine's conversions and bf16 arithmetic give the GPU's bits (f32 to bf16 and to f16 on
  random bit patterns with ties, subnormals, infinities and NaNs; bf16 add, mul and fma on
  random finite values).
- torch.bfloat16 tensors (and NumPy bf16 bits, staged) go into the tile matmul_bf16 example;
  a tensor of another element type for a bf16 parameter is refused with the checker's message.
- examples/python/tile_matmul_bf16.py at its GPU size, on torch bf16 tensors.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_bf16_gpu.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ferrox

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "examples" / "tile" / "matmul_bf16.mlir"


def unary(name: str, src: str, dst: str, body: str) -> str:
    return f"""
  simt.kernel @{name}(%x: !simt.slice<{src}>, %out: !simt.disjoint_slice<{dst}, 1d>)
      contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {{
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<{dst}, 1d>, !simt.thread_index<1d> {{
    ^bb0(%old: {dst}):
      %v = simt.load %x[%i] : !simt.slice<{src}>
      {body}
      simt.yield %r : {dst}
    }}
    simt.return
  }}"""


def ternary(name: str, body: str) -> str:
    t = "bf16"
    return f"""
  simt.kernel @{name}(%a: !simt.slice<{t}>, %b: !simt.slice<{t}>, %c: !simt.slice<{t}>,
                      %out: !simt.disjoint_slice<{t}, 1d>)
      contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg3)]> {{
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<{t}, 1d>, !simt.thread_index<1d> {{
    ^bb0(%old: {t}):
      %x = simt.load %a[%i] : !simt.slice<{t}>
      %y = simt.load %b[%i] : !simt.slice<{t}>
      %z = simt.load %c[%i] : !simt.slice<{t}>
      {body}
      simt.yield %r : {t}
    }}
    simt.return
  }}"""


TEXT = (
    "builtin.module {\n"
    + "\n".join(
        [
            unary("narrow_bf16", "f32", "bf16", "%r = arith.truncf %v : f32 to bf16"),
            unary("narrow_f16", "f32", "f16", "%r = arith.truncf %v : f32 to f16"),
            unary("widen_bf16", "bf16", "f32", "%r = arith.extf %v : bf16 to f32"),
            ternary("add_bf16", "%r = arith.addf %x, %y : bf16"),
            ternary("mul_bf16", "%r = arith.mulf %x, %y : bf16"),
            ternary("fma_bf16", "%r = math.fma %x, %y, %z : bf16"),
        ]
    )
    + "\n}\n"
)


@pytest.fixture(scope="module")
def both():
    return ferrox.load(TEXT, device="gpu"), ferrox.load(TEXT, device="cpu")


def f32_cases(rng, n: int) -> np.ndarray:
    ties = [0x3F808000, 0x3F818000, 0xBF808000, 0x00008000, 0x00018000, 0x7F7F8000, 0x7F7FFFFF]
    edges = [0, 0x80000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F800000, 0xFF800000]
    near = (rng.integers(0, 2**16, n // 4) << 16) | 0x8000
    bits = np.concatenate(
        [np.array(ties + edges, np.uint64), near, rng.integers(0, 2**32, n, dtype=np.uint64)]
    )
    return bits.astype(np.uint32).view(np.float32)


def on_both(both, name: str, make_out, *inputs) -> tuple[np.ndarray, np.ndarray]:
    n = len(inputs[0])
    results = []
    for module in both:
        out = make_out(n)
        module[name][-(-n // 256), 256](*inputs, out)
        results.append(np.asarray(out).view(np.uint16).copy())
    return results[0], results[1]


def bf16_out(n: int):
    return ferrox.bf16_bits(np.full(n, 0x7FC1, np.uint16))


def test_f32_to_bf16_and_f16_bits_match_the_gpu_on_finite_and_infinite_values(both):
    xs = f32_cases(np.random.default_rng(3), 1 << 16)
    xs = xs[~np.isnan(xs)]
    gpu, cpu = on_both(both, "narrow_bf16", bf16_out, xs)
    assert np.array_equal(gpu, cpu)
    gpu, cpu = on_both(both, "narrow_f16", lambda n: np.full(n, 7, np.float16), xs)
    assert np.array_equal(gpu, cpu)


def test_nan_conversions_match_the_gpu(both):
    """The engine makes every converted NaN 0x7FFF (CUDA's own emulation of the conversion
    does); this pins that the hardware agrees."""
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FFF8000], np.uint32)
    xs = nans.view(np.float32)
    gpu, cpu = on_both(both, "narrow_bf16", bf16_out, xs)
    assert [hex(v) for v in gpu] == [hex(v) for v in cpu]
    gpu, cpu = on_both(both, "narrow_f16", lambda n: np.full(n, 7, np.float16), xs)
    assert [hex(v) for v in gpu] == [hex(v) for v in cpu]


def test_bf16_loads_widen_exactly_on_both(both):
    bits = np.random.default_rng(4).integers(0, 2**16, 1 << 14, dtype=np.uint64).astype(np.uint16)
    bits = bits[(bits & 0x7F80) != 0x7F80]  # finite: NaN payloads through cvt are the GPU's own
    outs = []
    for module in both:
        out = np.full(len(bits), np.nan, np.float32)
        module["widen_bf16"][-(-len(bits) // 256), 256](ferrox.bf16_bits(bits), out)
        outs.append(out.view(np.uint32))
    assert np.array_equal(outs[0], outs[1])
    assert np.array_equal(outs[1], bits.astype(np.uint32) << 16)


@pytest.mark.parametrize("name", ["add_bf16", "mul_bf16", "fma_bf16"])
def test_bf16_arithmetic_matches_the_gpu_bit_for_bit(both, name):
    rng = np.random.default_rng(5)
    draw = []
    for _ in range(3):
        bits = rng.integers(0, 2**16, 1 << 15, dtype=np.uint64).astype(np.uint16)
        draw.append(bits)
    keep = np.ones(len(draw[0]), bool)
    for bits in draw:
        keep &= (bits & 0x7F80) != 0x7F80
    a, b, c = (ferrox.bf16_bits(bits[keep]) for bits in draw)
    gpu, cpu = on_both(both, name, bf16_out, a, b, c)
    same = gpu == cpu
    nan = ((gpu & 0x7F80) == 0x7F80) & ((gpu & 0x7F) != 0)  # NaN (0 * inf cannot arise: finite)
    assert same.all(), [(hex(int(g)), hex(int(h))) for g, h in zip(gpu[~same], cpu[~same])][:10]
    assert not nan.any()


def bound_ok(got, x, y) -> bool:
    exact = x.astype(np.float64) @ y.astype(np.float64)
    bound = x.shape[1] * 2.0**-23 * (np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64))
    return bool((np.abs(got - exact) <= bound).all())


def test_torch_bf16_tensors_into_the_tile_matmul(torch):
    kernel = ferrox.load(MATMUL, device="gpu")["matmul_bf16"]
    m, n, k = 1030, 1050, 1000
    a = torch.rand(m, k, device="cuda").sub(0.5).bfloat16()
    b = torch.rand(k, n, device="cuda").sub(0.5).bfloat16()
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel(c, a, b)
    torch.cuda.synchronize()
    assert bound_ok(c.cpu().numpy(), a.float().cpu().numpy(), b.float().cpu().numpy())
    problems = []
    for wrong in (a.float(), a.half()):
        with pytest.raises(ferrox.LaunchError) as info:
            kernel(c, wrong, b)
        problems += info.value.problems
    assert problems == [
        "%a (argument #1) of @matmul_bf16 is a tile tensor of bf16, but the array holds f32 (its "
        "element type must be bf16)",
        "%a (argument #1) of @matmul_bf16 is a tile tensor of bf16, but the array holds f16 (its "
        "element type must be bf16)",
    ]


def test_numpy_bf16_bits_are_staged_to_the_gpu():
    kernel = ferrox.load(MATMUL, device="gpu")["matmul_bf16"]
    rng = np.random.default_rng()
    a, b = (
        ferrox.to_bf16(rng.uniform(-1, 1, (300, 200))),
        ferrox.to_bf16(rng.uniform(-1, 1, (200, 130))),
    )
    c = np.full((300, 130), np.nan, np.float32)
    kernel(c, a, b)
    assert bound_ok(c, a.float32(), b.float32())


def test_torch_cpu_bf16_tensors_on_the_interpreter(torch):
    kernel = ferrox.load(MATMUL, device="cpu")["matmul_bf16"]
    a = torch.rand(70, 40).sub(0.5).bfloat16()
    b = torch.rand(40, 65).sub(0.5).bfloat16()
    c = torch.full((70, 65), float("nan"))
    kernel(c, a, b)
    assert bound_ok(c.numpy(), a.float().numpy(), b.float().numpy())


def test_python_matmul_bf16_example_at_its_gpu_size(torch):
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python" / "tile_matmul_bf16.py")]
        + ["--device", "gpu", "--m", "1030", "--n", "1050", "--k", "1000"],
        capture_output=True,
        text=True,
        cwd=ROOT / "examples",
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "tile matmul bf16 1030x1000 @ 1000x1050 on gpu: matches NumPy"
    )


def test_torch_and_cupy_float16_tensors(both, torch):
    gpu = both[0]["narrow_f16"]
    x = torch.randn(5000, device="cuda") * 1e4  # past f16's range too: infinities
    out = torch.full((5000,), float("nan"), device="cuda", dtype=torch.float16)
    gpu[-(-5000 // 256), 256](x, out)
    torch.cuda.synchronize()
    assert torch.equal(out.view(torch.int16), x.half().view(torch.int16))
    with pytest.raises(ferrox.LaunchError) as info:
        gpu[-(-5000 // 256), 256](x, out.bfloat16())
    assert info.value.problems == [
        "%out (argument #1) of @narrow_f16 is a disjoint slice of f16, but the array holds bf16 "
        "(its element type must be f16)"
    ]
    cupy = pytest.importorskip("cupy")
    cx = cupy.asarray(x.cpu().numpy())
    cout = cupy.full(5000, cupy.nan, dtype=cupy.float16)
    gpu[-(-5000 // 256), 256](cx, cout)
    cupy.cuda.runtime.deviceSynchronize()
    assert (cupy.asnumpy(cout).view(np.uint16) == x.half().cpu().numpy().view(np.uint16)).all()
