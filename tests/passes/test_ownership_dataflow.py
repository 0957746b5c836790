"""`verify-ownership` as a dataflow: a fixpoint that does not end is an internal error naming the
function, never a silent answer; recursive helpers end; ambiguous streams are never synced."""

from __future__ import annotations

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.parser import parse_module
from ferrox.passes.ownership import checker
from ferrox.passes.verify_ownership import OwnershipInternalError, VerifyOwnershipPass
from ferrox.registry import make_context

T = "!host.tensor<f32, [64]>"
KERNEL = """simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
  simt.return
}
"""
LAUNCH = (
    "host.unsafe_launch @scale grid(%one) block(%one) on {s} ins(%x : {T}) outs({o} : {T}) -> {T}"
)


def verify(text: str) -> None:
    VerifyOwnershipPass().apply(make_context(), parse_module(make_context(), text))


def loop_program() -> str:
    launch = LAUNCH.format(s="%t", o="%ci", T=T)
    return f"""{KERNEL}
func.func @looping(%n: index, %x: {T}, %c: {T}) {{
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %r = scf.for %i = %lo to %n step %one iter_args(%ci = %c) -> ({T}) {{
    %t = host.stream
    %c2 = {launch}
    host.sync_on %t
    scf.yield %c2 : {T}
  }}
  func.return
}}
"""


def test_safe_loop_verifies() -> None:
    verify(loop_program())


def test_fixpoint_out_of_rounds_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # The loop needs a second round (the head gains the body's stream); with no rounds allowed
    # the analysis must fail loudly, naming the function, instead of answering.
    monkeypatch.setattr(checker, "MAX_ROUNDS", 0)
    with pytest.raises(OwnershipInternalError) as info:
        verify(loop_program())
    assert str(info.value) == (
        "internal error: the ownership analysis of @looping did not converge in 0 rounds at "
        "scf.for (a bug in verify-ownership)"
    )


def test_multi_block_fixpoint_out_of_rounds_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checker, "MAX_ROUNDS", 0)
    text = f"""func.func @blocks(%b: i1, %t: {T}) {{
  cf.br ^loop
^loop:
  host.print %t : {T}
  cf.cond_br %b, ^loop, ^exit
^exit:
  func.return
}}
"""
    with pytest.raises(OwnershipInternalError, match="@blocks did not converge in 0 rounds at a"):
        verify(text)


def test_recursive_helper_ends_and_moves_its_arguments() -> None:
    # A recursive call is not run again at its own call site: it is an unknown op, which moves
    # its tensor arguments.
    text = f"""func.func @rec(%b: i1, %x: {T}) -> {T} {{
  %r = scf.if %b -> ({T}) {{
    %y = func.call @rec(%b, %x) : (i1, {T}) -> {T}
    scf.yield %y : {T}
  }} else {{
    scf.yield %x : {T}
  }}
  func.return %r : {T}
}}

func.func @main(%b: i1, %x: {T}) {{
  %y = func.call @rec(%b, %x) : (i1, {T}) -> {T}
  host.print %x : {T}
  func.return
}}
"""
    with pytest.raises(DiagnosticError) as info:
        verify(text)
    errors = [d.message for d in info.value.diagnostics]
    assert errors == ["use of moved value: %x"]


def test_sync_of_a_stream_made_by_an_unknown_op_counts() -> None:
    # An op the pass does not know that makes a stream from nothing makes one new stream, which
    # a sync of its result does sync.
    launch = LAUNCH.format(s="%s", o="%c", T=T)
    text = f"""{KERNEL}
func.func @f(%x: {T}, %c: {T}) {{
  %one = arith.constant 1 : index
  %s = builtin.unrealized_conversion_cast to !host.stream
  %c2 = {launch}
  host.sync_on %s
  host.print %c2 : {T}
  func.return
}}
"""
    verify(text)
