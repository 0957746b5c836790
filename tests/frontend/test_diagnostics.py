"""The frontend's own refusals are diagnostics at the Python line and column, printed by the
tools' renderer (rustc's shape, or the short form); a script that launches a refused kernel
prints them, not a traceback; a trap on the interpreter names the Python line of the access."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from ferrox import simt
from ferrox.diagnostics import render
from ferrox.simt import DisjointSlice, FrontendError, Slice, f16, f32, index

HERE = __file__


def line_of(text: str) -> int:
    with open(HERE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if text in line and "line_of(" not in line and "Case(" not in line:
                return number
    raise AssertionError(text)


def refusal(kernel, **constants) -> str:
    with pytest.raises(FrontendError) as refused:
        kernel.ir(**constants)
    (diagnostic,) = refused.value.diagnostics
    return diagnostic.format()


@simt.kernel(block=256)
def mixes_types(a: Slice[f32], h: Slice[f16], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + h[i]  # mixes


@simt.kernel(block=256)
def unknown_name(out: DisjointSlice[f32]):
    out[simt.thread_index_1d()] = nope  # noqa: F821  # unknown


@simt.kernel(block=256)
def breaks_out_of_a_write(x: Slice[f32], out: DisjointSlice[f32], n: index):
    for k in range(n):
        with simt.unsafe():
            if x[k] < 0.0:
                break  # breaks out of unsafe


@simt.kernel(block=256)
def continues_on_some_paths(x: Slice[f32], out: DisjointSlice[f32], n: index):
    total = 0.0
    for k in range(n):
        if k > 2:
            if x[k] < 0.0:
                continue  # continues sometimes
            total += 1.0
        total += x[k]
    out[simt.thread_index_1d()] = total


@simt.kernel(block=256)
def continues_out_of_a_write(x: Slice[f32], out: DisjointSlice[f32], n: index):
    for k in range(n):
        with out[simt.thread_index_1d()] as slot:
            if x[k] < 0.0:
                continue  # leaves the write
            slot.value = x[k]


@simt.kernel(block=256)
def writes_slice(a: Slice[f32]):
    a[simt.thread_id.x] = 1.0  # writes


@simt.kernel(block=256)
def writes_without_witness(out: DisjointSlice[f32]):
    out[simt.thread_id.x] = 1.0  # no witness


@simt.kernel(block=256)
def leaks_from_guarded_write(out: DisjointSlice[f32]):
    total = 0.0
    with out[simt.thread_index_1d()] as slot:  # leaks
        total = 1.0
        slot.value = total


@simt.kernel(block=256, requires=["len(a) >= m"])
def requires_unknown(a: Slice[f32], out: DisjointSlice[f32]):  # requires
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def unannotated(a, out: DisjointSlice[f32]):  # unannotated
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=256)
def float_index(a: Slice[f32], out: DisjointSlice[f32]):
    out[simt.thread_index_1d()] = a[1.5]  # float index


@simt.kernel(block=64)
def shared_rank_4(out: DisjointSlice[f32]):
    simt.shared(f32, (2, 2, 2, 2))  # rank 4
    out[simt.thread_index_1d()] = 1.0


@simt.kernel(block=(8, 8, 4, 2))
def block_rank_4(out: DisjointSlice[f32]):  # block rank 4
    out[simt.thread_index_1d()] = 1.0


def test_an_attribute_the_dialect_refuses_is_located():
    assert refusal(shared_rank_4) == (
        f"{HERE}:{line_of('# rank 4')}:5: error: shared array rank must be 1 to 3, got 4"
    )
    assert refusal(block_rank_4) == (
        f"{HERE}:{line_of('# block rank 4')}:1: error: launch contract domain must be 1, 2 or 3, "
        "got 4"
    )


def test_mixed_types_name_both():
    assert refusal(mixes_types) == (
        f"{HERE}:{line_of('# mixes')}:14: error: mismatched types in '+': f32 and f16 "
        "(convert one side, e.g. f32(x) or f16(x))"
    )


def test_unknown_name():
    assert refusal(unknown_name) == (
        f"{HERE}:{line_of('# unknown')}:35: error: name 'nope' is not defined here"
    )


def test_a_break_out_of_a_with_block_is_refused():
    assert refusal(breaks_out_of_a_write) == (
        f"{HERE}:{line_of('# breaks out of unsafe')}:17: error: `break` cannot leave a `with` "
        "block (a guarded write or an unsafe region runs to its end): test the condition before "
        "the `with`, or put the rest of the block under `else:`"
    )


def test_a_continue_that_does_not_end_its_branch_is_refused():
    assert refusal(continues_on_some_paths) == (
        f"{HERE}:{line_of('# continues sometimes')}:17: error: `continue` must end its `if` "
        "branch: here the branch can also go on to the code after the `if`; put that code under "
        "the `if`'s `else:` (or end the branch with the `continue`)"
    )
    assert refusal(continues_out_of_a_write) == (
        f"{HERE}:{line_of('# leaves the write')}:17: error: `continue` cannot leave a `with` "
        "block (a guarded write or an unsafe region runs to its end): test the condition before "
        "the `with`, or put the rest of the block under `else:`"
    )


def test_a_slice_is_read_only():
    assert refusal(writes_slice) == (
        f"{HERE}:{line_of('# writes')}:5: error: cannot write slice `%a`: a Slice is read-only; "
        "take a DisjointSlice for an output"
    )


def test_a_disjoint_slice_is_written_through_a_witness():
    assert refusal(writes_without_witness) == (
        f"{HERE}:{line_of('# no witness')}:5: error: a disjoint slice is written only through a "
        "witness: `%out[...]` needs a thread index from thread_index_1d(), index_2d(S), "
        "index_2d_runtime(w) or warp_index(), found index"
    )


def test_a_guarded_write_keeps_its_names_inside():
    assert refusal(leaks_from_guarded_write) == (
        f"{HERE}:{line_of('# leaks')}:5: error: `total` is rebound inside a guarded write, "
        "which runs only in bounds: its new value cannot leave the `with` block (compute it "
        "before)"
    )


def test_requires_names_parameters():
    assert refusal(requires_unknown) == (
        f"{HERE}:{line_of('# requires')}:1: error: requires 'len(a) >= m': `m` is not a "
        "parameter of the kernel"
    )


def test_parameters_are_annotated():
    assert refusal(unannotated) == (
        f"{HERE}:{line_of('# unannotated')}:17: error: parameter `a` needs an annotation "
        "(Slice[f32], DisjointSlice[f32], f32, Constexpr, ...)"
    )


def test_an_index_is_an_integer():
    assert refusal(float_index) == (
        f"{HERE}:{line_of('# float index')}:37: error: an index must be an integer, found "
        "Python float 1.5"
    )


def test_the_text_is_the_tools_rendering_short_and_human():
    with pytest.raises(FrontendError) as refused:
        mixes_types.ir()
    line = line_of("# mixes")
    message = "mismatched types in '+': f32 and f16 (convert one side, e.g. f32(x) or f16(x))"
    # The tests' environment asks for the short form (conftest.py), as the tools print it.
    assert str(refused.value) == f"{HERE}:{line}:14: error[E0308]: {message}"
    # The human form: rustc's shape, the whole expression underlined.
    assert render(refused.value, "human").splitlines() == [
        f"error[E0308]: {message}",
        f"  --> {HERE}:{line}:14",
        "   |",
        f"{line} |     out[w] = a[i] + h[i]  # mixes",
        "   |              ^^^^^^^^^^^",
    ]


SCRIPT = """\
import numpy as np
from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f16, f32

@simt.kernel(block=256)
def bad(a: Slice[f32], h: Slice[f16], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + h[i]

x = np.zeros(4, np.float32)
bad.on("cpu")[1, 256](x, np.zeros(4, np.float16), x.copy())
"""


@pytest.mark.parametrize("fmt", ["human", "short"])
def test_a_script_prints_the_diagnostic_not_a_traceback(tmp_path, fmt):
    script = tmp_path / "bad.py"
    script.write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, FERROX_ERROR_FORMAT=fmt),
    )
    assert done.returncode == 1
    message = "mismatched types in '+': f32 and f16 (convert one side, e.g. f32(x) or f16(x))"
    if fmt == "short":
        assert done.stderr.splitlines() == [f"{script}:9:14: error[E0308]: {message}"]
        return
    assert done.stderr.splitlines() == [
        f"error[E0308]: {message}",
        f" --> {script}:9:14",
        "  |",
        "9 |     out[w] = a[i] + h[i]",
        "  |              ^^^^^^^^^^^",
    ]


@simt.kernel(block=256)
def reads_past_the_end(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    v = x[w.value]  # past the end
    out[w] = v


def test_a_trap_on_the_interpreter_names_the_python_line():
    x = np.zeros(100, np.float32)
    out = np.full(256, np.nan, np.float32)
    with pytest.raises(Exception) as trapped:
        reads_past_the_end.on("cpu")[1, 256](x, out)
    assert str(trapped.value).startswith(
        f"{HERE}:{line_of('# past the end')}:9: error: simt.load out of range: index 100 of %x "
        "(length 100)"
    )


def human(kernel) -> list[str]:
    with pytest.raises(FrontendError) as refused:
        kernel.ir()
    return render(refused.value, "human").splitlines()


def test_a_write_without_a_witness_reads_as_the_mlir_rule_in_rustc_shape():
    """A race: a plain thread id indexing a disjoint slice. The code is SIMT 1's (E1001), as for
    the MLIR `simt.get_mut` without a witness; the span is the whole target."""
    line = line_of("# no witness")
    assert human(writes_without_witness) == [
        "error[E1001]: a disjoint slice is written only through a witness: `%out[...]` needs a "
        "thread index from thread_index_1d(), index_2d(S), index_2d_runtime(w) or warp_index(), "
        "found index",
        f"  --> {HERE}:{line}:5",
        "   |",
        f"{line} |     out[simt.thread_id.x] = 1.0  # no witness",
        "   |     ^^^^^^^^^^^^^^^^^^^^^",
        "   |",
        "   = help: make the witness with `simt.thread_index_1d()` (or `simt.index_2d`, "
        "`simt.index_2d_runtime`, `simt.warp_index`, `simt.tile_index`) in this kernel",
    ]


def test_a_write_to_a_shared_slice_reads_as_the_mlir_rule_in_rustc_shape():
    """A race: every thread may write a shared (read-only) Slice. SIMT 4's code (E1004), the
    help in Python's spelling."""
    line = line_of("# writes")
    assert human(writes_slice) == [
        "error[E1004]: cannot write slice `%a`: a Slice is read-only; take a DisjointSlice for an "
        "output",
        f"  --> {HERE}:{line}:5",
        "   |",
        f"{line} |     a[simt.thread_id.x] = 1.0  # writes",
        "   |     ^^^^^^^^^^^^^^^^^^^",
        "   |",
        "   = help: read shared slices (`a[i]`), write disjoint slices through `out[w] = ...`, "
        "update atomic slices with atomics",
    ]
