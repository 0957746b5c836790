"""A decorated function's source: its AST, where each node sits in the file, and its names.

The AST is parsed from the dedented source, so its positions are shifted back here: every op
the frontend builds carries `loc("file.py":line:col)` with the file's own line and 1-based column,
the same spelling the MLIR parser gives ops parsed from text.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

_MISSING = object()


@dataclass
class FunctionSource:
    """One Python function as the frontend reads it."""

    fn: Callable[..., Any]
    file: str
    text: str
    """The function's source as written (decorators included), dedented."""
    tree: ast.FunctionDef
    first_line: int
    """The file line of the source's first line (its first decorator, else `def`)."""
    indent: int
    """Columns removed by dedenting."""
    closure: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, fn: Callable[..., Any]) -> FunctionSource:
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise TypeError(
                f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: {e} "
                "(a kernel must be defined in a file)"
            ) from None
        raw = "".join(lines)
        text = textwrap.dedent(raw)
        indent = len(lines[0]) - len(lines[0].lstrip()) if text != raw else 0
        module = ast.parse(text)
        tree = module.body[0]
        if not isinstance(tree, ast.FunctionDef):
            raise TypeError(f"{fn.__qualname__} is not a plain `def` function")
        closure = {}
        code = getattr(fn, "__code__", None)
        if code is not None and fn.__closure__:
            for name, cell in zip(code.co_freevars, fn.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:  # a cell not filled yet
                    pass
        file = code.co_filename if code is not None else inspect.getsourcefile(fn) or "<unknown>"
        return cls(fn, file, text, tree, max(first, 1), indent, closure)

    @property
    def name(self) -> str:
        return self.tree.name

    def position(self, node: ast.AST) -> tuple[int, int]:
        """(file line, 1-based column) of an AST node."""
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        return self.first_line + line - 1, col + self.indent + 1

    def loc(self, node: ast.AST) -> FileLineColLoc:
        line, col = self.position(node)
        return FileLineColLoc(StringAttr(self.file), IntAttr(line), IntAttr(col))

    def lookup(self, name: str) -> Any:
        """A name the function does not bind itself: its closure, its globals, the builtins.
        Raises KeyError when there is none."""
        for scope in (self.closure, getattr(self.fn, "__globals__", {}), vars(builtins)):
            value = scope.get(name, _MISSING)
            if value is not _MISSING:
                return value
        raise KeyError(name)

    def evaluate(self, node: ast.expr) -> Any:
        """A Python expression of the source (an annotation) evaluated in the function's
        namespace, as Python would have evaluated it at definition time."""
        expr = ast.Expression(body=node)
        ast.fix_missing_locations(expr)
        namespace = dict(getattr(self.fn, "__globals__", {}))
        namespace.update(self.closure)
        return eval(compile(expr, self.file, "eval"), namespace)  # noqa: S307 - the user's own code
