"""A GEMM's 1024-byte aligned stage arrays after a small dynamic array: the layout puts each
stage on a 1024-byte boundary whatever comes first (the contract counting the padding), and the
kernel still runs and matches NumPy (fresh random data, NaN-poisoned output)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects import simt
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "simt" / "gemm_wgmma.mlir"
SMALL = "    %flag = simt.shared_alloc {dynamic} : !simt.shared<f32, [4]>\n"


def _bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


def _small_first() -> tuple[str, int]:
    """The example with a 16-byte dynamic array before its first stage, and its shared bytes
    grown by the 1024 the stages move up (each stage a multiple of 1024 bytes)."""
    text = EXAMPLE.read_text()
    first = text.index("    %as0 = simt.shared_alloc {dynamic, align = 1024}")
    text = text[:first] + SMALL + text[first:]
    (old,) = re.findall(r"shared_bytes = (\d+)", text)
    new = int(old) + 1024
    return text.replace(f"shared_bytes = {old}", f"shared_bytes = {new}"), new


def test_the_stages_start_on_1024_byte_boundaries_after_a_small_array():
    text, shared = _small_first()
    module = parse_module(make_context(), text, "gemm_wgmma.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, simt.KernelOp))
    offsets, total = simt.dynamic_layout(kernel)
    at = {op.result.name_hint: offset for op, offset in offsets.items()}
    assert at["flag"] == 0 and at["as0"] == 1024
    stages = [at[f"{x}s{s}"] for x in "ab" for s in range(3)]
    assert all(offset % 1024 == 0 for offset in stages) and len(set(stages)) == 6
    assert total == shared


def test_the_gemm_with_a_small_array_first_matches_numpy():
    text, shared = _small_first()
    module = parse_module(make_context(), text, "gemm_wgmma.mlir")
    rng = np.random.default_rng()
    m, n, k = 128, 256, 64
    a, b = _bf16(rng.uniform(-1, 1, (m, k))), _bf16(rng.uniform(-1, 1, (n, k)))
    c = np.full(m * n, np.nan, np.float32)
    args = [a.reshape(-1), b.reshape(-1), c, m, n, k]
    run_simt_kernel(module, "gemm_wgmma", (1, 1, 1), (256, 1, 1), args, shared)
    exact = a.astype(np.float64) @ b.astype(np.float64).T
    bound = k * 2.0**-23 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64).T)
    assert np.all(np.abs(c.reshape(m, n) - exact) <= bound + 1e-30)


def test_the_old_shared_bytes_no_longer_cover_the_arrays():
    text, shared = _small_first()
    text = text.replace(f"shared_bytes = {shared}", f"shared_bytes = {shared - 1024}")
    module = parse_module(make_context(), text, "gemm_wgmma.mlir")
    with pytest.raises(VerifyException, match=f"take {shared} bytes, but its launch contract"):
        module.verify()
