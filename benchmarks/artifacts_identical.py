"""Are two checkouts' compiles of every example the same, byte for byte?

    python benchmarks/artifacts_identical.py --tree OLD_CHECKOUT [--new NEW_CHECKOUT] [--tile]
        [--examples vecadd ...]

Compiles each example under examples/simt (and examples/tile with `--tile`) with this checkout
and with `--tree` (say, the commit before a change, in a git worktree), each in its own new
process (`compile_latency._TreeFinder` imports the other checkout's folders), cache off, and
compares the whole artifact: the PTX, the cubin, every kernel's facts and the source text. It
prints one line per example (`same`, or which parts differ) and exits 1 if any differs.

A compile-latency change must leave this at `same` everywhere: it may only make the compiler
faster, never change what it makes. CPU only; ptxas is used where it is found.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent

_DUMP = """
import json, sys
from pathlib import Path
tree = {tree!r}
if tree:
    sys.path.insert(0, {bench!r})
    import compile_latency
    sys.meta_path.insert(0, compile_latency._TreeFinder(Path(tree)))
import ferrox
out = {{}}
for path in {paths!r}:
    text = Path(path).read_text()
    chip = "sm_90a" if '"ferrox.chip" = "sm_90a"' in text else "sm_90"
    out[path] = json.loads(ferrox.compile(path, chip=chip, cache=False).to_json())
Path({target!r}).write_text(json.dumps(out))
"""


def examples(names: list[str], tile: bool) -> list[Path]:
    found = sorted((ROOT / "examples" / "simt").glob("*.mlir"))
    if tile:
        found += sorted((ROOT / "examples" / "tile").glob("*.mlir"))
    if names:
        found = [p for p in found if p.stem in names or f"{p.parent.name}/{p.stem}" in names]
    return found


def dump(tree: str, paths: list[Path], folder: str) -> dict:
    """Each example's artifact (its JSON, decoded) as `tree` compiles it ('' for this one)."""
    target = str(Path(folder) / f"artifacts-{abs(hash(tree))}.json")
    code = _DUMP.format(tree=tree, bench=str(BENCH), paths=[str(p) for p in paths], target=target)
    with tempfile.TemporaryDirectory(prefix="ferrox-cache-") as cache:
        env = {**os.environ, "FERROX_CACHE_DIR": cache}
        subprocess.run([sys.executable, "-P", "-c", code], check=True, env=env)
    return json.loads(Path(target).read_text())


def differences(old: dict, new: dict) -> list[str]:
    """The top-level artifact fields (and kernels) that differ."""
    parts = []
    for key in sorted(set(old) | set(new)):
        if key == "kernels":
            for name in sorted(set(old[key]) | set(new[key])):
                before, after = old[key].get(name) or {}, new[key].get(name) or {}
                fields = sorted(
                    f for f in set(before) | set(after) if before.get(f) != after.get(f)
                )
                parts.extend(f"kernel {name}.{f}" for f in fields)
        elif old.get(key) != new.get(key):
            parts.append(key)
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", required=True, help="the other checkout (the old one)")
    parser.add_argument("--new", default="", help="the new checkout (default: this one)")
    parser.add_argument("--tile", action="store_true", help="the tile examples too")
    parser.add_argument("--examples", nargs="*", default=[])
    args = parser.parse_args()
    paths = examples(args.examples, args.tile)
    with tempfile.TemporaryDirectory(prefix="ferrox-identical-") as folder:
        old = dump(str(Path(args.tree).resolve()), paths, folder)
        new = dump(str(Path(args.new).resolve()) if args.new else "", paths, folder)
    failed = 0
    for path in paths:
        key = str(path)
        parts = differences(old[key], new[key])
        failed += bool(parts)
        verdict = "differs: " + ", ".join(parts) if parts else "same"
        print(f"{path.parent.name}/{path.stem:28} {verdict}")
    print(f"{len(paths) - failed} of {len(paths)} the same")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
