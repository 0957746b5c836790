"""The test support's `assembled` (tests/support/compiled.py): a test that asks ptxas about the
PTX a compile of its process just made reads that compile's own ptxas run, which is what
`run_ptxas` gives for the same PTX and chip; other PTX still goes to ptxas."""

from __future__ import annotations

from pathlib import Path

import compiled
import pytest

import ferrox
from ferrox.targets import ptxas_job
from ferrox.targets.toolchain import run_ptxas

pytestmark = pytest.mark.skipif(
    not ptxas_job.early_start_possible(), reason="needs ptxas started early (Linux, /proc)"
)

VECADD = Path(__file__).resolve().parents[2] / "examples" / "simt" / "vecadd.mlir"


def no_ptxas(*args, **kwargs):
    raise AssertionError("ptxas ran again")


def test_a_compiles_ptxas_run_answers_and_is_run_ptxas_s(monkeypatch):
    art = ferrox.compile(VECADD, chip="sm_90", cache=False)
    monkeypatch.setattr(compiled, "run_ptxas", no_ptxas)
    got = compiled.assembled(art.ptx, art.chip)
    assert got.cubin == art.cubin  # the compile's own run
    monkeypatch.undo()
    plain = run_ptxas(art.ptx, art.chip)
    assert got.cubin == plain.cubin and got.resources == plain.resources


def test_other_ptx_or_another_chip_runs_ptxas(monkeypatch):
    art = ferrox.compile(VECADD, chip="sm_90", cache=False)
    calls = []

    def counted(ptx, chip):
        calls.append(chip)
        return run_ptxas(ptx, chip)

    monkeypatch.setattr(compiled, "run_ptxas", counted)
    compiled.assembled(art.ptx, "sm_90a")
    compiled.assembled(art.ptx.replace("// ", "//  ", 1), art.chip)
    compiled.assembled(art.ptx, "sm_90a")  # asked before: kept
    assert calls == ["sm_90a", art.chip]
