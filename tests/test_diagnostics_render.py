"""Each diagnostic issue 15 lists, as the tools print it: rustc's human form pinned exactly
(`--error-format=human`), and the one-line short form (`file:line:col: error[CODE]: ...`).

The inputs are the issue's own cases: a write without a witness, a kernel without its
`simt.return`, a missing `}`, a load of the wrong type (reported at the load, where the type is
written, not at the first use of its result), a value used as another type, an op whose type variable binds two types, misspelt ops, types and
attributes, the ownership rules E0382 and E0502, a refused launch, and a frontend diagnostic
at its Python line."""

# ruff: noqa: E501  (the pinned human form is as wide as the source lines it shows)
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ferrox import simt
from ferrox.diagnostics import Diagnostic, SourceLoc, error_format, render
from ferrox.driver.tools import cli, opt
from ferrox.simt import DisjointSlice, FrontendError, Slice, f32

KERNEL = (
    "simt.kernel @vecadd(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) "
    "contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {\n"
)
GET_MUT = "  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {\n"

CASES = {
    "witness": KERNEL
    + "  %w = simt.thread_index_1d\n"
    + "  %i = simt.witness_value %w : !simt.thread_index<1d>\n"
    + "  simt.get_mut %out[%i] : !simt.disjoint_slice<f32, 1d>, index {\n"
    + "  ^bb0(%old: f32):\n"
    + "    %x = simt.load %a[%i] : !simt.slice<f32>\n"
    + "    simt.yield %x : f32\n"
    + "  }\n"
    + "  simt.return\n"
    + "}\n",
    "terminator": KERNEL
    + "  %w = simt.thread_index_1d\n"
    + "  %i = simt.witness_value %w : !simt.thread_index<1d>\n"
    + GET_MUT
    + "  ^bb0(%old: f32):\n"
    + "    %x = simt.load %a[%i] : !simt.slice<f32>\n"
    + "    simt.yield %x : f32\n"
    + "  }\n"
    + "}\n",
    "brace": KERNEL
    + "  %w = simt.thread_index_1d\n"
    + "  %i = simt.witness_value %w : !simt.thread_index<1d>\n"
    + GET_MUT
    + "  ^bb0(%old: f32):\n"
    + "    %x = simt.load %a[%i] : !simt.slice<f32>\n"
    + "    simt.yield %x : f32\n"
    + "  simt.return\n"
    + "}\n",
    "load-type": KERNEL
    + "  %w = simt.thread_index_1d\n"
    + "  %i = simt.witness_value %w : !simt.thread_index<1d>\n"
    + GET_MUT
    + "  ^bb0(%old: f32):\n"
    + "    %x = simt.load %a[%i] : !simt.slice<i32>\n"
    + "    simt.yield %x : f32\n"
    + "  }\n"
    + "  simt.return\n"
    + "}\n",
    "use-type": "simt.kernel @k(%p: !simt.ptr<f32>) unsafe {\n"
    "  %i = arith.constant 0 : index\n"
    "  %v = arith.constant 1 : i32\n"
    "  simt.ptr_store %v, %p[%i] : !simt.ptr<f32>\n"
    "  simt.return\n"
    "}\n",
    "type-variable": "func.func @f(%a: i32, %b: f32) -> i32 {\n"
    '  %c = "arith.addi"(%a, %b) : (i32, f32) -> i32\n'
    "  func.return %c : i32\n"
    "}\n",
    "shared-slice": "simt.kernel @k(%a: !simt.slice<f32>, %out: !simt.slice<f32>) {\n"
    "  %w = simt.thread_index_1d\n"
    "  simt.get_mut %out[%w] : !simt.slice<f32>, !simt.thread_index<1d> {\n"
    "  ^bb0(%old: f32):\n"
    "    simt.yield %old : f32\n"
    "  }\n"
    "  simt.return\n"
    "}\n",
    "undefined": "func.func @f(%alpha: f32) -> f32 {\n"
    "  %beta = arith.addf %alpha, %alpah : f32\n"
    "  func.return %beta : f32\n"
    "}\n",
    "op": "func.func @f(%a: i32) -> i32 {\n"
    "  %b = arith.addii %a, %a : i32\n"
    "  func.return %b : i32\n"
    "}\n",
    "type": "func.func @f(%a: !simt.slise<f32>) {\n  func.return\n}\n",
    "attribute": "func.func @f() {\n"
    "  %a = arith.constant #simt.contrct<domain = 1> : i32\n"
    "  func.return\n"
    "}\n",
    "generic-op": '"simt.thread_idx_1d"() : () -> !simt.thread_index<1d>\n',
    # No operands, no type: xDSL reports the next line's first token; the name is found above.
    "bare-op": KERNEL + "  %w = simt.thread_idx_1d\n  simt.return\n}\n",
    "moved": "simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {\n"
    "  simt.return\n"
    "}\n"
    "func.func @f(%x: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {\n"
    "  %s = host.stream\n"
    "  %one = arith.constant 1 : index\n"
    "  %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, "
    "[64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>\n"
    "  host.sync_on %s\n"
    "  host.print %c : !host.tensor<f32, [64]>\n"
    "  func.return\n"
    "}\n",
}

HUMAN = {
    "witness": """
        error[E1001]: `simt.get_mut` needs a witness (`!simt.thread_index<...>`) as its index, found `index`
         --> k.mlir:4:21
          |
        4 |   simt.get_mut %out[%i] : !simt.disjoint_slice<f32, 1d>, index {
          |                     ^^ expected a witness, found `index`
          |
          = help: pass the witness `%w` itself: `%i` is its plain index, read by `simt.witness_value`
        """,
    "terminator": """
        error: the body of `simt.kernel` does not end with `simt.return`
         --> k.mlir:4:3
          |
        1 | {KERNEL}
          | ----------- the body of this `simt.kernel`
        ...
        4 |   simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
          |   ^^^^^^^^^^^^ the body ends here, with `simt.get_mut`, which is not a terminator
          |
          = help: add `simt.return` after this `simt.get_mut`
        """,
    "brace": """
        error: this file contains an unclosed delimiter
          --> k.mlir:10:1
           |
         1 | {KERNEL}
           | {PAD152}- unclosed delimiter
        ...
         4 |   simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
           |                                                                                 - this delimiter might not be properly closed...
        ...
         9 | }
           | - ...as it matches this but it has different indentation
        10 |
           | ^
        """,
    "load-type": """
        error[E0308]: mismatched types: %a is `!simt.slice<f32>`, but this `simt.load` says `!simt.slice<i32>`
         --> k.mlir:6:29
          |
        1 | {KERNEL}
          |                     -- %a is defined here, as `!simt.slice<f32>`
        ...
        6 |     %x = simt.load %a[%i] : !simt.slice<i32>
          |                             ^^^^^^^^^^^^^^^^ expected `!simt.slice<f32>`, found `!simt.slice<i32>`
        7 |     simt.yield %x : f32
          |                -- so %x has the wrong type here, where `f32` is expected
          |
          = help: write `!simt.slice<f32>` after the `:`, as %a is declared (or declare %a as `!simt.slice<i32>`)
        """,
    "use-type": """
        error[E0308]: mismatched types: %v is `i32`, used here as `f32`
         --> k.mlir:4:18
          |
        3 |   %v = arith.constant 1 : i32
          |   -- %v is defined here, as `i32`
        4 |   simt.ptr_store %v, %p[%i] : !simt.ptr<f32>
          |                  ^^ expected `f32`, found `i32`
          |
          = help: convert %v to `f32` with `arith.sitofp`, or change one of the two types
        """,
    "type-variable": """
        error[E0308]: mismatched types: `arith.addi` needs these values to have one type, found `i32` and `f32`
         --> k.mlir:2:25
          |
        2 |   %c = "arith.addi"(%a, %b) : (i32, f32) -> i32
          |                         ^^ expected `i32`, found `f32`
          |
          = help: convert %b to `i32` with `arith.fptosi`, or change one of the two types
        """,
    "shared-slice": """
        error[E0308]: mismatched types: `simt.get_mut` expects `!simt.disjoint_slice<...>` here, found `!simt.slice<f32>`
         --> k.mlir:3:27
          |
        3 |   simt.get_mut %out[%w] : !simt.slice<f32>, !simt.thread_index<1d> {
          |                           ^^^^^^^^^^^^^^^^ expected `!simt.disjoint_slice<...>`, found `!simt.slice<f32>`
          |
          = help: a kernel writes only its exclusive outputs: declare this parameter `!simt.disjoint_slice<T, 1d>` (or another index space) and write it through a witness
        """,
    "undefined": """
        error[E0425]: cannot find value `%alpah` in this scope
         --> k.mlir:2:30
          |
        2 |   %beta = arith.addf %alpha, %alpah : f32
          |                              ^^^^^^ not found in this scope
          |
          = help: did you mean `%alpha`?
        """,
    "op": """
        error: unknown operation `arith.addii`
         --> k.mlir:2:8
          |
        2 |   %b = arith.addii %a, %a : i32
          |        ^^^^^^^^^^^ not a registered operation
          |
          = help: did you mean `arith.addi`?
        """,
    "type": """
        error: unknown type `!simt.slise`
         --> k.mlir:1:18
          |
        1 | func.func @f(%a: !simt.slise<f32>) {
          |                  ^^^^^^^^^^^ not a registered type
          |
          = help: did you mean `!simt.slice`?
        """,
    "attribute": """
        error: unknown attribute `#simt.contrct`
         --> k.mlir:2:23
          |
        2 |   %a = arith.constant #simt.contrct<domain = 1> : i32
          |                       ^^^^^^^^^^^^^ not a registered attribute
          |
          = help: did you mean `#simt.contract`?
        """,
    "generic-op": """
        error: unknown operation `simt.thread_idx_1d`
         --> k.mlir:1:2
          |
        1 | "simt.thread_idx_1d"() : () -> !simt.thread_index<1d>
          |  ^^^^^^^^^^^^^^^^^^ not a registered operation
          |
          = help: did you mean `simt.thread_index_1d`?
        """,
    "bare-op": """
        error: unknown operation `simt.thread_idx_1d`
         --> k.mlir:2:8
          |
        2 |   %w = simt.thread_idx_1d
          |        ^^^^^^^^^^^^^^^^^^ not a registered operation
          |
          = help: did you mean `simt.thread_index_1d`?
        """,
    "moved": """
        error[E0382]: use of moved value: %c
         --> k.mlir:9:3
          |
        7 |   %c2 = host.unsafe_launch @scale grid(%one) block(%one) on %s ins(%x : !host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>
          |                                                                                                       -- value moved here
        8 |   host.sync_on %s
        9 |   host.print %c : !host.tensor<f32, [64]>
          |              ^^ value used here after move
          |
          = help: use the tensor the launch gave back (its result) instead, after `host.sync_on` of its stream
        """,
}

SHORT = {
    "witness": [
        "k.mlir:4:21: error[E1001]: `simt.get_mut` needs a witness (`!simt.thread_index<...>`) as "
        "its index, found `index`"
    ],
    "terminator": [
        "k.mlir:4:3: error: the body of `simt.kernel` does not end with `simt.return`",
        "k.mlir:1:1: note: the body of this `simt.kernel`",
    ],
    "brace": [
        "k.mlir:10:1: error: this file contains an unclosed delimiter",
        "k.mlir:1:153: note: unclosed delimiter",
        "k.mlir:4:81: note: this delimiter might not be properly closed...",
        "k.mlir:9:1: note: ...as it matches this but it has different indentation",
    ],
    "load-type": [
        "k.mlir:6:29: error[E0308]: mismatched types: %a is `!simt.slice<f32>`, but this "
        "`simt.load` says `!simt.slice<i32>`",
        "k.mlir:1:21: note: %a is defined here, as `!simt.slice<f32>`",
        "k.mlir:7:16: note: so %x has the wrong type here, where `f32` is expected",
    ],
    "use-type": [
        "k.mlir:4:18: error[E0308]: mismatched types: %v is `i32`, used here as `f32`",
        "k.mlir:3:3: note: %v is defined here, as `i32`",
    ],
    "type-variable": [
        "k.mlir:2:25: error[E0308]: mismatched types: `arith.addi` needs these values to have one "
        "type, found `i32` and `f32`"
    ],
    "shared-slice": [
        "k.mlir:3:27: error[E0308]: mismatched types: `simt.get_mut` expects "
        "`!simt.disjoint_slice<...>` here, found `!simt.slice<f32>`"
    ],
    "undefined": ["k.mlir:2:30: error[E0425]: cannot find value `%alpah` in this scope"],
    "op": ["k.mlir:2:8: error: unknown operation `arith.addii`"],
    "type": ["k.mlir:1:18: error: unknown type `!simt.slise`"],
    "attribute": ["k.mlir:2:23: error: unknown attribute `#simt.contrct`"],
    "generic-op": ["k.mlir:1:2: error: unknown operation `simt.thread_idx_1d`"],
    "bare-op": ["k.mlir:2:8: error: unknown operation `simt.thread_idx_1d`"],
    "moved": [
        "k.mlir:9:3: error[E0382]: use of moved value: %c",
        "k.mlir:7:3: note: value moved here",
        "k.mlir:9:3: note: value used here after move",
    ],
}


def expected_human(name: str) -> str:
    text = textwrap.dedent(HUMAN[name]).lstrip("\n")
    return text.replace("{KERNEL}", KERNEL.rstrip("\n")).replace("{PAD152}", " " * 152)


def run_opt(tmp_path: Path, monkeypatch, capsys, name: str, *args: str) -> str:
    monkeypatch.chdir(tmp_path)
    Path("k.mlir").write_text(CASES[name])
    assert opt.main(["k.mlir", *args]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    return err


@pytest.mark.parametrize("name", sorted(CASES))
def test_human(tmp_path, monkeypatch, capsys, name: str):
    assert run_opt(tmp_path, monkeypatch, capsys, name, "--error-format=human") == (
        expected_human(name)
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_short(tmp_path, monkeypatch, capsys, name: str):
    err = run_opt(tmp_path, monkeypatch, capsys, name, "--error-format=short")
    assert err.splitlines() == SHORT[name]


def test_the_environment_picks_the_format_and_the_flag_wins(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FERROX_ERROR_FORMAT", "human")
    assert run_opt(tmp_path, monkeypatch, capsys, "op") == expected_human("op")
    assert (
        run_opt(tmp_path, monkeypatch, capsys, "op", "--error-format=short").splitlines()
        == (SHORT["op"])
    )
    monkeypatch.delenv("FERROX_ERROR_FORMAT")
    assert error_format() == "human"  # rustc's default
    monkeypatch.setenv("FERROX_ERROR_FORMAT", "json")
    with pytest.raises(ValueError, match="FERROX_ERROR_FORMAT: unknown error format 'json'"):
        error_format()


def test_a_bad_format_in_the_environment_is_a_command_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FERROX_ERROR_FORMAT", "json")
    monkeypatch.chdir(tmp_path)
    Path("k.mlir").write_text(CASES["op"])
    assert opt.main(["k.mlir"]) == 1
    assert capsys.readouterr().err == (
        "ferrox-opt: error: FERROX_ERROR_FORMAT: unknown error format 'json' "
        "(expected human or short)\n"
    )


def test_ferrox_compile_renders_the_same(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("k.mlir").write_text(CASES["moved"])
    assert cli.main(["compile", "k.mlir", "--error-format", "human"]) == 1
    assert capsys.readouterr().err == expected_human("moved")
    assert cli.main(["--error-format=short", "compile", "k.mlir"]) == 1
    assert capsys.readouterr().err.splitlines() == SHORT["moved"]


BORROW = (
    "simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: "
    "!simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {\n"
    "  simt.return\n"
    "}\n"
    "func.func @f(%a: !host.tensor<f32, [64]>, %c: !host.tensor<f32, [64]>) {\n"
    "  %s = host.stream\n"
    "  %one = arith.constant 1 : index\n"
    "  %p = host.prepare @vecadd grid(%one) block(%one) args(%a, %c, %c : !host.tensor<f32, "
    "[64]>, !host.tensor<f32, [64]>, !host.tensor<f32, [64]>)\n"
    "  %c2 = host.launch @vecadd with %p on %s ins(%a, %c : !host.tensor<f32, [64]>, "
    "!host.tensor<f32, [64]>) outs(%c : !host.tensor<f32, [64]>) -> !host.tensor<f32, [64]>\n"
    "  func.return\n"
    "}\n"
)


def test_conflicting_borrows_label_each_list(tmp_path, monkeypatch, capsys):
    """rustc's E0502: the immutable borrow is the primary span (`ins`), the mutable one a
    secondary label (`outs`), its text hanging below the line."""
    monkeypatch.chdir(tmp_path)
    Path("k.mlir").write_text(BORROW)
    assert opt.main(["k.mlir", "--error-format=human"]) == 1
    launch = BORROW.splitlines()[7]
    ins = launch.index("ins(%a, %c") + len("ins(%a, ")
    outs = launch.index("outs(%c") + len("outs(")
    assert capsys.readouterr().err == (
        "error[E0502]: cannot borrow %c as immutable because it is also borrowed as mutable\n"
        " --> k.mlir:8:3\n"
        "  |\n"
        f"8 | {launch}\n"
        f"  | {' ' * ins}^^{' ' * (outs - ins - 2)}-- mutable borrow occurs here\n"
        f"  | {' ' * ins}|\n"
        f"  | {' ' * ins}immutable borrow occurs here\n"
        "  |\n"
        "  = help: write the output to a tensor of its own (`host.poison`, `host.zeros`)\n"
    )


def test_a_refused_launch_points_at_the_prepare_and_the_contract(capsys):
    """A launch check (the grid does not cover the output), from `ferrox run` on the CPU."""
    from ferrox.driver.tools.commands.explain import path_of

    path = path_of("E1306")
    assert cli.main(["run", str(path), "--device", "cpu", "--error-format", "human"]) == 1
    err = capsys.readouterr().err
    width = len("17")
    assert err.splitlines()[:3] == [
        "error[E1306]: cannot prepare the launch of @fill: the grid does not cover %out: its 1d "
        "witness reaches grid.x * block.x = 3 * 256 = 768 elements, but len(%out) = 1000 "
        "(grid.x must be at least 4)",
        f"{' ' * width}--> {path}:" + str(_line(path, "host.prepare")) + ":3",
        " " * (width + 1) + "|",
    ]
    assert "launch contract of @fill declared here" in err
    assert err.endswith(
        "   = help: launch enough blocks for every element (ceil(len / block) blocks)\n"
    )


def _line(path: Path, text: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if text in t)


@simt.kernel(block=256)
def unknown(a: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    out[w] = a[w.value] + nope  # noqa: F821


@simt.kernel(block=256)
def writes_twice(a: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    out[w] = a[w.value]  # first write
    out[w] = 2.0  # second write


def test_a_safety_rule_in_python_reads_as_in_mlir():
    """verify-disjoint's E0382 on frontend IR: both places are Python lines, the subscript
    underlined at each."""
    import numpy as np

    with pytest.raises(FrontendError) as refused:
        writes_twice[1, 256](np.zeros(4, np.float32), np.zeros(4, np.float32))
    first, second = _line(Path(__file__), "# first write"), _line(Path(__file__), "# second write")
    source = Path(__file__).read_text().splitlines()
    width = len(str(second))
    assert render(refused.value, "human") == (
        "error[E0382]: use of moved value: witness\n"
        f"{' ' * width}--> {__file__}:{second}:5\n"
        f"{' ' * (width + 1)}|\n"
        f"{first:>{width}} | {source[first - 1]}\n"
        f"{' ' * (width + 1)}|     ------ value moved here\n"
        f"{second:>{width}} | {source[second - 1]}\n"
        f"{' ' * (width + 1)}|     ^^^^^^ value used here after move\n"
        f"{' ' * (width + 1)}|\n"
        f"{' ' * (width + 1)}= help: a witness is moved by the one write it guards: make a new "
        "witness for another write, or read its index with `w.value` before the move"
    )


def test_a_python_diagnostic_shows_the_python_line_with_a_caret():
    """The frontend's diagnostics are at Python lines; the renderer reads the .py file."""
    with pytest.raises(FrontendError) as refused:
        unknown.ir()
    line = _line(Path(__file__), "+ nope  # noqa")
    col = Path(__file__).read_text().splitlines()[line - 1].index("nope") + 1
    source = Path(__file__).read_text().splitlines()[line - 1]
    width = len(str(line))
    assert render(refused.value, "human") == (
        "error: name 'nope' is not defined here\n"
        f"{' ' * width}--> {__file__}:{line}:{col}\n"
        f"{' ' * (width + 1)}|\n"
        f"{line} | {source}\n"
        f"{' ' * (width + 1)}| {' ' * (col - 1)}^^^^"
    )
    assert render(refused.value, "short") == (
        f"{__file__}:{line}:{col}: error: name 'nope' is not defined here"
    )


def test_without_a_source_the_header_and_help_remain():
    d = Diagnostic("error", "use of moved value: %c", SourceLoc("", 0, 0))
    assert render([d], "human") == (
        "error[E0382]: use of moved value: %c\n"
        "  |\n"
        "  = help: use the tensor the launch gave back (its result) instead, after "
        "`host.sync_on` of its stream"
    )
    assert render([d], "short") == "<unknown>: error[E0382]: use of moved value: %c"


def test_split_input_diagnostics_are_separated_by_a_blank_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("k.mlir").write_text(CASES["op"] + "// -----\n" + CASES["type"])
    assert opt.main(["k.mlir", "--split-input-file", "--error-format=human"]) == 1
    second = expected_human("type").replace("k.mlir:1:18", "k.mlir:6:18").replace("1 |", "6 |")
    assert capsys.readouterr().err == expected_human("op") + "\n" + second
