"""Which files the package holds: its packages and data files (the rest is in pyproject.toml).

The checkout keeps the pages' templates and static files at its top (``templates/``,
``static/``), where a checkout serves them from; a built wheel carries them inside the
package, as ``app/templates`` and ``app/static``, so an installed (not editable) package
serves its pages with no copy beside it (app/web/presentation/render.py looks in both places).
tests/deploy/test_wheel.py builds a wheel, installs it and serves pages and static files.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup

ASSETS = {"app.templates": "templates", "app.static": "static"}


def asset_packages() -> dict[str, str]:
    """Each asset folder and its subfolders (``static/vendor``) as a package of data files."""
    found = {}
    for package, folder in ASSETS.items():
        for path in [Path(folder), *sorted(p for p in Path(folder).rglob("*") if p.is_dir())]:
            if path.name != "__pycache__":
                found[".".join([package, *path.relative_to(folder).parts])] = path.as_posix()
    return found


assets = asset_packages()
setup(
    packages=[*find_namespace_packages(include=["app", "app.*"]), *assets],
    package_dir=assets,
    package_data={"": ["*.sql", "*.po", "*.mo"], **{package: ["*"] for package in assets}},
)
