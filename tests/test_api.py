"""The Python API compiles through the cache and gives back the same kernels and ABI."""

from __future__ import annotations

from pathlib import Path

from ferrox import api

VECADD = Path(__file__).resolve().parents[1] / "examples" / "simt" / "vecadd.mlir"


def test_compile_vecadd_through_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    first = api.compile(VECADD)
    assert ".entry vecadd" in first.ptx and ".reqntid 256, 1, 1" in first.ptx
    info = first["vecadd"]
    assert info.signature == ("slice:f32", "slice:f32", "slice:f32")
    assert info.block == (256, 1, 1)
    assert list((tmp_path).rglob("*.ptx.json")), "the compiled module is on disk"
    again = api.compile(VECADD)
    assert again == first
    assert api.compile(VECADD, cache=False) == first
