"""The runtime dependencies are ranges, and CI's lowest-version run tests their floors.

``pyproject.toml`` declares compatible ranges (users install skewlsp next to whatever
else their pypto environment holds); ``.ci/lowest.txt`` pins each range's floor for
the CI run at the lowest supported versions. If the two drift apart, that run tests
versions nobody declared.
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def declared() -> list[Requirement]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)["project"]
    return [Requirement(text) for text in project["dependencies"]]


def lowest() -> dict[str, Requirement]:
    lines = (ROOT / ".ci" / "lowest.txt").read_text(encoding="utf-8").splitlines()
    pins = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    return {pin.name: pin for pin in pins}


def test_every_runtime_dependency_is_a_range_with_a_floor() -> None:
    requirements = declared()
    assert {r.name for r in requirements} == {
        "libcst", "pygls", "lsprotocol", "cattrs", "pathspec", "tomli"
    }
    for requirement in requirements:
        operators = sorted(spec.operator for spec in requirement.specifier)
        assert "==" not in operators and "===" not in operators, requirement
        assert ">=" in operators, f"{requirement} has no floor"


def test_the_lowest_versions_ci_installs_are_the_declared_floors() -> None:
    pins = lowest()
    requirements = declared()
    assert set(pins) == {r.name for r in requirements}
    for requirement in requirements:
        [floor] = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        [pin] = list(pins[requirement.name].specifier)
        assert (pin.operator, pin.version) == ("==", floor), requirement.name
        assert pins[requirement.name].marker == requirement.marker, requirement.name
        assert requirement.specifier.contains(floor), requirement
