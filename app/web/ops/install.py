"""The installable app: its web app manifest, its service worker and the offline page.

* ``GET /manifest.webmanifest``: name, icons (192 and 512 px, and a maskable one), ``start_url``,
  ``display: standalone`` and the table's colours; its name and description in the language of
  the request (a manifest is fetched without cookies: ``Accept-Language`` decides).
* ``GET /sw.js``: ``static/sw.js`` (served from the root, so that its scope is the whole site)
  after one line naming what it keeps: the static files of the offline page, by their versioned
  URLs. It caches static files and the offline page, nothing else: every page, move and answer
  goes to the server, which keeps the game. A new static file makes a new worker (its version
  changes) and the old cache is dropped.
* ``GET /offline``: what a page says when the network is gone, in the player's language. The
  worker keeps it; it reloads the page by itself once the network is back.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.i18n import current_locale
from app.web.deps import PagesDep
from app.web.presentation.render import STATIC_DIR, static_url

router = APIRouter(include_in_schema=False)

TABLE_COLOUR: Final = "#0b5a33"
"""The light table's felt (``--felt`` in static/tripeaks.css): the app's theme and splash."""
OFFLINE: Final = "/offline"
OFFLINE_FILES: Final = ("tripeaks.css", "offline.js", "favicon.svg")
ICONS: Final = (
    ("icons/icon-192.png", "192x192", "any"),
    ("icons/icon-512.png", "512x512", "any"),
    ("icons/icon-maskable-512.png", "512x512", "maskable"),
)
NO_CACHE: Final = {"Cache-Control": "no-cache"}


def manifest() -> dict[str, Any]:
    words = current_locale()
    return {
        "id": "/",
        "name": words.gettext("TriPeaks solitaire"),
        "short_name": words.gettext("TriPeaks"),
        "description": words.gettext("Clear three peaks of cards, one rank up or down."),
        "lang": words.code,
        "dir": words.direction,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": TABLE_COLOUR,
        "theme_color": TABLE_COLOUR,
        "icons": [
            {"src": static_url(src), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for src, sizes, purpose in ICONS
        ],
    }


@cache
def worker_script() -> str:
    """``static/sw.js`` after the line that names its version and what it keeps at install."""
    keep = [OFFLINE, *(static_url(name) for name in OFFLINE_FILES)]
    body = (STATIC_DIR / "sw.js").read_text(encoding="utf-8")
    # Any static file changed makes a new worker, and the new worker drops the old cache (with
    # the old versions of the files it kept as pages asked for them).
    statics = sorted(str(path.relative_to(STATIC_DIR)) for path in STATIC_DIR.rglob("*") if path.is_file())
    every = json.dumps(keep) + body + "".join(map(static_url, statics))
    version = hashlib.sha256(every.encode()).hexdigest()[:12]
    setup = json.dumps({"version": version, "offline": OFFLINE, "keep": keep})
    return f"self.TRIPEAKS = {setup};\n{body}"


@router.get("/manifest.webmanifest", name="manifest")
def get_manifest() -> Response:
    return JSONResponse(manifest(), media_type="application/manifest+json", headers=NO_CACHE)


@router.get("/sw.js", name="service_worker")
def get_worker() -> Response:
    return Response(worker_script(), media_type="text/javascript", headers=NO_CACHE)


@router.get(OFFLINE, name="offline")
def offline(request: Request, pages: PagesDep) -> Response:
    return pages.page("offline.html", {"request": request, "oob": False})
