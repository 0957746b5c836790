"""`python -m benchmarks` without a GPU says why and exits cleanly, before importing PyTorch."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from benchmarks import __main__ as command


def test_without_a_gpu_it_says_why_and_exits_0(monkeypatch, capsys):
    import ferrox.driver.runtime.device as device

    monkeypatch.setattr(device, "unavailable_reason", lambda ordinal=0: "no CUDA driver here")
    assert command.main([]) == 0
    assert capsys.readouterr().out == (
        "python -m benchmarks: no GPU to measure on: no CUDA driver here\n"
    )


def test_an_unknown_benchmark_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        command.main(["--only", "vecadd,nope"])
    assert stop.value.code == 2
    assert "unknown benchmark nope (have vecadd, tile, reductions, gemm" in capsys.readouterr().err


def test_the_module_runs_from_the_checkout(tmp_path):
    """As the command line runs it, from the root (without the suite's PYTHONSAFEPATH, which
    would keep the root off the path); on a machine without a GPU it prints the reason and
    exits 0."""
    from benchmarks.__main__ import no_gpu_reason

    reason = no_gpu_reason()
    if reason is None:
        pytest.skip("a GPU is here: the command would run the whole benchmark")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--out", str(tmp_path)],
        cwd=command.__file__.rsplit("/benchmarks/", 1)[0],
        env={k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"python -m benchmarks: no GPU to measure on: {reason}\n"
    assert not (tmp_path / "results.json").exists()
