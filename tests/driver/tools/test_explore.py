"""`ferrox explore` (issue 15 item 7): the page holds the IR after every stage of lower-to-llvm,
the changes between stages, the LLVM IR, the PTX and ptxas's report; a headless Chromium shows
the panel the URL names. Input that breaks a rule gets the located diagnostic and no page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from ferrox.driver.tools.cli import main
from ferrox.driver.tools.explorer import Exploration, Panel, render_page
from ferrox.lowering.pipeline import STAGES
from ferrox.targets.toolchain import find_ptxas

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
VECADD = EXAMPLES / "simt" / "vecadd.mlir"
TILE_ADD = EXAMPLES / "tile" / "vector_add.mlir"

RACY = """\
simt.kernel @racy(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [32]> {
  %w = simt.thread_index_1d
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %old : f32
  }
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old2: f32):
    simt.yield %old2 : f32
  }
  simt.return
}
"""


def page_data(page: str) -> dict:
    found = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def vecadd_page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("explore") / "vecadd.html"
    assert main(["explore", str(VECADD), "-o", str(out)]) == 0
    return out


def test_page_has_every_stage_then_llvm_ir_and_ptx(vecadd_page):
    data = page_data(vecadd_page.read_text())
    titles = [p["title"] for p in data["panels"]]
    assert titles == ["input", *(s.name for s in STAGES), "LLVM IR", "PTX (sm_90)"]
    assert data["chip"] == "sm_90"
    by_title = {p["title"]: p for p in data["panels"]}
    assert "simt.kernel @vecadd" in by_title["input"]["text"]
    assert "llvm.func @vecadd" in by_title["convert-to-llvm"]["text"]
    assert 'define ptx_kernel void @"vecadd"(' in by_title["LLVM IR"]["text"]
    assert ".entry vecadd(" in by_title["PTX (sm_90)"]["text"]
    # Each stage's changes: the SIMT kernel goes, the func + nvvm form comes.
    diff = by_title["convert-simt-to-nvvm"]["diff"].splitlines()
    assert any(line.startswith("-") and "simt.kernel @vecadd" in line for line in diff)
    assert any(line.startswith("+") and "func.func @vecadd" in line for line in diff)
    # Op counts: the conversion to func + nvvm + llvm pointers makes more ops than it takes.
    assert by_title["convert-simt-to-nvvm"]["ops"] > by_title["extract-device-code"]["ops"] > 0


def test_a_stage_that_changes_nothing_has_no_diff(vecadd_page):
    data = page_data(vecadd_page.read_text())
    first_stage = data["panels"][1]
    assert first_stage["title"] == "verify-disjoint"  # a check: the IR is unchanged
    assert first_stage["diff"] == ""
    assert first_stage["text"] == data["panels"][0]["text"]


@pytest.mark.ptxas
def test_page_has_ptxas_report(vecadd_page):
    if find_ptxas() is None:
        pytest.skip("needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)")
    data = page_data(vecadd_page.read_text())
    assert data["notes"] == []
    (row,) = data["resources"]
    assert row["function"] == "vecadd"
    assert row["registers"] > 0


def test_tile_kernel_page_shows_the_tile_lowering(tmp_path):
    out = tmp_path / "tile.html"
    assert main(["explore", str(TILE_ADD), "-o", str(out)]) == 0
    panels = page_data(out.read_text())["panels"]
    extract = next(p for p in panels if p["title"] == "extract-device-code")
    # The tile kernel is SIMT from here on (its attributes keep the tile lowering's facts).
    assert not re.search(r"^\s*(%\S+ = )?\"?tile\.", extract["text"], re.M)
    assert re.search(r"^\s*(%\S+ = )?\"?tile\.", panels[0]["text"], re.M)
    assert "simt.kernel" in extract["text"]


def test_unsafe_input_gets_the_diagnostic_and_no_page(tmp_path, capsys):
    src = tmp_path / "racy.mlir"
    src.write_text(RACY)
    out = tmp_path / "racy.html"
    assert main(["explore", str(src), "-o", str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{src}:7:3: error[E0382]: use of moved value: witness",
        f"{src}:3:3: note: value moved here",
        f"{src}:7:3: note: value used here after move",
    ]
    assert not out.exists()


def test_text_that_looks_like_a_closing_script_tag_stays_text():
    nasty = 'x = "</script><img src=x onerror=alert(1)>"'
    page = render_page(Exploration("a.mlir", "sm_90", [Panel("input", "input", nasty)], [], []))
    assert page.count("</script>") == 2  # the data block's and the script's own
    assert page_data(page)["panels"][0]["text"] == nasty


CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium() -> str:
    found = next(
        (
            shutil.which(n)
            for n in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(n)
        ),
        None,
    )
    if found is None:
        pytest.skip(
            "headless Chromium is not installed (.ci/run installs Debian's chromium; "
            "`apt-get install chromium` here)"
        )
    return found


def rendered(page: Path, fragment: str) -> str:
    """The page's DOM after its script ran, as headless Chromium shows it at `#fragment`."""
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom",
             f"{page.as_uri()}#{fragment}"],
            capture_output=True,
            text=True,
            timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_chromium_shows_the_ptx_panel(vecadd_page):
    dom = rendered(vecadd_page, "ptx")
    panel = re.search(r'<section id="panel" data-key="([^"]+)">(.*?)</section>', dom, re.S)
    assert panel is not None, dom[:2000]
    assert panel.group(1) == "ptx"
    assert "<h2>PTX (sm_90)</h2>" in panel.group(2)
    assert ".entry vecadd(" in panel.group(2)
    assert re.search(r'<a href="#ptx" id="nav-ptx" class="active">', dom)
    nav = re.findall(r'<a href="#([^"]+)" id="nav-', dom)
    assert nav == ["input", *(f"stage-{i}" for i in range(1, len(STAGES) + 1)), "llvm-ir", "ptx",
                   "resources"]  # fmt: skip


def test_chromium_shows_a_stage_with_its_changes(vecadd_page):
    dom = rendered(vecadd_page, "stage-3")
    assert '<section id="panel" data-key="stage-3"><h2>convert-simt-to-nvvm</h2>' in dom
    assert re.search(r'<span class="del">-\s+simt\.kernel @vecadd', dom)
    assert re.search(r'<span class="add">\+\s+func\.func @vecadd', dom)
