"""`continue` and `break` in a kernel loop, as structured control flow.

An `scf` loop body has no early exit, but a `continue` that ends an `if` branch only says "the
rest of this trip runs on the other path": `if c: A; continue` followed by `B` is `if c: A`
`else: B`. A `break` is the same skip plus a flag that ends the loop: `flag = True` where it
stood, a `while` condition that is false once the flag is set (the user's condition is not
evaluated again, so no read it guards runs past the exit), and in a `for` over `range` a body
that runs only while the flag is clear (the remaining trips do nothing). The loop carries the
flag like any name it rebinds.

`loop_body` rewrites a loop body that way before it is built (new nodes with the originals'
locations; the function's cached tree is not touched), so every op keeps its Python line and the
verifiers judge exactly the paths Python would run: a `sync_threads()` that a divergent
`continue` or `break` skips is under a divergent `if` after the rewrite too.

What it cannot rewrite without copying the rest of the body into two branches (a branch that
leaves on some paths only while code follows the `if`), or a `continue`/`break` inside a `with`
block (a guarded write or unsafe region runs to its end), is refused at the statement.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Fail = Callable[[ast.AST, str], Exception]


class _Break(ast.Continue):
    """A `break` after its flag is set: from here on it skips the trip as `continue` does."""


@dataclass
class LoopBody:
    """A loop body with no `continue` or `break` of its own: `stmts`; `flag` the name a `break`
    sets (bound to False before the loop), or None; `test` the `while` condition to build."""

    stmts: list[ast.stmt]
    flag: str | None
    test: ast.expr | None


def loop_body(node: ast.For | ast.While, fail: Fail) -> LoopBody:
    """`node`'s body (and, for `while`, its condition) with its `continue`s and `break`s
    rewritten as above. Nested loops keep theirs (they are rewritten when they are built)."""
    stmts: list[ast.stmt] = list(node.body)
    test = node.test if isinstance(node, ast.While) else None
    flag = None
    first_break = _first(stmts, ast.Break)
    if first_break is not None:
        flag = f"_break_{node.lineno}_{node.col_offset}"
        stmts = _flag_breaks(stmts, flag, fail)
        if isinstance(node, ast.While):
            assert test is not None
            stop = ast.IfExp(test=_name(flag, node), body=_const(False, node), orelse=test)
            test = ast.copy_location(stop, test)
    if _first(stmts, ast.Continue) is not None:
        stmts = _rewrite(stmts, fail)
    if first_break is not None and isinstance(node, ast.For):
        # located at the `break`: where a trip's threads may part (a barrier's note says so)
        assert flag is not None
        running = ast.UnaryOp(op=ast.Not(), operand=_name(flag, first_break))
        test_ = ast.copy_location(running, first_break)
        guard = ast.If(test=test_, body=stmts or [_pass(node)], orelse=[])
        stmts = [ast.copy_location(guard, first_break)]
    return LoopBody(stmts, flag, test)


def _flag_breaks(stmts: Sequence[ast.stmt], flag: str, fail: Fail) -> list[ast.stmt]:
    """`stmts` with each `break` of this loop replaced by `flag = True` and a skip."""
    out: list[ast.stmt] = []
    for s in stmts:
        if isinstance(s, ast.Break):
            assign = ast.Assign(targets=[_name(flag, s, ast.Store())], value=_const(True, s))
            out += [ast.copy_location(assign, s), ast.copy_location(_Break(), s)]
        elif isinstance(s, ast.If) and _first([s], ast.Break) is not None:
            new = ast.If(
                test=s.test,
                body=_flag_breaks(s.body, flag, fail),
                orelse=_flag_breaks(s.orelse, flag, fail),
            )
            out.append(ast.copy_location(new, s))
        elif _first([s], ast.Break) is not None:
            raise fail(_first([s], ast.Break) or s, _LEAVES_WITH.format(word="break"))
        else:
            out.append(s)
    return out


def _rewrite(stmts: list[ast.stmt], fail: Fail) -> list[ast.stmt]:
    """`stmts`, which run until the end of the trip, with no `continue` of this loop left."""
    out: list[ast.stmt] = []
    for k, s in enumerate(stmts):
        if isinstance(s, ast.Continue):
            return out  # what follows in this list never runs
        found = _first([s], ast.Continue)
        if found is None:
            out.append(s)
            continue
        word = _word(found)
        if not isinstance(s, ast.If):
            raise fail(found, _LEAVES_WITH.format(word=word))
        rest = stmts[k + 1 :]
        branches = [s.body, s.orelse]
        if rest and not any(_always(b) for b in branches):
            raise fail(
                found,
                f"`{word}` must end its `if` branch: here the branch can also go on to the code "
                f"after the `if`; put that code under the `if`'s `else:` (or end the branch "
                f"with the `{word}`)",
            )
        body, orelse = (
            _rewrite(b + ([] if _always(b) else rest), fail) if b or rest else [] for b in branches
        )
        new = ast.If(test=s.test, body=body or [_pass(s)], orelse=orelse)
        out.append(ast.copy_location(new, s))
        return out  # the rest went into the branch that goes on
    return out


_LEAVES_WITH = (
    "`{word}` cannot leave a `with` block (a guarded write or an unsafe region runs to its "
    "end): test the condition before the `with`, or put the rest of the block under `else:`"
)


def _always(stmts: Sequence[ast.stmt]) -> bool:
    """Every path through `stmts` reaches a `continue` of this loop."""
    for s in stmts:
        if isinstance(s, ast.Continue):
            return True
        if isinstance(s, ast.If) and _always(s.body) and _always(s.orelse):
            return True
    return False


def _first(stmts: Sequence[ast.stmt], kind: type) -> ast.stmt | None:
    """The first `kind` statement of this loop in `stmts` (not one of a nested loop's)."""
    for s in stmts:
        if isinstance(s, kind):
            return s
        if isinstance(s, ast.For | ast.While | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            found = _first(getattr(s, field, []) or [], kind)
            if found is not None:
                return found
        for handler in getattr(s, "handlers", []) or []:
            found = _first(handler.body, kind)
            if found is not None:
                return found
    return None


def _word(node: ast.stmt) -> str:
    return "break" if isinstance(node, _Break) else "continue"


def _name(name: str, at: ast.AST, ctx: ast.expr_context | None = None) -> ast.expr:
    return ast.copy_location(ast.Name(id=name, ctx=ctx or ast.Load()), at)


def _const(value: bool, at: ast.AST) -> ast.expr:
    return ast.copy_location(ast.Constant(value=value), at)


def _pass(at: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.Pass(), at)


__all__ = ["LoopBody", "loop_body"]
