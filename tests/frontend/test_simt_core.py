"""The SIMT frontend's core: a Python vecadd becomes located simt IR, compiles, and runs on the
CPU interpreter with results equal to NumPy's (outputs poisoned with NaN first)."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f32

HERE = __file__


@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def vecadd(a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + b[i]


def line_of(text: str) -> int:
    """The line of this file that holds `text` (a kernel's statement)."""
    with open(HERE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if text in line and "line_of(" not in line:
                return number
    raise AssertionError(text)


def test_vecadd_ir_is_the_mlir_examples_kernel_located_at_python_lines():
    ir = vecadd.ir()
    d = line_of("def vecadd(")
    signature = (
        f'simt.kernel @vecadd(%a: !simt.slice<f32> loc("{HERE}":{d}:12), '
        f'%b: !simt.slice<f32> loc("{HERE}":{d}:27), '
        f'%out: !simt.disjoint_slice<f32, 1d> loc("{HERE}":{d}:42)) '
        "contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), "
        "len(arg1) >= len(arg2)]>"
    )
    assert signature in ir
    w = line_of("w = simt.thread_index_1d()")
    assert f'%w = simt.thread_index_1d loc("{HERE}":{w}:9)' in ir
    assert f'%i = simt.witness_value %w : !simt.thread_index<1d> loc("{HERE}":{w + 1}:9)' in ir
    store = line_of("out[w] = a[i] + b[i]")
    assert f'simt.load %a[%i] : !simt.slice<f32> loc("{HERE}":{store}:14)' in ir
    assert "arith.addf" in ir and f'loc("{HERE}":{store}:5)' in ir


@pytest.mark.parametrize("n", [1, 256, 1000])
def test_vecadd_runs_on_the_interpreter_and_matches_numpy(n):
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    vecadd.on("cpu")[-(-n // 256), 256](a, b, out)
    assert np.array_equal(out, a + b)


def test_a_launch_the_checker_refuses_is_a_launch_error():
    import ferrox

    n = 1000
    a = np.ones(n, np.float32)
    out = np.full(n, np.nan, np.float32)
    with pytest.raises(ferrox.LaunchError) as refused:
        vecadd.on("cpu")[2, 256](a, a, out)
    assert "the grid does not cover %out" in str(refused.value)
    assert np.isnan(out).all()  # nothing ran
