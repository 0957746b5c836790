"""The CPU interpreter's step budget: a kernel that never ends is a located diagnostic (the
launch's op, the loop), not a hang; the budget is configurable and every run within it works."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox.driver.interpreter import (
    DEFAULT_MAX_STEPS,
    KernelStepLimit,
    run_simt_kernel,
    step_budget,
)
from ferrox.driver.tools import cli
from ferrox.parser import parse_module
from ferrox.registry import make_context

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
    assert DEFAULT_MAX_STEPS == 100_000_000


HOST_LOOP = """func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant TRIPS : index
  scf.for %k = %c0 to %n step %c1 {
    scf.yield
  }
  func.return
}
"""


def test_a_host_loop_that_never_ends_is_stopped(tmp_path: Path, capsys, monkeypatch):
    path = tmp_path / "host.mlir"
    path.write_text(HOST_LOOP.replace("TRIPS", "9223372036854775807"))
    monkeypatch.setenv("FERROX_HOST_MAX_STEPS", "100")
    assert cli.main(["run", "--device", "cpu", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"{path}:6:5: error: the host program ran past its step budget of 100 operations (a "
        "loop that does not end?); raise it with FERROX_HOST_MAX_STEPS\n"
    )


def test_a_host_loop_within_the_budget_runs(tmp_path: Path, capsys, monkeypatch):
    path = tmp_path / "host.mlir"
    path.write_text(HOST_LOOP.replace("TRIPS", "48"))
    # 4 ops up to the loop, 48 trips of its one-op body, then func.return: 53 steps.
    monkeypatch.setenv("FERROX_HOST_MAX_STEPS", "53")
    assert cli.main(["run", "--device", "cpu", str(path)]) == 0, capsys.readouterr().err
    monkeypatch.setenv("FERROX_HOST_MAX_STEPS", "52")
    assert cli.main(["run", "--device", "cpu", str(path)]) == 1
    assert "the host program ran past its step budget of 52 operations" in capsys.readouterr().err
    monkeypatch.setenv("FERROX_HOST_MAX_STEPS", "0")
    assert cli.main(["run", "--device", "cpu", str(path)]) == 1
    assert capsys.readouterr().err.endswith(
        "ferrox run: error: FERROX_HOST_MAX_STEPS: the step budget must be a positive integer, "
        "got '0'\n"
    )
