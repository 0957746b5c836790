"""How the RUN lines of tests/filecheck start `ferrox-opt`, `ferrox` and `filecheck`.

    python -S tool.py TOOL ARGS...

lit.cfg.py substitutes each tool's name with this command. A new Python that imports xDSL and
the lowering costs about half a second, more than most RUN lines' work, so the command asks the
suite's tool server (server.py, started by lit.cfg.py, `FERROX_LIT_TOOL_SERVER` its socket) to
run the tool in a fork of a process that has imported everything already. It hands the server
its standard streams, working folder and environment, waits, and ends as the tool ended: the
same exit status, or killed by the same signal. Without a server it runs the tool itself.

Either way the tool runs under `run_tool`'s rule: an exit status other than 0 (success), 1 (a
diagnostic) or 2 (argparse's usage error), or an exception that escapes the tool, is a crash,
and the process ends with SIGABRT. lit's plain `not` fails when its command is killed by a
signal, so `not ferrox-opt ...` does not pass on an internal error (exit 70, failure.py); a
test that expects a crash says `not --crash` (lit_support/bin/not).

TOOL is one of TOOLS' names or `module:function` (a `main(argv) -> int`), as the suite's own
tests of this rule use it.
"""

from __future__ import annotations

import os
import sys

# The client imports only what a Python started with -S has cheaply (C modules): `socket`,
# `json` and `signal` would double its start-up, paid on every tool a RUN line names.

TOOLS = {
    "ferrox-opt": "ferrox.driver.tools.opt:main",
    "ferrox": "ferrox.driver.tools.cli:main",
    "filecheck": "filecheck.main:main",
}
WHOLE_ARGV = {"filecheck"}
"""Tools whose `main` takes sys.argv whole, its program name first (the others: the arguments)."""
SERVER_ENV = "FERROX_LIT_TOOL_SERVER"
NOT_A_CRASH = (0, 1, 2)
"""0: success, 1: a diagnostic, 2: argparse's usage error; anything else is a crash here."""


def call_tool(name: str, args: list[str]) -> object:
    """Run the tool in this process (`sys.argv` set for it) and return its exit status as it
    gave it: its `main`'s value or its SystemExit's code (a message printed to stderr: 1), None
    made 0. An exception that escapes the tool escapes this too."""
    import importlib

    module, _, function = TOOLS.get(name, name).partition(":")
    sys.argv = [name, *args]
    try:
        main = getattr(importlib.import_module(module), function)
        code = main(sys.argv if name in WHOLE_ARGV else args)
    except SystemExit as e:
        code = e.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
            code = 1
    return 0 if code is None else code


def run_tool(name: str, args: list[str]) -> int:
    """Run the tool in this process and return its exit status; a crash (see the module's
    docstring) ends the process with SIGABRT instead."""
    try:
        code = call_tool(name, args)
    except BaseException:
        import traceback

        traceback.print_exc()
        crash(f"{name}: an exception escaped the tool")
    if code not in NOT_A_CRASH:
        crash(f"{name}: exit status {code} is a crash (internal error) in this test suite")
    _flush()
    return int(code)


def crash(why: str) -> None:
    """End this process with SIGABRT (no core file), as a crashing native tool would."""
    import signal

    _flush()
    print(f"lit tool: {why}: ending with SIGABRT", file=sys.stderr, flush=True)
    die_by(signal.SIGABRT)


def die_by(signum: int) -> None:
    import _signal
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _signal.signal(signum, _signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)  # not reached: the signal's default action ends the process


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def encode_request(argv: list[str]) -> bytes:
    """The request: its length (4 bytes, big-endian), then the repr of (argv, folder,
    environment), which the server reads back with `ast.literal_eval`."""
    body = repr((argv, os.getcwd(), dict(os.environ))).encode("utf-8", "surrogateescape")
    return len(body).to_bytes(4, "big") + body


def ask_server(address: str, argv: list[str]) -> int | None:
    """Have the server run the tool on this process's streams; None when there is none."""
    import _socket

    try:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        conn.connect(address)
    except OSError:
        return None
    data = encode_request(argv)
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # C ints
    # The descriptors go with the first bytes; the rest follows only where there is a rest.
    # An empty send raised BrokenPipeError where the server had already read the whole request
    # in the first part, run a quick tool, replied and closed (the reply is still there to read).
    sent = conn.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    if sent < len(data):
        conn.sendall(data[sent:])
    reply = b""
    while not reply.endswith(b"\n") and (chunk := conn.recv(64)):  # one line, then done
        reply += chunk
    kind, _, value = reply.decode().strip().partition(" ")
    if kind == "signal":
        die_by(int(value))
    if kind != "exit":
        print(f"lit tool: the tool server gave no status ({reply!r})", file=sys.stderr)
        return 70
    return int(value)


def main() -> int:
    argv = sys.argv[1:]
    if not argv:
        print("usage: tool.py TOOL ARGS...", file=sys.stderr)
        return 2
    address = os.environ.get(SERVER_ENV)
    if address:
        code = ask_server(address, argv)
        if code is not None:
            return code
    if sys.flags.no_site:  # started with -S for speed: the tool needs site-packages
        import site

        site.main()
    return run_tool(argv[0], argv[1:])


if __name__ == "__main__":
    sys.exit(main())
