"""`compile_module(verified=False)` (what `ferrox.compile` does on a miss) runs the op verifiers
while ptxas or LLVM works, and its outcome is verifying first's: a module that fails them gets
exactly their errors (whether the lowering would have failed on it otherwise, or even
compiled it), and a valid one the same artifact."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets import compile as compile_mod
from ferrox.targets import ptxas_job
from ferrox.targets.cache import compile_cached
from ferrox.targets.ptx import PTXError
from ferrox.verify import verify_module

VECADD = Path(__file__).resolve().parents[2] / "examples" / "simt" / "vecadd.mlir"
SUM = "%s = arith.addf %x, %y : f32"
# The lowering fails on this one with an error of its own (the export's 'llvm.fadd' operands).
MIXED = VECADD.read_text().replace(SUM, '%s = "arith.addf"(%x, %i) : (f32, index) -> f32')
# And compiles this one (the bad op is dead): only the verifiers refuse it.
DEAD = VECADD.read_text().replace(
    SUM,
    SUM + "\n      %c1 = arith.constant 1 : i32\n      %c2 = arith.constant 2 : i64"
    '\n      %bad = "arith.addi"(%c1, %c2) : (i32, i64) -> i32',
)
# Unsafe as well as invalid: the verifiers' error, not verify-disjoint's.
UNSAFE = MIXED.replace(
    "%out: !simt.disjoint_slice<f32, 1d>)",
    "%out: !simt.disjoint_slice<f32, 1d>, %forged: !simt.thread_index<1d>)",
)


def module(text: str):
    return parse_module(make_context(), text, "bad.mlir")


def messages(e: DiagnosticError) -> list[tuple[str, int, int]]:
    return [(d.message, d.loc.line, d.loc.col) for d in e.diagnostics]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (MIXED, "attribute f32 expected from variable 'T', but got index"),
        (DEAD, "attribute i32 expected from variable 'T', but got i64"),
        (UNSAFE, "attribute f32 expected from variable 'T', but got index"),
    ],
    ids=["lowering-fails", "lowering-compiles", "unsafe-too"],
)
@pytest.mark.parametrize("cubin", [False, None])
def test_an_invalid_module_gets_the_verifiers_errors(text, expected, cubin):
    with pytest.raises(DiagnosticError) as first:
        verify_module(module(text))
    with pytest.raises(DiagnosticError) as compiled:
        compile_mod.compile_module(module(text), cubin=cubin, verified=False)
    assert messages(compiled.value) == messages(first.value)
    message = compiled.value.diagnostics[0].message  # (UNSAFE's host call is wrong too)
    assert message.startswith("operand 'rhs' at position 1 does not verify: ")
    assert message.endswith(expected)


def test_without_the_verifiers_the_lowering_fails_differently():
    """(What the first case above guards against: the lowering's own error on invalid IR.)"""
    with pytest.raises(DiagnosticError, match="'llvm.fadd' cannot be exported to LLVM IR"):
        compile_mod.compile_module(module(MIXED), cubin=False)


def test_ferrox_compile_refuses_an_invalid_module(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    with pytest.raises(DiagnosticError) as refused:
        compile_cached(DEAD, filename="bad.mlir", cache=True)
    assert messages(refused.value) == [
        (
            "operand 'rhs' at position 1 does not verify: attribute i32 expected from "
            "variable 'T', but got i64",
            16,
            7,
        )
    ]
    assert not any(tmp_path.rglob("*.json")), "a refusal stores nothing"


def _where_verified(monkeypatch) -> list[list[str]]:
    stacks: list[list[str]] = []

    def spy(root):
        stacks.append([frame.function for frame in inspect.stack()])
        verify_module(root)

    monkeypatch.setattr(compile_mod, "verify_module", spy)
    return stacks


@pytest.mark.skipif(not ptxas_job.early_start_possible(), reason="needs ptxas started early")
def test_the_verifiers_run_once_while_ptxas_works(monkeypatch):
    stacks = _where_verified(monkeypatch)
    artifact = compile_mod.compile_module(module(VECADD.read_text()), cubin=True, verified=False)
    assert artifact.cubin
    assert len(stacks) == 1 and "finish" in stacks[0]


@pytest.mark.parametrize("cubin", [False, None])
def test_a_failure_of_llvm_gives_way_to_the_verifiers_errors(monkeypatch, cubin):
    """Whether the verifiers ran while LLVM worked (without ptxas) or run after its failure,
    theirs is the error (an invalid module's IR may well be refused by LLVM too)."""
    calls = []

    def submit(*args, **kwargs):  # (the export and LLVM's work stood in for)
        def failing() -> str:
            calls.append("wait")
            raise PTXError("LLVM could not compile the module (a stand-in)")

        return failing

    monkeypatch.setattr(compile_mod, "submit_module", submit)
    with pytest.raises(DiagnosticError) as refused:
        compile_mod.compile_module(module(DEAD), cubin=cubin, verified=False)
    assert refused.value.diagnostics[0].message.startswith("operand 'rhs' at position 1")
    assert calls == ["wait"], "LLVM's answer is waited for, once"


def test_without_ptxas_they_run_once_while_llvm_works(monkeypatch):
    stacks = _where_verified(monkeypatch)
    unverified = compile_mod.compile_module(module(VECADD.read_text()), cubin=False, verified=False)
    assert len(stacks) == 1 and "finish" not in stacks[0]
    verified = compile_mod.compile_module(module(VECADD.read_text()), cubin=False)
    assert len(stacks) == 1, "a verified module is not verified again"
    assert unverified == verified


def test_a_host_program_parse_error_is_reported_as_before(tmp_path, monkeypatch):
    """The host program is parsed while LLVM works (`parse_split`): its error is still the
    whole parse's, located, and comes before the verifiers' and the lowering's."""
    from ferrox.parser import parse_source

    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    for kernel in (MIXED, DEAD):  # the lowering fails before LLVM / it compiles, then LLVM waits
        text = kernel.replace("host.sync_on %s", "host.sync_on %nowhere")
        with pytest.raises(DiagnosticError) as whole:
            parse_source(make_context(), text, "bad.mlir")
        with pytest.raises(DiagnosticError) as compiled:
            compile_cached(text, filename="bad.mlir", cache=False)
        assert messages(compiled.value) == messages(whole.value)
        assert "nowhere" in compiled.value.diagnostics[0].message


def test_a_module_in_two_parts_is_verified_inside_the_compile():
    with pytest.raises(ValueError, match="a module parsed in two parts is verified inside"):
        compile_mod.compile_module(module(VECADD.read_text()), rest=lambda: None)


@pytest.mark.skipif(not ptxas_job.early_start_possible(), reason="needs ptxas started early")
def test_an_early_ptxas_that_fails_before_its_input_still_gets_source_and_verifiers(monkeypatch):
    """The source text and the verifiers run beside ptxas; where the spare ptxas fails before
    its input is fed (ptxas then runs the plain way), they still run, once, after it."""
    stacks = _where_verified(monkeypatch)
    monkeypatch.setattr(ptxas_job, "_unusable", False)  # (restored after the test)

    def broken(self, data):
        raise OSError("no pipe here")

    monkeypatch.setattr(ptxas_job.PtxasJob, "_feed", broken)
    text = VECADD.read_text()
    artifact = compile_mod.compile_module(module(text), cubin=True, verified=False)
    expected = compile_mod.compile_module(module(text), cubin=False)
    assert artifact.cubin and len(stacks) == 1 and "finish" not in stacks[0]
    assert artifact.source == expected.source and artifact.ptx == expected.ptx


# A kernel only `verify-disjoint` refuses (the lowering compiles it: nothing reads the witness).
FORGED = """
simt.kernel @param_witness(%w: !simt.thread_index<1d>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}
"""


def _where_checked(monkeypatch) -> list[list[str]]:
    stacks: list[list[str]] = []
    real = compile_mod.verify_disjoint

    def spy(root):
        stacks.append([frame.function for frame in inspect.stack()])
        real(root)

    monkeypatch.setattr(compile_mod, "verify_disjoint", spy)
    return stacks


@pytest.mark.parametrize("cubin", [False, None])
def test_a_parsed_module_is_checked_for_safety_while_llvm_works(monkeypatch, cubin):
    """`fresh`: the SIMT rules are checked on the module itself, after the lowering handed its
    IR to LLVM, once; the artifact is the one of checking first."""
    stacks = _where_checked(monkeypatch)
    text = VECADD.read_text()
    beside = compile_mod.compile_module(module(text), cubin=cubin, verified=False, fresh=True)
    assert len(stacks) == 1 and "safe" in stacks[0] and "lower_to_llvm" not in stacks[0]
    first = compile_mod.compile_module(module(text), cubin=cubin)
    assert len(stacks) == 1, "otherwise the lowering's first stage checks its copy"
    assert beside == first


@pytest.mark.parametrize("ptx", [True, False])
@pytest.mark.parametrize("cubin", [False, None])
def test_an_unsafe_parsed_module_gets_the_safety_errors(cubin, ptx):
    with pytest.raises(DiagnosticError) as first:
        compile_mod.compile_module(module(FORGED), cubin=cubin, ptx=ptx)
    with pytest.raises(DiagnosticError) as beside:
        compile_mod.compile_module(module(FORGED), cubin=cubin, ptx=ptx, verified=False, fresh=True)
    assert messages(beside.value) == messages(first.value)
    assert "witness not produced by a trusted index op" in first.value.diagnostics[0].message


def test_an_unsafe_and_invalid_parsed_module_gets_the_verifiers_errors():
    with pytest.raises(DiagnosticError) as first:
        verify_module(module(UNSAFE))
    with pytest.raises(DiagnosticError) as compiled:
        compile_mod.compile_module(module(UNSAFE), cubin=False, verified=False, fresh=True)
    assert messages(compiled.value) == messages(first.value)


def test_ferrox_compile_checks_a_text_it_parsed_while_llvm_works(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    stacks = _where_checked(monkeypatch)
    with pytest.raises(DiagnosticError) as refused:
        compile_cached(FORGED, filename="forged.mlir", cache=False)
    assert "witness not produced by a trusted index op" in refused.value.diagnostics[0].message
    assert len(stacks) == 1 and "safe" in stacks[0]
    stacks.clear()
    compile_cached(module(VECADD.read_text()), cache=False)  # a module given: its copy checked
    assert stacks == []
