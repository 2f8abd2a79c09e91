"""What an idle keep-alive connection costs ``tripeaks serve`` (its memory), now that it keeps
them 75 s (``TRIPEAKS_KEEP_ALIVE_S``, docs/deploy.md "The proxy closes idle connections, not the
game"): starts the game on SQLite in a temporary folder, opens ``--connections`` connections that
each make one request and then stay open and quiet, and prints the server's resident memory
before and after, per connection.

    .venv/bin/python bench/idle_connections.py [--connections 2000]
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.streams import raise_open_files, rss_kib  # noqa: E402
from tests.support.servers import TRIPEAKS_SERVE, start_server  # noqa: E402

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"


def open_idle(port: int, count: int) -> list[socket.socket]:
    """``count`` connections, each answered once and then left open."""
    opened = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(REQUEST)
        if not sock.recv(4096).startswith(b"HTTP/1.1 200"):
            raise RuntimeError("the server did not answer 200")
        opened.append(sock)
    return opened


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=2000)
    args = parser.parse_args()
    raise_open_files(args.connections + 1000)  # this client's sockets, and the server's (it inherits it)
    data = Path(tempfile.mkdtemp(prefix="tripeaks-idle-")) / "data"
    data.mkdir()
    server = start_server(data, {"TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_ACCESS_LOG": "false"}, command=TRIPEAKS_SERVE)
    try:
        port = int(server.url.rsplit(":", 1)[1])
        warm = open_idle(port, 200)  # the first connections' one-off costs, not counted
        time.sleep(1)
        before = rss_kib(server.process.pid)
        idle = open_idle(port, args.connections)
        time.sleep(2)
        after = rss_kib(server.process.pid)
        print(f"{args.connections} idle keep-alive connections: {after - before} KiB more resident memory,"
              f" {(after - before) / args.connections:.2f} KiB each (server {before} -> {after} KiB)")
        for sock in warm + idle:
            sock.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
