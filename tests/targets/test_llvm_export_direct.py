"""Function bodies written as text (`llvm_export.direct`) are llvmlite's text, byte for byte:
every example and every FileCheck input that reaches the llvm dialect, exported both ways, with
the same LLVM IR or the same diagnostics; and the writer writes every function of the examples
(none falls back to llvmlite)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr

from ferrox.diagnostics import DiagnosticError
from ferrox.lowering.pipeline import COMPILE_STAGES, lower_to_llvm
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.llvm_export import NVPTX_TRIPLE, direct, to_llvm_ir
from ferrox.targets.llvm_export import module as export_module
from ferrox.targets.ptx import CHIP_ATTR

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*/*.mlir"))
FILECHECK = sorted((ROOT / "tests" / "filecheck").rglob("*.mlir"))


def _both(module: ModuleOp) -> tuple[str, str]:
    """The module's LLVM IR (or its diagnostics) with bodies written as text, and through
    llvmlite alone."""

    def export(direct: bool) -> str:
        try:
            return str(export_module._convert_module(module, NVPTX_TRIPLE, direct))  # pyright: ignore[reportPrivateUsage]
        except direct_fallback:
            return "fallback"
        except DiagnosticError as e:
            return "\n".join(d.format() for d in e.diagnostics)

    direct_fallback = direct.Fallback
    written = export(True)
    if written == "fallback":  # (what `convert_module` does then)
        written = export(False)
    return written, export(False)


def _lowered(path: Path) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    chip = "sm_90a" if "wgmma" in path.name or "tma" in path.name else "sm_90"
    module.attributes[CHIP_ATTR] = StringAttr(chip)
    lower_to_llvm(module, ctx, None, COMPILE_STAGES)
    return module


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_example_is_written_as_llvmlite_writes_it(
    path: Path, monkeypatch: pytest.MonkeyPatch
):
    module = _lowered(path)
    refused: list[str] = []
    write = direct.write_body

    def counted(op: llvm.FuncOp, *args: object) -> bool:
        done = write(op, *args)  # type: ignore[arg-type]
        if not done:
            refused.append(op.sym_name.data)
        return done

    monkeypatch.setattr(export_module, "write_body", counted)
    written, through_llvmlite = _both(module)
    assert written == through_llvmlite
    assert refused == []  # every function of every example is written directly
    assert to_llvm_ir(module) == through_llvmlite


def _exportable(text: str, name: str) -> ModuleOp | None:
    """The module of one FileCheck case in the llvm dialect (lowered there if it is not), or
    None: not a valid module, or not one the compiler's stages lower."""
    ctx = make_context()
    try:
        module = parse_module(ctx, text, name)
        module.verify()
    except Exception:
        return None
    if any(op.dialect_name() != "llvm" for op in module.ops):
        module.attributes.setdefault(CHIP_ATTR, StringAttr("sm_90"))
        try:
            lower_to_llvm(module, ctx, None, COMPILE_STAGES)
        except Exception:
            return None
    return module


CHECKED = [p for p in FILECHECK if any(w in p.read_text() for w in ("llvm.", "simt.", "tile."))]


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(ROOT / "tests")))
def test_filecheck_inputs_are_written_as_llvmlite_writes_them(path: Path):
    """Each case of the file (`// -----`) that is a valid module the stages lower."""
    compared = 0
    for i, text in enumerate(path.read_text().split("// -----")):
        module = _exportable(text, f"{path.name}#{i}")
        if module is not None:
            written, through_llvmlite = _both(module)
            assert written == through_llvmlite, f"case {i}"
            compared += 1
    if not compared:
        pytest.skip("no case is a valid module that lowers to the llvm dialect")


def test_names_are_deduplicated_as_llvmlite_does():
    """Name hints used several times, on instructions and on block arguments (phis)."""
    source = """
llvm.func @k(%a: i32, %b: i32) -> i32 {
  %x = llvm.add %a, %b : i32
  %x_1 = llvm.mul %x, %x : i32
  %c = llvm.icmp "slt" %x, %b : i32
  llvm.cond_br %c, ^bb1(%x : i32), ^bb2(%x_1 : i32)
^bb1(%x_2 : i32):
  %y = llvm.sub %x_2, %a : i32
  llvm.br ^bb2(%y : i32)
^bb2(%x_3 : i32):
  llvm.return %x_3 : i32
}
"""
    module = parse_module(make_context(), source, "k.mlir")
    for op in module.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            if v.name_hint and v.name_hint.startswith("x"):
                v.name_hint = "x"
    written, through_llvmlite = _both(module)
    assert written == through_llvmlite
    assert '%"x.1" = phi' in written and '%"x.3"' in written  # phis first, then the rest


def test_a_refused_module_says_what_the_converters_say():
    """A call to a function that does not exist: the writer leaves it to the converters."""
    source = """
llvm.func @k(%a: i32) -> i32 {
  %0 = llvm.call @missing(%a) : (i32) -> i32
  llvm.return %0 : i32
}
"""
    module = parse_module(make_context(), source, "k.mlir")
    with pytest.raises(DiagnosticError) as caught:
        to_llvm_ir(module)
    (diagnostic,) = caught.value.diagnostics
    assert "call to unknown function" in diagnostic.message
