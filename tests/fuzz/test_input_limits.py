"""Inputs that used to crash or hang a tool and are now located diagnostics: malformed regexes in
`expected-*` annotations, bytes that are not UTF-8 through the Python API, dense literals too big
or too wide for xDSL, bad argument attributes for xDSL's LLVM export."""

from __future__ import annotations

from pathlib import Path

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.tools import opt
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


@pytest.mark.parametrize(
    "attr, col, message",
    [
        (
            "dense<1.0> : tensor<99999999999xf32>",
            45,
            "dense literal of 99999999999 elements; ferrox accepts at most 1048576",
        ),
        (
            'dense<"0x01"> : tensor<2000000xi8>',
            48,
            "dense literal of 2000000 elements; ferrox accepts at most 1048576",
        ),
        (
            "dense<[1, 2]> : tensor<2xi128>",
            48,
            "dense elements of type i128 are not supported (at most 64 bits an element)",
        ),
        (
            "dense<(1.0, 2.0)> : tensor<1xcomplex<f80>>",
            52,
            "dense elements of type f80 are not supported (at most 64 bits an element)",
        ),
        (
            "array<f128: 1.0>",
            38,
            "dense elements of type f128 are not supported (at most 64 bits an element)",
        ),
    ],
)
def test_dense_literals_too_big_or_too_wide_are_located(tmp_path: Path, capsys, attr, col, message):
    path = tmp_path / "dense.mlir"
    path.write_text(f"func.func @f() attributes {{a = {attr}}} {{\n  func.return\n}}\n")
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == f"{path}:1:{col}: error: {message}\n"


def test_dense_literals_at_the_limits_parse(tmp_path: Path, capsys):
    path = tmp_path / "dense.mlir"
    attrs = (
        "a = dense<1> : tensor<1024x1024xi8>, b = array<i64: 1, 2>, c = dense<0> : tensor<2xi64>"
    )
    path.write_text(f"func.func @f() attributes {{{attrs}}} {{\n  func.return\n}}\n")
    assert opt.main([str(path)]) == 0
    assert "b = array<i64: 1, 2>" in capsys.readouterr().out


def test_an_index_error_in_an_xdsl_op_parser_is_a_diagnostic_at_the_op(tmp_path: Path, capsys):
    path = tmp_path / "alloca.mlir"
    path.write_text(
        "llvm.func @f(%c: i32) {\n  %0 = llvm.alloca %c x i32 : () -> !llvm.ptr\n  llvm.return\n}\n"
    )
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:2:3: error: malformed 'llvm.alloca' operation (xDSL's parser for it refused "
        "it: tuple index out of range)\n"
    )


@pytest.mark.parametrize(
    "attr, message",
    [
        ("llvm.align = -4 : i64", "'llvm.align' must be a power of two, got -4 : i64"),
        ("llvm.align = 3 : i64", "'llvm.align' must be a power of two, got 3 : i64"),
        (
            "llvm.dereferenceable = 1.0 : f32",
            "'llvm.dereferenceable' must be a non-negative integer, got 1.000000e+00 : f32",
        ),
        ("llvm.byval = 3", "'llvm.byval' must be an LLVM type, got 3 : i64"),
    ],
)
def test_bad_argument_attributes_for_the_llvm_export_are_located(
    tmp_path: Path, capsys, attr, message
):
    path = tmp_path / "args.mlir"
    path.write_text(f"llvm.func @f(%p: !llvm.ptr {{{attr}}}) {{\n  llvm.return\n}}\n")
    assert opt.main(["-t", "llvm", str(path)]) == 1
    assert capsys.readouterr().err == f"{path}:1:1: error: argument #0 of @f: {message}\n"


def test_good_argument_attributes_export(tmp_path: Path, capsys):
    path = tmp_path / "args.mlir"
    path.write_text(
        "llvm.func @f(%p: !llvm.ptr {llvm.align = 8 : i64, llvm.byval = i32}) {\n  llvm.return\n}\n"
    )
    assert opt.main(["-t", "llvm", str(path)]) == 0
    assert 'define void @"f"(i32* byval(i32) align 8 %"p")' in capsys.readouterr().out
