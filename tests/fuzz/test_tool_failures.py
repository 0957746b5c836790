"""The three commands tell the user's mistakes (a located diagnostic, exit 1) from ferrox's own bugs
(an internal error naming what failed and where, exit 70, the traceback behind `--debug` or
FERROX_TRACEBACK=1), and bytes that are not UTF-8 are a located diagnostic with their offset."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.passes import ModulePass

from ferrox import registry
from ferrox.driver.tools import cli, failure, opt
from ferrox.driver.tools.failure import INTERNAL_ERROR_EXIT

GOOD = "func.func @f() {\n  func.return\n}\n"
HINT = "note: run again with --debug (or FERROX_TRACEBACK=1) to see the traceback"


def _boom(*args, **kwargs):
    raise KeyError("boom")


BOOM_AT = f"tests/fuzz/test_tool_failures.py:{inspect.getsourcelines(_boom)[1] + 1} in _boom"


def _where(err: str) -> str:
    """`err` with the `raised at` location checked and replaced by `{BOOM_AT}`.

    With an editable install this test file is in the checkout, so it is the innermost frame of
    ours: the location is `_boom`'s line. Installed elsewhere (the GPU host), the innermost
    frame of ours is the ferrox or xDSL code that called the patched function (xDSL's pass
    manager, for a pass)."""
    found = re.search(r"note: raised at (\S+:\d+ in \w+)\n", err)
    assert found is not None, err
    if failure._ours(__file__):
        assert found.group(1) == BOOM_AT
    else:
        assert re.fullmatch(r"(ferrox|xdsl)/[\w/]+\.py:\d+ in \w+", found.group(1)), found.group(1)
    return err.replace(found.group(1), "{BOOM_AT}")


@dataclass(frozen=True)
class BoomPass(ModulePass):
    name = "boom"

    def apply(self, ctx, op) -> None:
        _boom()


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.mlir"
    path.write_text(GOOD)
    return path


@pytest.fixture(autouse=True)
def no_traceback_env(monkeypatch):
    monkeypatch.delenv("FERROX_TRACEBACK", raising=False)


def test_non_utf8_bytes_are_located_with_their_offset(tmp_path: Path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_bytes(b"func.func @f() {\n  \xc3( func.return\n}\n")
    expected = f"{path}:2:3: error: input is not valid UTF-8: byte 0xc3 at offset 19 (invalid continuation byte)\n"  # noqa: E501
    for run in (
        lambda: opt.main([str(path)]),
        lambda: cli.main(["compile", str(path)]),
        lambda: cli.main(["run", "--device", "cpu", str(path)]),
    ):
        assert run() == 1
        out, err = capsys.readouterr()
        assert err == expected


def test_a_numeric_block_label_is_a_diagnostic_not_a_crash(tmp_path: Path, capsys):
    path = tmp_path / "label.mlir"
    path.write_text("func.func @f() {\n  cf.br ^7\n^7:\n  func.return\n}\n")
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:2:9: error: block label `^7` is not supported: a block label must start with "
        "a letter, `_`, `$` or `.` (for example `^bb0`)\n"
    )


def test_a_bug_in_a_pass_is_an_internal_error_not_malformed_input(good, monkeypatch, capsys):
    passes = registry.all_passes()
    monkeypatch.setattr(registry, "all_passes", lambda: {**passes, "boom": lambda: BoomPass})
    assert opt.main(["-p", "boom", str(good)]) == INTERNAL_ERROR_EXIT
    err = _where(capsys.readouterr().err)
    assert err == (
        "ferrox-opt: internal error (a ferrox bug, please report it) while running pass 'boom': "
        "KeyError: 'boom'\n"
        "ferrox-opt: note: raised at {BOOM_AT}\n"
        f"ferrox-opt: {HINT}\n"
    )


@pytest.mark.parametrize("how", ["flag", "env"])
def test_debug_shows_the_traceback_in_ferrox_opt(good, monkeypatch, capsys, how):
    passes = registry.all_passes()
    monkeypatch.setattr(registry, "all_passes", lambda: {**passes, "boom": lambda: BoomPass})
    argv = ["-p", "boom", str(good)]
    if how == "flag":
        argv.insert(0, "--debug")
    else:
        monkeypatch.setenv("FERROX_TRACEBACK", "1")
    assert opt.main(argv) == INTERNAL_ERROR_EXIT
    err = _where(capsys.readouterr().err)
    assert err.startswith("Traceback (most recent call last):\n")
    assert err.endswith(
        "KeyError: 'boom'\n"
        "ferrox-opt: internal error (a ferrox bug, please report it) while running pass 'boom': "
        "KeyError: 'boom'\n"
        "ferrox-opt: note: raised at {BOOM_AT}\n"
    )


@pytest.mark.parametrize(
    "command, target",
    [
        ("compile", "ferrox.driver.tools.commands.compile.verify_program"),
        ("run", "ferrox.run_api.load_program"),
    ],
)
@pytest.mark.parametrize("debug", [[], ["--debug"]])
def test_a_bug_under_ferrox_compile_and_run_is_an_internal_error(
    good, monkeypatch, capsys, command, target, debug
):
    monkeypatch.setattr(target, _boom)
    extra = ["--device", "cpu"] if command == "run" else []
    assert cli.main([command, *debug, *extra, str(good)]) == INTERNAL_ERROR_EXIT
    err = _where(capsys.readouterr().err)
    report = (
        f"ferrox {command}: internal error (a ferrox bug, please report it): KeyError: 'boom'\n"
        f"ferrox {command}: note: raised at {{BOOM_AT}}\n"
    )
    if debug:
        assert err.startswith("Traceback (most recent call last):\n")
        assert err.endswith("KeyError: 'boom'\n" + report)
    else:
        assert err == report + f"ferrox {command}: {HINT}\n"


def test_debug_before_the_command_name_works_too(good, monkeypatch, capsys):
    monkeypatch.setattr("ferrox.driver.tools.commands.compile.verify_program", _boom)
    assert cli.main(["--debug", "compile", str(good)]) == INTERNAL_ERROR_EXIT
    assert capsys.readouterr().err.startswith("Traceback (most recent call last):\n")


def test_a_user_error_stays_a_located_diagnostic(tmp_path: Path, capsys):
    path = tmp_path / "typo.mlir"
    path.write_text(
        "func.func @f() {\n  %x = arith.constant 1 : i32\n  %y = arith.addi %x, %x : i64\n"
        "  func.return\n}\n"
    )
    for run in (lambda: opt.main([str(path)]), lambda: cli.main(["compile", str(path)])):
        assert run() == 1
        assert capsys.readouterr().err == (
            f"{path}:3:19: error[E0308]: mismatched types: %x is `i32`, used here as `i64`\n"
            f"{path}:2:3: note: %x is defined here, as `i32`\n"
        )


def _nested(depth: int) -> str:
    # The signature's parenthesis is one level (the body's brace comes after it closes).
    inner = depth - 1
    return f"func.func @f(%a: {'tuple<' * inner}i32{'>' * inner}) {{\n  func.return\n}}\n"


def test_nesting_up_to_the_limit_parses_and_deeper_is_a_diagnostic(tmp_path: Path, capsys):
    from ferrox.parser import MAX_NESTING

    path = tmp_path / "deep.mlir"
    path.write_text(_nested(MAX_NESTING))
    assert opt.main([str(path)]) == 0
    capsys.readouterr()
    path.write_text(_nested(MAX_NESTING + 1))
    for run in (lambda: opt.main([str(path)]), lambda: cli.main(["compile", str(path)])):
        assert run() == 1
        assert capsys.readouterr().err == (
            f"{path}:1:{23 + 6 * (MAX_NESTING - 1)}: error: brackets nest deeper than 100 "
            "levels, the most ferrox accepts\n"
        )


def test_an_out_of_range_dense_element_is_located(tmp_path: Path, capsys):
    path = tmp_path / "dense.mlir"
    path.write_text(
        "func.func @f() {\n  %c = arith.constant dense<[1, 300]> : tensor<2xi8>\n  func.return\n}\n"
    )
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:2:28: error: bad dense literal: Integer value 300 is out of range for type i8 "
        "which supports values in the range [-128, 256)\n"
    )


def test_a_module_level_error_points_at_the_start_of_the_file(tmp_path: Path, capsys):
    path = tmp_path / "twice.mlir"
    path.write_text(GOOD + GOOD)
    for run in (lambda: opt.main([str(path)]), lambda: cli.main(["compile", str(path)])):
        assert run() == 1
        assert capsys.readouterr().err == f'{path}:1:1: error: Redefinition of symbol "f"\n'
    assert cli.main(["run", "--device", "cpu", str(tmp_path / "twice.mlir")]) == 1


def test_an_integer_too_large_for_a_float_is_located(tmp_path: Path, capsys):
    path = tmp_path / "huge.mlir"
    path.write_text(
        f"func.func @f() {{\n  %c = arith.constant {'9' * 400} : f32\n  func.return\n}}\n"
    )
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:2:23: error: bad number literal: int too large to convert to float\n"
    )


def test_a_use_resolved_only_by_a_later_nested_definition_is_located(tmp_path: Path, capsys):
    path = tmp_path / "later.mlir"
    path.write_text(
        "func.func @f(%n: index) {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  scf.for %i = %c0 to %p step %c1 {\n"
        "    scf.for %p = %c0 to %n step %c1 {\n"
        "    }\n"
        "  }\n"
        "  func.return\n"
        "}\n"
    )
    for run in (lambda: opt.main([str(path)]), lambda: cli.main(["compile", str(path)])):
        assert run() == 1
        assert capsys.readouterr().err == (
            f"{path}:4:3: error: operand #1 of 'scf.for' names a value that is not defined here "
            "(its definition comes later, in another region)\n"
        )


def test_an_assertion_in_an_xdsl_op_parser_is_a_diagnostic_at_the_op(tmp_path: Path, capsys):
    path = tmp_path / "global.mlir"
    path.write_text("llvm.mlir.global @g() {addr_space = 3 : f64} : f32\n")
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:1:1: error: malformed 'llvm.mlir.global' operation (xDSL's parser for it "
        "refused it)\n"
    )


def test_an_index_constant_wider_than_64_bits_is_located(tmp_path: Path, capsys):
    path = tmp_path / "index.mlir"
    path.write_text(
        "func.func @f() -> index {\n  %c = arith.constant 0xFFFFFFFFFFFFFFFFFFFF : index\n"
        "  func.return %c : index\n}\n"
    )
    assert opt.main(["-p", "lower-to-llvm", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:2:23: error: index value 1208925819614629174706175 does not fit in 64 bits "
        "(ferrox's index)\n"
    )


@pytest.mark.parametrize(
    "attr, col, message",
    [
        ('"' + "x" * 60, 32, "string literal is not closed before the end of its line"),
        ('"a\\q"', 34, 'bad escape in string literal (MLIR has \\", \\n, \\t, \\\\, \\XX)'),
    ],
)
def test_string_literals_that_would_hang_the_lexer_are_diagnosed(
    tmp_path, capsys, attr, col, message
):
    # xDSL's string regex backtracks exponentially on these (minutes for the first).
    path = tmp_path / "string.mlir"
    path.write_text(f"func.func @f() attributes {{a = {attr}\n}} {{\n  func.return\n}}\n")
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == f"{path}:1:{col}: error: {message}\n"


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "  %y = arith.addi %x, %x : i32\n  %x = arith.constant 1 : i32\n",
            "3:3: error: %x is defined after a use of it in the same block (used at {path}:2:3)",
        ),
        (
            "  %x = arith.addi %x, %x : i32\n",
            "2:3: error: %x is used by the operation that defines it",
        ),
        (
            # Used two regions down: compile erased the op while the use remained (ValueError).
            "  %x = scf.execute_region -> i32 {\n    %y = scf.execute_region -> i32 {\n"
            "      scf.yield %x : i32\n    }\n    scf.yield %y : i32\n  }\n",
            "2:3: error: %x is used inside the operation that defines it (at {path}:4:7)",
        ),
    ],
)
def test_a_use_before_its_definition_in_a_block_is_located(tmp_path, capsys, body, message):
    path = tmp_path / "order.mlir"
    path.write_text(f"func.func @f() {{\n{body}  func.return\n}}\n")
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == f"{path}:" + message.format(path=path) + "\n"


@dataclass(frozen=True)
class BreakPass(ModulePass):
    """Turns verified IR into IR that does not verify: a function without its terminator."""

    name = "break-ir"

    def apply(self, ctx, op) -> None:
        for ret in [o for o in op.walk() if o.name == "func.return"]:
            ret.detach()
            ret.erase()


@pytest.mark.parametrize("tool", ["ferrox-opt", "ferrox compile"])
def test_a_pass_that_breaks_the_ir_is_an_internal_error(good, monkeypatch, capsys, tool):
    # `ferrox compile -p` reported the broken output as a located diagnostic against the input.
    passes = registry.all_passes()
    monkeypatch.setattr(registry, "all_passes", lambda: {**passes, "break-ir": lambda: BreakPass})
    if tool == "ferrox-opt":
        status, during = opt.main(["-p", "break-ir", str(good)]), " while running pass 'break-ir'"
    else:
        status, during = cli.main(["compile", "-p", "break-ir", str(good)]), ""
    assert status == INTERNAL_ERROR_EXIT
    err = capsys.readouterr().err
    assert err.startswith(
        f"{tool}: internal error (a ferrox bug, please report it){during}: "
        "ferrox.driver.tools.opt.InvalidPassOutput: pass 'break-ir' produced IR that does not "
        f"verify: {good}:1:1: error: block #0 of a region of 'func.func' is empty; a block must "
        "end with a terminator\n"
    )
