"""`ferrox compile` through the kernel cache: a file compiled before is not parsed again, an
entry of the Python API (kernels checked, not the whole program) is not taken for one, and
`--time` names each stage that ran."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ferrox
from ferrox.driver.tools.cli import main
from ferrox.driver.tools.commands import compile as command
from ferrox.targets import cache

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
STAGE = re.compile(r"^\s+[0-9]+\.[0-9]{3} ms  (\S+)$")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _refuse(*args, **kwargs):
    raise AssertionError("parsed on a cache hit")


def stages(err: str) -> list[str]:
    return [m.group(1) for line in err.splitlines() if (m := STAGE.match(line))]


def test_a_hit_is_not_parsed_and_times_only_the_lookup(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    out = tmp_path / "v.ptx"
    argv = ["compile", str(VECADD), "-o", str(out), "--time"]
    assert main(argv) == 0
    first = out.read_text()
    missed = stages(capsys.readouterr().err)
    assert missed[:5] == ["read", "key", "cache", "parse", "verify"]
    assert {"verify-disjoint", "convert-to-llvm", "llvm-export", "llvm", "store"} <= set(missed)
    assert missed[-1] == "total"
    monkeypatch.setattr(command, "parse_source", _refuse)
    cache.default_cache().clear_memory()  # from the disk, as a new process would
    out.unlink()
    assert main(argv) == 0
    assert out.read_text() == first
    assert stages(capsys.readouterr().err) == ["read", "key", "cache", "total"]


def test_an_api_entry_is_not_a_whole_program_check(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch
):
    """`ferrox.compile` checks the kernels, `ferrox compile` the host program too: the same
    text is two entries, so a program the API compiled is still checked by the command."""
    artifact = ferrox.compile(VECADD, chip="sm_90")
    monkeypatch.setattr(command, "parse_source", _refuse)
    assert main(["compile", str(VECADD), "--chip", "sm_90", "-o", str(tmp_path / "v.ptx")]) == 70
    assert "AssertionError: parsed on a cache hit" in capsys.readouterr().err
    monkeypatch.undo()
    monkeypatch.setenv("FERROX_CACHE_DIR", str(cache_dir))
    assert main(["compile", str(VECADD), "--chip", "sm_90", "-o", str(tmp_path / "v.ptx")]) == 0
    assert (tmp_path / "v.ptx").read_text() == artifact.ptx
    assert len(list(cache_dir.glob("*/*.artifact.json"))) == 2
