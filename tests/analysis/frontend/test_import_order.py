"""Module attributes a program sets while it loads, seen by the imports that run after.

A prefill driver writes ``config.TOKENS = config.PREFILL_TOKENS`` and then imports the
kernels, which freeze ``from config import TOKENS`` when Python first runs them: they
see the prefill size. A module imported before the write keeps the size it froze, a
module may import back an attribute it set itself (``config.RECV_ROWS``, which config
never defines), and a program that writes nothing reads each module's own values.
"""

from __future__ import annotations

from pathlib import Path

from skewlsp.analysis import analyze
from skewlsp.analysis.frontend.import_order import (
    attributes_set,
    import_order,
    reads_what_is_set,
)
from skewlsp.analysis.frontend.source_index import build_index
from skewlsp.common.resolver import RecordingResolver
from tests.kernels import PRODUCER, kernel

CONFIG = "DECODE_TOKENS = 4\nPREFILL_TOKENS = 6\nTOKENS = DECODE_TOKENS\n"
# A sub-kernel module: its loop's trip is config.TOKENS as it stands at its first import.
ROWS = kernel(PRODUCER, "pl.pipeline(0, TOKENS, 1, stage=2)", prelude="from config import TOKENS")


HELPER = """\
import pypto.language as pl
from config import TOKENS


@pl.jit.inline
def stream(q, out):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.pipeline(0, TOKENS, 1, stage=2):
            qa: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(q, [i * 16, 0], [16, 64])
            pl.tile.tpush_to_aiv(qa, split=0)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aiv(split=0)
            pl.tile.store(e, [i * 16, 0], out)
"""
WRITE = "import config\nconfig.TOKENS = config.PREFILL_TOKENS\n"
IMPORT_HELPER = "from rows import stream\n"
DRIVER = """\
import pypto.language as pl
{first}{then}

@pl.jit
def main(q: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
    stream(q, out)  # its pl.pipeline loop is spliced here
    return out
"""


def project(tmp_path: Path, kernel_text: str, **modules: str) -> tuple[str, str, RecordingResolver]:
    """The kernel (its text and path) beside ``config.py``, ``rows.py`` and ``modules``."""
    for name, text in {"config": CONFIG, "rows": ROWS, **modules}.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    path = tmp_path / "driver.py"
    path.write_text(kernel_text, encoding="utf-8")
    return kernel_text, str(path), RecordingResolver([tmp_path])


def trips(text: str, path: str, resolver: RecordingResolver) -> list[int | None]:
    return [report.trip for report in analyze(text, path, resolver=resolver)]


def test_a_name_imported_after_the_program_sets_it_has_the_value_set(tmp_path: Path) -> None:
    driver = kernel(
        PRODUCER,
        "pl.pipeline(0, TOKENS, 1, stage=2)",
        prelude="import config\nconfig.TOKENS = config.PREFILL_TOKENS\nfrom config import TOKENS",
    )
    assert trips(*project(tmp_path, driver)) == [6]


def test_a_name_imported_before_the_program_sets_it_keeps_the_module_s_own(
    tmp_path: Path,
) -> None:
    driver = kernel(
        PRODUCER,
        "pl.pipeline(0, TOKENS, 1, stage=2)",
        prelude="from config import TOKENS\nimport config\nconfig.TOKENS = config.PREFILL_TOKENS",
    )
    assert trips(*project(tmp_path, driver)) == [4]


def test_a_helper_module_first_imported_after_the_write_freezes_the_written_value(
    tmp_path: Path,
) -> None:
    # rows.py's inline helper is spliced into the driver: its loop's trip is TOKENS as
    # rows.py froze it at its first import, after the driver's write or before it.
    after = DRIVER.format(first=WRITE, then=IMPORT_HELPER)
    assert trips(*project(tmp_path, after, rows=HELPER)) == [6]
    before = DRIVER.format(first=IMPORT_HELPER, then=WRITE)
    assert trips(*project(tmp_path, before, rows=HELPER)) == [4]


def test_a_module_imports_back_an_attribute_it_set_while_loading(tmp_path: Path) -> None:
    # route.py sets config.RECV_ROWS (config has none) from config.TOKENS, which the
    # driver set first; the driver imports it from route.
    route = "import config\nEP = 2\nconfig.RECV_ROWS = EP * config.TOKENS\nfrom config import RECV_ROWS\n"
    driver = kernel(
        PRODUCER,
        "pl.pipeline(0, RECV_ROWS, 1, stage=2)",
        prelude=(
            "import config\nconfig.TOKENS = config.PREFILL_TOKENS\nfrom route import RECV_ROWS"
        ),
    )
    assert trips(*project(tmp_path, driver, route=route)) == [12]


def test_the_order_lists_each_write_once_with_the_writes_before_it(tmp_path: Path) -> None:
    route = "import config\nconfig.RECV_ROWS = 2 * config.TOKENS\nfrom config import RECV_ROWS\n"
    driver = "import config\nconfig.TOKENS = 6\nfrom route import RECV_ROWS\nfrom config import TOKENS\n"
    text, path, resolver = project(tmp_path, driver, route=route)
    order = import_order(build_index(text), path, resolver)
    assert [(w.target, w.attr, w.writer, w.line, w.made) for w in order.writes] == [
        (("config", 0), "TOKENS", None, 2, 0),
        (("config", 0), "RECV_ROWS", ("route", 0), 2, 1),
    ]
    # route's own import (its line 3) runs after both writes; the driver's `from route`
    # (line 3) binds after route ran; its `from config` (line 4) too.
    assert (order.at_import(("route", 0), 3), order.at_import(None, 3)) == (2, 2)
    assert order.written(("config", 0), "TOKENS", 0) is None


def test_a_program_that_writes_nothing_reads_no_module_it_did_not_read_before(
    tmp_path: Path,
) -> None:
    # `import os` binds no value the analysis folds: it is not asked for.
    driver = kernel(
        PRODUCER,
        "pl.pipeline(0, TOKENS, 1, stage=2)",
        prelude="import os\nimport config\nfrom config import TOKENS",
    )
    text, path, resolver = project(tmp_path, driver)
    assert trips(text, path, resolver) == [4]
    assert import_order(build_index(text), path, resolver).writes == ()
    assert [module for module, _level, _digest in resolver.fingerprint] == ["config"]


RECORD_CONFIG = """\
from dataclasses import dataclass


@dataclass(frozen=True)
class Model:
    experts: int
    hidden: int


ACTIVE = Model(experts=64, hidden=256)
"""


def test_a_record_a_module_rewrites_in_terms_of_itself_reads_its_old_fields(
    tmp_path: Path,
) -> None:
    # pypto-lib's moe.py (pull/948): config.PRO_KERNEL = dataclasses.replace(
    # config.PRO_KERNEL, n_routed_experts=config.PRO_KERNEL.n_routed_experts // 8 * EP).
    # Python evaluates the argument when replace runs: 64 // 8 * 2 = 16 experts.
    moe = (
        "import dataclasses\nimport config\nEP = 2\n"
        "config.ACTIVE = dataclasses.replace(\n"
        "    config.ACTIVE, experts=config.ACTIVE.experts // 8 * EP\n)\n"
        "from config import ACTIVE\nEXPERTS = ACTIVE.experts\n"
    )
    driver = kernel(
        PRODUCER, "pl.pipeline(0, EXPERTS, 1, stage=2)", prelude="from moe import EXPERTS"
    )
    assert trips(*project(tmp_path, driver, config=RECORD_CONFIG, moe=moe)) == [16]


def test_a_file_sets_the_attributes_it_writes_on_the_modules_it_imports() -> None:
    driver = build_index(
        "import config\nimport config as cfg\nconfig.TOKENS = 48\ncfg.RECV = 2\nother.X = 1\n"
    )
    # (``other`` is no module the file imports: its write sets nothing a kernel reads)
    assert attributes_set(driver) == {(("config", 0), "TOKENS"), (("config", 0), "RECV")}


HELPER_MODULE = """\
import config
from config import TOKENS as ROWS, WIDTH
BLOCK = ROWS * 2
def by_name(x):
    return x[0:BLOCK]
def off_the_module(x):
    return x[0:config.TOKENS]
def untouched(x):
    return x[0:WIDTH]
"""


def test_a_function_reads_what_is_set_by_name_off_the_module_or_through_a_constant() -> None:
    helper = build_index(HELPER_MODULE)
    written = frozenset({(("config", 0), "TOKENS")})
    read = {
        name: reads_what_is_set(helper, ("helpers", 0, False), text, written)
        for name, text in helper.function_sources.items()
    }
    assert read == {"by_name": True, "off_the_module": True, "untouched": False}
    # a write of another module's attribute is not what the helper reads
    other = frozenset({(("settings", 0), "TOKENS")})
    assert not reads_what_is_set(helper, ("helpers", 0, False), "ROWS + config.TOKENS", other)
