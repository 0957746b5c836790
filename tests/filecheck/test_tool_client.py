"""The tool server's client (lit_support/tool.py): a request that the server reads whole, runs
and answers before the client is scheduled again still ends with the tool's status.

This was a flaky BrokenPipeError on a loaded machine: the client sent its request's first 4096
bytes with the descriptors, then the rest with `sendall` even where there was no rest; the
empty send to a server that had already replied and closed the connection raised EPIPE, and
the RUN line failed (or a `not` passed).
"""

from __future__ import annotations

import _socket
import importlib.util
import os
import socket
import threading
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parent / "lit_support" / "tool.py"


def load_client():
    spec = importlib.util.spec_from_file_location("ferrox_lit_tool_client", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def answer_one(listener: socket.socket, answered: threading.Event) -> None:
    """A server for one request: read it whole, reply `exit 0`, close, and say so."""
    conn, _ = listener.accept()
    with conn:
        data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
        for fd in fds:
            os.close(fd)
        while len(data) < 4 + int.from_bytes(data[:4], "big"):
            data += conn.recv(1 << 16)
        conn.sendall(b"exit 0\n")
    answered.set()


def test_a_request_answered_before_the_client_resumes_gets_its_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    client = load_client()
    address = str(tmp_path / "tools")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(1)
    answered = threading.Event()
    server = threading.Thread(target=answer_one, args=(listener, answered))
    server.start()

    class Preempted(_socket.socket):
        """A client socket whose process is not scheduled again until the server has answered
        and closed (what a loaded machine does now and then)."""

        def sendmsg(self, *args):
            sent = super().sendmsg(*args)
            answered.wait(10)
            return sent

    # a request that fits the first message (an environment of one variable)
    monkeypatch.setattr(os, "environ", {"PATH": os.environ.get("PATH", "")})
    monkeypatch.setattr(_socket, "socket", Preempted)
    try:
        assert client.ask_server(address, ["ferrox-opt", "--version"]) == 0
    finally:
        monkeypatch.undo()
        server.join(10)
        listener.close()
    assert answered.is_set()
