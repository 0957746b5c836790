"""The `ferrox` command imports only the command asked for: a cache hit through `ferrox compile`
loads neither the lowering nor the explorer (issue 14: a cache hit is cheap), and `ferrox --help`
lists every command from COMMANDS, whose text is each module's own first docstring line."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ferrox.driver.tools import cli

COMMANDS_DIR = Path(cli.__file__).resolve().parent / "commands"
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "simt" / "vecadd.mlir"


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_summary_is_the_modules_docstring(name):
    doc = ast.get_docstring(ast.parse((COMMANDS_DIR / f"{name}.py").read_text()))
    assert doc is not None
    assert doc.splitlines()[0] == f"ferrox {name}: {cli.COMMANDS[name]}"


def test_every_command_module_is_listed():
    modules = {p.stem for p in COMMANDS_DIR.glob("*.py") if p.stem != "__init__"}
    assert modules == set(cli.COMMANDS)


@pytest.mark.parametrize(
    "argv, chosen",
    [
        (["compile", "k.mlir"], "compile"),
        (["--debug", "run", "k.mlir"], "run"),
        (["--error-format", "short", "explain", "E0382"], "explain"),
        (["--error-format=human", "doctor"], "doctor"),
        (["--help"], None),
        (["nosuch"], None),
        ([], None),
    ],
)
def test_chosen_command(argv, chosen):
    assert cli.chosen_command(argv) == chosen


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert f"    {name} " in out


WATCHED = (
    "ferrox.driver.tools.explorer",
    "ferrox.driver.tools.commands.new",
    "ferrox.lowering.pipeline",
    "ferrox.lowering.tile_to_simt",
)


def test_a_cache_hit_imports_no_lowering_and_no_explorer(tmp_path):
    env = {**os.environ, "FERROX_CACHE_DIR": str(tmp_path / "cache")}
    outputs = [tmp_path / "miss.ptx", tmp_path / "hit.ptx"]
    for out in outputs:  # the first run compiles and stores, the second hits the cache
        code = (
            "import sys\n"
            "from ferrox.driver.tools.cli import main\n"
            f"assert main(['compile', {str(EXAMPLE)!r}, '-o', {str(out)!r}]) == 0\n"
            f"print([m for m in {WATCHED!r} if m in sys.modules])\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"
    assert outputs[1].read_text() == outputs[0].read_text()
