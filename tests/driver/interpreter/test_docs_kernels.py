"""The kernels of docs/dialects/simt.md (tests/filecheck/dialects/simt/docs.mlir) do what the page
says they do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox.driver.interpreter import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

DOCS = (
    Path(__file__).resolve().parents[3] / "tests" / "filecheck" / "dialects" / "simt" / "docs.mlir"
)


@pytest.fixture(scope="module")
def docs():
    return parse_module(make_context(), DOCS.read_text(), str(DOCS))


def test_scale(docs, rng):
    x, y = rng.standard_normal(300, dtype=np.float32), np.full(300, np.nan, np.float32)
    run_simt_kernel(docs, "scale", (3, 1, 1), (128, 1, 1), [x, y, 300, np.float32(0.5)])
    assert np.array_equal(y, x * np.float32(0.5))


def test_use_axpy_calls_a_device_function(docs, rng):
    x, y = rng.standard_normal(500, dtype=np.float32), rng.standard_normal(500, dtype=np.float32)
    expected = np.float32(3) * x + y
    run_simt_kernel(docs, "use_axpy", (2, 1, 1), (256, 1, 1), [x, y, 3.0])
    assert np.array_equal(y, expected)


def test_fill_2d_threads_past_the_stride_write_nothing(docs):
    out = np.full(64 * 20, np.nan, np.float32)
    # 80 columns of threads over rows of 64: any write by a column >= 64 would be a second
    # write of an element (reported as a race) or land in the wrong row.
    run_simt_kernel(docs, "fill_2d", (5, 2, 1), (16, 16, 1), [out, 7.0])
    assert (out == 7.0).all()


def test_fill_rt(docs):
    out = np.full(50 * 9, np.nan, np.float32)
    run_simt_kernel(docs, "fill_rt", (2, 2, 1), (32, 8, 1), [out, 50, 2.0])
    assert (out == 2.0).all()


def test_per_warp_ballot(docs):
    out = np.full(9, -7, np.int32)
    run_simt_kernel(docs, "per_warp", (2, 1, 1), (128, 1, 1), [out])
    assert out[:8].tolist() == [0xFFFF] * 8 and out[8] == -7


def test_ids(docs):
    out = np.full(130, -1, np.int64)
    run_simt_kernel(docs, "ids", (3, 1, 1), (64, 1, 1), [out])
    assert out.tolist() == list(range(130))


def test_butterfly(docs):
    out = np.full(2, np.nan, np.float32)
    run_simt_kernel(docs, "butterfly", (2, 1, 1), (32, 1, 1), [out, 1.25, 3])
    assert out.tolist() == [1.25, 1.25]


def test_counters(docs):
    c, f = np.array([100], np.int32), np.array([0.5], np.float32)
    run_simt_kernel(docs, "counters", (1, 1, 1), (256, 1, 1), [c, f, 6, np.float32(0.25)])
    # Without barriers the threads run one after another: simulate that order.
    v, value = 6, 100
    for _ in range(256):
        value = value + v - v
        value = max(min(value, v), v)
        value = ((value & v) | v) ^ v
        o8, value = value, v
        if value == o8:
            value = v
    assert c[0] == value
    assert f[0] == np.float32(0.5 + 256 * 0.25)


def test_raw_copy(docs, rng):
    src, dst = rng.standard_normal(40, dtype=np.float32), np.full(40, np.nan, np.float32)
    run_simt_kernel(docs, "raw_copy", (1, 1, 1), (64, 1, 1), [src, dst, 40])
    assert np.array_equal(dst, src)


def test_reverse_block(docs, rng):
    x = rng.standard_normal(100, dtype=np.float32)
    out = np.full(128, np.nan, np.float32)
    big = np.zeros(128, np.float32)
    big[:100] = x
    run_simt_kernel(docs, "reverse_block", (2, 1, 1), (64, 1, 1), [big, out])
    assert np.array_equal(out, big.reshape(2, 64)[:, ::-1].reshape(-1))
    short = np.full(100, np.nan, np.float32)
    run_simt_kernel(docs, "reverse_block", (2, 1, 1), (64, 1, 1), [x, short])
    padded = np.zeros(128, np.float32)
    padded[:100] = x
    assert np.array_equal(short, padded.reshape(2, 64)[:, ::-1].reshape(-1)[:100])
