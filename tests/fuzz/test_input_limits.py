"""Inputs that used to crash or hang a tool and are now located diagnostics: malformed regexes in
`expected-*` annotations, bytes that are not UTF-8 through the Python API, and a kernel that
never ends (the interpreter's step budget)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.interpreter import (
    DEFAULT_MAX_STEPS,
    KernelStepLimit,
    run_simt_kernel,
    step_budget,
)
from ferrox.driver.tools import cli, opt
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.run_api import load_program

BODY = "func.func @f() {\n  func.return\n}\n"


@pytest.mark.parametrize(
    "annotation, col, why",
    [
        ("expected-error {{re:(}}", 24, "missing ), unterminated subpattern"),
        ("expected-error-re {{a {{[z-a}} b}}", 29, "bad character range z-a"),
        ("expected-warning {{re:a{99999999999}}}", 26, "the repetition number is too large"),
        ("expected-error {{re:" + "(" * 101 + "}}", 124, "groups nest deeper than 100 levels"),
        (
            "expected-note-re {{ {{(?P<a>1)}} {{(?P<a>2)}} }}",
            23,
            "redefinition of group name 'a' as group 2; was group 1",
        ),
    ],
)
def test_a_bad_regex_in_an_annotation_is_located(tmp_path: Path, capsys, annotation, col, why):
    path = tmp_path / "re.mlir"
    path.write_text(f"// {annotation}\n{BODY}")
    assert opt.main(["--verify-diagnostics", str(path)]) == 1
    kind = annotation.split(" ")[0]
    _, err = capsys.readouterr()
    assert err == f"{path}:1:{col}: error: bad regular expression in {kind}: {why}\n"


def test_a_good_regex_still_matches(tmp_path: Path, capsys):
    path = tmp_path / "re.mlir"
    # xDSL reports an unregistered op where the parse ends, on the line after it.
    path.write_text(
        "// expected-error-re@+2 {{Operation {{[a-z]+\\.bar}} is not registered}}\nfoo.bar\n"
    )
    assert opt.main(["--verify-diagnostics", str(path)]) == 0, capsys.readouterr().err


def test_load_program_locates_bytes_that_are_not_utf8(tmp_path: Path):
    path = tmp_path / "bad.mlir"
    path.write_bytes(b"func.func @main() {\n  func.return\xff\n}\n")
    with pytest.raises(DiagnosticError) as caught:
        load_program(path)
    assert str(caught.value) == (
        f"{path}:2:14: error: input is not valid UTF-8: byte 0xff at offset 33 (invalid start byte)"
    )


def test_load_program_locates_a_parse_error(tmp_path: Path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @main() {\n  func.return %x : i32\n}\n")
    with pytest.raises(DiagnosticError) as caught:
        load_program(str(path))
    assert str(caught.value) == f"{path}:4:1: error: values used but not defined: [%x]"


SPIN = """builtin.module {
  simt.kernel @spin(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [32]> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant TRIPS : index
    scf.for %k = %c0 to %n step %c1 {
      scf.yield
    }
    simt.return
  }
  func.func @main() {
    %n = host.param "n" = 32 : index
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 32 : index
    %blocks = arith.constant 1 : index
    %p = host.prepare @spin grid(%blocks) block(%threads) args(%out : !host.tensor<f32, [?]>)
    %out2 = host.launch @spin with %p on %s outs(%out : !host.tensor<f32, [?]>)
      -> !host.tensor<f32, [?]>
    host.sync_on %s
    func.return
  }
}
"""
BUDGET = (
    "the launch ran past its step budget of {} operations (a loop that does not end, or more "
    "work than the CPU interpreter is for); raise it with --max-steps or FERROX_MAX_STEPS "
    "(block (0, 0, 0), thread (0, 0, 0))"
)


@pytest.fixture
def spin(tmp_path: Path) -> Path:
    path = tmp_path / "spin.mlir"
    path.write_text(SPIN.replace("TRIPS", "9223372036854775807"))
    return path


def test_a_kernel_that_never_ends_is_stopped_by_the_step_budget(spin: Path, capsys):
    assert cli.main(["run", "--device", "cpu", "--max-steps", "1_000", str(spin)]) == 1
    out, err = capsys.readouterr()
    assert err == (
        f"{spin}:6:5: error: {BUDGET.format('1,000')}\n"
        f"{spin}:18:5: note: in the launch of @spin here\n"
    )


def test_the_step_budget_comes_from_the_environment(spin: Path, capsys, monkeypatch):
    monkeypatch.setenv("FERROX_MAX_STEPS", "500")
    assert cli.main(["run", "--device", "cpu", str(spin)]) == 1
    assert BUDGET.format("500") in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-3", "lots"])
def test_a_bad_step_budget_is_a_usage_error(spin: Path, capsys, monkeypatch, value):
    assert cli.main(["run", "--device", "cpu", "--max-steps", value, str(spin)]) == 1
    assert capsys.readouterr().err == (
        "ferrox run: error: --max-steps: the step budget must be a positive integer, "
        f"got '{value}'\n"
    )
    monkeypatch.setenv("FERROX_MAX_STEPS", value)
    assert cli.main(["run", "--device", "cpu", str(spin)]) == 1
    assert capsys.readouterr().err.startswith("ferrox run: error: FERROX_MAX_STEPS: ")


def test_a_loop_that_ends_within_the_budget_runs(tmp_path: Path):
    module = parse_module(make_context(), SPIN.replace("TRIPS", "100"), "spin.mlir")
    out = np.full(32, np.nan, dtype=np.float32)
    # 32 threads, each a 5-op body and 100 trips of a 1-op loop body, and a step per block
    # entered: 32 * (6 + 100 * 2) = 6,592.
    with step_budget(6_592):
        run_simt_kernel(module, "spin", (1, 1, 1), (32, 1, 1), [out])
    with step_budget(6_591), pytest.raises(KernelStepLimit) as caught:
        run_simt_kernel(module, "spin", (1, 1, 1), (32, 1, 1), [out])
    assert caught.value.reason.startswith("the launch ran past its step budget of 6,591 ")
    assert DEFAULT_MAX_STEPS == 4_000_000
