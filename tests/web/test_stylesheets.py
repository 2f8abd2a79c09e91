"""The stylesheets keep two promises (docs/architecture.md, "The stylesheets"): one phone width
and one short-screen height, named once, and every colour a token.

- A media query's width or height is one of the named breakpoints: `(max-width: 560px)` (a phone
  upright), `(min-width: 561px)` (wider than a phone) and `(max-height: 560px)` (a short screen:
  a phone sideways, a desktop at 200 % zoom). Other features (orientation, hover, pointer,
  forced colours, the schemes) may stand beside them.
- A colour literal (#hex, rgb(), rgba(), hsl(), hsla()) is written only where a token is
  defined: a custom property's declaration inside an `@layer tokens` block.
"""

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "static"
STYLESHEETS = sorted(STATIC.glob("*.css"))
BREAKPOINTS = {"(max-width: 560px)", "(min-width: 561px)", "(max-height: 560px)"}
SIZE_FEATURE = re.compile(r"\((?:min-|max-)?(?:device-)?(?:width|height|aspect-ratio)\b[^)]*\)|\([^)]*(?:<|>)[^)]*\)")
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(", re.IGNORECASE)


def without_comments(text: str) -> str:
    """The stylesheet with each comment blanked out, its lines kept (so line numbers stay)."""
    return re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)


def block_end(text: str, opening: int) -> int:
    """Where the block whose `{` is at `opening` ends (just after its `}`)."""
    depth, at = 0, opening
    while True:
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        at += 1
        if depth == 0:
            return at


def breakpoints_outside_the_set(text: str) -> list[str]:
    found = []
    for query in re.finditer(r"@media([^{]*)\{", text):
        for feature in SIZE_FEATURE.finditer(query.group(1)):
            if re.sub(r"\s+", " ", feature.group()) not in BREAKPOINTS:
                found.append(feature.group())
    return found


def colours_outside_tokens(text: str) -> list[str]:
    tokens = [(m.start(), block_end(text, m.end() - 1)) for m in re.finditer(r"@layer\s+tokens\s*\{", text)]
    found = []
    for colour in COLOUR.finditer(text):
        at = colour.start()
        declaration = text[max(text.rfind(";", 0, at), text.rfind("{", 0, at)) + 1 : at].strip()
        if not (any(start <= at < end for start, end in tokens) and declaration.startswith("--")):
            line = text.count("\n", 0, at) + 1
            found.append(f"line {line}: {text.splitlines()[line - 1].strip()}")
    return found


def test_the_checks_find_what_they_look_for():
    """Each check finds a stray breakpoint and a stray colour (so an empty answer means none)."""
    sheet = """@layer tokens { :root { --ok: #123456; } }
@layer components {
.a { color: #abcdef; }
@media (max-width: 600px) { .b { color: var(--ok); } }
@media (max-height: 560px), (min-width: 561px) and (orientation: landscape) { .c { color: rgba(0, 0, 0, .5); } }
}"""
    assert breakpoints_outside_the_set(sheet) == ["(max-width: 600px)"]
    assert [found.split(":")[0] for found in colours_outside_tokens(sheet)] == ["line 3", "line 5"]


@pytest.mark.parametrize("sheet", STYLESHEETS, ids=lambda path: path.name)
def test_every_breakpoint_is_a_named_one(sheet):
    assert breakpoints_outside_the_set(without_comments(sheet.read_text())) == []


@pytest.mark.parametrize("sheet", STYLESHEETS, ids=lambda path: path.name)
def test_every_colour_is_a_token(sheet):
    assert colours_outside_tokens(without_comments(sheet.read_text())) == []
