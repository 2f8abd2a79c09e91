"""The ``tripeaks`` command line: deal, play, serve, solve, stats."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from app.engine import Card, CodeError, Game, RefusedAction


def _deal(args: argparse.Namespace) -> int:
    game = Game.from_code(args.code)
    if args.json:
        print(json.dumps(game.deal_dict()))
    else:
        print(f"{game.code_text()} ({game.rules.word} rules, deal {game.code.number})")
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
        print(game.describe())
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

    uvicorn.run(
        "app.web.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        proxy_headers=False,
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
    serve.add_argument("--workers", type=int, default=1)
    serve.set_defaults(run=_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result: int = args.run(args)
    except CodeError as error:
        print(f"tripeaks: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
