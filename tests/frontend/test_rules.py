"""Every SIMT safety rule (docs/safety.md#simt-rules) refuses a Python kernel with the same
diagnostic as for MLIR input, at the Python line and column, notes included; the kernels that
keep the rule compile. The kernels are in simt_rules.py (`# <- NAME` marks the lines)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from ferrox.diagnostics import render
from ferrox.simt import FrontendError

RULES = Path(__file__).with_name("simt_rules.py")
KERNELS = runpy.run_path(str(RULES), run_name="simt_rules")
LINES = {
    m.group(1): number
    for number, line in enumerate(RULES.read_text(encoding="utf-8").splitlines(), 1)
    if (m := re.search(r"# <- (\w+)", line))
}


def at(marker: str, col: int) -> str:
    return f"{RULES}:{LINES[marker]}:{col}"


def diagnostics(name: str) -> list[str]:
    with pytest.raises(FrontendError) as refused:
        KERNELS[name].artifact()
    return [d.format() for d in refused.value.diagnostics]


REFUSED = {
    # SIMT 1
    "witness_from_parameter": [
        f"{at('param_witness', 40)}: error: witness not produced by a trusted index op: "
        "!simt.thread_index<1d> comes from a function parameter",
        f"{at('param_witness_call', 5)}: error: cannot pass a witness to a call",
    ],
    "witness_from_if": [
        f"{at('if_witness', 9)}: error: witness not produced by a trusted index op: "
        "!simt.thread_index<1d> comes from 'scf.if'",
        f"{at('if_witness', 9)}: error: cannot yield a witness out of its region",
        f"{at('if_witness', 9)}: error: cannot yield a witness out of its region",
    ],
    # SIMT 2
    "moved_twice": [
        f"{at('second_move', 5)}: error: use of moved value: witness\n"
        f"{at('first_move', 5)}: note: value moved here\n"
        f"{at('second_move', 5)}: note: value used here after move"
    ],
    "borrowed_after_move": [
        f"{at('borrowed', 9)}: error: borrow of moved value: witness\n"
        f"{at('moved', 5)}: note: value moved here\n"
        f"{at('borrowed', 9)}: note: value borrowed here after move"
    ],
    "index_read_after_its_write_block": [
        f"{at('after_block', 9)}: error: borrow of moved value: witness\n"
        f"{at('write_block', 10)}: note: value moved here\n"
        f"{at('after_block', 9)}: note: value borrowed here after move"
    ],
    "moved_in_loop": [
        f"{at('loop_move', 9)}: error: use of moved value: witness\n"
        f"{at('loop_move', 9)}: note: value moved here, in previous iteration of loop"
    ],
    # SIMT 3
    "space_mismatch": [
        f"{at('mismatch', 5)}: error: index space mismatch: expected 1d, found 2d<32>"
    ],
    "width_not_parameter": [
        f"{at('width', 9)}: error: runtime row width must be a kernel parameter, so that every "
        "thread uses the same width"
    ],
    # SIMT 4
    "reads_disjoint": [
        f"{at('read_disjoint', 9)}: error: cannot read disjoint slice `%out`: it is written only "
        "through simt.get_mut, never read"
    ],
    "updates_shared_slice": [
        f"{at('atomic_shared', 5)}: error: cannot update shared slice `%x` atomically: a shared "
        "slice is read-only; take an !simt.atomic_slice instead"
    ],
    "reads_atomic": [
        f"{at('read_atomic', 9)}: error: cannot read atomic slice `%bins` with simt.load: other "
        "threads update it; use an atomic"
    ],
    "passes_disjoint_as_shared": [
        f"{at('pass_disjoint', 9)}: error: mismatched types: expected !simt.slice<f32>, found "
        "!simt.disjoint_slice<f32, 1d>: a disjoint slice is never passed where a shared slice "
        "is expected"
    ],
    # SIMT 5
    "block_too_big": [
        f"{at('too_big', 1)}: error: launch contract block [2048] has 2048 threads, more than "
        "the 1024 a block can hold"
    ],
    "block_rank_over_domain": [
        f"{at('rank', 1)}: error: launch contract block [16, 16] has rank 2, more than its domain 1"
    ],
    "one_d_space_on_2d": [
        f"{at('domain', 9)}: error: index space 1d needs a launch contract of domain 1, found "
        f"domain 2\n{RULES}:{LINES['domain'] - 1}:1: note: launch contract declared here"
    ],
    "warp_space_odd_block": [
        f"{at('warp_block', 9)}: error: index space warp needs a block x that is a multiple of "
        f"32, found 48\n{RULES}:{LINES['warp_block'] - 1}:1: note: launch contract declared here"
    ],
    # SIMT 6
    "contract_with_pointer": [
        f"{at('raw_param', 27)}: error: contracted kernels cannot take a raw mutable buffer: "
        "parameter `%p` is !simt.ptr<f32>; take a !simt.disjoint_slice or !simt.atomic_slice, "
        "or drop the contract and launch unsafely"
    ],
    "pointer_outside_unsafe": [
        f"{at('raw_deref', 16)}: error: dereference of raw pointer is unsafe and requires an "
        "unsafe region or kernel",
        f"{at('raw_deref', 9)}: error: dereference of raw pointer is unsafe and requires an "
        "unsafe region or kernel",
    ],
    "shared_outside_unsafe": [
        f"{at('shared_store', 5)}: error: access to shared memory is unsafe and requires an "
        "unsafe region or kernel",
        f"{at('shared_load', 35)}: error: access to shared memory is unsafe and requires an "
        "unsafe region or kernel",
    ],
    # SIMT 7
    "barrier_in_divergent_if": [
        f"{at('divergent_barrier', 9)}: error: barrier under divergent control flow: "
        "'simt.sync_threads' must be reached by every thread of the block\n"
        f"{at('divergent_if', 5)}: note: control flow diverges here: not every thread may take "
        "this branch (its operand is not uniform across the block)"
    ],
    "barrier_skipped_by_continue": [
        f"{at('skipped_barrier', 9)}: error: barrier under divergent control flow: "
        "'simt.sync_threads' must be reached by every thread of the block\n"
        f"{at('continue_if', 9)}: note: control flow diverges here: not every thread may take "
        "this branch (its operand is not uniform across the block)"
    ],
    "barrier_after_divergent_break": [
        f"{at('after_break_barrier', 9)}: error: barrier under divergent control flow: "
        "'simt.sync_threads' must be reached by every thread of the block\n"
        f"{at('divergent_break', 13)}: note: control flow diverges here: not every thread may "
        "take this branch (its operand is not uniform across the block)"
    ],
    "shuffle_in_divergent_if": [
        f"{at('divergent_shuffle', 13)}: error: warp collective under divergent control flow: "
        "'simt.shuffle' must be reached by every lane of the warp\n"
        f"{at('shuffle_if', 5)}: note: control flow diverges here: not every thread may take "
        "this branch (its operand is not uniform across the warp)"
    ],
    "convergent_call_in_divergent_if": [
        f"{at('divergent_call', 9)}: error: call to a convergent function under divergent "
        "control flow: 'simt.call' must be reached by every thread of the block\n"
        f"{at('call_if', 5)}: note: control flow diverges here: not every thread may take this "
        "branch (its operand is not uniform across the block)"
    ],
}

KEPT = [
    "witness_trusted",
    "moved_in_loop_fresh",
    "index_read_inside_its_write",
    "space_2d_matches",
    "updates_atomic",
    "warp_space_fits",
    "pointer_in_unsafe",
    "pointer_in_unsafe_kernel",
    "barrier_in_uniform_if",
    "barrier_after_uniform_continue",
    "barrier_after_uniform_break",
]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_broken_rule_is_the_verifiers_diagnostic_at_the_python_line(name):
    assert diagnostics(name) == REFUSED[name]


@pytest.mark.parametrize("name", KEPT)
def test_the_kernel_that_keeps_the_rule_compiles(name):
    artifact = KERNELS[name].artifact()
    assert name in artifact.kernels and artifact.ptx


def test_the_message_is_the_tools_rendering_of_the_python_lines():
    with pytest.raises(FrontendError) as refused:
        KERNELS["moved_twice"].artifact()
    second, first = LINES["second_move"], LINES["first_move"]
    # The tests' short form (conftest.py): the MLIR input's code, the notes one line each.
    assert str(refused.value).splitlines() == [
        f"{RULES}:{second}:5: error[E0382]: use of moved value: witness",
        f"{RULES}:{first}:5: note: value moved here",
        f"{RULES}:{second}:5: note: value used here after move",
    ]
    # What a user sees: rustc's shape, both writes in one snippet, the help in Python's terms.
    assert render(refused.value, "human").splitlines() == [
        "error[E0382]: use of moved value: witness",
        f"  --> {RULES}:{second}:5",
        "   |",
        f"{first} |     out[w] = 1.0  # <- first_move",
        "   |     ------ value moved here",
        f"{second} |     out[w] = 2.0  # <- second_move",
        "   |     ^^^^^^ value used here after move",
        "   |",
        "   = help: a witness is moved by the one write it guards: make a new witness for another "
        "write, or read its index with `w.value` before the move",
    ]
