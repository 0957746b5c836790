"""ferrox-opt where xDSL's own FileCheck suite needs it to act as xdsl-opt (issue 15): the
`--version` line carries xdsl-opt's, blocks that may be graph regions (xDSL's test ops,
unregistered ops, e-graphs) may use a value before its definition, and `-t llvm` refuses a
module triple that is not a string. `-t llvm` keeps exporting for NVPTX by default."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from xdsl.xdsl_opt_main import xDSLOptMain

import ferrox
from ferrox.driver.tools.opt import main

CYCLE = """\
"test.op"() ({
  %0 = "test.pureop"(%1) : (i32) -> (i32)
  %1 = "test.pureop"(%0) : (i32) -> (i32)
  "test.termop"() : () -> ()
}) : () -> ()
"""

EGRAPH = """\
func.func @egraph(%a: i64) {
  %zero = arith.constant 0 : i64
  %c_res = equivalence.class %a, %sum : i64
  %c_zero = equivalence.class %zero : i64
  %sum = arith.addi %c_res, %c_zero : i64
  func.return
}
"""


def run(capsys, tmp_path, text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    code = main([*args, str(path)])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(path), "IN")


def test_version_names_ferrox_opt_and_keeps_xdsl_opts_line(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == (
        f"ferrox-opt {ferrox.__version__} (xdsl-opt built from xdsl version {version('xdsl')})\n"
    )


def test_a_cycle_in_a_test_op_region_parses_and_dce_removes_it(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path, CYCLE, "-p", "dce")
    assert (code, err) == (0, "")
    assert out.splitlines(keepends=True) == [
        "builtin.module {\n",
        '  "test.op"() ({\n',
        '    "test.termop"() : () -> ()\n',
        "  }) : () -> ()\n",
        "}\n",
        "\n",
    ]


def test_an_egraph_cycle_in_a_function_round_trips(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path, EGRAPH)
    assert (code, err) == (0, "")
    body = "".join(f"  {line}\n" for line in EGRAPH.splitlines())
    assert out == "builtin.module {\n" + body + "}\n\n"


def test_an_unregistered_op_may_use_its_own_result(capsys, tmp_path):
    text = '"foo.graph"() ({\n  %0 = "foo.node"(%0) : (i32) -> i32\n}) : () -> ()\n'
    code, out, err = run(capsys, tmp_path, text, "--allow-unregistered-dialect")
    assert (code, err) == (0, "")
    assert out == (
        "builtin.module {\n"
        '  "foo.graph"() ({\n'
        '    %0 = "foo.node"(%0) : (i32) -> i32\n'
        "  }) : () -> ()\n"
        "}\n\n"
    )


def test_a_use_in_a_test_op_of_a_later_value_of_a_function_block_is_refused(capsys, tmp_path):
    # The test op's region may be a graph region; the function's block, which holds both the
    # test op (the use) and the definition, may not.
    text = (
        "func.func @f() {\n"
        '  "test.op"() ({\n'
        '    "test.op"(%x) : (i32) -> ()\n'
        "  }) : () -> ()\n"
        "  %x = arith.constant 1 : i32\n"
        "  func.return\n"
        "}\n"
    )
    code, out, err = run(capsys, tmp_path, text, "--error-format=short")
    assert (code, out) == (1, "")
    assert err == (
        "IN:5:3: error: %x is defined after a use of it in the same block (used at IN:3:5)\n"
    )


def test_a_ferrox_module_allows_no_graph_region(capsys, tmp_path):
    text = (
        "func.func @f() -> i32 {\n"
        "  %tid = nvvm.read.ptx.sreg.tid.x : i32\n"
        "  func.return %tid : i32\n"
        "}\n" + CYCLE
    )
    code, out, err = run(capsys, tmp_path, text, "--error-format=short")
    assert (code, out) == (1, "")
    assert err == (
        "IN:7:3: error: %1 is defined after a use of it in the same block (used at IN:6:3)\n"
    )


def test_an_egraph_in_an_llvm_function_is_refused(capsys, tmp_path):
    # The exporter reads llvm ops in order; it met %c before its definition.
    text = (
        "llvm.func @f(%a: i64) -> i64 {\n"
        "  %s = llvm.add %c, %a : i64\n"
        "  %c = llvm.add %a, %a : i64\n"
        "  %b = llvm.add %a, %a : i64\n"
        "  %d = equivalence.class %b : i64\n"
        "  llvm.return %s : i64\n"
        "}\n"
    )
    code, out, err = run(capsys, tmp_path, text, "-t", "llvm", "--error-format=short")
    assert (code, out) == (1, "")
    assert err == (
        "IN:3:3: error: %c is defined after a use of it in the same block (used at IN:2:3)\n"
    )


def test_a_target_triple_that_is_not_a_string_is_refused(capsys, tmp_path):
    text = 'builtin.module attributes {llvm.target_triple = 1, llvm.data_layout = "e"} {}\n'
    message = "error: Unsupported llvm.target_triple attribute: 1 : i64 (expected a string)\n"
    code, out, err = run(capsys, tmp_path, text, "-t", "llvm", "--error-format=short")
    assert (code, out, err) == (1, "", "IN:1:1: " + message)
    # xDSL's --verify-diagnostics (no expected-* annotations): the error is the output, as
    # xdsl-opt prints it (xDSL's parser read the input: no location).
    code, out, err = run(capsys, tmp_path, text, "-t", "llvm", "--verify-diagnostics")
    assert (code, out, err) == (0, "<unknown>: " + message, "")


def test_llvm_target_exports_input_that_is_not_gpu_code_as_xdsl_opt_does(capsys, tmp_path):
    # The host's triple, no data layout, as xDSL's exporter (xDSL's backend/llvm/module.mlir).
    code, out, err = run(capsys, tmp_path, "module {}\n", "-t", "llvm")
    assert (code, err) == (0, "")
    xDSLOptMain(args=[str(tmp_path / "in.mlir"), "-t", "llvm"]).run()
    assert out == capsys.readouterr().out
    assert out.splitlines()[2] == 'target datalayout = ""'


def test_llvm_target_exports_gpu_code_for_nvptx(capsys, tmp_path):
    text = 'module attributes {llvm.target_triple = "nvptx64-nvidia-cuda"} {}\n'
    code, out, err = run(capsys, tmp_path, text, "-t", "llvm")
    assert (code, err) == (0, "")
    assert out == (
        '; ModuleID = ""\n'
        'target triple = "nvptx64-nvidia-cuda"\n'
        'target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"\n'
    )
