"""LLVM IR to PTX and PTX to cubin: target selection, LLVM's failures kept out of the caller's
process, the unknown-intrinsic check, and `ptxas -v` parsing."""

from __future__ import annotations

import re

import pytest

from ferrox.parser import parse_module
from ferrox.registry import all_targets, make_context
from ferrox.targets.ptx import (
    PTXError,
    PTXTarget,
    assemble_cubin,
    check_ptx_symbols,
    compile_ptx,
    default_features,
    normalize_features,
    ptx_resources,
    resolve_target,
)
from ferrox.targets.toolchain import (
    FunctionResources,
    ToolchainError,
    find_ptxas,
    parse_ptxas_info,
    run_ptxas,
)

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas (not on PATH)")

VECADD_IR = """
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @vecadd(ptr addrspace(1) noalias readonly %a,
                               ptr addrspace(1) noalias %c, i32 %n) "nvvm.reqntid"="64,1,1" {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %tid, %n
  br i1 %in, label %body, label %exit
body:
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i32 %tid
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i32 %tid
  %x = load float, ptr addrspace(1) %pa, align 4
  %y = fadd float %x, 1.0
  store float %y, ptr addrspace(1) %pc, align 4
  br label %exit
exit:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
"""


def _ir_calling(intrinsic: str, declare: str) -> str:
    return f"""
target triple = "nvptx64-nvidia-cuda"
{declare}
define ptx_kernel void @k(ptr addrspace(1) %p, float %x) {{
  %y = call float @{intrinsic}(float %x)
  store float %y, ptr addrspace(1) %p
  ret void
}}
"""


def test_compile_ptx_emits_an_entry_with_the_requested_target():
    ptx = compile_ptx(VECADD_IR, chip="sm_80", features="+ptx81", opt=2)
    assert ".version 8.1" in ptx and ".target sm_80" in ptx
    assert ".visible .entry vecadd(" in ptx
    assert ".reqntid 64, 1, 1" in ptx
    assert "ld.global.nc.b32" in ptx


def test_opt_zero_skips_the_optimiser_but_still_compiles():
    ptx = compile_ptx(VECADD_IR, opt=0)
    assert ".visible .entry vecadd(" in ptx


def test_unknown_intrinsic_is_named():
    ir = _ir_calling("llvm.nvvm.bogus", "declare float @llvm.nvvm.bogus(float)")
    with pytest.raises(PTXError) as caught:
        compile_ptx(ir)
    assert caught.value.symbols == ("llvm.nvvm.bogus",)
    assert "unknown intrinsic 'llvm.nvvm.bogus'" in str(caught.value)


def test_llvm_aborting_does_not_take_the_caller_down():
    # NVPTX has no lowering for llvm.exp.f32: LLVM prints an error and exits the process.
    ir = _ir_calling("llvm.exp.f32", "declare float @llvm.exp.f32(float)")
    with pytest.raises(PTXError) as caught:
        compile_ptx(ir)
    assert "no libcall available for fexp" in str(caught.value)
    assert ".entry" in compile_ptx(VECADD_IR)  # and this process still works


def test_invalid_llvm_ir_is_reported():
    with pytest.raises(PTXError) as caught:
        compile_ptx("define void @f() { ret i32 0 }")
    assert "invalid LLVM IR" in str(caught.value)


@pytest.mark.parametrize(
    ("chip", "features", "message"),
    [
        ("sm_91", "+ptx80", "unknown chip 'sm_91'"),
        ("sm_90", "+ptx99", "unknown NVPTX feature '+ptx99'"),
        ("sm_90", "+sm_90", "unknown NVPTX feature '+sm_90'"),
        ("sm_100", "+ptx80", "sm_100 needs PTX ISA 8.6 or newer, but the features ask for 8.0"),
    ],
)
def test_targets_llvm_would_warn_or_die_on_are_rejected(chip: str, features: str, message: str):
    with pytest.raises(PTXError, match=re.escape(message)):
        compile_ptx(VECADD_IR, chip=chip, features=features)


def test_bad_opt_level():
    with pytest.raises(PTXError, match="optimisation level must be 0, 1, 2 or 3, got 5"):
        compile_ptx(VECADD_IR, opt=5)


def test_features_and_defaults():
    assert normalize_features("ptx80") == "+ptx80"
    assert normalize_features("+ptx80, -ptx81") == "+ptx80,-ptx81"
    assert default_features("sm_90") == "+ptx80"
    assert default_features("sm_80") == "+ptx80"
    assert default_features("sm_100") == "+ptx86"
    assert default_features("sm_110") == "+ptx90"


def test_target_resolution_order():
    module = parse_module(
        make_context(),
        'builtin.module attributes {"ferrox.chip" = "sm_80", "ferrox.features" = "+ptx82"} {}',
    )
    assert resolve_target(module) == ("sm_80", "+ptx82")
    assert resolve_target(module, chip="sm_90") == ("sm_90", "+ptx82")
    assert resolve_target(module, "sm_90", "ptx85") == ("sm_90", "+ptx85")
    assert resolve_target(None) == ("sm_90", "+ptx80")
    assert resolve_target(None, chip="sm_120") == ("sm_120", "+ptx87")


def test_ptx_symbol_check_ignores_comments():
    check_ptx_symbols("// llvm.nvvm.bogus was here\n.visible .entry k()\n{\n}\n")
    with pytest.raises(PTXError) as caught:
        check_ptx_symbols(
            ".extern .func llvm.nvvm.a\n;\ncall.uni llvm.nvvm.a, ();\ncall.uni llvm.foo.b, ();\n"
        )
    assert caught.value.symbols == ("llvm.nvvm.a", "llvm.foo.b")


def test_ptx_target_options_come_from_the_spec():
    from xdsl.utils.arg_spec import parse_spec

    assert all_targets()["ptx"]() is PTXTarget
    target = PTXTarget.from_spec(parse_spec('ptx{chip=sm_80 features="+ptx81" opt=1}'))
    assert (target.chip, target.features, target.opt) == ("sm_80", "+ptx81", 1)
    assert PTXTarget.from_spec(parse_spec("ptx")) == PTXTarget("", "", 3)


PTXAS_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0], \
8 bytes cmem[2]
ptxas info    : Compile time = 2.652 ms
ptxas info    : Function properties for dev
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'loc' for 'sm_90'
ptxas info    : Function properties for loc
    256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers, 256 bytes cumulative stack size
ptxas info    : Overriding maximum register limit 256 for 'spill' with  24 of maxrregcount option
ptxas info    : Compiling entry function 'spill' for 'sm_90'
ptxas info    : Function properties for spill
    344 bytes stack frame, 340 bytes spill stores, 340 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 344 bytes cumulative stack size
"""


def test_ptxas_info_parse():
    info = parse_ptxas_info(PTXAS_LOG)
    assert set(info) == {"k2", "dev", "loc", "spill"}
    assert info["k2"] == FunctionResources(
        name="k2", entry=True, registers=10, barriers=1, shared_memory=1024,
        constant_memory={0: 360, 2: 8},
    )  # fmt: skip
    assert not info["k2"].spills
    assert info["dev"] == FunctionResources(name="dev")
    assert info["loc"].local_memory == 256 and info["loc"].stack_frame == 256
    assert not info["loc"].spills
    spill = info["spill"]
    assert (spill.registers, spill.spill_stores, spill.spill_loads) == (24, 340, 340)
    assert spill.spills and spill.local_memory == 344


def test_ptxas_lmem_form():
    log = (
        "ptxas info    : Compiling entry function 'old' for 'sm_52'\n"
        "ptxas info    : Used 6 registers, 16 bytes lmem, 328 bytes cmem[0]\n"
    )
    (old,) = parse_ptxas_info(log).values()
    assert (old.registers, old.local_memory, old.constant_memory) == (6, 16, {0: 328})


def test_missing_ptxas_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("ferrox.targets.toolchain.find_ptxas", lambda: None)
    with pytest.raises(ToolchainError, match="nvidia-cuda-nvcc"):
        assemble_cubin(".version 8.0\n.target sm_90\n.address_size 64\n")


@needs_ptxas
def test_assemble_cubin_makes_an_elf_without_spills():
    ptx = compile_ptx(VECADD_IR)
    assert assemble_cubin(ptx, "sm_90")[:4] == b"\x7fELF"
    resources = ptx_resources(ptx, "sm_90")
    assert resources["vecadd"].entry
    assert not resources["vecadd"].spills and resources["vecadd"].local_memory == 0


@needs_ptxas
def test_spills_are_seen():
    loads = "\n".join(
        f"  %g{i} = getelementptr float, ptr addrspace(1) %p, i32 {i}\n"
        f"  %v{i} = load volatile float, ptr addrspace(1) %g{i}"
        for i in range(80)
    )
    stores = "\n".join(
        f"  %h{i} = getelementptr float, ptr addrspace(1) %q, i32 {i}\n"
        f"  store volatile float %v{79 - i}, ptr addrspace(1) %h{i}"
        for i in range(80)
    )
    ir = (
        'target triple = "nvptx64-nvidia-cuda"\n'
        "define ptx_kernel void @spill(ptr addrspace(1) %p, ptr addrspace(1) %q) {\n"
        f"{loads}\n{stores}\n  ret void\n}}\n"
    )
    result = run_ptxas(compile_ptx(ir), "sm_90", extra_args=("--maxrregcount", "24"))
    assert result.resources["spill"].spills
    assert result.resources["spill"].registers <= 24


@needs_ptxas
def test_ptxas_errors_are_reported():
    with pytest.raises(ToolchainError, match="ptxas rejected the PTX for sm_90"):
        run_ptxas(".version 8.0\n.target sm_90\n.address_size 64\nbogus;\n", "sm_90")
