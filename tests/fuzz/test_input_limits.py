"""Inputs that used to crash or hang a tool and are now located diagnostics: malformed regexes in
`expected-*` annotations, bytes that are not UTF-8 through the Python API, dense literals too big
or too wide for xDSL, bad argument attributes for xDSL's LLVM export."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.tools import cli, opt
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


WHILE = """func.func @w(%n: i32) -> RESULT {
  %t = arith.constant true
  %r = scf.while (%i = %n) : (i32) -> RESULT {
    scf.condition(%t) %i : i32
  } do {
  ^bb0(%j: i32):
    scf.yield %j : i32
  }
  func.return %r : RESULT
}
"""


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "func.func @f() {\n  cf.br ^next\n^next:\n}\n",
            "1:1: error: block #1 of a region of 'func.func' is empty; a block must end with a "
            "terminator",
        ),
        (
            WHILE.replace("RESULT", "f32"),
            "3:3: error: the 'after' region's block arguments (i32) must match the scf.while's "
            "results (f32)",
        ),
        (
            "func.func @m(%m: memref<4x4xf32>, %i: index) -> f32 {\n"
            "  %v = memref.load %m[%i] : memref<4x4xf32>\n  func.return %v : f32\n}\n",
            "2:3: error: 'memref.load' needs 2 indices for memref<4x4xf32>, got 1",
        ),
        (
            'cf.assert %ok, "x"\nfunc.func @f(%ok: i1) {\n  func.return\n}\n',
            "1:1: error: operand #0 of 'cf.assert' names a value defined at {path}:2:14, in a "
            "region that does not enclose this use",
        ),
    ],
)
def test_ir_that_xdsl_verifies_too_little_is_refused(tmp_path: Path, capsys, text, message):
    path = tmp_path / "ir.mlir"
    path.write_text(text)
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == f"{path}:{message.format(path=path)}\n"


def test_a_good_scf_while_verifies(tmp_path: Path, capsys):
    path = tmp_path / "ir.mlir"
    path.write_text(WHILE.replace("RESULT", "i32"))
    assert opt.main([str(path)]) == 0, capsys.readouterr().err


def test_an_assert_at_the_top_level_is_not_lowered(tmp_path: Path, capsys):
    path = tmp_path / "assert.mlir"
    path.write_text('%t = arith.constant true\ncf.assert %t, "x"\n')
    assert cli.main(["compile", "-o", os.devnull, str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:2:1: error: cannot lower 'cf.assert' to llvm: cf.assert must be inside a "
        "function\n"
    )


@pytest.mark.parametrize(
    "global_type, message",
    [
        ("none", "its type none has no size"),
        (
            "!llvm.array<10000000000000000000 x i8>",
            "an array of 10000000000000000000 elements is longer than 9223372036854775807",
        ),
    ],
)
def test_a_global_without_a_storable_type_is_located(tmp_path: Path, capsys, global_type, message):
    path = tmp_path / "global.mlir"
    path.write_text(f"llvm.mlir.global internal @g() {{addr_space = 1 : i32}} : {global_type}\n")
    assert opt.main(["-t", "llvm", str(path)]) == 1
    assert (
        capsys.readouterr().err == f"{path}:1:1: error: global @g cannot be exported: {message}\n"
    )


def test_a_simt_op_outside_every_kernel_is_refused(tmp_path: Path, capsys):
    path = tmp_path / "top.mlir"
    path.write_text("simt.sync_threads\n")
    assert opt.main(["-p", "lower-to-llvm", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:1:1: error: 'simt.sync_threads' must be inside a simt.kernel or simt.func\n"
    )


def test_ops_a_lowering_pattern_makes_carry_the_location_of_the_op_they_replace(
    tmp_path: Path, capsys
):
    path = tmp_path / "top.mlir"
    path.write_text("\nnvvm.barrier0\n")
    assert cli.main(["compile", "-o", os.devnull, str(path)]) == 1
    why = "cannot appear at the top level of a module exported to LLVM IR (only llvm.func and "
    assert capsys.readouterr().err == (
        f"{path}:2:1: error: 'llvm.mlir.constant' {why}llvm.mlir.global can)\n"
        f"{path}:2:1: error: 'llvm.call_intrinsic' {why}llvm.mlir.global can)\n"
    )


def test_a_switch_on_a_type_xdsl_cannot_pack_is_a_diagnostic_at_the_op(tmp_path: Path, capsys):
    path = tmp_path / "switch.mlir"
    path.write_text(
        "func.func @f(%k: i128) {\n  cf.switch %k : i128, [\n    default: ^d,\n    1: ^d\n  ]\n"
        "^d:\n  func.return\n}\n"
    )
    assert opt.main([str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:2:3: error: malformed 'cf.switch' operation (xDSL's parser for it refused it: "
        "Format not implemented for i128)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [["compile", "--no-cache", "-o", os.devnull], ["run", "--device", "cpu"], None],
    ids=["compile", "run", "opt"],
)
def test_an_alias_that_does_not_verify_is_located(tmp_path: Path, capsys, argv):
    # An alias is parsed outside every op: its VerifyException escaped `ferrox compile` and
    # `ferrox run` as an internal error and was `<unknown>: error:` in ferrox-opt.
    path = tmp_path / "alias.mlir"
    path.write_text(f"!t = i8\n#big = 300 : !t\n{BODY}")
    status = opt.main([str(path)]) if argv is None else cli.main([*argv, str(path)])
    assert status == 1
    _, err = capsys.readouterr()
    assert err == (
        f"{path}:2:1: error: invalid alias definition: Integer value 300 is out of range for "
        "type i8 which supports values in the range [-128, 256)\n"
    )


def test_aliases_that_verify_are_used(tmp_path: Path, capsys):
    path = tmp_path / "alias.mlir"
    path.write_text(
        "!t = i8\n#c = 100 : !t\nfunc.func @f() -> !t {\n"
        "  %c = arith.constant #c\n  func.return %c : !t\n}\n"
    )
    assert opt.main([str(path)]) == 0
    out, _ = capsys.readouterr()
    assert "arith.constant 100 : i8" in out


ROW_SUM = """tile.kernel @row_sum(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %t = tile.load %x[%i, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, N]>
  %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, N]> -> !tile.tile<f32, [16]>
  tile.store %s, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
"""


def test_a_tile_too_big_for_the_threads_registers_is_refused(tmp_path: Path, capsys):
    # The lowering emits each thread's elements one by one: 2^31 columns never finished, 4096 x
    # 128 took minutes. 512 threads (a reduction kernel's most) x 256 elements is the most a
    # block may hold.
    path = tmp_path / "big.mlir"
    path.write_text(ROW_SUM.replace("N", "16384"))
    assert cli.main(["compile", "--no-cache", "-o", os.devnull, str(path)]) == 1
    _, err = capsys.readouterr()
    assert err == (
        f"{path}:3:3: error[E1204]: cannot lower 'tile.load' to SIMT: its "
        "!tile.tile<f32, [16, 16384]> of 262144 elements spreads 512 over each of the block's 512 "
        "threads, more than the 256 a thread may hold; use smaller tiles\n"
    )


def test_a_tile_at_the_register_limit_compiles(tmp_path: Path, capsys):
    path = tmp_path / "limit.mlir"
    path.write_text(ROW_SUM.replace("N", "4096"))
    assert opt.main(["-p", "convert-tile-to-simt", "-o", os.devnull, str(path)]) == 0
