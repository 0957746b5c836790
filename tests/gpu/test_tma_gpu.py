"""TMA loads on the GPU (examples/simt/tma_copy.mlir and tma_copy_f32.mlir): 2-D arrays copied
box by box through shared memory by `cp.async.bulk.tensor` on mbarriers, the tensor maps built
by the runtime at each launch and passed as grid-constant parameters; compared with the input
exactly, outputs poisoned, shapes ragged (not multiples of the box) included; a tensor map that
would reach past its slice is refused before anything runs.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_tma_gpu.py`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ferrox
from ferrox.driver.runtime.errors import ArgumentError

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "simt"
SHAPES = [(32, 32), (45, 36), (70, 100), (1000, 1004), (1, 4)]


@pytest.fixture(scope="module")
def module():
    """Both examples' kernels by name."""
    return {
        name: ferrox.load(EXAMPLES / f"{name}.mlir", device="gpu")[name]
        for name in ("tma_copy", "tma_copy_f32")
    }


def _grid(rows: int, cols: int, box_rows: int, box_cols: int) -> tuple[int, int]:
    return -(-rows // box_rows), -(-cols // box_cols)


@pytest.mark.parametrize("rows, cols", SHAPES)
def test_f32_copy(module, rows, cols):
    rng = np.random.default_rng()
    x = rng.standard_normal(rows * cols, dtype=np.float32)
    out = np.full(rows * cols, np.nan, np.float32)
    module["tma_copy_f32"][_grid(rows, cols, 64, 32), 128](x, rows, cols, out)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("rows, cols", [(64, 64), (70, 72), (130, 136), (1000, 1000), (3, 8)])
def test_bf16_swizzled_copy(module, torch, rows, cols):
    x = torch.randn(rows * cols, device="cuda").to(torch.bfloat16)
    out = torch.full((rows * cols,), float("nan"), device="cuda", dtype=torch.bfloat16)
    module["tma_copy"][_grid(rows, cols, 64, 64), 128](x, rows, cols, out)
    torch.cuda.synchronize()
    assert torch.equal(out, x)


def test_a_map_past_the_slice_is_refused(module):
    x = np.zeros(32 * 32 - 1, np.float32)  # one element short of 32 x 32
    out = np.full(32 * 32, np.nan, np.float32)
    with pytest.raises((ArgumentError, ferrox.LaunchError)) as info:
        module["tma_copy_f32"][(1, 1), 128](x, 32, 32, out)
    assert "its TMA tensor map of 32 x 32 elements reaches past the slice's 1023 elements" in str(
        info.value
    )
    assert np.isnan(out).all()
