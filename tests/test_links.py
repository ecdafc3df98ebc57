"""No invented address: every URL skewlsp ships, prints or packages names a known public place.

skewlsp has no website, no public repository and no package on PyPI. Every URL in
the package's files, the docs, the extension's sources, what skewlint prints, the
built wheel and the packaged .vsix is checked against a short, explicit list of
public places (anything else fails, and ``github.com/skewlsp`` always does); a
``file:`` URI that skewlint prints must name a file that exists. No text may tell
the user to install skewlsp from the package index.

The wheel and the .vsix are built by the slow tier. The .vsix needs the
extension's tools (``npm ci`` in editors/vscode): without them the test is
skipped, unless ``SKEWLSP_REQUIRE_VSIX=1`` (CI's ``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.vsix import package_vsix

ROOT = Path(__file__).resolve().parents[1]
VSCODE = ROOT / "editors" / "vscode"

# host -> the path prefixes that may follow it. Keep it short: each entry is a public
# place someone checked exists.
ALLOWED: dict[str, tuple[str, ...]] = {
    "github.com": ("/hw-native-sys/",),  # pypto, the compiler whose pass skewlsp predicts
    "code.visualstudio.com": ("/",),
    "marketplace.visualstudio.com": ("/items?itemName=ms-python.python",),
    "json.schemastore.org": ("/sarif-2.1.0.json",),  # SARIF's `$schema`
    # The .vsix container's XML namespaces (written by vsce).
    "schemas.openxmlformats.org": ("/package/2006/",),
    "schemas.microsoft.com": ("/developer/vsx-schema",),
}
# RFC 2606 reserves `.example` for documentation: `https://team.example/...` in a
# setting's description is a placeholder that can never be mistaken for a real place.
EXAMPLE_TLD = ".example"

URL = re.compile(r"""[A-Za-z][A-Za-z0-9+.-]*://[^\s"'`<>()\[\]{}\\]*""")
# An install from the package index, where there is no skewlsp: `pip install skewlsp`,
# `pip install -U skewlsp==0.1`, `pipx install skewlsp`, `uv tool install skewlsp`.
INDEX_INSTALL = re.compile(
    r"""\binstall\s+(?:-\S+\s+)*skewlsp(?:\[[^\]]*\])?(?:[=<>~!]=\S*)?(?=[\s`'")]|$)""",
    re.MULTILINE,
)

TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".json", ".ts", ".js", ".yaml", ".yml", ".xml"}


def problems_in(text: str, where: str, *, local_files_must_exist: bool = False) -> list[str]:
    """Every URL in ``text`` that is not allowed, and every install from the index."""
    found = []
    for match in URL.finditer(text):
        url = match.group(0).rstrip(".,;:")
        problem = url_problem(url, local_files_must_exist)
        if problem is not None:
            found.append(f"{where}: {url}: {problem}")
    for match in INDEX_INSTALL.finditer(text):
        found.append(f"{where}: `{match.group(0)}`: skewlsp is not on the package index")
    return found


def url_problem(url: str, local_files_must_exist: bool) -> str | None:
    parsed = urlparse(url)
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            return "a file: URI on another host"
        if local_files_must_exist and not Path(unquote(parsed.path)).exists():
            return "no such file"
        return None
    if parsed.scheme not in ("http", "https"):
        return f"unexpected scheme {parsed.scheme!r}"
    host = (parsed.hostname or "").lower()
    rest = url[url.index(parsed.netloc) + len(parsed.netloc) :]
    if host == "github.com" and rest.lower().startswith("/skewlsp"):
        return "skewlsp has no public repository"
    if host.endswith(EXAMPLE_TLD):
        return None
    prefixes = ALLOWED.get(host)
    if prefixes is None:
        return f"host {host!r} is not a known public place (tests/test_links.py ALLOWED)"
    if not any(rest.startswith(prefix) for prefix in prefixes):
        return f"not under {', '.join(host + p for p in prefixes)}"
    return None


def shipped_sources() -> Iterator[Path]:
    """The package, the docs, the extension's sources and manifest, CI and packaging files."""
    for path in sorted((ROOT / "skewlsp").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path
    for pattern in ("*.md", "docs/*.md", "benchmarks/*.md", "tests/fuzz/*.md"):
        yield from sorted(ROOT.glob(pattern))
    yield from (ROOT / name for name in ("pyproject.toml", ".pre-commit-hooks.yaml", ".ci/run"))
    for pattern in ("*.md", "package.json", "LICENSE", "src/*.ts", "scripts/*.mjs"):
        yield from sorted(VSCODE.glob(pattern))


def check_files(paths: Iterable[Path]) -> list[str]:
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        found += problems_in(text, str(path.relative_to(ROOT)))
    return found


def test_the_checker_refuses_what_it_should() -> None:
    assert problems_in("see https://github.com/skewlsp/skewlsp/blob/main/docs/rules.md", "x")
    assert problems_in("https://pypi.org/project/skewlsp/", "x")
    assert problems_in("https://github.com/someone/else", "x")
    assert problems_in("run `pip install skewlsp` first", "x")
    assert problems_in("python -m pip install -U skewlsp==0.1.0\n", "x")
    assert problems_in("file:///no/such/file.md#x", "x", local_files_must_exist=True)
    assert not problems_in("pip install /path/to/skewlsp and pip install skewlsp-0.1.whl", "x")
    assert not problems_in("https://github.com/hw-native-sys/pypto/blob/main/x.cpp", "x")
    assert not problems_in("https://team.example/skewlint/{code}", "x")


def test_no_invented_address_in_the_package_docs_or_extension_sources() -> None:
    paths = list(shipped_sources())
    assert ROOT / "skewlsp" / "docs" / "rules.md" in paths
    assert VSCODE / "package.json" in paths and VSCODE / "src" / "missingServer.ts" in paths
    assert check_files(paths) == []


def skewlint(*args: str, cwd: Path, env: dict[str, str]) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "skewlsp.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode in (0, 1), run.stderr
    return run.stdout


def test_what_skewlint_prints_links_only_to_files_that_exist(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    outputs = {
        "explain --all": skewlint("explain", "--all", cwd=ROOT, env=env),
        "explain --all json": skewlint(
            "explain", "--all", "--output-format", "json", cwd=ROOT, env=env
        ),
    }
    for output_format in ("full", "json", "sarif", "gitlab", "junit", "github"):
        outputs[output_format] = skewlint(
            "--no-cache", "--output-format", output_format, "examples", cwd=ROOT, env=env
        )
    urls = {name: URL.findall(text) for name, text in outputs.items()}
    assert urls["explain --all"] and urls["json"], "the links are there, and checked"
    found = [
        problem
        for name, text in outputs.items()
        for problem in problems_in(text, name, local_files_must_exist=True)
    ]
    assert found == []
    assert "informationUri" not in outputs["sarif"] and "helpUri" not in outputs["sarif"]


@pytest.mark.slow
def test_the_built_wheel_ships_the_rules_page_and_no_invented_address(tmp_path: Path) -> None:
    had_build_directory = (ROOT / "build").exists()
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    if not had_build_directory:
        shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' work directory
    [wheel] = tmp_path.glob("skewlsp-*.whl")
    found = []
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert "skewlsp/docs/rules.md" in names
        for name in names:
            if Path(name).suffix in TEXT_SUFFIXES or name.endswith(("METADATA", "RECORD")):
                text = archive.read(name).decode("utf-8")
                found += problems_in(text, f"{wheel.name}:{name}")
    assert found == []


@pytest.mark.slow
def test_the_packaged_vsix_holds_no_invented_address(tmp_path: Path) -> None:
    vsix = package_vsix(tmp_path / "skewlsp.vsix")
    found = []
    with zipfile.ZipFile(vsix) as archive:
        names = archive.namelist()
        assert {"extension/package.json", "extension/readme.md", "extension/dist/extension.js"} <= set(
            names
        )
        for name in names:
            text = archive.read(name).decode("utf-8")
            found += problems_in(text, f"skewlsp.vsix:{name}")
        manifest = json.loads(archive.read("extension/package.json"))
    assert found == []
    assert not {"repository", "bugs", "homepage"} & set(manifest)
