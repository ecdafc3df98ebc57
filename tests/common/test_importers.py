"""The project's files that may import a module: where an inline helper's callers are."""

from __future__ import annotations

from pathlib import Path

from skewlsp.common.importers import ProjectImporters


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_candidate_names_the_module_and_imports_something(tmp_path: Path):
    helpers = write(tmp_path, "helpers.py", "def attend(): ...\n")
    caller = write(tmp_path, "decode.py", "from helpers import attend\n")
    other = write(tmp_path, "other.py", "import math\n")
    mention = write(tmp_path, "mention.py", "# helpers, named in a comment only\n")
    importers = ProjectImporters([helpers, caller, other, mention])
    assert importers(helpers) == [(caller, "from helpers import attend\n")]


def test_a_package_module_is_known_by_its_folder_name(tmp_path: Path):
    package = tmp_path / "kernels"
    package.mkdir()
    init = write(package, "__init__.py", "def attend(): ...\n")
    caller = write(tmp_path, "run.py", "from kernels import attend\n")
    assert ProjectImporters([init, caller])(init) == [(caller, "from kernels import attend\n")]


def test_the_reader_given_supplies_the_text_instead_of_the_disk(tmp_path: Path):
    helpers = write(tmp_path, "helpers.py", "def attend(): ...\n")
    caller = write(tmp_path, "decode.py", "x = 1\n")  # on disk: no import yet
    unsaved = {caller: "from helpers import attend\n"}

    def read(path: str) -> str | None:
        return unsaved.get(path)

    assert ProjectImporters([helpers, caller])(helpers) == []
    assert ProjectImporters([helpers, caller], read=read)(helpers) == [
        (caller, "from helpers import attend\n")
    ]


def test_the_digest_follows_the_callers_text(tmp_path: Path):
    helpers = write(tmp_path, "helpers.py", "def attend(): ...\n")
    caller = write(tmp_path, "decode.py", "from helpers import attend\nattend(8)\n")
    before = ProjectImporters([helpers, caller]).digest(helpers)
    write(tmp_path, "decode.py", "from helpers import attend\nattend(1)\n")
    assert ProjectImporters([helpers, caller]).digest(helpers) != before
