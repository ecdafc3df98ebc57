"""Imports inside imported modules: relative ones climb from the module's own package.

A kernel imports ``cfg.model``, which says ``from .dims import TRIP``: Python reads
``cfg/dims.py``, not a ``dims.py`` next to the kernel. Every resolver call still names
the kernel's file (so records of reads mean the same everywhere); the request is
rewritten to what the kernel itself would have to ask for.

A batch run's kernels share what an imported module folds to, only where every module
behind it reads the same for each of them, and each kernel's record of reads holds them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skewlsp.analysis import analyze
from skewlsp.analysis.frontend.imports import (
    SharedModules,
    as_seen_from_the_kernel,
    imported_lookup,
)
from skewlsp.analysis.frontend.source_index import imported_module_index
from skewlsp.analysis.frontend.values import Const
from skewlsp.common.resolver import RecordingResolver
from tests.kernels import IMPORTED

KERNEL = IMPORTED  # `for i in pl.pipeline(0, TRIP, ...)`, TRIP from consts
HELPER = '''\
import pypto.language as pl
from .dims import TRIP


@pl.jit.inline
def stream(q, out):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.pipeline(0, TRIP, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa, split=0)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, 0], out)
'''
HELPER_CALLER = '''\
import pypto.language as pl
from cfg.helpers import stream


@pl.jit
def main(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    stream(q, out)  # its pl.pipeline loop is spliced here
    return out
'''


@pytest.mark.parametrize(
    ("origin", "module", "level", "expected"),
    [
        (None, "dims", 1, ("dims", 1)),  # written in the kernel itself: unchanged
        (("cfg.model", 0, False), "dims", 0, ("dims", 0)),  # absolute: the same anywhere
        (("cfg.model", 0, False), "dims", 1, ("cfg.dims", 0)),
        (("cfg.model", 0, False), "", 1, ("cfg", 0)),  # `from . import x`: the package
        (("a.b.c", 0, False), "x.y", 2, ("a.x.y", 0)),
        (("cfg.model", 1, False), "dims", 1, ("cfg.dims", 1)),  # reached as `.cfg.model`
        (("model", 1, False), "dims", 2, ("dims", 2)),  # above the kernel's own directory
        (("cfg.model", 0, False), "dims", 3, None),  # beyond the top package: refused
        (("model", 0, False), "dims", 1, None),  # a top-level module has no package
        (("cfg", 0, True), "dims", 1, ("cfg.dims", 0)),  # cfg/__init__.py: climbs from cfg
        (("pkg.sub", 0, True), "c", 1, ("pkg.sub.c", 0)),
        (("pkg.sub", 0, True), "c", 2, ("pkg.c", 0)),
    ],
)
def test_a_nested_import_as_the_kernel_would_ask_for_it(origin, module, level, expected) -> None:
    assert as_seen_from_the_kernel(origin, module, level) == expected


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """kernels/ with a cfg package whose model module re-exports a relative import, and a
    decoy dims.py next to the kernel that an import resolved from the wrong place finds."""
    files = {
        "kernels/kernel.py": KERNEL.replace("from consts import TRIP", "from cfg.model import TRIP"),
        "kernels/caller.py": HELPER_CALLER,
        "kernels/cfg/__init__.py": "",
        "kernels/cfg/model.py": "from .dims import TRIP\n",
        "kernels/cfg/dims.py": "TRIP = 1\n",
        "kernels/cfg/helpers.py": HELPER,
        "kernels/dims.py": "TRIP = 8\n",  # the decoy
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path / "kernels"


def test_a_relative_import_in_an_imported_module_reads_its_sibling(tree: Path) -> None:
    path = tree / "kernel.py"
    [report] = analyze(path.read_text(), str(path), resolver=RecordingResolver(()))
    assert (report.verdict, report.code, report.trip) == ("demoted", "SKW023", 1)


def test_a_package_s_relative_import_climbs_from_the_package_itself(tree: Path) -> None:
    # `from cfg import TRIP` reads cfg/__init__.py, whose `from .dims import TRIP` is
    # cfg/dims.py (TRIP = 1), not the decoy dims.py next to the kernel (TRIP = 8).
    (tree / "cfg" / "__init__.py").write_text("from .dims import TRIP\n")
    path = tree / "package.py"
    path.write_text(KERNEL.replace("from consts import TRIP", "from cfg import TRIP"))
    [report] = analyze(path.read_text(), str(path), resolver=RecordingResolver(()))
    assert (report.verdict, report.code, report.trip) == ("demoted", "SKW023", 1)


def test_an_imported_inline_helper_reads_its_own_relative_imports(tree: Path) -> None:
    path = tree / "caller.py"
    [report] = analyze(path.read_text(), str(path), resolver=RecordingResolver(()))
    assert (report.verdict, report.code, report.trip) == ("demoted", "SKW023", 1)
    assert "cfg.helpers" in report.message


def _package(folder: Path, trip: int) -> tuple[Path, Path]:
    """Two kernels importing ``cfg``, whose ``from dims import TRIP`` reads the dims.py next
    to the kernel, which reads base.py (``TRIP = trip``): ``cfg.py`` and ``dims.py`` have
    the same text in every package."""
    folder.mkdir(parents=True)
    kernel = KERNEL.replace("from consts import TRIP", "from cfg import TRIP")
    (folder / "cfg.py").write_text("from dims import TRIP\n")
    (folder / "dims.py").write_text("from base import TRIP\n")
    (folder / "base.py").write_text(f"TRIP = {trip}\n")
    for name in ("a.py", "b.py"):
        (folder / name).write_text(kernel)
    return folder / "a.py", folder / "b.py"


def _trip_as_imported(kernel: Path, shared: SharedModules | None = None) -> object:
    index = imported_module_index(kernel.read_text())
    return imported_lookup(index, str(kernel), RecordingResolver(()), shared=shared)("TRIP")


def test_kernels_of_one_package_share_what_its_config_module_folds_to(tmp_path: Path) -> None:
    a, b = _package(tmp_path / "pkg", trip=1)
    batch = SharedModules()
    first, second = _trip_as_imported(a, batch), _trip_as_imported(b, batch)
    alone = _trip_as_imported(b)
    assert first == second == alone == Const(1)
    assert first is second  # folded once, for both
    assert alone is not first  # outside a batch, every analysis folds its own


def test_a_shared_config_module_serves_only_kernels_whose_imports_read_the_same(
    tmp_path: Path,
) -> None:
    # Same cfg.py and dims.py, another base.py behind them: the second package folds its own.
    one, _ = _package(tmp_path / "one", trip=1)
    eight, _ = _package(tmp_path / "eight", trip=8)
    batch = SharedModules()
    reports = [
        analyze(path.read_text(), str(path), resolver=RecordingResolver(()), shared_modules=batch)
        for path in (one, eight, one)
    ]
    assert [report.trip for [report] in reports] == [1, 8, 1]


def test_a_kernel_served_a_shared_config_module_records_every_module_behind_it(
    tmp_path: Path,
) -> None:
    # What a cache entry depends on: the modules read for the first kernel (dims.py
    # through cfg.py, and base.py through dims.py) are reads of the second one's too.
    a, b = _package(tmp_path / "pkg", trip=1)
    batch = SharedModules()
    analyze(a.read_text(), str(a), resolver=RecordingResolver(()), shared_modules=batch)
    resolver = RecordingResolver(())
    [report] = analyze(b.read_text(), str(b), resolver=resolver, shared_modules=batch)
    assert report.trip == 1
    assert [(module, level) for module, level, _ in resolver.fingerprint] == [
        ("base", 0),
        ("cfg", 0),
        ("dims", 0),
    ]


def test_a_module_one_kernel_could_not_read_is_read_again_for_the_next(tmp_path: Path) -> None:
    a, b = _package(tmp_path / "pkg", trip=1)
    disk = RecordingResolver(())

    def unreadable_base(module: str, level: int, path: str | None) -> str | None:
        if module == "base":
            raise OSError(13, "Permission denied")
        return disk(module, level, path)

    batch = SharedModules()
    index = imported_module_index(a.read_text())
    first = imported_lookup(index, str(a), unreadable_base, shared=batch)
    blocked = first("TRIP")
    second = _trip_as_imported(b, batch)
    assert blocked != Const(1)
    assert second == Const(1)
