"""What an idle keep-alive connection costs ``tripeaks serve`` (its memory), now that it keeps
them 75 s (``TRIPEAKS_KEEP_ALIVE_S``, docs/deploy.md "The proxy closes idle connections, not the
game"): starts the game on SQLite in a temporary folder, opens ``--connections`` connections that
each make one request and then stay open and quiet, and prints the server's resident memory
before and after, per connection.

    .venv/bin/python bench/idle_connections.py [--connections 2000] [--port 18777]

Needs an open-file limit above ``--connections`` (``ulimit -n 8192``).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"


def resident_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


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
    parser.add_argument("--port", type=int, default=18777)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="tripeaks-idle-")
    env = {**os.environ, "TRIPEAKS_RATE_LIMITS": "false", "TRIPEAKS_DATA_DIR": folder,
           "TRIPEAKS_SECRET_KEY": "idle-connections-bench-" + "k" * 20, "TRIPEAKS_ACCESS_LOG": "false"}
    server = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(args.port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", args.port)).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        warm = open_idle(args.port, 200)  # the first connections' one-off costs, not counted
        time.sleep(1)
        before = resident_kib(server.pid)
        idle = open_idle(args.port, args.connections)
        time.sleep(2)
        after = resident_kib(server.pid)
        print(f"{args.connections} idle keep-alive connections: {after - before} KiB more resident memory,"
              f" {(after - before) / args.connections:.2f} KiB each (server {before} -> {after} KiB)")
        for sock in warm + idle:
            sock.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
