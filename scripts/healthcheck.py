#!/usr/bin/env python3
"""The image's HEALTHCHECK: exit 0 when the server in this container answers /healthz.

It asks the port the server was started on (``TRIPEAKS_PORT``, as the image's CMD uses it),
on loopback, and gives up after 2 seconds, so a hung server shows as unhealthy quickly.
"""

import os
import sys
import urllib.error
import urllib.request


def main() -> int:
    port = os.environ.get("TRIPEAKS_PORT", "8000")
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            ok = response.status == 200
    except (OSError, urllib.error.URLError) as error:
        print(f"unhealthy: {url}: {error}", file=sys.stderr)
        return 1
    if not ok:
        print(f"unhealthy: {url} answered {response.status}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
