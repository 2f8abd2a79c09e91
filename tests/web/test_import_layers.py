"""Imports run one way (docs/architecture.md, "The import rule"): no module of ``app`` imports
itself back round a loop, counting the imports inside functions and under ``TYPE_CHECKING``;
a route never imports another route, and nothing but ``app.web.main`` imports a route; the
engine imports neither the store nor the web layer, the store not the web layer.

Read with ``ast`` from the files (nothing imported), so it holds for every import a module
makes, whichever path runs it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"


def module_of(path: Path) -> str:
    parts = list(path.relative_to(APP.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_of(path): path for path in APP.rglob("*.py")}


def known(name: str) -> str | None:
    """The module of ``app`` that ``name`` is or lies in (a name imported from it)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported(module: str) -> Iterator[str]:
    """Every module of ``app`` that ``module`` imports, anywhere in its file."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for name in names:
            found = known(name)
            # A package's __init__ handing on its own modules' names is no arrow back.
            if found and found != module and not (MODULES[found].name == "__init__.py" and module.startswith(found + ".")):
                yield found


GRAPH = {module: set(imported(module)) for module in MODULES}


def circle_through(start: str) -> list[str] | None:
    """A path of imports from ``start`` back to itself, if there is one."""
    seen: set[str] = set()
    path: list[str] = []

    def walk(module: str) -> bool:
        for target in sorted(GRAPH[module]):
            if target == start:
                path.append(target)
                return True
            if target not in seen:
                seen.add(target)
                path.append(target)
                if walk(target):
                    return True
                path.pop()
        return False

    return [start, *path] if walk(start) else None


def test_the_reading_finds_imports_inside_functions() -> None:
    # The daily's route imports the calendar inside its function only: the reading sees it.
    tree = ast.parse(MODULES["app.web.routes.daily"].read_text(encoding="utf-8"))
    top = {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
    assert "app.web.presentation.daily.calendar" not in top
    assert "app.web.presentation.daily.calendar" in GRAPH["app.web.routes.daily"]


def test_no_import_circle_in_app() -> None:
    circles = [found for module in sorted(MODULES) if (found := circle_through(module)) is not None]
    assert circles == [], "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_a_route_is_imported_by_the_app_alone() -> None:
    routes = {module for module in MODULES if module.startswith("app.web.routes.")}
    assert {"app.web.routes.moves", "app.web.routes.daily"} <= routes
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        for target in targets & routes
        if module != "app.web.main"
    )
    assert wrong == []


def test_the_lower_layers_never_import_the_upper() -> None:
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if (module.startswith("app.engine") and target.startswith(("app.store", "app.web")))
        or (module.startswith("app.store") and target.startswith("app.web"))
        or (module.startswith("app.web.presentation") and target.startswith("app.web.routes"))
    )
    assert wrong == []
