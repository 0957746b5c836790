"""`benchmarks/compile_nvrtc.py`'s NVRTC side compiles each of `compile_peers.py`'s CUDA C
kernels, to PTX and to a cubin (where NVRTC is installed: `pip install nvidia-cuda-nvrtc`)."""

from __future__ import annotations

import pytest

from benchmarks import compile_nvrtc, compile_peers


def _nvrtc_missing() -> str | None:
    try:
        from cuda.bindings import nvrtc

        nvrtc.nvrtcVersion()
    except Exception as e:  # the library is not installed here
        return f"NVRTC is not installed here ({type(e).__name__})"
    return None


@pytest.mark.parametrize("kernel", compile_peers.KERNELS)
def test_nvrtc_compiles_the_peers_kernel(kernel):
    if (missing := _nvrtc_missing()) is not None:
        pytest.skip(missing)
    source = compile_peers.CUDA[kernel].format(rep="r0")
    ptx = compile_nvrtc.nvrtc_compile(source, kernel, cubin=False)
    assert f".entry {kernel}(".encode() in ptx
    cubin = compile_nvrtc.nvrtc_compile(source, kernel, cubin=True)
    assert cubin.startswith(b"\x7fELF") and kernel.encode() in cubin
