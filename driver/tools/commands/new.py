"""ferrox new: make a ferrox project, or an out-of-tree dialect package, whose tests pass as made.

    ferrox new NAME [--directory DIR]            # a project: NAME/
    ferrox new --dialect NAME [--directory DIR]  # a dialect plugin: ferrox-NAME/

A project holds a kernel written in Python (`@simt.kernel`), one written in MLIR with a host
program, a host program in Python that launches both, and their tests (pytest, and lit for the
MLIR). A dialect package holds one op (IRDL, assembly format, verifier), its lowering (run by
`lower-to-llvm`), its definition for the CPU reference interpreter, the entry points that
register them with ferrox, and FileCheck and NumPy tests; docs/custom-dialect.md walks through
it. The templates are in ferrox/driver/tools/scaffold/templates.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ferrox.driver.tools.scaffold import ScaffoldError, dialect_names, make, project_names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the project's name, or with --dialect the dialect's")
    parser.add_argument(
        "--dialect",
        action="store_true",
        help="make an out-of-tree dialect package (ferrox-NAME) instead of a project",
    )
    parser.add_argument(
        "--directory",
        default=".",
        metavar="DIR",
        help="the folder to make it in (default: the current folder)",
    )


def execute(args: argparse.Namespace) -> int:
    try:
        if args.dialect:
            names = dialect_names(args.name)
            made = make("dialect", names, Path(args.directory))
        else:
            names = project_names(args.name)
            made = make("project", names, Path(args.directory))
    except ScaffoldError as e:
        print(f"ferrox new: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"ferrox new: error: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    what = f"the {names['name']} dialect package" if args.dialect else "the project"
    print(f"made {what} in {made.root} ({len(made.files)} files); next:")
    print(f"  cd {made.root}")
    print("  pip install -e .")
    print("  python -m pytest && lit -v tests")
    return 0
