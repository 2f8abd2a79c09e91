"""Draw the app's PNG icons (static/icons/*.png) from their SVG sources with Chromium.

    .venv/bin/python scripts/icons.py

The web app manifest names them (app/web/ops/install.py): ``icon-192.png`` and ``icon-512.png``
from ``icon.svg`` (purpose ``any``), ``icon-maskable-512.png`` from ``icon-maskable.svg``
(full bleed; its drawing stays inside the middle 80 % circle that launchers keep). The SVGs
are ours (drawn for this project, under the project's licence); run this after changing one.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "static" / "icons"
DRAWN = (("icon.svg", "icon-192.png", 192), ("icon.svg", "icon-512.png", 512),
         ("icon-maskable.svg", "icon-maskable-512.png", 512))  # fmt: skip


def main() -> None:
    chromium = os.environ.get("TRIPEAKS_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for source, target, size in DRAWN:
            page = browser.new_page(viewport={"width": size, "height": size})
            svg = (ICONS / source).read_text(encoding="utf-8")
            svg = svg.replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
            page.set_content(
                f"<html><body style='margin:0;background:transparent'>{svg}</body></html>"
            )
            page.locator("svg").screenshot(path=str(ICONS / target), omit_background=True)
            page.close()
            print(ICONS / target)
        browser.close()


if __name__ == "__main__":
    main()
