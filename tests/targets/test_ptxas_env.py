"""ptxas runs with glibc's allocator settings of `toolchain.PTXAS_MALLOC` (fewer page faults):
the same ptxas on the same text, so the cubin and `-v` report are those of a ptxas run in the
caller's plain environment, byte for byte; a caller's own `GLIBC_TUNABLES` still applies."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

import ferrox
from ferrox.targets import ptxas_job
from ferrox.targets.toolchain import PTXAS_MALLOC, find_ptxas, ptxas_env, run_ptxas

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["simt/vecadd", "simt/transpose", "tile/softmax"]

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")


def timeless(log: str) -> str:
    return "\n".join(line for line in log.splitlines() if "Compile time" not in line)


def plain_ptxas(ptx: str, chip: str) -> tuple[bytes, str]:
    """ptxas with this process's environment less any `GLIBC_TUNABLES`."""
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    with tempfile.TemporaryDirectory() as tmp:
        source, cubin = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        source.write_text(ptx)
        command = [find_ptxas(), f"-arch={chip}", "-v", "-o", str(cubin), str(source)]
        proc = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        log = (proc.stdout + proc.stderr).replace(str(source), "<ptx>")
        return cubin.read_bytes(), log


def test_the_settings_come_first_and_the_callers_after(monkeypatch):
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    assert ptxas_env()["GLIBC_TUNABLES"] == PTXAS_MALLOC
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.top_pad=0")
    assert ptxas_env()["GLIBC_TUNABLES"] == f"{PTXAS_MALLOC}:glibc.malloc.top_pad=0"
    monkeypatch.setenv("FERROX_TEST_VARIABLE", "kept")
    assert ptxas_env()["FERROX_TEST_VARIABLE"] == "kept"


@needs_ptxas
@pytest.mark.parametrize("name", EXAMPLES)
def test_the_cubin_and_report_are_a_plain_ptxas_s(name):
    ptx = ferrox.compile(ROOT / "examples" / f"{name}.mlir", chip="sm_90", cache=False).ptx
    cubin, log = plain_ptxas(ptx, "sm_90")
    tuned = run_ptxas(ptx, "sm_90")
    assert tuned.cubin == cubin
    assert timeless(tuned.log) == timeless(log)
    if ptxas_job.early_start_possible():
        job = ptxas_job.start_ptxas("sm_90")
        assert job is not None
        early = job.finish(ptx)
        assert early.cubin == cubin
        assert timeless(early.log) == timeless(log)


@pytest.mark.skipif(
    not ptxas_job.early_start_possible(), reason="needs ptxas, named pipes and /proc (Linux)"
)
def test_the_spare_ptxas_runs_with_the_settings():
    job = ptxas_job.start_ptxas("sm_90")
    assert job is not None
    try:
        environ = Path(f"/proc/{job.pid}/environ").read_bytes().decode().split("\0")
        given = [e.partition("=")[2] for e in environ if e.startswith("GLIBC_TUNABLES=")]
        # (glibc 2.36 leaves only the first setting in the text /proc shows, having read all)
        assert len(given) == 1 and given[0]
        assert set(given[0].split(":")) <= set(PTXAS_MALLOC.split(":"))
    finally:
        job.close()
