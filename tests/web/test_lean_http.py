"""The HTTP protocol the game is served with (app/web/lean_http.py): uvicorn's, with lists for
its three deques (2 KiB a connection less, issue 40). Served for real (uvicorn in a thread, real
sockets), it still does what HTTP asks of it: a body in many pieces, requests pipelined on one
connection, a reader slower than the answer (the socket's room to write), a client that goes
while its answer is held (a race stream). And it is what each request runs on: a uvicorn
release that moved what it replaces fails here, not silently."""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from app.web.lean_http import Pipeline, Waits
from tests.support.servers import server_in_thread

BIG = 16 * 1024 * 1024


class Probe:
    """A small ASGI app that notes what each request's connection waits with."""

    def __init__(self) -> None:
        self.kinds: list[tuple[type, type, type]] = []
        self.gone = threading.Event()

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": message["type"] + ".complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        cycle = receive.__self__  # type: ignore[attr-defined]
        protocol = cycle.on_response.__self__
        self.kinds.append((type(cycle.message_event), type(cycle.flow._is_writable_event), type(protocol.pipeline)))
        path = scope["path"]
        if path == "/echo":
            digest, size, more = hashlib.sha256(), 0, True
            while more:
                message = await receive()
                digest.update(message.get("body", b""))
                size += len(message.get("body", b""))
                more = message.get("more_body", False)
            await answer(send, f"{size} {digest.hexdigest()}".encode())
        elif path == "/big":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(BIG).encode())]})
            for _ in range(16):
                await send({"type": "http.response.body", "body": b"x" * (1024 * 1024), "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        elif path == "/hold":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
            await send({"type": "http.response.body", "body": b": held\n\n", "more_body": True})
            while (await receive())["type"] != "http.disconnect":
                pass
            self.gone.set()
        else:
            await answer(send, path.encode())


async def answer(send: Callable[..., Any], body: bytes) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def served(probe: Probe) -> Any:
    return server_in_thread(probe)


def pieces() -> Iterator[bytes]:
    for n in range(300):
        yield bytes([n % 256]) * 10_000


def test_each_request_waits_in_lists_and_a_body_in_pieces_arrives_whole() -> None:
    probe = Probe()
    with served(probe) as url:
        answer = httpx.post(url + "/echo", content=pieces(), timeout=30)
    body = b"".join(pieces())
    assert answer.text == f"{len(body)} {hashlib.sha256(body).hexdigest()}"
    assert probe.kinds == [(Waits, Waits, Pipeline)]


def test_requests_pipelined_on_one_connection_are_answered_in_order() -> None:
    probe = Probe()
    with served(probe) as url, socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1]))) as sock:
        sock.sendall(b"".join(f"GET /{n} HTTP/1.1\r\nHost: test\r\n\r\n".encode() for n in range(5)))
        received = b""
        deadline = time.monotonic() + 10
        while received.count(b"HTTP/1.1 200") < 5 or not received.endswith(b"/4"):
            assert time.monotonic() < deadline, received
            received += sock.recv(65536)
    bodies = [part.rsplit(b"\r\n\r\n", 1)[1] for part in received.split(b"HTTP/1.1 200")[1:]]
    assert bodies == [f"/{n}".encode() for n in range(5)]
    assert len(probe.kinds) == 5 and all(kinds == (Waits, Waits, Pipeline) for kinds in probe.kinds)


def test_a_slow_reader_gets_a_big_answer_whole() -> None:
    """16 MiB to a reader that takes its time: the server waits for room to write (the flow's
    wait, a list here) and sends every byte."""
    probe = Probe()
    with served(probe) as url, socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1]))) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: test\r\n\r\n")
        time.sleep(0.5)  # the server fills the socket and must wait
        received = b""
        deadline = time.monotonic() + 60
        while b"\r\n\r\n" not in received or len(received.split(b"\r\n\r\n", 1)[1]) < BIG:
            assert time.monotonic() < deadline, len(received)
            chunk = sock.recv(1 << 20)
            assert chunk, "the server closed early"
            received += chunk
    assert received.split(b"\r\n\r\n", 1)[1] == b"x" * BIG


def test_a_client_that_goes_is_seen_gone_by_its_held_answer() -> None:
    probe = Probe()
    with served(probe) as url:
        sock = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        sock.sendall(b"GET /hold HTTP/1.1\r\nHost: test\r\n\r\n")
        received, deadline = b"", time.monotonic() + 10
        while b": held" not in received:  # the head and the first event may come apart
            assert time.monotonic() < deadline, received
            received += sock.recv(4096)
        assert not probe.gone.is_set()
        sock.close()
        assert probe.gone.wait(5), "the held answer never saw its client go"
