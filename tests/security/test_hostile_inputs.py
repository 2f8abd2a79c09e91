"""A catalogue of hostile inputs against every route of the app.

Every route the app serves must have an entry in :data:`CATALOGUE` (a new route without one
fails :func:`test_every_route_is_in_the_catalogue`). Each route gets, besides its own bad
bodies: unknown, oversized and unicode-trick ids or codes, someone else's game, wrong
methods, forged, truncated and garbage cookies, garbage ``Accept-Language`` and junk query
strings. Every answer must be below 500, a refusal must be a 4xx that says something a
person can read, and the player's games (their page game, their API game, their current
game, their name) must be exactly as they were.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from fastapi.testclient import TestClient

from app.engine import CodeError, GameCode
from app.engine.state import state_of
from app.store import GameStore, MemoryStore
from app.store.database.sql import SqlStore
from tests.support.apps import AppFactory, app_routes
from tests.support.pages import CODE, HX, game_id_of

Expect = Literal["4xx", "any"]
"""``4xx``: the input must be refused; ``any``: it may be taken (as harmless), never a 5xx."""


@dataclass(frozen=True)
class Probe:
    what: str
    method: str
    path: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    expect: Expect = "4xx"
    as_victim: bool = True
    """Sent with the victim's cookies (bad input of their own); else as a stranger."""


@dataclass(frozen=True)
class Ids:
    page: str
    """The victim's game on the game page (owned by them)."""
    api: str
    """A game the victim made through the JSON API (no owner; the id is the key)."""


# -- hostile values ---------------------------------------------------------------------------

BAD_IDS = [
    "nope",
    "a" * 23,
    "a" * 65,
    "a" * 4000,
    "%00",
    "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
    "..%2F..",
    "%E2%80%AE" + "a" * 21,  # right-to-left override
    "%EF%BD%81" * 22,  # fullwidth letters
    "%F0%9F%83%8F",  # a playing-card emoji
    "%FF%FE",  # not UTF-8
    "'%20OR%201=1--",
    "-1",
    "1e400",
    "null",
    "%20",
]

BAD_CODES = [
    "TP1",
    "TP1-E-",
    "TP1-X-AAAAAAB",
    "TP1-E-AAAAAA!",
    "\u0422\u04201-\u0415-AAAAAAB",  # Cyrillic look-alikes of T, P and E
    "TP1-E-AAAAAAB%00",
    "%E2%80%AETP1-E-AAAAAAB",
    "TP1-E-" + "A" * 4000,
    "TP1-E-%F0%9F%83%8F",
    "%FF",
    "TP1-E-ZZZZZZZ",
    "TP1-E--1",
    "TP2-E-AAAAAAB",
    "9" * 400,
    "%20",
    "TP1-E-AAAAAAB%0D%0ASet-Cookie:%20x=1",
]

BAD_POSITIONS: list[tuple[str, Expect]] = [
    ("-1", "4xx"),
    ("28", "4xx"),
    ("99999999999999999999999999999999", "4xx"),
    ("abc", "4xx"),
    ("", "4xx"),
    ("3.5", "4xx"),
    ("1e400", "4xx"),
    ("NaN", "4xx"),
    ("0x1", "4xx"),
    ("3\x00", "4xx"),
    ("٣", "any"),  # an Arabic-Indic digit three: refused, or taken as position 3
    (" 3 ", "any"),
]

BAD_JSON_POSITIONS: list[Any] = [-1, 28, 10**30, "3", 3.5, True, None, [3], {"n": 3}, "٣", float("inf")]

FORGED_COOKIES: list[tuple[str, str | bytes]] = [
    ("forged signature", "tp_player=InBsYXllci0wMDAwMDAwMDAwMDAwMDAwIg.AAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    ("unsigned id", "tp_player=player-00000000000000000"),
    ("long garbage", "tp_player=" + "x" * 4000),
    ("quotes and escapes", 'tp_player="\\"\\\\\\x00"; tp_lang="he'),
    ("latin-1 bytes", b"tp_player=\xff\xfe; tp_lang=\xe9"),
    ("many cookies", "; ".join(f"c{i}=v" for i in range(300))),
    ("language path", "tp_lang=../../../../etc/passwd; tp_error_help=\x01"),
]

GARBAGE_LANGUAGES: list[str | bytes] = [
    "x" * 4000,
    "he;q=nan, uk;q=inf, th;q=-1, *;q=1e400",
    ";;;,,,q=,=;",
    "\u202ehe",
    b"\xff\xfe",
    "en-US," * 500,
    "iw-IL;q=0.9, zh-Hant-TW-x-private-this-is-long;q=0.8",
]


def raw(value: str | bytes) -> bytes:
    """A header value as bytes on the wire (UTF-8 for text that is not ASCII)."""
    return value if isinstance(value, bytes) else value.encode()


def garbage_headers() -> Iterator[tuple[str, dict[str, Any]]]:
    for what, cookie in FORGED_COOKIES:
        yield f"cookie: {what}", {"headers": {"cookie": raw(cookie)}}
    for language in GARBAGE_LANGUAGES:
        yield f"accept-language {language[:20]!r}", {"headers": {"accept-language": raw(language)}}
    yield "junk query", {"params": {"x" * 50: "y" * 2000, "position": "-1", "__proto__": "1"}}
    yield "htmx and odd headers", {"headers": {**HX, "HX-Target": "<script>", "HX-Current-URL": "javascript:1"}}


# -- the catalogue: what each route gets -------------------------------------------------------

RouteProbes = Callable[[Ids], Iterator[Probe]]


def code_probes(method: str, template: str, *, prefix: str = "", expect: Expect | None = None) -> RouteProbes:
    def probes(ids: Ids) -> Iterator[Probe]:
        for code in BAD_CODES:
            yield Probe(f"code {code[:30]!r}", method, template.replace("{code}", code), expect=expect or expect_code(code))
    return probes


def expect_code(code: str) -> Expect:
    from urllib.parse import unquote

    try:
        GameCode.parse(unquote(code))
    except (CodeError, ValueError):
        return "4xx"
    return "any"


def game_probes(method: str, template: str, *, api: bool) -> RouteProbes:
    """Unknown and hostile ids; on the pages also the victim's game asked for by a stranger."""

    def probes(ids: Ids) -> Iterator[Probe]:
        for bad in BAD_IDS:
            yield Probe(f"id {bad[:30]!r}", method, template.replace("{game_id}", bad))
        if not api:
            # Someone else's game, by its id: a stranger cannot see or change it.
            yield Probe("someone else's game", method, template.replace("{game_id}", ids.page), as_victim=False)
            # A game without an owner (made through the API) is not anyone's page game.
            yield Probe("an API game on a page route", method, template.replace("{game_id}", ids.api))
    return probes


def form_position_probes(template: str) -> RouteProbes:
    def probes(ids: Ids) -> Iterator[Probe]:
        path = template.replace("{game_id}", ids.page)
        for value, expect in BAD_POSITIONS:
            yield Probe(f"position {value!r}", "POST", path, {"data": {"position": value}}, expect)
        yield Probe("no position", "POST", path, {"data": {}})
        yield Probe("position twice, one bad", "POST", path,
                    {"content": b"position=-1&position=x", "headers": {"content-type": "application/x-www-form-urlencoded"}})
        yield Probe("JSON instead of a form", "POST", path, {"json": {"position": 3}})
        yield Probe("multipart without a boundary", "POST", path,
                    {"content": b"garbage", "headers": {"content-type": "multipart/form-data"}})
        yield Probe("body over the limit", "POST", path, {"data": {"position": "3" * 20_000}})
    return probes


def json_position_probes(template: str) -> RouteProbes:
    def probes(ids: Ids) -> Iterator[Probe]:
        path = template.replace("{game_id}", ids.api)
        for value in BAD_JSON_POSITIONS:
            body = json.dumps({"position": value}).encode()
            yield Probe(f"position {value!r}", "POST", path, {"content": body, "headers": {"content-type": "application/json"}})
        yield from json_body_probes(path, {"position": 3})
    return probes


def json_body_probes(path: str, good: dict[str, Any], *, method: str = "POST") -> Iterator[Probe]:
    ctype = {"content-type": "application/json"}
    yield Probe("missing body", method, path, {"headers": ctype}, expect="any" if path == "/api/games" else "4xx")
    yield Probe("extra field", method, path, {"json": {**good, "admin": True}})
    yield Probe("a list", method, path, {"json": [good]})
    yield Probe("a string", method, path, {"json": "position"})
    yield Probe("invalid JSON", method, path, {"content": b"{position: 3,}", "headers": ctype})
    yield Probe("not UTF-8", method, path, {"content": b"\xff\xfe{}", "headers": ctype})
    yield Probe("deeply nested", method, path, {"content": b"[" * 5000 + b"]" * 5000, "headers": ctype})
    yield Probe("nested in a field", method, path,
                {"content": b'{"position":' + b"[" * 3000 + b"]" * 3000 + b"}", "headers": ctype})
    yield Probe("huge number", method, path, {"content": b'{"position": 1' + b"0" * 5000 + b"}", "headers": ctype})
    yield Probe("form instead of JSON", method, path, {"data": {"position": "3"}})
    yield Probe("text/plain", method, path, {"content": json.dumps(good).encode(), "headers": {"content-type": "text/plain"}})
    yield Probe("body over the limit", method, path, {"json": {**good, "pad": "x" * 20_000}})


def new_game_form_probes(ids: Ids) -> Iterator[Probe]:
    for code in BAD_CODES:
        from urllib.parse import unquote

        text = unquote(code)
        expect = expect_code(code) if text.strip() else "any"  # a blank code: a random deal
        yield Probe(f"code {code[:30]!r}", "POST", "/new", {"data": {"code": text}}, expect=expect)
    yield Probe("code over 500 characters", "POST", "/new", {"data": {"code": "A" * 501}})
    yield Probe("unknown rules", "POST", "/new", {"data": {"rules": "hard"}})
    yield Probe("rules as a number", "POST", "/new", {"data": {"rules": "1"}})
    yield Probe("winnable_only not a bool", "POST", "/new", {"data": {"winnable_only": "perhaps"}})
    yield Probe("not UTF-8", "POST", "/new", {"content": b"code=%FF%FE&rules=easy",
                                             "headers": {"content-type": "application/x-www-form-urlencoded"}})
    # A multipart body cut short reads as an empty form: a random deal, like no code at all.
    yield Probe("multipart, cut short", "POST", "/new", {"content": b"--x\r\nbroken",
                                                         "headers": {"content-type": "multipart/form-data; boundary=x"}},
                "any")
    yield Probe("body over the limit", "POST", "/new", {"data": {"code": "A" * 20_000}})


def api_new_game_probes(ids: Ids) -> Iterator[Probe]:
    for code in BAD_CODES:
        from urllib.parse import unquote

        yield Probe(f"code {code[:30]!r}", "POST", "/api/games", {"json": {"code": unquote(code)}}, expect=expect_code(code))
    for body in ({"rules": "hard"}, {"rules": 1}, {"rules": None, "code": 5}, {"code": CODE, "rules": "easy"},
                 {"code": "A" * 501}, {"code": ["TP1-E-AAAAAAB"]}):
        yield Probe(f"body {str(body)[:40]}", "POST", "/api/games", {"json": body})
    yield from json_body_probes("/api/games", {"rules": "easy"})


def api_name_probes(ids: Ids) -> Iterator[Probe]:
    for name in ("x" * 41, "a\x00b", "line\nbreak", "a\u2028b", "\ud800", "\u202eevil", "a\u2066b\u2069", "\U000f0000",
                 5, ["a"], {"n": "a"}):
        try:
            body = json.dumps({"name": name}).encode()
        except UnicodeEncodeError:  # pragma: no cover
            continue
        yield Probe(f"name {name!r}"[:50], "PUT", "/api/players/me/name",
                    {"content": body, "headers": {"content-type": "application/json"}})
    yield from json_body_probes("/api/players/me/name", {"name": "Dana"}, method="PUT")


def page_name_probes(ids: Ids) -> Iterator[Probe]:
    for name in ("x" * 41, "a\x00b", "line\nbreak", "\u202eevil", "x" * 600):
        yield Probe(f"name {name[:20]!r}", "POST", "/players/me/name", {"data": {"name": name}})
    # Bytes that are not UTF-8 are read as U+FFFD (Starlette's form parser): a strange name, no harm.
    yield Probe("not UTF-8", "POST", "/players/me/name",
                {"content": b"name=%ED%A0%80", "headers": {"content-type": "application/x-www-form-urlencoded"}}, "any")
    yield Probe("body over the limit", "POST", "/players/me/name", {"data": {"name": "x" * 20_000}})


def language_probes(ids: Ids) -> Iterator[Probe]:
    for lang in ("../../etc/passwd", "x" * 17, "he\x00", "\u202ehe", ""):
        expect: Expect = "4xx" if len(lang) > 16 else "any"  # an unknown language is ignored
        yield Probe(f"lang {lang[:20]!r}", "POST", "/settings/language", {"data": {"lang": lang}}, expect)
    yield Probe("open redirect by Referer", "POST", "/settings/language",
                {"data": {"lang": "he"}, "headers": {"referer": "https://evil.example/phish"}}, "any")
    yield Probe("Referer with CRLF", "POST", "/settings/language",
                {"data": {"lang": "he"}, "headers": {"referer": "http://testserver/%0D%0ALocation:%20//evil"}}, "any")


def howto_probes(ids: Ids) -> Iterator[Probe]:
    yield Probe("open redirect by Referer", "POST", "/settings/how-to-play",
                {"headers": {"referer": "https://evil.example/phish"}}, "any")
    yield Probe("Referer with CRLF", "POST", "/settings/how-to-play",
                {"headers": {"referer": "http://testserver/%0D%0ALocation:%20//evil"}}, "any")
    yield Probe("a body it does not read", "POST", "/settings/how-to-play", {"data": {"x": "y" * 5000}}, "any")


BAD_DAYS = ("2026-13-01", "2026-02-30", "20261203", "2026-1-3", "%00", "9999-12-31", "0000-01-01", "0001-01-01", "x" * 300,
            "2026-12-03%0d%0aSet-Cookie:x=1", "%D9%A2%D9%A0%D9%A2%D9%A6-12-03", "2026-12-03%2F..", "<script>")


def day_probes(template: str, method: str = "GET") -> RouteProbes:
    """Malformed dates (a 422), dates to come or before the first (a 404): nothing stored either way."""
    def probes(ids: Ids) -> Iterator[Probe]:
        for day in BAD_DAYS:
            yield Probe(f"day {day[:30]!r}", method, template.replace("{day}", day))
    return probes


def month_probes(ids: Ids) -> Iterator[Probe]:
    for month in ("2026-13", "9999-01", "26-12", "%00", "x" * 7, "2026-1"):
        yield Probe(f"month {month!r}", "GET", f"/daily/calendar?month={month}")
    yield Probe("a month too long", "GET", "/daily/calendar?month=" + "2" * 50)


def plain(method: str, path: str, expect: Expect = "any") -> RouteProbes:
    def probes(ids: Ids) -> Iterator[Probe]:
        yield Probe("plain", method, path, expect=expect)
    return probes


def static_probes(ids: Ids) -> Iterator[Probe]:
    for path in ("/static/../app/web/settings.py", "/static/%2e%2e/app/web/settings.py", "/static/..%2F..%2Fetc%2Fpasswd",
                 "/static/vendor/%00", "/static/" + "a" * 4000, "/static/tripeaks.css%00.js"):
        yield Probe(f"static {path[:40]!r}", "GET", path)
    yield Probe("POST a static file", "POST", "/static/tripeaks.css")


def both(*makers: RouteProbes) -> RouteProbes:
    def probes(ids: Ids) -> Iterator[Probe]:
        for make in makers:
            yield from make(ids)
    return probes


def wrong_methods(method: str, template: str, allowed: set[str]) -> RouteProbes:
    def probes(ids: Ids) -> Iterator[Probe]:
        path = template.replace("{game_id}", "nope").replace("{code}", CODE)
        for other in sorted({"GET", "POST", "PUT", "DELETE", "PATCH"} - allowed):
            yield Probe(f"wrong method {other}", other, path, {"content": b"x"} if other != "GET" else {})
    return probes


def line_probes(template: str) -> RouteProbes:
    """Replay links (issue 14): bad codes, and bad lines on a good code (all 4xx)."""

    def probes(ids: Ids) -> Iterator[Probe]:
        yield from code_probes("GET", template.replace("{line}", "22"))(ids)
        for line in ("x", "22.0", "27", ".".join(["d"] * 201), "22.", "%00", "d" * 5000, ".."):
            yield Probe(f"line {line[:30]!r}", "GET", template.replace("{code}", CODE).replace("{line}", line),
                        expect="4xx")
    return probes


def race_probes(method: str, template: str) -> RouteProbes:
    """Race ids (issue 24) that cannot exist: 404 before any database is asked (a NUL byte among
    them, which PostgreSQL's text refuses)."""

    def probes(ids: Ids) -> Iterator[Probe]:
        for race_id in BAD_IDS:
            yield Probe(f"race id {race_id[:30]!r}", method, template.replace("{race_id}", race_id))
    return probes


def new_race_probes(ids: Ids) -> Iterator[Probe]:
    from urllib.parse import unquote

    for code in BAD_CODES[:6]:
        yield Probe(f"race code {code[:30]!r}", "POST", "/api/races", {"json": {"code": unquote(code)}},
                    expect=expect_code(code))
    for body in ({"code": 5}, {"code": ["TP1-E-AAAAAAB"]}, {"code": "A" * 501}, {"rules": "easy"}):
        yield Probe(f"race body {str(body)[:30]}", "POST", "/api/races", {"json": body})
    yield Probe("race body not JSON", "POST", "/api/races", {"content": b"{", "headers": {"content-type": "application/json"}})


def id_probes(method: str, template: str, name: str) -> RouteProbes:
    """Ids (of a device, a token) that are nobody's or cannot exist: 404, nothing signed out."""

    def probes(ids: Ids) -> Iterator[Probe]:
        for bad in BAD_IDS:
            yield Probe(f"{name} {bad[:30]!r}", method, template.replace("{" + name + "}", bad))
    return probes


LINK_CODES = ["222-222-222", "", "O0I1L", "K" * 300, "\u202e222222222", "222222222\x00", "२२२२२२२२२"]


def typed_code_probes(path: str) -> RouteProbes:
    """Link and recovery codes that are wrong (404) or cannot be codes (422), as JSON and as forms."""

    def probes(ids: Ids) -> Iterator[Probe]:
        for code in LINK_CODES:
            if path.startswith("/api/"):
                yield Probe(f"code {code[:20]!r}", "POST", path, {"json": {"code": code, "bring_history": True}})
            else:
                yield Probe(f"code {code[:20]!r}", "POST", path, {"data": {"code": code, "bring_history": "yes"}})
        if path.startswith("/api/"):
            yield Probe("bring_history not a bool", "POST", path, {"json": {"code": "222222222", "bring_history": "x"}})
            yield from json_body_probes(path, {"code": "222222222"})
        else:
            yield Probe("bring_history made up", "POST", path, {"data": {"code": "222222222", "bring_history": "maybe"}})
            yield Probe("body over the limit", "POST", path, {"data": {"code": "2" * 20_000}})
    return probes


def passkey_probes(path: str) -> RouteProbes:
    """Passkeys at an address where they cannot work (the test client's): refused, with a reason."""

    def probes(ids: Ids) -> Iterator[Probe]:
        yield Probe("no relying party here", "POST", path, {"json": {"credential": {"id": "x"}}})
        yield Probe("garbage credential", "POST", path, {"json": {"credential": "x" * 100}})
        yield Probe("on localhost, garbage credential", "POST", path,
                    {"json": {"credential": {"id": "x", "response": {"clientDataJSON": "!!"}}},
                     "headers": {"host": "localhost"}})
    return probes


def delete_me_probes(method: str, path: str, data: dict[str, str] | None = None) -> RouteProbes:
    """Only a stranger deletes (themselves): the victim's player stays; unconfirmed, nothing goes."""

    def probes(ids: Ids) -> Iterator[Probe]:
        yield Probe("a stranger deletes themselves", method, path, {"data": data} if data else {}, "any", as_victim=False)
        if data:
            yield Probe("not confirmed", method, path, {"data": {"confirm": "no"}})
    return probes


def table_name_probes(path: str) -> RouteProbes:
    """Tables of friends' names (issue 39) that a display name's rules refuse: 4xx, nothing made."""

    def probes(ids: Ids) -> Iterator[Probe]:
        for name in ("", "\x00", "\u202e", " " * 5, "a" * 5000):
            if path.startswith("/api/"):
                yield Probe(f"name {name[:10]!r}", "POST", path, {"json": {"name": name}})
            else:
                yield Probe(f"name {name[:10]!r}", "POST", path, {"data": {"name": name}})
        if path.startswith("/api/"):
            yield from json_body_probes(path, {"name": "Friday club"})
    return probes


def invite_probes(ids: Ids) -> Iterator[Probe]:
    """Invite tokens that are nobody's or cannot be tokens: 404 or 422, nothing joined."""
    for bad in BAD_IDS:
        yield Probe(f"token {bad[:30]!r}", "POST", "/api/tables/join", {"json": {"token": bad}})
    yield from json_body_probes("/api/tables/join", {"token": "nope"})


def run_probes(method: str, template: str) -> RouteProbes:
    """Runs to beat (issue 39) named by references that name no run, on bad days too: 4xx, nothing dealt."""

    def probes(ids: Ids) -> Iterator[Probe]:
        today = dt.datetime.now(dt.UTC).date().isoformat()
        for bad in BAD_IDS:
            yield Probe(f"run {bad[:30]!r}", method, template.replace("{day}", today).replace("{ref}", bad))
        for day in BAD_DAYS:
            yield Probe(f"day {day[:30]!r}", method, template.replace("{day}", day).replace("{ref}", "a" * 22))
    return probes


CATALOGUE: dict[tuple[str, str], RouteProbes] = {
    ("GET", "/api/tables"): plain("GET", "/api/tables"),
    ("POST", "/api/tables"): table_name_probes("/api/tables"),
    ("POST", "/api/tables/join"): invite_probes,
    ("GET", "/api/tables/{table_id}"): id_probes("GET", "/api/tables/{table_id}", "table_id"),
    ("POST", "/api/tables/{table_id}/invite"): id_probes("POST", "/api/tables/{table_id}/invite", "table_id"),
    ("DELETE", "/api/tables/{table_id}/members/me"): id_probes("DELETE", "/api/tables/{table_id}/members/me", "table_id"),
    ("DELETE", "/api/tables/{table_id}/members/{member_id}"):
        id_probes("DELETE", "/api/tables/{table_id}/members/{member_id}", "table_id"),
    ("GET", "/tables"): plain("GET", "/tables"),
    ("POST", "/tables"): table_name_probes("/tables"),
    ("GET", "/tables/{table_id}"): id_probes("GET", "/tables/{table_id}", "table_id"),
    ("GET", "/tables/{table_id}/events"): id_probes("GET", "/tables/{table_id}/events", "table_id"),
    ("POST", "/tables/{table_id}/invite"): id_probes("POST", "/tables/{table_id}/invite", "table_id"),
    ("POST", "/tables/{table_id}/leave"): id_probes("POST", "/tables/{table_id}/leave", "table_id"),
    ("POST", "/tables/{table_id}/name"): id_probes("POST", "/tables/{table_id}/name", "table_id"),
    ("POST", "/tables/{table_id}/race"): id_probes("POST", "/tables/{table_id}/race", "table_id"),
    ("POST", "/tables/{table_id}/members/{member_id}/remove"):
        id_probes("POST", "/tables/{table_id}/members/{member_id}/remove", "table_id"),
    ("GET", "/t/{token}"): id_probes("GET", "/t/{token}", "token"),
    ("POST", "/t/{token}"): id_probes("POST", "/t/{token}", "token"),
    ("GET", "/daily/{day}/runs/{ref}"): run_probes("GET", "/daily/{day}/runs/{ref}"),
    ("GET", "/daily/{day}/runs/{ref}/events"): run_probes("GET", "/daily/{day}/runs/{ref}/events"),
    ("POST", "/daily/{day}/runs/{ref}"): run_probes("POST", "/daily/{day}/runs/{ref}"),
    ("POST", "/api/players/me/link-codes"): plain("POST", "/api/players/me/link-codes"),
    ("POST", "/api/link"): typed_code_probes("/api/link"),
    ("POST", "/api/players/me/recovery-code"): plain("POST", "/api/players/me/recovery-code"),
    ("POST", "/api/recover"): typed_code_probes("/api/recover"),
    ("GET", "/api/players/me/devices"): plain("GET", "/api/players/me/devices"),
    ("DELETE", "/api/players/me/devices/{device_id}"): id_probes("DELETE", "/api/players/me/devices/{device_id}", "device_id"),
    ("POST", "/api/players/me/tokens"): plain("POST", "/api/players/me/tokens"),
    ("GET", "/api/players/me/tokens"): plain("GET", "/api/players/me/tokens"),
    ("DELETE", "/api/players/me/tokens/{token_id}"): id_probes("DELETE", "/api/players/me/tokens/{token_id}", "token_id"),
    ("GET", "/api/players/me/export"): plain("GET", "/api/players/me/export"),
    ("DELETE", "/api/players/me"): delete_me_probes("DELETE", "/api/players/me"),
    ("POST", "/api/passkeys/options"): plain("POST", "/api/passkeys/options", "4xx"),
    ("POST", "/api/passkeys"): passkey_probes("/api/passkeys"),
    ("POST", "/api/passkeys/sign-in/options"): plain("POST", "/api/passkeys/sign-in/options", "4xx"),
    ("POST", "/api/passkeys/sign-in"): passkey_probes("/api/passkeys/sign-in"),
    ("GET", "/devices"): plain("GET", "/devices"),
    ("POST", "/devices/link-code"): plain("POST", "/devices/link-code"),
    ("POST", "/devices/sign-out-others"): plain("POST", "/devices/sign-out-others"),
    ("POST", "/devices/{device_id}/sign-out"): id_probes("POST", "/devices/{device_id}/sign-out", "device_id"),
    ("POST", "/devices/recovery-code"): plain("POST", "/devices/recovery-code"),
    ("POST", "/devices/tokens"): plain("POST", "/devices/tokens"),
    ("POST", "/devices/tokens/{token_id}/revoke"): id_probes("POST", "/devices/tokens/{token_id}/revoke", "token_id"),
    ("POST", "/devices/passkeys/remove"): plain("POST", "/devices/passkeys/remove"),
    ("GET", "/link"): plain("GET", "/link"),
    ("GET", "/link/{code}"): code_probes("GET", "/link/{code}", expect="any"),
    ("POST", "/link"): typed_code_probes("/link"),
    ("GET", "/recover"): plain("GET", "/recover"),
    ("POST", "/recover"): typed_code_probes("/recover"),
    ("GET", "/players/me/delete"): plain("GET", "/players/me/delete"),
    ("POST", "/players/me/delete"): delete_me_probes("POST", "/players/me/delete", {"confirm": "yes"}),
    ("GET", "/api/races/{race_id}"): race_probes("GET", "/api/races/{race_id}"),
    ("GET", "/race/{race_id}"): race_probes("GET", "/race/{race_id}"),
    ("GET", "/races/{race_id}/events"): race_probes("GET", "/races/{race_id}/events"),
    ("GET", "/races/{race_id}/page"): race_probes("GET", "/races/{race_id}/page"),
    ("POST", "/api/races/{race_id}/join"): race_probes("POST", "/api/races/{race_id}/join"),
    ("POST", "/api/races/{race_id}/start"): race_probes("POST", "/api/races/{race_id}/start"),
    ("POST", "/races/{race_id}/again"): race_probes("POST", "/races/{race_id}/again"),
    ("POST", "/races/{race_id}/leave"): race_probes("POST", "/races/{race_id}/leave"),
    ("POST", "/races/{race_id}/join"): race_probes("POST", "/races/{race_id}/join"),
    ("POST", "/races/{race_id}/start"): race_probes("POST", "/races/{race_id}/start"),
    ("POST", "/api/races"): new_race_probes,
    ("POST", "/races"): plain("POST", "/races"),
    ("GET", "/display"): plain("GET", "/display"),
    ("POST", "/display"): plain("POST", "/display"),
    ("GET", "/manifest.webmanifest"): plain("GET", "/manifest.webmanifest"),
    ("GET", "/offline"): plain("GET", "/offline"),
    ("GET", "/sw.js"): plain("GET", "/sw.js"),
    ("POST", "/settings/sound"): plain("POST", "/settings/sound"),
    ("GET", "/replay/{code}"): code_probes("GET", "/replay/{code}"),
    ("GET", "/replay/{code}/{line}"): line_probes("/replay/{code}/{line}"),
    ("GET", "/api/replay/{code}"): code_probes("GET", "/api/replay/{code}"),
    ("GET", "/api/replay/{code}/{line}"): line_probes("/api/replay/{code}/{line}"),
    ("GET", "/replay-difficulty/{code}"): code_probes("GET", "/replay-difficulty/{code}"),
    ("GET", "/"): plain("GET", "/"),
    ("GET", "/daily"): plain("GET", "/daily"),
    ("GET", "/daily/{day}"): day_probes("/daily/{day}"),
    ("POST", "/daily/{day}"): day_probes("/daily/{day}", "POST"),
    ("GET", "/daily/{day}/board"): day_probes("/daily/{day}/board"),
    ("GET", "/daily/calendar"): month_probes,
    ("GET", "/api/daily"): plain("GET", "/api/daily"),
    ("GET", "/api/daily/{day}"): day_probes("/api/daily/{day}"),
    ("GET", "/g/{code}"): code_probes("GET", "/g/{code}"),
    ("GET", "/new"): plain("GET", "/new"),
    ("POST", "/new"): new_game_form_probes,
    ("POST", "/settings/error-help"): plain("POST", "/settings/error-help"),
    ("POST", "/settings/large-cards"): plain("POST", "/settings/large-cards"),
    ("POST", "/games/{game_id}/remove"): both(game_probes("POST", "/games/{game_id}/remove", api=False),
                                              form_position_probes("/games/{game_id}/remove")),
    ("POST", "/games/{game_id}/draw"): game_probes("POST", "/games/{game_id}/draw", api=False),
    ("POST", "/games/{game_id}/undo"): game_probes("POST", "/games/{game_id}/undo", api=False),
    ("POST", "/games/{game_id}/restart"): game_probes("POST", "/games/{game_id}/restart", api=False),
    ("POST", "/games/{game_id}/resume"): game_probes("POST", "/games/{game_id}/resume", api=False),
    ("POST", "/games/{game_id}/hint"): game_probes("POST", "/games/{game_id}/hint", api=False),
    ("GET", "/games/{game_id}/outlook"): game_probes("GET", "/games/{game_id}/outlook", api=False),
    ("POST", "/api/games"): api_new_game_probes,
    ("GET", "/api/games/{game_id}"): game_probes("GET", "/api/games/{game_id}", api=True),
    ("POST", "/api/games/{game_id}/remove"): both(game_probes("POST", "/api/games/{game_id}/remove", api=True),
                                                  json_position_probes("/api/games/{game_id}/remove")),
    ("POST", "/api/games/{game_id}/draw"): game_probes("POST", "/api/games/{game_id}/draw", api=True),
    ("POST", "/api/games/{game_id}/undo"): game_probes("POST", "/api/games/{game_id}/undo", api=True),
    ("POST", "/api/games/{game_id}/hint"): game_probes("POST", "/api/games/{game_id}/hint", api=True),
    ("GET", "/api/deals/{code}/record"): code_probes("GET", "/api/deals/{code}/record"),
    ("GET", "/api/players/me/stats"): plain("GET", "/api/players/me/stats"),
    ("PUT", "/api/players/me/name"): api_name_probes,
    ("GET", "/stats"): plain("GET", "/stats"),
    ("POST", "/players/me/name"): page_name_probes,
    ("POST", "/settings/language"): language_probes,
    ("GET", "/how-to-play"): plain("GET", "/how-to-play"),
    ("POST", "/settings/how-to-play"): howto_probes,
    ("GET", "/healthz"): plain("GET", "/healthz"),
    ("GET", "/readyz"): plain("GET", "/readyz"),
    ("GET", "/metrics"): plain("GET", "/metrics"),
    ("GET", "/openapi.json"): plain("GET", "/openapi.json"),
    ("GET", "/docs"): plain("GET", "/docs"),
    ("GET", "/docs/oauth2-redirect"): plain("GET", "/docs/oauth2-redirect"),
    ("GET", "/redoc"): plain("GET", "/redoc"),
    ("*", "/static"): static_probes,
}
"""Every route: (method, path) → its own hostile inputs. Paths are the app's route templates."""


# -- running the catalogue -------------------------------------------------------------------


@dataclass
class World:
    victim: TestClient
    stranger: TestClient
    store: GameStore
    ids: Ids
    player: str

    def snapshot(self) -> tuple[object, ...]:
        page, api = self.store.get(self.ids.page), self.store.get(self.ids.api)
        current = self.store.current(self.player)
        return (
            page and (page.version, state_of(page.game)),
            api and (api.version, state_of(api.game)),
            current and current.id,
            self.store.display_name(self.player),
        )


@pytest.fixture(params=["memory", pytest.param("postgresql", marks=pytest.mark.postgres)])
def world_store(request: pytest.FixtureRequest) -> Iterator[GameStore]:
    """The victim's store: in memory, and on PostgreSQL, whose text refuses a NUL byte (an id
    or a name with one must be refused before any query)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    store = SqlStore(request.getfixturevalue("pg_database"))
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def world(make_client: AppFactory, world_store: GameStore) -> Iterator[World]:
    store = world_store
    victim = make_client(store, client_kwargs={"raise_server_exceptions": False})
    page = victim.get(f"/g/{CODE}")
    page_id = game_id_of(page.text)
    for _ in range(3):
        assert victim.post(f"/games/{page_id}/draw", headers=HX).status_code == 200
    # A game of nobody's: made by a client without a cookie (with the victim's it would be theirs).
    api = TestClient(victim.app).post("/api/games", json={"code": CODE}).json()["id"]
    assert victim.post(f"/api/games/{api}/draw").status_code == 200
    # Entered, and left after the test: a client left open keeps its app's lifespan (the
    # signed-out devices' watch) running after the store's schema is dropped.
    with TestClient(victim.app, raise_server_exceptions=False) as stranger:
        stored = store.get(page_id)
        assert stored is not None and stored.owner is not None
        yield World(victim, stranger, store, Ids(page_id, api), stored.owner)


def readable_message(response: Any) -> str:
    """What the response says to a person (the JSON detail or message, or the page's words)."""
    ctype = response.headers.get("content-type", "")
    if "json" in ctype:
        body = response.json()
        if isinstance(body, dict):
            detail = body.get("detail")
            return json.dumps(body.get("errors")) if body.get("errors") else str(detail or "")
        return ""
    text = response.text
    main = re.search(r"<main.*?</main>", text, re.S)
    words = re.sub(r"<[^>]+>", " ", main.group(0) if main else text)
    return " ".join(html.unescape(words).split())


def run_probe(world: World, probe: Probe) -> None:
    client = world.victim if probe.as_victim else world.stranger
    before = world.snapshot()
    response = client.request(probe.method, probe.path, follow_redirects=False, **probe.kwargs)
    label = f"{probe.method} {probe.path[:80]} [{probe.what}]"
    assert response.status_code < 500, f"{label}: {response.status_code} {response.text[:300]}"
    assert "Traceback" not in response.text and "Internal Server Error" not in response.text, label
    if probe.expect == "4xx":
        assert 400 <= response.status_code < 500, f"{label}: {response.status_code}, expected a refusal"
        assert readable_message(response), f"{label}: a refusal that says nothing: {response.text[:300]}"
    after = world.snapshot()
    if probe.expect == "any" and probe.as_victim and response.status_code < 400:
        # A request taken as valid may change what it is for (a valid code deals that game and
        # makes it the current one; a name is a name), never the games themselves.
        before, after = before[:2], after[:2]
    assert after == before, f"{label} changed the player's games"


def test_every_route_is_in_the_catalogue(make_client: AppFactory) -> None:
    routes = app_routes(make_client().app)
    assert len(routes) >= 20
    missing = sorted(set(routes) - set(CATALOGUE))
    assert not missing, f"routes without hostile-input coverage (add them to CATALOGUE): {missing}"


def test_the_catalogue_against_every_route(world: World) -> None:
    routes = app_routes(world.victim.app)
    count = 0
    for (method, path), allowed in sorted(routes.items()):
        probes = CATALOGUE[(method, path)]
        for probe in probes(world.ids):
            run_probe(world, probe)
            count += 1
        if method != "*":
            for probe in wrong_methods(method, path, allowed)(world.ids):
                if (probe.method, path) not in routes:
                    run_probe(world, probe)
                    count += 1
        # Garbage headers, forged cookies: a stranger with the victim's real ids.
        concrete = path.replace("{game_id}", world.ids.page).replace("{code}", CODE)
        if method == "*":
            concrete, method = "/static/tripeaks.css", "GET"
        if concrete.startswith("/api/games/"):
            concrete = concrete.replace(world.ids.page, "nope")  # the API needs only the id
        for what, kwargs in garbage_headers():
            expect: Expect = "any"
            if "/games/" in concrete and "/api/" not in concrete:
                expect = "4xx"  # someone else's game: no cookie of theirs, no way in
            run_probe(world, Probe(what, method, concrete, kwargs, expect, as_victim=False))
            count += 1
    assert count > 500


def test_the_victims_games_still_play_after_the_catalogue(world: World) -> None:
    """The probes did not break anything: the player goes on where they were."""
    for (method, path), _ in app_routes(world.victim.app).items():
        for probe in CATALOGUE[(method, path)](world.ids):
            run_probe(world, probe)
    response = world.victim.post(f"/games/{world.ids.page}/draw", headers=HX)
    assert response.status_code == 200
    assert re.search(r'id="moves"[^>]*>4<', response.text)
    assert world.victim.post(f"/api/games/{world.ids.api}/draw").json()["moves"] == 2


def test_the_language_form_never_sends_a_player_off_site(make_client: AppFactory) -> None:
    """``POST /settings/language`` goes back to the page named by Referer: only ever on this site."""
    client = make_client()
    for referer in ("https://evil.example/phish", "//evil.example/x", "http://testserver.evil.example/",
                    "http://testserver//evil.example/x", "javascript:alert(1)", "http://testserver/%0D%0ALocation:%20//evil",
                    "http://testserver/\\evil.example", "http://[::1/"):
        response = client.post("/settings/language", data={"lang": "he"}, headers={"referer": referer},
                               follow_redirects=False)
        location = response.headers["location"]
        assert response.status_code == 303, referer
        assert location.startswith("/") and not location.startswith(("//", "/\\")), (referer, location)
        assert "\r" not in location and "\n" not in location
