"""The gettext catalogs: ``locales/<lang>/LC_MESSAGES/messages.po``, compiled to ``.mo``.

The ``.po`` files are the source (kept in the repository); ``pybabel compile``
makes the ``.mo`` files, and so does the app itself at start when a ``.mo`` is
missing or older than its ``.po`` (a fresh clone needs no build step). When the
folder is not writable the compiled catalog is kept in memory only.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path
from typing import Final

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALES_DIR: Final = Path(__file__).resolve().parent / "locales"
DOMAIN: Final = "messages"


def po_path(lang: str) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return po_path(lang).with_suffix(".mo")


def is_stale(lang: str) -> bool:
    """Whether the ``.mo`` is missing or older than its ``.po``."""
    po, mo = po_path(lang), mo_path(lang)
    try:
        return mo.stat().st_mtime_ns < po.stat().st_mtime_ns
    except FileNotFoundError:
        return True


def compile_catalog(lang: str) -> bytes:
    """Compile ``lang``'s ``.po`` (fuzzy entries left out, as ``pybabel compile`` does)."""
    with po_path(lang).open("rb") as file:
        catalog = read_po(file, locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def _write_atomically(path: Path, data: bytes) -> None:
    """Write via a temporary file and a rename, so a concurrent reader never sees half a file."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes it 0600: other users (a server's own) must read it
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def mo_bytes(lang: str) -> bytes:
    """``lang``'s compiled catalog: the ``.mo`` file, compiled first if it is missing or stale."""
    if not is_stale(lang):
        with contextlib.suppress(OSError):  # unreadable (another user's): compile it here
            return mo_path(lang).read_bytes()
    data = compile_catalog(lang)
    with contextlib.suppress(OSError):  # a read-only install: use the catalog compiled in memory
        _write_atomically(mo_path(lang), data)
    return data


def load_translations(lang: str) -> Translations:
    return Translations(io.BytesIO(mo_bytes(lang)), domain=DOMAIN)
