"""`ferrox-opt --verify-diagnostics` follows MLIR: every expectation met, nothing unexpected."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import in_process
import pytest

from ferrox.driver.tools.expected_diagnostics import parse_expectations

OPT = [sys.executable, "-m", "ferrox.driver.tools.opt"]

BAD_RETURN = """\
func.func @f(%a: i32) -> i64 {
  func.return %a : i32 {anno}
}
"""


def run_opt(tmp_path: Path, text: str, *flags: str) -> in_process.Ran:
    """ferrox-opt's main in this process (tests/support/in_process.py)."""
    src = tmp_path / "input.mlir"
    src.write_text(text)
    return in_process.ferrox_opt(src, *flags)


@pytest.mark.parametrize(
    "anno",
    [
        "// expected-error {{Expected arguments to have the same types}}",
        "// expected-error {{re:same types as the function output types: expected \\[i64\\]}}",
        "// expected-error-re {{expected [{{i[0-9]+}}], got [i32]}}",
    ],
)
def test_matching_expectation_passes(tmp_path, anno):
    proc = run_opt(tmp_path, BAD_RETURN.replace("{anno}", anno), "--verify-diagnostics")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_python_m_entry_point_verifies_diagnostics(tmp_path):
    """`python -m ferrox.driver.tools.opt` itself, once (the other tests run its main here)."""
    src = tmp_path / "input.mlir"
    anno = "// expected-error {{Expected arguments to have the same types}}"
    src.write_text(BAD_RETURN.replace("{anno}", anno))
    proc = subprocess.run([*OPT, str(src), "--verify-diagnostics"], capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_altered_message_fails_naming_both(tmp_path):
    anno = "// expected-error {{Expected arguments to have DIFFERENT types}}"
    proc = run_opt(tmp_path, BAD_RETURN.replace("{anno}", anno), "--verify-diagnostics")
    assert proc.returncode == 1
    assert "input.mlir:2:3: error: unexpected error: Expected arguments" in proc.stderr
    assert (
        'expected error "Expected arguments to have DIFFERENT types" was not produced'
        in proc.stderr
    )


def test_wrong_line_fails(tmp_path):
    anno = "// expected-error@-1 {{Expected arguments}}"
    proc = run_opt(tmp_path, BAD_RETURN.replace("{anno}", anno), "--verify-diagnostics")
    assert proc.returncode == 1
    assert "(on line 1)" in proc.stderr


def test_unexpected_diagnostic_fails(tmp_path):
    """In a file with `expected-*` annotations (MLIR's meaning of the flag; without any, the
    flag keeps xdsl-opt's: tests/driver/tools/test_opt_defaults.py), an error no annotation
    expects fails, in any chunk."""
    matched = BAD_RETURN.replace("{anno}", "// expected-error {{Expected arguments}}")
    text = BAD_RETURN.replace("{anno}", "") + "// -----\n" + matched
    proc = run_opt(tmp_path, text, "--verify-diagnostics", "--split-input-file")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{tmp_path / 'input.mlir'}:2:3: error: unexpected error: ")


def test_missing_diagnostic_fails(tmp_path):
    text = "func.func @ok() {\n  // expected-error@+1 {{never}}\n  func.return\n}\n"
    proc = run_opt(tmp_path, text, "--verify-diagnostics")
    assert proc.returncode == 1
    assert 'expected error "never" was not produced (on line 3)' in proc.stderr


def test_designators():
    text = "\n".join(
        [
            "op_a",  # 1
            "// expected-error@above {{a}}",  # 2 -> 1
            "// expected-warning@below {{b}}",  # 3 -> 5 (skips the annotated line 4)
            "// expected-note@-3 {{c}}",  # 4 -> 1
            "op_b",  # 5
            "op_c // expected-remark {{d}}",  # 6 -> 6
            "// expected-error@+2 {{e}}",  # 7 -> 9
        ]
    )
    found = [(e.severity, e.line, e.text) for e in parse_expectations(text, line_offset=10)]
    assert found == [
        ("error", 11, "a"),
        ("warning", 15, "b"),
        ("note", 11, "c"),
        ("remark", 16, "d"),
        ("error", 19, "e"),
    ]


def test_split_input_file_keeps_lines(tmp_path):
    text = BAD_RETURN.replace("{anno}", "") + "// -----\n" + BAD_RETURN.replace("{anno}", "")
    proc = run_opt(tmp_path, text, "--split-input-file")
    assert proc.returncode == 1
    assert "input.mlir:2:3: error" in proc.stderr
    assert "input.mlir:6:3: error" in proc.stderr


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "func.func @f(",
        "}}}}",
        '"unterminated',
        "func.func @f() { %0 = arith.constant 1 : i32 ",
        "\x00\x01\x02",
        "builtin.module { func.func @f() -> i32 { func.return } }",
        "#attr = ",
        "%x = arith.addi %y, %y : i32",
    ],
)
def test_garbage_never_tracebacks(tmp_path, garbage):
    proc = run_opt(tmp_path, garbage)
    assert "Traceback" not in proc.stderr
    if garbage.strip():
        assert proc.returncode == 1
        assert "error" in proc.stderr


def test_unknown_pass_is_a_clean_error(tmp_path):
    proc = run_opt(tmp_path, "", "-p", "no-such-pass")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "no-such-pass" in proc.stderr


def test_bad_pipeline_spec_is_a_clean_error(tmp_path):
    proc = run_opt(tmp_path, "", "-p", "canonicalize{")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "Error parsing pass pipeline specification" in proc.stderr


def test_constraint_error_while_parsing_is_located(tmp_path):
    text = "func.func @f(%i: i32) {\n  %x = llvm.fptosi %i : i32 to i32\n  func.return\n}\n"
    proc = run_opt(tmp_path, text)
    assert proc.returncode == 1
    assert "input.mlir:2:3: error:" in proc.stderr
