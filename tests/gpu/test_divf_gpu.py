"""f32 division on the GPU (lowering/to_llvm/divf.py: f64 Newton steps instead of
`div.rn.f32`) is IEEE's correctly rounded quotient, bit for bit against NumPy: random bit
patterns, every pair of special and extreme values, quotients beside f32 rounding boundaries
and ties among subnormal quotients. tests/lowering/to_llvm/test_divf.py checks the same ops on
the CPU with the reciprocal modelled; this checks the real `rcp.approx.ftz.f64`.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_divf_gpu.py`.
"""

from __future__ import annotations

import numpy as np
import pytest

import ferrox

pytestmark = pytest.mark.gpu

TEXT = """
builtin.module {
  simt.kernel @divide(%a: !simt.slice<f32>, %b: !simt.slice<f32>,
                      %out: !simt.disjoint_slice<f32, 1d>)
      contract<domain = 1, block = [256],
               requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %r = arith.divf %x, %y : f32
      simt.yield %r : f32
    }
    simt.return
  }
}
"""


def cases(rng) -> tuple[np.ndarray, np.ndarray]:
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -3.0, 1.5, 2.0**-126, 2.0**127, 3.4e38]
        + [np.float32(1.4e-45), np.float32(1.17e-38)],
        np.float32,
    )
    a = [np.repeat(special, len(special)), rng.integers(0, 2**32, 1 << 18, dtype=np.uint64)]
    b = [np.tile(special, len(special)), rng.integers(0, 2**32, 1 << 18, dtype=np.uint64)]
    a[1], b[1] = (x.astype(np.uint32).view(np.float32) for x in (a[1], b[1]))
    # beside rounding boundaries: a = RN32(b * m) for a 25-bit odd m
    bb = (rng.uniform(1, 2, 1 << 16) * 2.0 ** rng.integers(-60, 60, 1 << 16)).astype(np.float32)
    m = (rng.integers(2**23, 2**24, 1 << 16) * 2 + 1) * 2.0 ** (rng.integers(-40, 40, 1 << 16) - 24)
    a.append((bb * m).astype(np.float32))
    b.append(bb)
    # ties among subnormal quotients: odd * k * 2^(j-150) / (odd * 2^j)
    odd = rng.integers(1, 2**10, 1 << 14) * 2 + 1
    j = rng.integers(1, 20, 1 << 14)
    k = (rng.integers(0, 2**23 // odd // 2) * 2 + 1).astype(np.float64)
    a.append((odd * k * 2.0 ** (j - 150)).astype(np.float32))
    b.append((odd * 2.0**j).astype(np.float32))
    return np.concatenate(a).astype(np.float32), np.concatenate(b).astype(np.float32)


def test_f32_division_is_correctly_rounded_on_the_gpu():
    a, b = cases(np.random.default_rng(14))
    out = np.full(len(a), 7.0, np.float32)
    ferrox.load(TEXT, device="gpu")["divide"][-(-len(a) // 256), 256](a, b, out)
    with np.errstate(all="ignore"):
        expected = a / b
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(out), nan)
    wrong = np.flatnonzero(out.view(np.uint32)[~nan] != expected.view(np.uint32)[~nan])
    assert wrong.size == 0, [(a[~nan][i], b[~nan][i], out[~nan][i]) for i in wrong[:5]]
