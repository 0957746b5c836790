"""Reading entries and launch directives out of PTX, including what llvmlite makes of vecadd.ll."""

from pathlib import Path

import pytest

from ferrox.driver.runtime.ptx import EntryInfo, parse_entries

VECADD_LL = Path(__file__).with_name("vecadd.ll")


def compile_ll(text: str, chip: str = "sm_90") -> str:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(text)
    module.verify()
    machine = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
        cpu=chip, features="+ptx80", opt=3
    )
    return machine.emit_assembly(module)


def test_llvm_reqntid_attribute_becomes_ptx_reqntid():
    ptx = compile_ll(VECADD_LL.read_text())
    assert ".reqntid 256, 1, 1" in ptx
    assert parse_entries(ptx) == {
        "vecadd": EntryInfo("vecadd", (8,) * 6, reqntid=(256, 1, 1)),
        "vecadd_any": EntryInfo("vecadd_any", (8,) * 6),
    }


def test_directives_params_and_comments():
    ptx = b"""
    // .entry commented(.param .u32 x) {
    .visible .entry k2d(
        .param .u64 .ptr .global .align 4 k2d_param_0,
        .param .f32 k2d_param_1, /* a scalar */
        .param .u32 k2d_param_2,
        .param .align 8 .b8 k2d_param_3[24],
        .param .u16 k2d_param_4
    )
    .maxntid 128, 2
    .minnctapersm 1
    {
        ret;
    }
    .entry noargs()
    .reqntid 32
    {
        ret;
    }
    """
    assert parse_entries(ptx) == {
        "k2d": EntryInfo("k2d", (8, 4, 4, 24, 2), maxntid=(128, 2, 1)),
        "noargs": EntryInfo("noargs", (), reqntid=(32, 1, 1)),
    }


def test_unsizable_parameters_are_an_error():
    with pytest.raises(ValueError, match="cannot size PTX parameter"):
        parse_entries(".entry k(.param .weird p) { ret; }")
