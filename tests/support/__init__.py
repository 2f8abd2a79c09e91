"""The test suite's helpers: the one place tests import from (``from tests.support.X import ...``).

No test imports another test module or a conftest; conftests hold fixtures only.

* ``deals``: deals with a known outcome (won, blocked by drawing) found by plain searches, and
  the reference searches run on engine games (``can_win``, ``best_scores``).
* ``games``: the engine tests' own search for wins, hand-made deals (``CraftedCode``), snapshots.
* ``reference``: the solver's oracle, searches written from the rules with none of its tricks.
* ``positions``: games in progress with a few cards left, for the solver tests.
* ``layout_tables``: the layouts' tables as docs/layouts.md writes them, read from their text.
* ``three_peaks``: the three peaks' tables by name (rows, covers, peaks), as the tests read them.
* ``store``: store backends, a clock moved by hand, deals with two outcomes, a real server, and a
  line played on a stored game (``play_saved``, ``play_new``, ``play_timed``).
* ``servers``: uvicorn in a subprocess on a free loopback port.
* ``pages``: what page tests read from HTML (the game id, an element's text) and send (htmx): a
  deal's page opened (``open_deal``), a line played as htmx posts (``play``).
* ``apps``: apps with chosen settings, and the routes an app serves.
* ``oracle``: what a client works out from a fresh ``Game`` replaying each acknowledged action.
* ``daily``: the daily challenge's page tests: a fixed key and day, its deal, its lines.
* ``faults``: a private PostgreSQL cluster, a tiny full disk.
* ``races``: a race's event stream read over real HTTP; a quick countdown (``quick_countdown``).
* ``catalogs``: the catalogs' own strings, read with Babel (the oracle of the words on pages).
* ``browser``: Playwright's viewports, screenshots and the page's states.
* ``machines``: debootstrapped Debian roots and podman, for the deploy tests.
* ``soak``, ``soak_players``, ``soak_streams``: the chaos soak's driver, players and streams held at
  their bounds (bench/chaos.py runs it too).
"""
