"""What a first visit downloads, in a real browser: every response Chromium receives from opening
a game's page until the network is quiet (the page, its CSS and scripts, the service worker and
what it keeps at install, each of these once more if the worker fetches it again; and the
manifest), each body gzipped as a server would send it.

Target: under 50 KB gzipped, without the sounds (``static/sound.js`` is only loaded after the
player's first action, and is counted apart, after one).

    .venv/bin/python -m bench.first_load
"""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from tests.support.servers import live_server

CHROMIUM = os.environ.get("TRIPEAKS_CHROMIUM", "/usr/bin/chromium")


def main() -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data, live_server(Path(data)) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(base_url=server.url)
        seen: list[tuple[str, int, int]] = []

        def record(response) -> None:  # type: ignore[no-untyped-def]
            try:
                body = response.body()
            except Exception:  # a redirect or an aborted response has none
                return
            if not body and response.status == 200:  # the service worker's own fetches: no body given
                body = context.request.get(response.url).body()
            path = urlsplit(response.url).path
            seen.append((path, len(body), len(gzip.compress(body))))

        context.on("response", record)
        page = context.new_page()
        page.goto("/g/TP1-E-AAAAAAB", wait_until="networkidle")
        page.wait_for_timeout(1500)  # the service worker's install, after the page's load
        first = list(seen)
        page.click("#stock")
        page.locator("#moves").filter(has_text="1").wait_for()
        page.wait_for_timeout(1000)
        later = seen[len(first):]
        # Chromium fetches the manifest when it looks at installing (not headless): count it too.
        manifest = context.request.get("/manifest.webmanifest").body()
        first.append(("/manifest.webmanifest", len(manifest), len(gzip.compress(manifest))))
        for path, raw, packed in first:
            print(f"  {path:40} {raw:7} B raw {packed:7} B gzipped")
        raw = sum(r for _, r, _ in first)
        packed = sum(g for _, _, g in first)
        print(f"first load: {len(first)} responses, {raw} B raw, {packed} B gzipped "
              f"({packed / 1024:.1f} KB; target < 50 KB)")
        sounds = {path: (r, g) for path, r, g in later if path.endswith("/sound.js")}
        for path, (r, g) in sounds.items():
            print(f"after the first action: {path} {r} B raw, {g} B gzipped")
        browser.close()


if __name__ == "__main__":
    main()
