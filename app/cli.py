"""The ``tripeaks`` command line: deal, play, serve, backup, solve, stats."""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from app.engine import Card, CodeError, Game, RefusedAction, UnsolvedVariant, VariantError
from app.engine.state import deal_dict
from app.engine.words import describe_board


def _deal(args: argparse.Namespace) -> int:
    game = Game.from_code(args.code)
    if args.json:
        print(json.dumps(deal_dict(game)))
    else:
        print(f"{game.code_text()} ({_heading(game)})")
        print(
            _words_all(game)
        )
        print("Stock, top first: " + ", ".join(c.words() for c in game.deal.stock))
    return 0


def _words_all(game: Game) -> str:
    from app.engine import describe_board

    return describe_board(game, card_words=Card.words, show_all=True)


def _play(args: argparse.Namespace) -> int:
    game = Game.from_code(args.code)
    print(f"{game.code_text()}: type a position (0-27) to remove, d to draw, u to undo, q to quit.")
    while True:
        print(describe_board(game))
        print(f"Score {game.score}, moves {game.moves}, {game.status.value}.")
        if game.is_over:
            return 0
        try:
            line = input("> ").strip().lower()
        except EOFError:
            return 0
        try:
            if line in ("q", "quit"):
                return 0
            if line in ("d", "draw"):
                game.draw()
            elif line in ("u", "undo"):
                game.undo()
            elif line.isdigit():
                game.remove(int(line))
            else:
                print("Type a position 0-27, d, u or q.")
        except (RefusedAction, ValueError) as error:
            print(error)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.web.lean_http import SERVED_WITH
    from app.web.settings import Settings

    settings = Settings()
    workers = args.workers if args.workers is not None else settings.workers
    if workers < 1:
        print("tripeaks: --workers must be at least 1", file=sys.stderr)
        return 2
    if workers > 1 and settings.metrics_on and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Each worker counts in files of this folder; a scrape of any one adds them all up.
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="tripeaks-metrics-")
    uvicorn.run(
        "app.web.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=workers,
        proxy_headers=False,
        http=SERVED_WITH,  # 2 KiB a connection less (issue 40)
        timeout_keep_alive=settings.keep_alive_s,  # outlives the proxy's idle connections
        access_log=False,  # the app logs each request itself, with its request id
        log_config=_log_config(),
    )
    return 0


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, and the app's loggers (``tripeaks.*``: one line per request) beside it."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["tripeaks"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


def _backup(args: argparse.Namespace) -> int:
    """Copy the SQLite database to ``PATH`` with SQLite's online backup API: one consistent
    snapshot (a read transaction: the server plays on meanwhile), checked, then moved into place."""
    import sqlite3
    from pathlib import Path

    from app.store.database.sql import database_url
    from app.web.settings import Settings

    url_text = args.database or Settings().database_url
    if url_text.startswith("memory:"):
        print("tripeaks: the memory store keeps nothing to back up", file=sys.stderr)
        return 2
    try:
        url = database_url(url_text)
    except ValueError as error:
        print(f"tripeaks: {error}", file=sys.stderr)
        return 2
    if url.get_backend_name() == "postgresql":
        print(
            "tripeaks: the games are in PostgreSQL: back them up with pg_dump, for example\n"
            "  pg_dump --format=custom --file=tripeaks.dump 'postgresql://user@host/dbname'\n"
            "and restore with pg_restore --clean --dbname=... tripeaks.dump (see docs/deploy.md)",
            file=sys.stderr,
        )
        return 2
    source_path = Path(str(url.database)).expanduser()
    if not source_path.is_file():
        print(f"tripeaks: no database at {str(source_path)!r} (TRIPEAKS_DATABASE_URL)", file=sys.stderr)
        return 2
    target = Path(args.path).expanduser()
    if target.is_dir():
        target = target / f"tripeaks-{time.strftime('%Y%m%d-%H%M%S')}.db"
    if target.resolve() == source_path.resolve():
        print("tripeaks: the backup cannot be the database itself", file=sys.stderr)
        return 2
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        source = sqlite3.connect(source_path, timeout=30)
        copy_db = sqlite3.connect(partial)
        try:
            source.backup(copy_db)  # all pages in one step: one snapshot
            copy_db.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            (check,) = copy_db.execute("PRAGMA integrity_check").fetchone()
            (games,) = copy_db.execute("SELECT count(*) FROM tp_games").fetchone()
        finally:
            copy_db.close()
            source.close()
        if check != "ok":
            raise sqlite3.DatabaseError(f"the copy failed its integrity check: {check}")
        with open(partial, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as error:
        partial.unlink(missing_ok=True)
        print(f"tripeaks: backup failed: {error}", file=sys.stderr)
        return 1
    print(f"backed up {games} games ({target.stat().st_size} bytes) to {target}")
    return 0


def _solve(args: argparse.Namespace) -> int:
    from app.engine.search.solver import solve

    game = Game.from_code(args.code)
    solution = solve(game, best=args.best)
    if args.json:
        print(
            json.dumps(
                {
                    "code": game.code_text(),
                    "winnable": solution.winnable,
                    "moves": solution.moves(),
                    "score": solution.score,
                }
            )
        )
        return 0
    print(f"{game.code_text()} ({_heading(game)})")
    draws = sum(action.is_draw for action in solution.line)
    if solution.winnable:
        kind = "a line with the best score" if args.best else "a winning line"
        print(f"Winnable: {kind}, {len(solution.line)} moves ({draws} draws), score {solution.score}.")
    elif args.best:
        print(
            f"Not winnable. The best score it can reach is {solution.score}"
            + (f", after {len(solution.line)} moves:" if solution.line else ", at the start.")
        )
    else:
        print("Not winnable: no line of moves removes all 28 cards.")
    replay = game.copy()
    for number, action in enumerate(solution.line, start=1):
        if action.position is None:
            replay.play(action)
            print(f"{number:>3}. draw: {replay.waste.words() if replay.waste else '-'}")
        else:
            card = replay.deal.tableau[action.position]
            replay.play(action)
            print(f"{number:>3}. remove {card.words()} (position {action.position})")
    return 0


def _jobs(text: str) -> int:
    if text == "all":
        return 0
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("expected a number of processes, 0 or 'all' for all cores")
    return value


def _stats(args: argparse.Namespace) -> int:
    from app.engine import Rules, Variants
    from app.engine.layout import layout_named
    from app.engine.search.solver_stats import format_summary, solve_range, summarize

    rules = Rules.from_word(args.rules)
    variants = Variants.parse(args.variants)
    layout = layout_named(args.layout)
    if args.deals < 1:
        print("tripeaks: --deals must be at least 1", file=sys.stderr)
        return 2
    width = 40

    def progress(done: int, count: int) -> None:
        if not sys.stderr.isatty() or (done != count and done % max(1, count // 200)):
            return
        filled = width * done // count
        bar = "#" * filled + "." * (width - filled)
        end = "\n" if done == count else ""
        print(f"\r[{bar}] {done}/{count}", end=end, file=sys.stderr, flush=True)

    try:
        results = solve_range(
            rules, args.start, args.deals, best=args.best, jobs=args.jobs, progress=progress,
            variants=variants, layout=layout,
        )
    except ValueError as error:
        print(f"tripeaks: {error}", file=sys.stderr)
        return 2
    print(
        format_summary(
            rules, args.start, summarize(results), scores=args.best, variants=variants, layout=layout
        )
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tripeaks", description="TriPeaks solitaire.")
    commands = parser.add_subparsers(dest="command", required=True)

    deal = commands.add_parser("deal", help="show the full deal of a game code")
    deal.add_argument("code")
    deal.add_argument("--json", action="store_true", help="print the deal as JSON")
    deal.set_defaults(run=_deal)

    play = commands.add_parser("play", help="play a deal in the terminal")
    play.add_argument("code")
    play.set_defaults(run=_play)

    serve = commands.add_parser("serve", help="run the web game")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: TRIPEAKS_WORKERS, else 1)"
    )
    serve.set_defaults(run=_serve)

    backup = commands.add_parser(
        "backup", help="copy the SQLite database, consistent while the server runs"
    )
    backup.add_argument("path", help="the backup file to write (a folder: a dated file in it)")
    backup.add_argument(
        "--database", help="the database URL (default: TRIPEAKS_DATABASE_URL, as the server reads it)"
    )
    backup.set_defaults(run=_backup)

    solve = commands.add_parser("solve", help="say whether a deal can be won, and how")
    solve.add_argument("code")
    solve.add_argument("--json", action="store_true", help="print the answer as JSON")
    solve.add_argument("--best", action="store_true", help="find the best score (slower)")
    solve.set_defaults(run=_solve)

    stats = commands.add_parser("stats", help="solve many deals: share winnable, timings")
    stats.add_argument("--rules", choices=["easy", "classic"], default="easy")
    stats.add_argument(
        "--layout", default="three-peaks",
        help="three-peaks (the default), diamonds, valley, theatre or up-down",
    )
    stats.add_argument("--deals", type=int, required=True, help="how many deal numbers")
    stats.add_argument("--start", type=int, default=0, help="the first deal number")
    stats.add_argument(
        "--jobs", type=_jobs, default=1, help="processes to use (0 or 'all': every core)"
    )
    stats.add_argument("--best", action="store_true", help="also a histogram of best scores")
    stats.add_argument(
        "--variants", default="", metavar="LETTERS",
        help="variant letters (docs/variants.md): O open peaks, W empty waste, J joker, T traditional",
    )
    stats.set_defaults(run=_stats)
    return parser


def _heading(game: Game) -> str:
    """``easy rules, joker, deal 1``: the rules, the variants and the deal number."""
    named = "".join(f", {variant.name.lower()}" for variant in game.variants.each())
    return f"{game.rules.word} rules{named}, deal {game.code.number}"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result: int = args.run(args)
    except (CodeError, UnsolvedVariant, VariantError) as error:
        print(f"tripeaks: {error}", file=sys.stderr)
        return 2
    except ValueError as error:  # a bad TRIPEAKS_* setting (pydantic's ValidationError is one)
        if type(error).__name__ != "ValidationError":
            raise
        print(f"tripeaks: a setting is wrong: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # piped into head: stop quietly
        sys.stderr.close()
        return 0
    return result


if __name__ == "__main__":
    sys.exit(main())
