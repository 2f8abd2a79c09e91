"""A router that says "not mine" at once to a path outside its few prefixes.

FastAPI (0.165) matches a request by trying every route of every included router in turn, a
few microseconds each: each router added makes every request matched after it dearer (the
bench's trivial page, static files, a 404). Issue 38's routers (about 35 routes) made the
trivial page 10 % dearer that way; a router whose paths all start with one of a few prefixes
answers every other path with one ``startswith``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette._utils import get_route_path
from starlette.routing import Match
from starlette.types import Scope


class PrefixedRouter(APIRouter):
    """An ``APIRouter`` whose every route path starts with one of ``starts``."""

    def __init__(self, *, starts: tuple[str, ...], **options: Any) -> None:
        super().__init__(**options)
        self.starts = starts

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if not get_route_path(scope).startswith(self.starts):
            return Match.NONE, {}
        return super().matches(scope)
