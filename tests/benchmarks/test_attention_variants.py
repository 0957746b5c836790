"""The attention benchmark's variant names (benchmarks/attention.py): lowering knobs and the
example's Constexpr switches after colons, each compile with its settings and none after it;
and the default tile by head dim and length."""

from __future__ import annotations

import pytest

from benchmarks import attention
from ferrox.lowering.tile_to_simt import attention_tma, attention_wgmma, exchange_slabs


def test_knobs_and_constants_parse():
    assert attention.parse_variant("wgmma:tmaq=1:recip=1") == (
        "wgmma",
        {"tmaq": True, "recip": True},
    )
    assert attention.parse_variant("wgmma:slabs=2") == ("wgmma", {"slabs": 2})
    assert attention.parse_variant("wgmma:tmaq=0:recip=0:oslabs=1") == (
        "wgmma",
        {"tmaq": False, "recip": False, "oslabs": 1},
    )
    bad = ("wgmma:reciprocal=1", "wgmma:recip=2", "wgmma:slabs=", "wgmma:tmaq=01", "wgmma:oslabs=")
    for name in bad:
        with pytest.raises(ValueError, match="recip"):
            attention.parse_variant(name)


def test_the_old_presets_turn_the_new_defaults_off():
    """A preset of an older kernel (`_OFF`) has neither q by TMA nor the reciprocal nor slabs."""
    _, knobs = attention.parse_variant("wgmma-tma-pipe")
    assert knobs["tmaq"] is False and knobs["recip"] is False and knobs["oslabs"] == 1


@pytest.mark.parametrize(
    "variant, maps, recip, shared",
    [
        ("wgmma", 3, True, 49360),  # the defaults: q's map and barrier, 2 slabs, the reciprocal
        ("wgmma:tmaq=0:recip=0:oslabs=1", 2, False, 57664),  # the thirteenth session's kernel
        ("wgmma:recip=0", 3, False, 49360),
        ("wgmma:oslabs=1", 3, True, 57680),
    ],
)
def test_a_variant_compiles_with_its_settings_and_restores_them(variant, maps, recip, shared):
    kernel = attention.example().attention
    art = attention.variant_artifact(kernel, variant, D=64, CAUSAL=True, BM=64, BN=64)
    assert len(art.kernels["attention"].tensor_maps) == maps  # q's map too with `tmaq`
    ptx = art.ptx[art.ptx.index(".entry attention(") :]  # the wgmma kernel, not its twin
    # a division a row (`recip`, at most 8 f64 conversions), or one an element (32 a thread)
    assert (ptx.count("cvt.f64.f32") <= 8) == recip
    assert art.kernels["attention"].contract.shared_bytes == shared
    assert attention_tma.TMA_Q and attention_wgmma.OUTPUT_SLABS == 2
    assert exchange_slabs.SLABS == 1


def test_the_default_tile_by_head_dim_and_length():
    assert [attention.default_tile(64, s) for s in (1024, 2048, 4096, 8192)] == [
        (64, 64),
        (64, 64),
        (128, 64),
        (128, 64),
    ]
    assert {attention.default_tile(128, s) for s in (1024, 2048, 4096, 8192)} == {(128, 128)}
    assert attention.default_configs([1024, 2048, 4096]) == [
        (64, 64, 64, (1024, 2048)),
        (64, 128, 64, (4096,)),
        (128, 128, 128, (1024, 2048, 4096)),
    ]


def test_the_bf16_output_switch():
    """`obf16=1` is the example's `OUT_BF16`: a bf16 output, staged in half the bytes (d 64 at
    64 x 64 then fits the 48 KiB of static shared memory)."""
    assert attention.parse_variant("wgmma:obf16=1") == ("wgmma", {"obf16": True})
    kernel = attention.example().attention
    arts = [
        attention.variant_artifact(kernel, name, D=64, CAUSAL=True, BM=64, BN=64)
        for name in ("wgmma", "wgmma:obf16=1")
    ]
    outs = [art.kernels["attention"].params[0] for art in arts]
    assert [(p.name, p.element) for p in outs] == [("out", "f32"), ("out", "bf16")]
    shared = [
        art.kernels["attention"].contract.shared_bytes
        + art.kernels["attention"].contract.static_shared_bytes
        for art in arts
    ]
    assert shared == [49360, 45264]
