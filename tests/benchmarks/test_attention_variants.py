"""The attention benchmark's variant names (benchmarks/attention.py): lowering knobs and the
example's Constexpr switches after colons, each compile with its settings and none after it."""

from __future__ import annotations

import pytest

from benchmarks import attention
from ferrox.lowering.tile_to_simt import attention_tma, exchange_slabs


def test_knobs_and_constants_parse():
    assert attention.parse_variant("wgmma:tmaq=1:recip=1") == (
        "wgmma",
        {"tmaq": True, "recip": True},
    )
    assert attention.parse_variant("wgmma:slabs=2") == ("wgmma", {"slabs": 2})
    for bad in ("wgmma:reciprocal=1", "wgmma:recip=2", "wgmma:slabs=", "wgmma:tmaq=01"):
        with pytest.raises(ValueError, match="recip"):
            attention.parse_variant(bad)


@pytest.mark.parametrize("variant", ["wgmma:tmaq=1:recip=1", "wgmma:recip=1:slabs=2"])
def test_a_variant_compiles_with_its_settings_and_restores_them(variant):
    kernel = attention.example().attention
    art = attention.variant_artifact(kernel, variant, D=64, CAUSAL=True, BM=64, BN=64)
    maps = art.kernels["attention"].tensor_maps
    assert len(maps) == (3 if "tmaq" in variant else 2)  # q's map too with `tmaq`
    ptx = art.ptx[art.ptx.index(".entry attention(") :]  # the wgmma kernel, not its twin
    assert ptx.count("cvt.f64.f32") <= 8  # a division a row (`recip`), not 32 a thread
    shared = art.kernels["attention"].contract.shared_bytes
    assert shared == (49344 if "slabs" in variant else 57680)  # q's barrier with `tmaq`
    assert not attention_tma.TMA_Q and exchange_slabs.SLABS == 1
