"""`continue` in a kernel loop, as structured control flow.

An `scf` loop body has no early exit, but a `continue` that ends an `if` branch only says "the
rest of this trip runs on the other path": `if c: A; continue` followed by `B` is `if c: A`
`else: B`. `without_continue` rewrites a loop body that way before it is built (new nodes, the
originals' locations; the function's cached tree is not touched), so every op keeps its Python
line and the verifiers judge exactly the paths Python would run (a `sync_threads()` that a
divergent `continue` skips is under a divergent `if` after the rewrite too).

What it cannot rewrite without copying the rest of the body into two branches (a branch that
continues on some paths only, while code follows the `if`), or a `continue` inside a `with`
block (a guarded write or unsafe region runs to its end), is refused at the `continue`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

Fail = Callable[[ast.AST, str], Exception]


def without_continue(stmts: Sequence[ast.stmt], fail: Fail) -> list[ast.stmt]:
    """`stmts`, a loop body (what runs until the end of the trip), with no `continue` of this
    loop left in it. Nested loops keep theirs (they are rewritten when they are built)."""
    if not _continues(stmts):
        return list(stmts)
    return _rewrite(list(stmts), fail)


def _rewrite(stmts: list[ast.stmt], fail: Fail) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for k, s in enumerate(stmts):
        if isinstance(s, ast.Continue):
            return out  # what follows in this list never runs
        if not _continues([s]):
            out.append(s)
            continue
        if not isinstance(s, ast.If):
            where = _first_continue([s])
            raise fail(
                where or s,
                "`continue` cannot leave a `with` block (a guarded write or an unsafe region "
                "runs to its end): test the condition before the `with`, or put the rest of "
                "the block under `else:`",
            )
        rest = stmts[k + 1 :]
        branches = [s.body, s.orelse]
        going_on = [b for b in branches if not _always(b)]
        if rest and len(going_on) == 2:
            where = _first_continue([s])
            raise fail(
                where or s,
                "`continue` must end its `if` branch: here the branch can also go on to the "
                "code after the `if`; put that code under the `if`'s `else:` (or end the "
                "branch with the `continue`)",
            )
        body, orelse = (
            _rewrite(b + ([] if _always(b) else rest), fail) if b or rest else [] for b in branches
        )
        new = ast.If(test=s.test, body=body or [_pass(s)], orelse=orelse)
        out.append(ast.copy_location(new, s))
        return out  # the rest went into the branch that goes on
    return out


def _always(stmts: Sequence[ast.stmt]) -> bool:
    """Every path through `stmts` reaches a `continue` of this loop."""
    for s in stmts:
        if isinstance(s, ast.Continue):
            return True
        if isinstance(s, ast.If) and _always(s.body) and _always(s.orelse):
            return True
    return False


def _continues(stmts: Sequence[ast.stmt]) -> bool:
    return _first_continue(stmts) is not None


def _first_continue(stmts: Sequence[ast.stmt]) -> ast.Continue | None:
    """The first `continue` of this loop in `stmts` (not one of a nested loop's)."""
    for s in stmts:
        if isinstance(s, ast.Continue):
            return s
        if isinstance(s, ast.For | ast.While | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            found = _first_continue(getattr(s, field, []) or [])
            if found is not None:
                return found
        for handler in getattr(s, "handlers", []) or []:
            found = _first_continue(handler.body)
            if found is not None:
                return found
    return None


def _pass(at: ast.stmt) -> ast.stmt:
    return ast.copy_location(ast.Pass(), at)


__all__ = ["without_continue"]
