"""What `ferrox explore` shows: a file's IR after each stage of the lowering, the LLVM IR, the PTX
and ptxas's resource report, collected once (`explore`) and written as one self-contained HTML
page (`render_page`).

The stages are `lower-to-llvm`'s own (`ferrox.lowering.pipeline.STAGES`, the ones `ferrox-opt
--print-ir-after-all` prints), so the page shows what the compiler does, not a second copy of it.
The page carries the text as JSON and builds itself with a little inline script: it needs no
network and no files beside it, and a test can drive it in a headless browser (the URL's
fragment, `#ptx` or `#stage-3`, picks the panel shown first).
"""

from __future__ import annotations

import difflib
import html
import json
import time
from collections import Counter
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from ferrox.lowering.pipeline import STAGES, lower_to_llvm
from ferrox.registry import make_context
from ferrox.targets.llvm_export import to_llvm_ir
from ferrox.targets.ptx import compile_ptx, resolve_target, validate_target
from ferrox.targets.toolchain import ToolchainError, find_ptxas, run_ptxas


@dataclass
class Panel:
    """One thing the page shows: a stage's IR (with its diff from the one before), or a text."""

    key: str
    title: str
    text: str
    diff: str = ""
    seconds: float | None = None
    ops: dict[str, int] = field(default_factory=dict)


@dataclass
class Exploration:
    source_name: str
    chip: str
    panels: list[Panel]
    resources: list[dict[str, object]]
    notes: list[str]


def explore(
    module: ModuleOp, source_name: str, chip: str | None = None, opt: int = 3
) -> Exploration:
    """Lower a verified `module` (in place) stage by stage, recording each stage's IR, then export
    it, compile it to PTX and, where ptxas is found, read its resource report."""
    panels = [Panel("input", "input", str(module), ops=_op_counts(module))]
    started = [time.perf_counter()]

    def after(previous: ModulePass | None, op: ModuleOp, following: ModulePass | None) -> None:
        if previous is None:
            started[0] = time.perf_counter()
            return
        text = str(op)
        panels.append(
            Panel(
                f"stage-{len(panels)}",
                previous.name,
                text,
                diff=_diff(panels[-1].text, text, panels[-1].title, previous.name),
                seconds=time.perf_counter() - started[0],
                ops=_op_counts(op),
            )
        )
        started[0] = time.perf_counter()

    lower_to_llvm(module, make_context(), after, STAGES)
    chip, features = resolve_target(module, chip, None)
    validate_target(chip, features)
    llvm_ir = to_llvm_ir(module)
    panels.append(Panel("llvm-ir", "LLVM IR", llvm_ir))
    ptx = compile_ptx(llvm_ir, chip, features, opt)
    panels.append(Panel("ptx", f"PTX ({chip})", ptx))
    resources: list[dict[str, object]] = []
    notes: list[str] = []
    if find_ptxas() is None:
        notes.append("ptxas was not found on PATH: no register or shared-memory report")
    else:
        try:
            report = run_ptxas(ptx, chip).resources
        except ToolchainError as e:
            notes.append(f"ptxas failed: {e}")
        else:
            for name, r in sorted(report.items()):
                resources.append({"function": name, **_resource_fields(r)})
    return Exploration(source_name, chip, panels, resources, notes)


def _resource_fields(r: object) -> dict[str, object]:
    fields = getattr(r, "__dataclass_fields__", {})
    return {name: getattr(r, name) for name in fields if name != "name"}


def _op_counts(module: ModuleOp) -> dict[str, int]:
    return dict(Counter(op.name for op in module.walk() if op is not module).most_common())


def _diff(before: str, after: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(),
        after.splitlines(),
        f"before {new} ({old})",
        f"after {new}",
        lineterm="",
    )
    return "\n".join(lines)


def render_page(found: Exploration) -> str:
    """The self-contained HTML page for `found`."""
    data = {
        "source": found.source_name,
        "chip": found.chip,
        "panels": [
            {
                "key": p.key,
                "title": p.title,
                "text": p.text,
                "diff": p.diff,
                "ms": None if p.seconds is None else round(p.seconds * 1000, 3),
                "ops": sum(p.ops.values()) if p.ops else None,
                "top_ops": list(p.ops.items())[:8],
            }
            for p in found.panels
        ],
        "resources": found.resources,
        "notes": found.notes,
    }
    # `</` inside a script would end it: JSON escapes the slash so no text can close the tag.
    payload = json.dumps(data).replace("</", "<\\/")
    title = html.escape(f"ferrox explore: {found.source_name}")
    return PAGE.replace("@TITLE@", title).replace("@DATA@", payload)


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>@TITLE@</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 0; display: flex; height: 100vh; }
nav { width: 17em; border-right: 1px solid #ccc; overflow-y: auto; padding: .5em; }
nav a { display: block; padding: .25em .4em; color: #124; text-decoration: none; }
nav a.active { background: #dde7f5; font-weight: bold; }
nav small { color: #666; }
main { flex: 1; overflow: auto; padding: 0 1em; }
pre { font: 12px ui-monospace, monospace; background: #f7f7f7; padding: .6em; overflow-x: auto; }
.add { color: #075; } .del { color: #a12; } .hunk { color: #55a; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .2em .5em; }
.note { color: #a60; }
</style></head>
<body><nav id="nav"></nav><main id="main"></main>
<script id="data" type="application/json">@DATA@</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const nav = document.getElementById("nav"), main = document.getElementById("main");
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function diffBlock(diff) {
  const pre = el("pre", {class: "diff"});
  for (const line of diff.split("\\n")) {
    const cls = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add"
      : line.startsWith("-") ? "del" : "";
    pre.appendChild(el("span", cls ? {class: cls} : {}, line + "\\n"));
  }
  return pre;
}
const panels = data.panels.slice();
panels.push({key: "resources", title: "ptxas report", text: ""});
nav.appendChild(el("h3", {title: data.source}, data.source.split("/").pop()));
for (const p of panels) {
  const a = el("a", {href: "#" + p.key, id: "nav-" + p.key}, p.title);
  if (p.ops !== null && p.ops !== undefined) a.appendChild(el("small", {}, " " + p.ops + " ops"));
  nav.appendChild(a);
}
function show(key) {
  const p = panels.find(q => q.key === key) || panels[0];
  for (const a of nav.querySelectorAll("a")) a.classList.toggle("active", a.id === "nav-" + p.key);
  main.replaceChildren();
  const section = el("section", {id: "panel", "data-key": p.key});
  section.appendChild(el("h2", {}, p.title));
  if (p.key === "resources") {
    for (const n of data.notes) section.appendChild(el("p", {class: "note"}, n));
    if (data.resources.length) {
      const t = el("table", {id: "resources"});
      const cols = Object.keys(data.resources[0]);
      const head = el("tr");
      for (const c of cols) head.appendChild(el("th", {}, c));
      t.appendChild(head);
      for (const r of data.resources) {
        const row = el("tr");
        for (const c of cols) row.appendChild(el("td", {}, String(r[c])));
        t.appendChild(row);
      }
      section.appendChild(t);
    }
  } else {
    if (p.ms !== null && p.ms !== undefined) section.appendChild(el("p", {}, p.ms + " ms"));
    if (p.top_ops && p.top_ops.length)
      section.appendChild(el("p", {class: "ops"},
        "most frequent ops: " + p.top_ops.map(([n, c]) => n + " \\u00d7" + c).join(", ")));
    if (p.diff) {
      section.appendChild(el("h3", {}, "changes"));
      section.appendChild(diffBlock(p.diff));
    }
    section.appendChild(el("h3", {}, "text"));
    section.appendChild(el("pre", {class: "text"}, p.text));
  }
  main.appendChild(section);
}
window.addEventListener("hashchange", () => show(location.hash.slice(1)));
show(location.hash.slice(1));
</script></body></html>
"""
