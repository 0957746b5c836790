"""The fused attention kernel with TMA stages (lowering/tile_to_simt/attention_tma.py, knob on)
launched through the runtime on the fake GPU: its artifact lists two 3-D tensor maps (k's and
v's: the head a plane), each launch builds them from that launch's arguments (the planes the
tensor's first dimension), the kernel runs on the interpreter and matches float64 NumPy, output
NaN-poisoned; a tensor 2 bytes off a 16-byte boundary runs the portable twin instead."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import ferrox
from ferrox.driver.runtime import tensor_map
from ferrox.lowering.tile_to_simt import attention_tma

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "python" / "tile_attention.py"


@pytest.fixture
def example(monkeypatch, tmp_path):
    monkeypatch.setattr(attention_tma, "TMA", True)
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))  # no other test's entries
    spec = importlib.util.spec_from_file_location("tile_attention_tma_launch", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_tma_attention_launch_builds_3d_maps_and_matches_numpy(example, fake, monkeypatch):
    asked = []
    monkeypatch.setattr(tensor_map, "encode_tiled", lambda *args: asked.append(args) or bytes(128))
    heads, seq, dim = 2, 130, 64
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((heads, seq, dim))) for _ in range(3))
    out = np.full((heads, seq, dim), np.nan, np.float32)
    example.attention.on("gpu")(out, q, k, v, D=dim, CAUSAL=True, BM=128)
    assert [launch[0] for launch in fake.launches] == ["attention"]
    # q's, k's and v's maps: bf16, rows = seq, cols = dim, a [BM, 64] box for q (`TMA_Q`) and
    # [BN, 64] for k and v, swizzled, planes = heads
    q_map, kv_map = (seq, dim, (128, 64), 128, heads), (seq, dim, (64, 64), 128, heads)
    assert [a[2:] for a in asked] == [q_map, kv_map, kv_map]
    expected = example.reference(q.float32(), k.float32(), v.float32(), True)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, expected, rtol=1e-2, atol=1e-2)


def test_a_misaligned_tensor_runs_the_portable_twin(example, fake):
    from ferrox.driver.runtime.buffers import DeviceArray

    heads, seq, dim = 1, 70, 64
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((heads, seq, dim))) for _ in range(3))
    bits = np.asarray(k).reshape(-1)  # k 2 bytes into its device storage: no map takes it
    storage = DeviceArray.from_numpy(np.concatenate([bits[:1], bits]), element="bf16")
    shifted = DeviceArray(storage.ptr + 2, k.shape, "bf16", owner=storage)
    out = DeviceArray.from_numpy(np.full((heads, seq, dim), np.nan, np.float32))
    example.attention.on("gpu")(out, q, shifted, v, D=dim, CAUSAL=False, BM=128)
    assert [launch[0] for launch in fake.launches] == ["attention__portable"]
    expected = example.reference(q.float32(), k.float32(), v.float32(), False)
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-2, atol=1e-2)
