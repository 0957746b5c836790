"""The SIMT SGEMM example and its Python twin compile to the same memory and arithmetic
instruction mix (the twin is the example written in Python, tuned together: docs/performance.md,
"Softmax and SGEMM (H4)"), and the inner loop is the tuned one: per k, 8 scalar x loads, two
16-byte y loads and 64 FMAs, with the y stage's 4-column groups permuted (the loads' offsets 0
and 64 floats apart)."""

from __future__ import annotations

import re
import runpy
from collections import Counter
from pathlib import Path

import ferrox

ROOT = Path(__file__).resolve().parents[2]
KINDS = r"fma\.rn\.f32|ld\.shared[.\w]*|st\.shared[.\w]*|cp\.async[.\w]*|bar\.sync|st\.global[.\w]*"


def mix(ptx: str) -> Counter:
    return Counter(re.findall(KINDS, ptx))


def test_example_and_twin_have_the_same_mix():
    example = ferrox.compile(ROOT / "examples" / "simt" / "sgemm_micro.mlir", cache=False).ptx
    ns = runpy.run_path(str(ROOT / "examples" / "python" / "simt_sgemm_micro.py"), run_name="t")
    twin = ferrox.compile(ns["sgemm_micro"].ir(), cache=False).ptx
    assert mix(example) == mix(twin)
    counts = mix(example)
    assert counts["fma.rn.f32"] == 64
    assert counts["ld.shared.b32"] == 8
    assert counts["ld.shared.v4.b32"] == 2
    assert counts["cp.async.cg.shared.global"] == 8
    # the two y loads of a k: 64 floats (256 bytes) apart, the permuted layout
    offsets = re.findall(r"ld\.shared\.v4\.b32\s+\{[^}]*\},\s*\[%rd\d+(?:\+(-?\d+))?\]", example)
    first, second = (int(o or 0) for o in offsets)
    assert abs(first - second) == 256  # the plain layout's are 16 bytes apart
