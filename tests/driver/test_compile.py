"""`ferrox compile`: PTX and cubin out, located errors and exit 1 in, never a traceback."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ferrox.driver.tools.cli import main
from ferrox.targets.toolchain import find_ptxas

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas (not on PATH)")

KERNEL = """\
llvm.func @scale(%p: !llvm.ptr<1> {llvm.noalias}, %s: f32)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128>} {
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
    assert f"{path}:3:3: error: unknown intrinsic 'llvm.nvvm.bogus'" in err


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


VECADD = Path(__file__).resolve().parents[2] / "examples" / "simt" / "vecadd.mlir"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_program_whose_launch_reads_its_own_output_is_refused(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
):
    """verify-ownership runs on the host program: %out is both an input and the output."""
    text = VECADD.read_text()
    bad = text.replace("args(%a, %b, %out :", "args(%out, %b, %out :").replace(
        "ins(%a, %b : ", "ins(%out, %b : "
    )
    assert bad.count("%out, %b") == 2
    path = tmp_path / "alias.mlir"
    path.write_text(bad)
    line = next(i for i, t in enumerate(bad.splitlines(), 1) if "host.launch" in t)
    err = _fails(["compile", str(path), "-o", str(tmp_path / "k.ptx")], capsys)
    assert err.splitlines() == [
        f"{path}:{line}:5: error[E0502]: cannot borrow %out as immutable because it is also "
        "borrowed as mutable",
        f"{path}:{line}:5: note: mutable borrow occurs here",
        f"{path}:{line}:5: note: immutable borrow occurs here",
    ]
    assert not (tmp_path / "k.ptx").exists() and not cache_dir.exists()


def test_an_unsafe_kernel_is_refused_with_its_rule(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
):
    path = tmp_path / "rule4.mlir"
    path.write_text(
        "simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) {\n"
        "  %s = builtin.unrealized_conversion_cast %out : !simt.disjoint_slice<f32, 1d> to "
        "!simt.slice<f32>\n"
        "  simt.return\n"
        "}\n"
    )
    err = _fails(["compile", str(path)], capsys)
    assert err == (
        f"{path}:2:3: error[E1004]: disjoint slice `%out` cannot be used by "
        "'builtin.unrealized_conversion_cast': it is written only through simt.get_mut\n"
    )


def test_kernels_compile_through_the_cache_into_an_artifact(
    tmp_path: Path, cache_dir: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
):
    from ferrox.artifact import ModuleArtifact, ParamKind
    from ferrox.targets import cache

    ptx, json_path = tmp_path / "v.ptx", tmp_path / "v.json"
    argv = ["compile", str(VECADD), "-o", str(ptx), "--artifact", str(json_path)]
    assert main(argv) == 0
    artifact = ModuleArtifact.from_json(json_path.read_text())
    assert ptx.read_text() == artifact.ptx and ".entry vecadd(" in artifact.ptx
    assert [p.kind for p in artifact["vecadd"].params] == [
        ParamKind.SHARED_SLICE,
        ParamKind.SHARED_SLICE,
        ParamKind.DISJOINT_SLICE,
    ]
    assert len(list(cache_dir.glob("*/*.artifact.json"))) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(cache, "compile_module", refuse)
    cache.default_cache().clear_memory()
    ptx.unlink()
    assert main(argv) == 0, "a hit, from the disk"
    assert ptx.read_text() == artifact.ptx
    assert main([*argv, "--no-cache"]) == 70  # an exception from the compiler: internal error
    assert (
        "ferrox compile: internal error (a ferrox bug, please report it): AssertionError: "
        "compiled again\n" in capsys.readouterr().err
    )


@needs_ptxas
def test_the_artifact_cubin_is_written(tmp_path: Path, cache_dir: Path):
    cubin = tmp_path / "v.cubin"
    assert main(["compile", str(VECADD), "-o", str(tmp_path / "v.ptx"), "--cubin", str(cubin)]) == 0
    assert cubin.read_bytes()[:4] == b"\x7fELF"


def test_artifact_needs_the_default_pipeline(kernel: Path, capsys: pytest.CaptureFixture[str]):
    err = _fails(["compile", str(kernel), "--artifact", "k.json"], capsys)
    assert err == (
        "ferrox compile: error: --artifact needs the default pipeline (SIMT or tile kernels, "
        "no -p)\n"
    )
