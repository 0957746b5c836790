"""16-bit floats exchanged through shared memory two a word (lowering/tile_to_simt/
exchange_pairs.py): which layout changes qualify, the halved layouts, and the fused attention's
bf16 output staged as i32 words (the slab path) and the mma.sync GEMM's bf16 C (the whole-tile
path), on the interpreter bit for bit what the knob off gives, and the f32 output rounded."""

# The fixture `example` comes from test_attention_fused; ruff takes its uses for redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import numpy as np
import pytest
from tile_gemm import matmul
from xdsl.dialects.builtin import BFloat16Type, IntegerType, bf16, f32

import ferrox
from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt import exchange_pairs
from ferrox.lowering.tile_to_simt.layout import chunked
from ferrox.lowering.tile_to_simt.matrix import row_tensor_core_layout
from ferrox.passes.verify_disjoint import collect

from .conftest import lower_text, simt_kernel
from .test_attention_fused import example  # noqa: F401
from .test_bf16_output import attention_module, poisoned


def test_which_exchanges_go_two_a_word():
    rows = row_tensor_core_layout(64, 64, 128)
    target = chunked((64, 64), 128, 8)
    assert rows.regs[0] == 0 and target.regs[0] == 0
    assert exchange_pairs.applies(rows, target, bf16)
    assert not exchange_pairs.applies(rows, target, f32)  # 4-byte elements go as they are
    transposed = chunked((64, 64), 128, 1)  # one element a chunk: bit 0 is a thread bit
    assert transposed.regs[:1] != (0,)
    assert not exchange_pairs.applies(rows, transposed, bf16)


def test_the_halved_layout_holds_the_pairs():
    """Register `r` of the halved layout is the word of registers `2r` and `2r + 1`."""
    layout = chunked((16, 64), 64, 8)
    half = exchange_pairs.halved(layout)
    assert half.shape == (16, 32) and half.threads == 64
    for r in range(half.num_regs):
        assert 2 * half.static_element(r) == layout.static_element(2 * r)
        assert layout.static_element(2 * r + 1) == layout.static_element(2 * r) + 1
    assert [b + 1 for b in half.lanes if b is not None] == [b for b in layout.lanes if b]


def shared_stores(kernel) -> dict[str, int]:
    out: dict[str, int] = {}
    for op in kernel.walk():
        if isinstance(op, simt.SharedStoreOp):
            key = str(op.value.type)
            out[key] = out.get(key, 0) + 1
    return out


def test_the_attention_output_is_staged_in_words(example, monkeypatch):
    _, op = attention_module(example, D=128, BN=128, OUT_BF16=True)
    stores = shared_stores(op)
    assert "bf16" not in stores and stores.get("i32", 0) > 0
    assert collect(op) == []
    monkeypatch.setattr(exchange_pairs, "PAIRS", False)
    _, plain = attention_module(example, D=128, BN=128, OUT_BF16=True)
    assert shared_stores(plain)["bf16"] == 2 * stores["i32"]


@pytest.mark.parametrize("heads, seq, dim, causal, bn", [(2, 130, 64, True, 64)])
def test_the_attention_output_is_the_same_either_way(
    example, interpreter, monkeypatch, heads, seq, dim, causal, bn
):
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((heads, seq, dim))) for _ in range(3))
    got = []
    for pairs in (True, False):
        monkeypatch.setattr(exchange_pairs, "PAIRS", pairs)
        module, _ = attention_module(example, D=dim, CAUSAL=causal, BN=bn, OUT_BF16=True)
        out = poisoned((heads, seq, dim), "bf16")
        interpreter(module, "attention", [out, q, k, v])
        got.append(np.asarray(out).view(np.uint16).copy())
    assert np.array_equal(got[0], got[1])  # bit for bit


def test_the_mma_sync_gemm_c_is_the_same_either_way(interpreter, monkeypatch):
    """The portable path's bf16 C goes through the whole-tile exchange in words."""
    rng = np.random.default_rng()
    a = ferrox.to_bf16(rng.uniform(-1, 1, (100, 90)))
    b = ferrox.to_bf16(rng.uniform(-1, 1, (90, 70)))
    got = []
    for pairs in (True, False):
        monkeypatch.setattr(exchange_pairs, "PAIRS", pairs)
        module = lower_text(matmul(64, 64, 32, out="bf16"))
        kernel = simt_kernel(module, "mm")
        element = IntegerType(32) if pairs else BFloat16Type()
        assert str(element) in shared_stores(kernel)
        c = poisoned((100, 70), "bf16")
        interpreter(module, "mm", [c, a, b])
        got.append(np.asarray(c).view(np.uint16).copy())
    assert np.array_equal(got[0], got[1])
    sums = poisoned((100, 70), "f32")
    interpreter(lower_text(matmul(64, 64, 32)), "mm", [sums, a, b])
    assert np.array_equal(got[0], np.asarray(ferrox.to_bf16(sums)).view(np.uint16))
