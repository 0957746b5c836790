"""sat.clamp against NumPy, on fresh random data: through ferrox's CPU reference interpreter
(this package's definition of the op) and, where there is a GPU, through the PTX that
ferrox compiles with this package's lowering."""

from pathlib import Path

import numpy as np
import pytest

import ferrox

KERNEL = Path(__file__).with_name("kernel.mlir")


@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_clamp_matches_numpy_on_the_interpreter(n):
    relu6 = ferrox.load(KERNEL, device="cpu")["relu6"]
    x = np.random.default_rng().uniform(-10, 10, n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)  # poisoned: an element no thread writes stays NaN
    relu6[-(-n // 256), 256](x, y)
    np.testing.assert_array_equal(y, np.clip(x, np.float32(0), np.float32(6)))


def test_clamp_compiles_to_ptx():
    ptx = ferrox.compile(KERNEL).ptx
    assert ".entry relu6" in ptx
    assert "max.NaN.f32" in ptx and "min.NaN.f32" in ptx  # NaN in, NaN out, as NumPy
