"""Every SIMT example goes .mlir -> PTX (lower-to-llvm, export, LLVM NVPTX) -> cubin (ptxas -v),
and its PTX has what the lowering promises: an entry with the ABI's parameters, `.reqntid` where
contracted, barriers, shuffles, read-only (`ld.global.nc`) loads from shared slices, atomics,
and no local memory or spills."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from compiled import assembled as assemble_once
from compiled import compiled as compiled_once

from ferrox.artifact import KernelArtifact, ModuleArtifact, ParamKind
from ferrox.targets.toolchain import find_ptxas

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "simt"


@dataclass(frozen=True)
class Expect:
    block: tuple[int, int, int] | None
    signature: tuple[str, ...]
    barrier: bool = False
    shuffle: bool = False
    atomic: bool = False
    nc_loads: bool = True
    """Shared-slice reads through the non-coherent path."""
    plain_global_loads: int = 0
    """Coherent global loads: a get_mut's old value, or a raw pointer's element."""
    vector_accesses: bool = False
    """Every global access of the kernel is a 16-byte vector load or store (on the aligned path)."""
    traps: bool = True
    max_registers: int = 64
    """Some range check survives. Where the kernel guards an access itself (`i < len`), or the
    contract's `requires` relations prove it (stated to LLVM as assumptions, lowering/
    simt_to_nvvm/facts.py), LLVM proves the lowering's check dead and removes the trap."""


F32x3 = ("slice:f32", "slice:f32", "slice:f32")
EXPECT = {
    "vecadd": Expect((256, 1, 1), F32x3, traps=False),
    "vecadd_unchecked": Expect(
        None, ("ptr", "ptr", "ptr", "index"), nc_loads=False, plain_global_loads=2, traps=False
    ),
    "vecadd_vec4": Expect((256, 1, 1), (*F32x3, "index"), vector_accesses=True),
    "saxpy": Expect(
        (256, 1, 1), ("f32", "slice:f32", "slice:f32"), plain_global_loads=1, traps=False
    ),
    "neighbour": Expect((256, 1, 1), ("slice:f32", "slice:f32"), barrier=True, traps=False),
    "transpose": Expect((32, 32, 1), ("slice:f32", "slice:f32", "index", "index"), barrier=True),
    "sgemm_naive": Expect((16, 16, 1), (*F32x3, "index", "index", "index")),
    "sgemm_tiled": Expect((16, 16, 1), (*F32x3, "index", "index", "index"), barrier=True),
    "sgemm_micro": Expect(
        (256, 1, 1),
        (*F32x3, "index", "index", "index"),
        barrier=True,
        max_registers=128,  # 64 accumulators a thread; two blocks of 256 fit an SM
    ),
    "warp_reduce": Expect((256, 1, 1), ("slice:f32", "slice:f32"), shuffle=True, traps=False),
    "block_reduce": Expect(
        (256, 1, 1), ("slice:f32", "slice:f32"), barrier=True, atomic=True, traps=False
    ),
    "block_reduce_gridstride": Expect(
        (256, 1, 1), ("slice:f32", "slice:f32"), barrier=True, shuffle=True, atomic=True
    ),
    "histogram": Expect((256, 1, 1), ("slice:i32", "slice:i32"), atomic=True, traps=False),
    "gcd": Expect((256, 1, 1), ("slice:i32", "slice:i32", "slice:i32"), traps=False),
    "alu": Expect((256, 1, 1), ("slice:f32", "slice:f32", "slice:i32", "slice:f32"), traps=False),
    "piecewise": Expect((256, 1, 1), ("slice:f32", "slice:i32", "slice:f32"), traps=False),
    "gemm_wgmma": Expect(
        (256, 1, 1),
        ("slice:bf16", "slice:bf16", "slice:f32", "index", "index", "index"),
        barrier=True,
        max_registers=255,  # 128 f32 accumulators a thread (m64n256), two warpgroups a block
    ),
    "gemm_tma": Expect(
        (256, 1, 1),
        ("slice:bf16", "slice:bf16", "slice:f32", "index", "index", "index"),
        barrier=True,
        nc_loads=False,
        max_registers=168,  # 128 f32 accumulators a thread (2 x m64n128), TMA-fed
    ),
    "tma_copy": Expect(
        (128, 1, 1), ("slice:bf16", "index", "index", "slice:bf16"), barrier=True, nc_loads=False
    ),
    "tma_copy_f32": Expect(
        (128, 1, 1), ("slice:f32", "index", "index", "slice:f32"), barrier=True, nc_loads=False
    ),
}
CHIP = {"gemm_wgmma": "sm_90a", "gemm_tma": "sm_90a"}
"""Examples that opt in to an arch-specific target (`"ferrox.chip"`: wgmma needs sm_90a)."""


def examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*.mlir"))


def compiled(path: Path) -> ModuleArtifact:
    """The example at -O3 without a cubin, compiled once per worker for both tests that read it."""
    return compiled_once(path, CHIP.get(path.stem, "sm_90"))


def signature(kernel: KernelArtifact) -> tuple[str, ...]:
    """The parameters as the table spells them: `slice:<element>`, `ptr`, or the scalar type."""
    spelled = []
    for p in kernel.params:
        if p.kind is ParamKind.POINTER:
            spelled.append("ptr")
        elif p.kind is ParamKind.SCALAR:
            spelled.append(p.element)
        else:
            spelled.append(f"slice:{p.element}")
    return tuple(spelled)


def test_every_example_has_expectations():
    assert sorted(p.stem for p in examples()) == sorted(EXPECT)


@pytest.mark.parametrize("path", examples(), ids=lambda p: p.stem)
def test_expectations_agree_with_the_source(path: Path):
    """The table says what the source uses; a kernel that gains a barrier must say so here."""
    text = path.read_text()
    expect = EXPECT[path.stem]
    assert expect.barrier == ("simt.sync_threads" in text)
    assert expect.shuffle == ("simt.shuffle" in text)
    assert expect.atomic == ("simt.atomic_" in text)
    assert expect.nc_loads == bool(
        re.search(r"simt\.load(_chunk)? %\w+\[[^]]*\](, [^:]*)? : !simt\.slice<", text)
        or "simt.async_copy" in text  # its fallback for an unaligned source: plain loads
    )
    assert (expect.block is not None) == ("contract<" in text)


def entry(ptx: str, name: str) -> str:
    """The text of `.entry name` up to its closing brace."""
    m = re.search(rf"\.entry {name}\((.*?)\n\}}", ptx, re.S)
    assert m is not None, f"no .entry {name} in the PTX"
    return m.group(0)


@pytest.mark.parametrize("path", examples(), ids=lambda p: p.stem)
def test_example_ptx(path: Path):
    name, expect = path.stem, EXPECT[path.stem]
    result = compiled(path)
    assert result.chip == CHIP.get(name, "sm_90")
    assert list(result.kernels) == [name]
    kernel = result[name]
    assert signature(kernel) == expect.signature
    assert (kernel.contract.block if kernel.contract else None) == expect.block

    body = entry(result.ptx, name)
    params = re.findall(
        rf"\.param \.(\w+)(?: \.ptr \.global \.align (\d+))? {name}_param_\d+", body
    )
    assert len(params) == sum(2 if k.startswith("slice:") else 1 for k in expect.signature)
    # Each slice is a global pointer aligned to its element, then a 64-bit length.
    kinds = iter(params)
    for kind in expect.signature:
        first = next(kinds)
        if kind.startswith("slice:"):
            align = "2" if kind == "slice:bf16" else "4"
            assert first == ("u64", align) and next(kinds) == ("u64", "")
        elif kind == "ptr":
            assert first == ("u64", "1")
        else:
            assert first[0] == {"f32": "f32", "index": "u64", "i32": "u32", "i64": "u64"}[kind]

    if expect.block is None:
        assert ".reqntid" not in body
    else:
        assert f".reqntid {', '.join(map(str, expect.block))}" in body
    assert ("bar.sync" in body) == expect.barrier
    assert ("shfl.sync" in body) == expect.shuffle
    assert ("atom." in body) == expect.atomic
    assert ("ld.global.nc." in body) == expect.nc_loads
    assert len(re.findall(r"ld\.global\.(?!nc)", body)) == expect.plain_global_loads
    assert ".local" not in body and "ld.local" not in body and "st.local" not in body
    assert ("trap;" in body) == expect.traps
    if expect.vector_accesses:
        assert len(re.findall(r"ld\.global\.nc\.v4\.b32", body)) == 2
        assert len(re.findall(r"st\.global\.v4\.b32", body)) == 1


needs_ptxas = pytest.mark.skipif(
    find_ptxas() is None, reason="needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)"
)


@needs_ptxas
@pytest.mark.parametrize("path", examples(), ids=lambda p: p.stem)
def test_example_assembles_without_spills(path: Path):
    result = compiled(path)
    assembled = assemble_once(result.ptx, CHIP.get(path.stem, "sm_90"))
    assert assembled.cubin, "ptxas produced a cubin"
    resources = assembled.resources[path.stem]
    assert resources.entry
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert resources.stack_frame == 0 and resources.local_memory == 0
    assert 0 < resources.registers <= EXPECT[path.stem].max_registers
    assert (resources.barriers > 0) == EXPECT[path.stem].barrier
