"""The test suite's helpers: the one place tests import from (``from tests.support.X import ...``).

No test imports another test module or a conftest; conftests hold fixtures only.

* ``deals``: deals with a known outcome (won, blocked by drawing) found by plain searches, and
  the reference searches run on engine games (``can_win``, ``best_scores``).
* ``games``: the engine tests' own search for wins, hand-made deals (``CraftedCode``), snapshots.
* ``reference``: the solver's oracle, searches written from the rules with none of its tricks.
* ``positions``: games in progress with a few cards left, for the solver tests.
* ``layout_tables``: the layouts' tables as docs/layouts.md writes them, read from their text.
* ``store``: store backends, a clock moved by hand, deals with two outcomes, a real server.
* ``servers``: uvicorn in a subprocess on a free loopback port.
* ``pages``: what page tests read from HTML (the game id, an element's text) and send (htmx).
* ``apps``: apps with chosen settings, and the routes an app serves.
* ``oracle``: what a client works out from a fresh ``Game`` replaying each acknowledged action.
* ``faults``: a private PostgreSQL cluster, a tiny full disk.
* ``races``: a race's event stream read over real HTTP.
* ``catalogs``: the catalogs' own strings, read with Babel (the oracle of the words on pages).
* ``browser``: Playwright's viewports, screenshots and the page's states.
* ``machines``: debootstrapped Debian roots and podman, for the deploy tests.
* ``soak``, ``soak_players``: the chaos soak's driver and players (bench/chaos.py runs it too).
"""
