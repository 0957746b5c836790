"""`ferrox compile`: PTX and cubin out, located errors and exit 1 in, never a traceback."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ferrox.driver.tools.cli import main
from ferrox.targets.toolchain import find_ptxas

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas (not on PATH)")

KERNEL = """\
llvm.func @scale(%p: !llvm.ptr<1> {llvm.noalias}, %s: f32) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128>} {
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %q = llvm.getelementptr inbounds %p[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %x = llvm.load %q : !llvm.ptr<1> -> f32
  %y = llvm.fmul %x, %s : f32
  llvm.store %y, %q : f32, !llvm.ptr<1>
  llvm.return
}
"""


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "scale.mlir"
    path.write_text(KERNEL)
    return path


def test_writes_ptx(kernel: Path, tmp_path: Path):
    out = tmp_path / "scale.ptx"
    assert main(["compile", str(kernel), "--chip", "sm_80", "-o", str(out)]) == 0
    ptx = out.read_text()
    assert ".target sm_80" in ptx
    assert ".visible .entry scale(" in ptx
    assert ".reqntid 128" in ptx
    assert not (tmp_path / "scale.cubin").exists()


def test_ptx_to_stdout_by_default(kernel: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["compile", str(kernel)]) == 0
    out = capsys.readouterr().out
    assert ".target sm_90" in out and ".version 8.0" in out


def test_reads_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setattr("sys.stdin", io.StringIO(KERNEL))
    assert main(["compile", "-", "-O", "0"]) == 0
    assert ".entry scale(" in capsys.readouterr().out


def test_chip_from_the_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "k.mlir"
    path.write_text('builtin.module attributes {"ferrox.chip" = "sm_86"} {\n' + KERNEL + "}\n")
    assert main(["compile", str(path)]) == 0
    assert ".target sm_86" in capsys.readouterr().out


@needs_ptxas
def test_cubin_next_to_the_ptx(kernel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "scale.ptx"
    assert main(["compile", str(kernel), "-o", str(out), "--cubin", "-v"]) == 0
    assert (tmp_path / "scale.cubin").read_bytes()[:4] == b"\x7fELF"
    err = capsys.readouterr().err
    assert (
        "kernel scale:" in err and "0 bytes spill stores, 0 bytes spill loads, 0 bytes local" in err
    )


@needs_ptxas
def test_cubin_at_a_chosen_path(kernel: Path, tmp_path: Path):
    cubin = tmp_path / "custom.bin"
    assert main(["compile", str(kernel), "-o", str(tmp_path / "k.ptx"), "--cubin", str(cubin)]) == 0
    assert cubin.read_bytes()[:4] == b"\x7fELF"


def test_missing_ptxas(
    kernel: Path, tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr("ferrox.targets.toolchain.find_ptxas", lambda: None)
    assert main(["compile", str(kernel), "-o", str(tmp_path / "k.ptx"), "--cubin"]) == 1
    err = capsys.readouterr().err
    assert "ferrox compile: error: ptxas not found" in err
    assert "pip install nvidia-cuda-nvcc" in err
    assert (tmp_path / "k.ptx").exists()  # the PTX is still written


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_unknown_intrinsic_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "bogus.mlir"
    path.write_text(KERNEL.replace("llvm.nvvm.read.ptx.sreg.tid.x", "llvm.nvvm.bogus"))
    err = _fails(["compile", str(path)], capsys)
    assert f"{path}:2:3: error: unknown intrinsic 'llvm.nvvm.bogus'" in err


def test_parse_error_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "broken.mlir"
    path.write_text("llvm.func @f( {\n")
    assert f"{path}:1:15: error:" in _fails(["compile", str(path)], capsys)


def test_verifier_error_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "bad.mlir"
    path.write_text("llvm.func @f() {\n  llvm.fence monotonic\n  llvm.return\n}\n")
    err = _fails(["compile", str(path)], capsys)
    assert f"{path}:2:3: error: fence ordering must be acquire, release, acq_rel or seq_cst" in err


def test_missing_file(capsys: pytest.CaptureFixture[str]):
    err = _fails(["compile", "/nonexistent/k.mlir"], capsys)
    assert (
        "ferrox compile: error: cannot read /nonexistent/k.mlir: No such file or directory" in err
    )


def test_bad_chip(kernel: Path, capsys: pytest.CaptureFixture[str]):
    assert "unknown chip 'sm_91'" in _fails(["compile", str(kernel), "--chip", "sm_91"], capsys)


def test_bad_pipeline(kernel: Path, capsys: pytest.CaptureFixture[str]):
    err = _fails(["compile", str(kernel), "-p", "no-such-pass"], capsys)
    assert "bad pass pipeline 'no-such-pass'" in err


def test_non_llvm_input_runs_the_given_pipeline(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "f.mlir"
    path.write_text(
        "func.func @k(%p: !llvm.ptr<1>, %x: i32) attributes {nvvm.kernel} {\n"
        "  %y = arith.addi %x, %x : i32\n"
        "  llvm.store %y, %p : i32, !llvm.ptr<1>\n"
        "  func.return\n"
        "}\n"
    )
    assert main(["compile", str(path), "-p", "convert-to-llvm"]) == 0
    assert ".visible .entry k(" in capsys.readouterr().out


def test_non_llvm_input_without_a_pipeline(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
):
    from ferrox import registry

    passes = registry.all_passes()
    passes.pop("lower-to-llvm", None)
    monkeypatch.setattr(registry, "all_passes", lambda: passes)
    path = tmp_path / "f.mlir"
    path.write_text("func.func @k() {\n  func.return\n}\n")
    err = _fails(["compile", str(path)], capsys)
    assert f"{path}:1:1: error: 'func.func' is not in the llvm dialect and the lower-to-llvm" in err
