"""In-process figures: the app's ASGI callable called directly, no HTTP, no load generator.

For comparing versions of the code on a machine whose speed changes by the minute (see
docs/performance.md, "Web"): CPU time per request, and with ``--instructions`` the
instructions per request under ``valgrind --tool=callgrind``, which do not change with the
machine's speed. Ten seeded players play real games through the htmx routes (remove a
playable card, draw, sometimes undo; the next deal, by a seeded code, when a game ends);
a "move" is one such request (the deals it takes are part of its cost, as in
``bench/web.py``), "trivial" is ``GET /healthz``, "deal" is ``POST /new`` alone.

    .venv/bin/python bench/inprocess.py [--requests 3000] [--database-url memory://]
    .venv/bin/python bench/inprocess.py --instructions      # needs valgrind; a few minutes
    .venv/bin/python bench/inprocess.py --instructions --kinds move --without slot-key   # a part's keep

The CPU time is this process's, its threads' included (the SQLite store's sync and
checkpoint threads).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.engine import Game, GameCode, Rules, Status  # noqa: E402
from app.web.main import create_app  # noqa: E402
from app.web.settings import Settings  # noqa: E402
from bench.yardstick import PARTS  # noqa: E402

KINDS = ("move", "trivial", "deal")
PLAYERS = 10


async def call(app: object, method: str, path: str, cookie: str, body: bytes = b"") -> dict[str, object]:
    headers = [(b"host", b"127.0.0.1"), (b"hx-request", b"true"), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/x-www-form-urlencoded"))
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "headers": headers, "client": ("127.0.0.1", 5000),
             "server": ("127.0.0.1", 8000), "state": {}}
    sent = False

    async def receive() -> dict[str, object]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        raise AssertionError

    out: dict[str, object] = {"body": b""}

    async def send(message: dict[str, object]) -> None:
        if message["type"] == "http.response.start":
            out["status"], out["headers"] = message["status"], message["headers"]
        elif message["type"] == "http.response.body":
            out["body"] = out["body"] + message.get("body", b"")  # type: ignore[operator]

    await app(scope, receive, send)  # type: ignore[operator]
    return out


class Player:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.cookies: dict[str, str] = {}
        self.game_id = ""
        self.game: Game | None = None

    async def deal(self, app: object) -> None:
        code = GameCode(Rules.EASY, self.random.randrange(26**7)).text()
        out = await call(app, "POST", "/new", self.cookie, f"rules=easy&code={code}".encode())
        for name, value in out["headers"]:  # type: ignore[attr-defined]
            if name == b"set-cookie":
                name_, _, rest = value.decode().partition("=")
                self.cookies[name_] = rest.split(";", 1)[0]
        self.game_id = re.search(rb'data-game-id="([^"]+)"', out["body"]).group(1).decode()  # type: ignore[arg-type, union-attr]
        self.game = Game.from_code(code)

    @property
    def cookie(self) -> str:
        """Every cookie set so far (a later response may set another one beside the player's)."""
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    async def move(self, app: object) -> None:
        game = self.game
        if game is None or game.status is not Status.PLAYING:
            await self.deal(app)
            game = self.game
        assert game is not None
        playable, roll = game.playable_positions(), self.random.random()
        if game.undo_available and roll < 0.1:
            out = await call(app, "POST", f"/games/{self.game_id}/undo", self.cookie)
            game.undo()
        elif playable and (roll < 0.75 or not game.can_draw()):
            position = self.random.choice(playable)
            out = await call(app, "POST", f"/games/{self.game_id}/remove", self.cookie,
                             f"position={position}".encode())
            game.remove(position)
        else:
            out = await call(app, "POST", f"/games/{self.game_id}/draw", self.cookie)
            game.draw()
        assert out["status"] == 200, out

    async def trivial(self, app: object) -> None:
        assert (await call(app, "GET", "/healthz", self.cookie))["status"] == 200


async def measure(kinds: list[str], requests: int, database_url: str) -> dict[str, float]:
    """CPU µs per request of each kind, after the same warm-up (ten moves and ten trivial
    requests each player)."""
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(database_url=database_url or f"sqlite:///{data}/bench.db", data_dir=Path(data),
                            secret_key="inprocess-bench-" + "k" * 24, rate_limits=False, idle_days=0)
        app = create_app(settings)
        for part in filter(None, os.environ.get("TRIPEAKS_BENCH_WITHOUT", "").split(",")):
            PARTS[part](app)  # the plain version of a clever part (bench/yardstick.py)
        async with app.router.lifespan_context(app):
            players = [Player(seed) for seed in range(PLAYERS)]
            for player in players:
                await player.deal(app)
            for _ in range(10):
                for player in players:
                    await player.move(app)
                    await player.trivial(app)
            out = {}
            for kind in kinds:
                started = time.process_time()
                for number in range(requests):
                    player = players[number % PLAYERS]
                    await (player.deal(app) if kind == "deal" else getattr(player, kind)(app))
                out[kind] = (time.process_time() - started) / requests * 1e6
            return out


def instructions(kind: str, database_url: str, fewer: int, more: int) -> float:
    """Instructions per request: the difference between two runs under callgrind (the start,
    the imports and the warm-up cancel out)."""
    counts = []
    for requests in (fewer, more):
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
             __file__, "--only", kind, "--requests", str(requests), "--database-url", database_url],
            capture_output=True, text=True, check=True,
        )
        counts.append(int(re.search(r"Collected : (\d+)", run.stderr).group(1)))  # type: ignore[union-attr]
    return (counts[1] - counts[0]) / (more - fewer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000, help="of each kind (CPU time)")
    parser.add_argument("--database-url", default="", help="default: SQLite in a temporary folder")
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    parser.add_argument("--only", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="which requests to measure")
    parser.add_argument("--without", default="", help="comma-separated clever parts to put back to their plain "
                        f"version (bench/yardstick.py: {', '.join(PARTS)})")
    args = parser.parse_args()
    os.environ["TRIPEAKS_BENCH_WITHOUT"] = args.without  # read here and by the runs under callgrind
    if args.only:  # one run under callgrind
        asyncio.run(measure([args.only], args.requests, args.database_url))
        return
    store = args.database_url.split(":")[0] if args.database_url else "sqlite"
    if args.instructions:
        for kind in args.kinds:
            fewer, more = (20, 60) if kind == "deal" else (100, 300)
            per = instructions(kind, args.database_url, fewer, more)
            print(f"{kind:8s} {per / 1e6:5.2f} M instructions per request (store {store})")
        return
    for kind, cpu in asyncio.run(measure(args.kinds, args.requests, args.database_url)).items():
        print(f"{kind:8s} {cpu:6.0f} µs of CPU per request (store {store}, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
