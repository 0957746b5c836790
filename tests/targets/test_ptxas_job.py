"""ptxas started before its PTX exists (`targets/ptxas_job.py`) gives what `run_ptxas` gives: the
same cubin byte for byte and the same `-v` report, the same error for bad PTX, and it falls back
to `run_ptxas` whenever the early start goes wrong."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ferrox
from ferrox.targets import ptxas_job
from ferrox.targets.toolchain import ToolchainError, run_ptxas

pytestmark = pytest.mark.skipif(
    not ptxas_job.early_start_possible(), reason="needs ptxas, named pipes and /proc (Linux)"
)

ROOT = Path(__file__).resolve().parents[2]
# A small kernel, one with shared memory, and the largest tile kernel (PTX read in many chunks).
EXAMPLES = ["simt/vecadd", "simt/sgemm_tiled", "tile/softmax"]


@pytest.fixture(scope="module")
def ptx_of():
    found: dict[str, str] = {}

    def get(name: str) -> str:
        if name not in found:
            path = ROOT / "examples" / f"{name}.mlir"
            found[name] = ferrox.compile(path, chip="sm_90", cache=False).ptx
        return found[name]

    return get


def timeless(log: str) -> str:
    """ptxas's report less its `Compile time = ... ms` lines."""
    return "\n".join(line for line in log.splitlines() if "Compile time" not in line)


def job(chip: str = "sm_90") -> ptxas_job.PtxasJob:
    started = ptxas_job.start_ptxas(chip)
    assert started is not None
    return started


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_cubin_and_report_are_run_ptxas_s(ptx_of, name):
    ptx = ptx_of(name)
    early, plain = job().finish(ptx), run_ptxas(ptx, "sm_90")
    assert early.cubin == plain.cubin
    assert early.resources == plain.resources and early.resources[name.split("/")[1]].entry
    assert timeless(early.log) == timeless(plain.log)


def test_a_text_larger_than_a_pipe_buffer(ptx_of):
    """Written in many chunks, on both of ptxas's passes (a pipe holds 64 KiB)."""
    ptx = ptx_of("simt/vecadd") + "".join(f"// padding line {i:06d}\n" for i in range(12_000))
    assert len(ptx) > 4 * 65536
    assert job().finish(ptx).cubin == run_ptxas(ptx, "sm_90").cubin


def test_bad_ptx_is_ptxas_s_own_error(ptx_of):
    bad = ptx_of("simt/vecadd").replace("ret;", "no_such_instruction;", 1)
    with pytest.raises(ToolchainError) as early:
        job().finish(bad)
    with pytest.raises(ToolchainError) as plain:
        run_ptxas(bad, "sm_90")
    assert str(early.value) == str(plain.value)
    assert str(early.value).startswith("ptxas rejected the PTX for sm_90:\n")


def test_a_compile_that_fails_first_leaves_nothing_running():
    started = job()
    folder = started._source.parent
    started.close()
    assert started._proc.returncode is not None and not folder.exists()


def test_an_early_start_gone_wrong_falls_back_to_run_ptxas(ptx_of, monkeypatch):
    def no_proc(self, data):
        raise OSError("no /proc here")

    # The PTX first: compiling it (when no earlier test in this worker has) runs a job too, and
    # with `/proc` patched away that job would already mark early starts unusable.
    ptx = ptx_of("simt/vecadd")
    monkeypatch.setattr(ptxas_job.PtxasJob, "_feed", no_proc)
    monkeypatch.setattr(ptxas_job, "_unusable", False)
    started = job()
    assert started.finish(ptx).cubin == run_ptxas(ptx, "sm_90").cubin
    assert started._proc.returncode is not None and not started._source.parent.exists()
    # ... and later compiles no longer try (each would run ptxas twice).
    assert ptxas_job.start_ptxas("sm_90") is None


def test_compile_module_assembles_through_it(ptx_of, monkeypatch):
    """ferrox.compile's cubin is the early job's, and the job's folder is gone afterwards."""
    made: list[ptxas_job.PtxasJob] = []
    real = ptxas_job.start_ptxas

    def counted(chip: str):
        made.append(real(chip))
        return made[-1]

    monkeypatch.setattr("ferrox.targets.compile.start_ptxas", counted)
    artifact = ferrox.compile(ROOT / "examples" / "simt" / "saxpy.mlir", chip="sm_90", cache=False)
    assert len(made) == 1 and not made[0]._source.parent.exists()
    assert artifact.cubin == run_ptxas(artifact.ptx, "sm_90").cubin
    assert not os.path.exists(made[0]._source)


def test_each_finish_leaves_a_spare_that_the_next_job_is():
    """The next compile's ptxas is started when one finishes, and handed out by start_ptxas;
    it has had its input opened before the PTX existed, and gives the same cubin. (sm_80: a
    chip no other test here compiles for, so its spare is this test's.)"""
    ptx = ferrox.compile(ROOT / "examples" / "simt" / "vecadd.mlir", chip="sm_80", cache=False).ptx
    job("sm_80").finish(ptx)
    waiting = ptxas_job.spare_pid("sm_80")
    assert waiting is not None
    time.sleep(0.5)  # long enough for it to be waiting on its input
    spare = job("sm_80")
    assert spare.pid == waiting and ptxas_job.spare_pid("sm_80") is None
    assert spare.finish(ptx).cubin == run_ptxas(ptx, "sm_80").cubin
    assert ptxas_job.spare_pid("sm_80") not in (None, waiting)


@pytest.mark.parametrize("delay", [0.0, 0.5])
def test_a_waiting_ptxas_ends_with_the_process_that_started_it(delay):
    """A process that dies without cleaning up (os._exit) leaves no ptxas behind: the end of its
    input goes with it, whether ptxas had opened that input yet (0.5 s) or not (0 s)."""
    code = (
        "import os, time\n"
        "from ferrox.targets import ptxas_job\n"
        "j = ptxas_job.start_ptxas('sm_90')\n"
        f"time.sleep({delay})\n"
        "print(j.pid, flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return  # gone (reaped by init)
        if state == "Z":
            return  # exited, not reaped yet
        time.sleep(0.05)
    raise AssertionError(f"ptxas {pid} still runs 30 s after its parent died")
