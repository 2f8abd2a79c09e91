"""The codes that make a browser a player (issue 38), as pure functions: link codes, recovery
codes and personal tokens; how each is made, read back as a person types it, and kept hashed.

* **A link code**: 9 symbols of :data:`ALPHABET` (31 symbols, no 0/O, 1/I/L: 44.6 bits),
  shown in groups of three (``K7M-Q2X-9RT``), valid 10 minutes, single use. Kept as a keyed
  hash (HMAC-SHA-256 with the installation's secret key, :func:`code_digest`): a short-lived
  code behind a rate limit needs no slow hash, and the key stops anyone with a copy of the
  database from trying the 2^44.6 codes offline.
* **A recovery code**: 32 symbols in groups of four: a public *selector* of 6 symbols (the
  row to look in) and a *secret* of 26 (128.8 bits), kept as ``hashlib.scrypt`` of the
  secret with a salt of its own (:func:`scrypt_digest`). With the selector a wrong code costs
  one indexed read and no scrypt unless its selector exists, and each row has its own salt:
  docs/security.md says why.
* **A personal token**: ``tpk_<id>.<secret>`` with a public id (to list and revoke it) and
  256 random bits kept as SHA-256 (a token is random, not chosen by a person: a fast hash is
  as good as a slow one).

Typed codes are read leniently: any case, spaces, dashes and dots anywhere, full-width forms
(NFKC). A symbol outside the alphabet makes the code wrong, never a guess at what was meant.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import unicodedata
from typing import Final

ALPHABET: Final = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""31 symbols that read aloud and type on a phone without mistakes: no 0/O, 1/I/L."""
_SYMBOLS: Final = frozenset(ALPHABET)
SEPARATORS: Final = frozenset(" \t\n-_.\u2010\u2011\u2012\u2013\u2014\u2212\u00a0\u202f")
"""Ignored wherever they are typed (the dashes a phone's keyboard makes of ``-`` too)."""

LINK_CODE_LENGTH: Final = 9
LINK_CODE_TTL_S: Final = 600.0
"""A link code is good for 10 minutes."""
RECOVERY_SELECTOR_LENGTH: Final = 6
RECOVERY_SECRET_LENGTH: Final = 26
RECOVERY_CODE_LENGTH: Final = RECOVERY_SELECTOR_LENGTH + RECOVERY_SECRET_LENGTH
MOST_TYPED: Final = 200
"""A typed code longer than this (separators included) is wrong without being read."""

SCRYPT_N: Final = 2**14
SCRYPT_R: Final = 8
SCRYPT_P: Final = 1
"""scrypt's cost: 16 MiB and some 50 ms a hash (OWASP's minimum is N=2^17 for passwords that
people choose; a recovery code is 128 random bits, so the hash only has to be slow enough to
make a stolen database's digests useless to try, which 128 bits does on its own)."""

TOKEN_PREFIX: Final = "tpk_"


def bits(length: int) -> float:
    """The bits of a code of ``length`` symbols of :data:`ALPHABET`."""
    import math

    return length * math.log2(len(ALPHABET))


def random_symbols(length: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def new_link_code() -> str:
    """A fresh link code, as stored and compared (no separators)."""
    return random_symbols(LINK_CODE_LENGTH)


def new_recovery_code() -> str:
    """A fresh recovery code (selector then secret, no separators)."""
    return random_symbols(RECOVERY_CODE_LENGTH)


def grouped(code: str, size: int) -> str:
    """``K7MQ2X9RT`` → ``K7M-Q2X-9RT`` (groups of ``size``, as shown)."""
    return "-".join(code[i : i + size] for i in range(0, len(code), size))


def typed_code(text: str, length: int) -> str | None:
    """The code a person typed, as stored (upper case, separators gone), if it can be one of
    ``length`` symbols; else ``None`` (wrong, whatever it was meant to be)."""
    if not isinstance(text, str) or len(text) > MOST_TYPED:
        return None
    symbols = [c for c in unicodedata.normalize("NFKC", text).upper() if c not in SEPARATORS]
    if len(symbols) != length or not all(c in _SYMBOLS for c in symbols):
        return None
    return "".join(symbols)


def code_digest(key: bytes, purpose: str, code: str) -> str:
    """The keyed hash a short-lived code is kept as (hex): HMAC-SHA-256 of ``purpose`` and the
    code under the installation's key. Every server of an installation shares the key, so a
    code made on one is found on another."""
    return hmac.new(key, f"tripeaks.{purpose}:{code}".encode(), hashlib.sha256).hexdigest()


def recovery_parts(code: str) -> tuple[str, str]:
    """(selector, secret) of a recovery code as stored."""
    return code[:RECOVERY_SELECTOR_LENGTH], code[RECOVERY_SELECTOR_LENGTH:]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def scrypt_digest(secret: str, *, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$salt$hash``: the secret hashed with ``hashlib.scrypt`` and a fresh salt."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def scrypt_matches(secret: str, stored: str) -> bool:
    """Whether ``secret`` hashes to ``stored`` (compared in constant time)."""
    try:
        name, n, r, p, salt, digest = stored.split("$")
        if name != "scrypt":
            return False
        made = hashlib.scrypt(
            secret.encode(), salt=_unb64(salt), n=int(n), r=int(r), p=int(p), dklen=32, maxmem=2**26
        )
    except ValueError:
        return False
    return hmac.compare_digest(made, _unb64(digest))


def new_token() -> tuple[str, str, str]:
    """A fresh personal token: (its id, the token as shown once, the digest kept)."""
    token_id = secrets.token_urlsafe(8)
    secret = secrets.token_urlsafe(32)
    return token_id, f"{TOKEN_PREFIX}{token_id}.{secret}", token_digest(secret)


def token_parts(text: str) -> tuple[str, str] | None:
    """(id, secret) of a token as sent (``tpk_<id>.<secret>``), or ``None``."""
    if not text.startswith(TOKEN_PREFIX) or len(text) > 100:
        return None
    token_id, dot, secret = text[len(TOKEN_PREFIX) :].partition(".")
    if (
        not dot
        or not token_id
        or not secret
        or not (token_id + secret).replace("-", "").replace("_", "").isalnum()
    ):
        return None
    if not (token_id + secret).isascii():
        return None
    return token_id, secret


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_matches(secret: str, stored: str) -> bool:
    return hmac.compare_digest(token_digest(secret), stored)
