"""The tool server of the filecheck suite: runs `ferrox-opt`, `ferrox` and `filecheck` for
tool.py in forks of one process that imported them (and compiled a kernel) once.

    python server.py SOCKET

It listens on the Unix socket SOCKET. For each request it forks a handler, which receives the
client's standard streams (as file descriptors), working folder and environment, forks the
tool's process onto them, waits for it and replies `exit N` or `signal N`. A fork starts in
milliseconds where a new Python takes half a second to import xDSL and ferrox. The server ends
when the process that started it ends (lit, or a pytest worker), and removes its socket.

What a fork inherits that a new process would not have, and how it is undone: warnings already
shown once (the filters are reset, so the registry of shown warnings is void); the standard
streams (rebuilt on the received descriptors, stdout line-buffered so that `2>&1` keeps the
order of writes); `sys.path` (the request's PYTHONPATH is put first, for tools named
`module:function`). Caches filled while warming up stay filled, as in a long-lived compiler.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import signal
import socket
import struct
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool import run_tool  # noqa: E402

WARM_UP_KERNEL = """
simt.kernel @copy(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    simt.yield %x : f32
  }
  simt.return
}
"""  # noqa: E501


def warm_up() -> None:
    """Import what the tools use and run the whole lowering once, output discarded."""
    import filecheck.main  # noqa: F401

    import ferrox.driver.tools.cli  # noqa: F401
    from ferrox import registry
    from ferrox.driver.tools import opt

    for table in (registry.FERROX_DIALECTS, registry.FERROX_PASSES, registry.FERROX_TARGETS):
        for path in table.values():
            registry.load(path)
    for name in ("compile", "run", "doctor"):
        with contextlib.suppress(ImportError):
            __import__(f"ferrox.driver.tools.commands.{name}")
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(WARM_UP_KERNEL), io.StringIO(), io.StringIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt.main(["-", "-t", "ptx"])
    except BaseException:  # noqa: B036 (a failed warm-up only costs speed)
        pass
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 4096, 3)
    size = struct.unpack("!I", data[:4])[0]
    data = data[4:]
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return json.loads(data), fds


def become_tool(request: dict, fds: list[int]) -> None:
    """In the tool's process: take over the client's streams, folder and environment, run."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for entry in reversed(request["env"].get("PYTHONPATH", "").split(os.pathsep)):
        if entry and entry not in sys.path:
            sys.path.insert(0, entry)
    encoding = "utf-8" if sys.flags.utf8_mode else None
    sys.stdin = open(0, encoding=encoding, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding=encoding, closefd=False, buffering=1)  # noqa: SIM115
    sys.stderr = open(  # noqa: SIM115
        2, "w", encoding=encoding, errors="backslashreplace", closefd=False, buffering=1
    )
    filters = list(warnings.filters)
    warnings.resetwarnings()  # voids every module's record of warnings already shown
    warnings.filters[:] = filters
    os._exit(run_tool(request["argv"][0], request["argv"][1:]))


def handle(conn: socket.socket) -> None:
    """In a handler (a fork of the server): run one request and reply with its status."""
    request, fds = read_request(conn)
    pid = os.fork()
    if pid == 0:
        conn.close()
        try:
            become_tool(request, fds)
        except BaseException:
            import traceback

            traceback.print_exc()  # to the client's standard error where it got that far
        finally:
            os._exit(70)
    for fd in fds:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        reply = f"signal {os.WTERMSIG(status)}"
    else:
        reply = f"exit {os.WEXITSTATUS(status)}"
    conn.sendall(reply.encode())
    conn.close()


def serve(address: str) -> None:
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))  # remove the socket
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)  # clients queue here while the server warms up
    try:
        warm_up()
        while os.getppid() == parent:
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            ready, _, _ = select.select([listener], [], [], 0.5)
            if not ready:
                continue
            conn, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                try:
                    handle(conn)
                finally:
                    os._exit(0)
            conn.close()
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(address)


if __name__ == "__main__":
    serve(sys.argv[1])
