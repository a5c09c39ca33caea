"""The namespace install lists every sub-package: a folder with ``__init__.py`` missing from
``[tool.setuptools] packages`` would work in an editable install and be absent from a wheel."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _declared() -> tuple[set, dict]:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(cfg["packages"]), cfg["package-dir"]


def _on_disk(package_dir: dict) -> set:
    found = set()
    for name, folder in {"mixbounds": "mixbounds", **package_dir}.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    return found


def test_every_subpackage_is_installed():
    declared, package_dir = _declared()
    assert _on_disk(package_dir) == declared


def test_a_missing_subpackage_is_noticed():
    """Negative control: dropping one declared sub-package makes the comparison fail."""
    declared, package_dir = _declared()
    assert _on_disk(package_dir) != declared - {"mixbounds.checks.lemmas"}
