"""What module-level Python reads of the assumed environment and command line.

The analysis never reads the real process: a config module's ``os.environ`` and
``sys.argv`` are those of the build the caller assumes (empty by default), and every
read is recorded with the value it gave, charged to whatever value it went into (a
value read again later, from a module's memo, charges its reader too).
"""

from __future__ import annotations

import pytest

from skewlsp.analysis.frontend.assumed import AssumedRead, Build
from skewlsp.analysis.frontend.constants import Const, ModuleConstants, Opaque, Text
from skewlsp.analysis.frontend.source_index import build_index
from skewlsp.contract import ARGV, ARGV_UNKNOWN, Assumptions
from tests.analysis.frontend.test_loadtime import CONFIG

ARGV_READ = AssumedRead(ARGV, (), False, ())


def constants(build: Build) -> ModuleConstants:
    index = build_index(CONFIG)
    return ModuleConstants(
        index.constant_sources,
        classes=index.class_sources,
        functions=index.function_sources,
        build=build,
        text=CONFIG,
    )


def reads_of(build: Build, values: ModuleConstants, name: str) -> frozenset[AssumedRead]:
    depth = build.open()
    values(name)
    return build.close(depth)


def test_a_variable_the_build_sets_is_read_as_its_value() -> None:
    values = constants(Build(Assumptions.of({"MODEL_VARIANT": " Small"})))
    assert values.fold_text("_variant()") == Text("small")
    assert values("BLOCKS") == Const(4)  # 64 // 16


def test_the_real_environment_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_VARIANT", "small")
    monkeypatch.setenv("HEADS", "64")
    values = constants(Build())
    assert values("BLOCKS") == Const(8)  # the default, large: 128 // 16
    assert isinstance(values("RAW"), Opaque)  # os.environ["HEADS"]: unset in the build


def test_the_command_line_the_build_assumes_is_what_a_config_parses() -> None:
    values = constants(Build(Assumptions.of({}, ["--fast", "small"])))
    assert values.fold_text("len(sys.argv)") == Const(3)
    assert values.fold_text("sys.argv[2]") == Text("small")
    assert values.fold_text("_variant()") == Text("small")  # the while loop takes the last
    assert isinstance(values.fold_text("sys.argv[0]"), Opaque)  # the program's path


def test_a_read_records_the_value_it_gave_and_the_other_values_the_module_declares() -> None:
    build = Build()
    read = reads_of(build, constants(build), "BLOCKS")
    # TUNED[_variant()]: the keys of TUNED are the variants the module declares; the
    # default "Large " is "large" once _variant() strips and lowers it.
    assert read == {AssumedRead("MODEL_VARIANT", "Large ", False, ("small",)), ARGV_READ}


def test_a_variable_the_build_sets_records_that_it_is_set() -> None:
    build = Build(Assumptions.of({"MODEL_VARIANT": "small"}))
    read = reads_of(build, constants(build), "ACTIVE")
    assert AssumedRead("MODEL_VARIANT", "small", True, ("large",)) in read


def test_a_value_read_again_from_the_module_s_memo_charges_its_new_reader() -> None:
    build = Build()
    values = constants(build)
    first = reads_of(build, values, "ACTIVE")
    again = reads_of(build, values, "ACTIVE")  # memoised: no read of the environment now
    through = reads_of(build, values, "BLOCKS")  # ACTIVE.blocks, from the memo
    assert first == again == through != frozenset()


def test_a_value_that_reads_nothing_of_the_build_charges_nothing() -> None:
    build = Build()
    assert reads_of(build, constants(build), "VARIANT_WIDTHS") == frozenset()


def test_a_frame_closed_by_a_failure_still_charges_the_frame_around_it() -> None:
    build = Build()
    outer = build.open()
    build.open()
    build.note([ARGV_READ])
    build.open()  # left open by an exception
    assert build.close(outer) == {ARGV_READ}


# pypto-lib's ``--tp`` readers: a function of the option's name, a ``for`` over the whole
# command line (the program's path included), ``or`` the default when it is absent.
TP_READER = '''\
import sys


def _parse_int_argv(name, default=None):
    for i, tok in enumerate(sys.argv):
        if tok == name and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if tok.startswith(f"{name}="):
            return int(tok.split("=", 1)[1])
    return default


TP_SIZE: int = _parse_int_argv("--tp") or 2
DP_SIZE: int = _parse_int_argv("--dp", 1)
ROWS = TP_SIZE * 16
BROKEN = _parse_int_argv("--bad")
'''


def tp_constants(build: Build) -> ModuleConstants:
    index = build_index(TP_READER)
    return ModuleConstants(
        index.constant_sources,
        functions=index.function_sources,
        build=build,
        text=TP_READER,
        own=True,  # the module analysed: its options are build variables
    )


def test_an_argument_parser_looping_over_the_command_line_gives_its_default_without_one() -> None:
    build = Build()
    values = tp_constants(build)
    assert (values("TP_SIZE"), values("DP_SIZE"), values("ROWS")) == (Const(2), Const(1), Const(32))
    # The command line read (with no value declared for `--tp`, the module is decided with
    # it not known too), and the option the name holds.
    argv_read = AssumedRead(ARGV, (), False, (ARGV_UNKNOWN,), TP_READER)
    tp_read = AssumedRead("--tp", "2", False, (), TP_READER)
    assert reads_of(build, tp_constants(build), "ROWS") == {argv_read, tp_read}


def test_a_module_only_imported_reads_the_command_line_but_no_option_of_it() -> None:
    # Its options are the program's it is when run (``driver.variants``): an importer is
    # another program, so they are not looked for there.
    build = Build()
    index = build_index(TP_READER)
    imported = ModuleConstants(
        index.constant_sources, functions=index.function_sources, build=build, text=TP_READER
    )
    assert reads_of(build, imported, "ROWS") == {ARGV_READ}


def test_an_argument_parser_looping_over_the_command_line_reads_the_assumed_arguments() -> None:
    spaced = tp_constants(Build(Assumptions.of({}, ["--dp", "4", "--tp", "8"])))
    assert (spaced("TP_SIZE"), spaced("DP_SIZE"), spaced("ROWS")) == (Const(8), Const(4), Const(128))
    joined = tp_constants(Build(Assumptions.of({}, ["--tp=16"])))
    assert (joined("TP_SIZE"), joined("DP_SIZE")) == (Const(16), Const(1))


def test_an_argument_parser_s_value_python_could_not_convert_stays_unknown() -> None:
    values = tp_constants(Build(Assumptions.of({}, ["--bad", "x", "--tp", "many"])))
    assert isinstance(values("BROKEN"), Opaque)  # int("x") raises when the module loads
    assert isinstance(values("TP_SIZE"), Opaque)


# The same reader written with its branches on the header lines (`if ...: return ...`)
# and a one-line `while`: each line is run as Python runs it, not skipped.
TERSE_READER = """\
import sys


def _parse_int_argv(name, default=None):
    i = 0
    while i < 0: i += 1
    for i, tok in enumerate(sys.argv):
        if tok == name and i + 1 < len(sys.argv): return int(sys.argv[i + 1])
        if tok.startswith(f"{name}="): return int(tok.split("=", 1)[1])
    return default


TP_SIZE: int = _parse_int_argv("--tp") or 2
"""


def test_an_argument_parser_whose_branches_sit_on_their_header_lines_reads_the_arguments() -> None:
    index = build_index(TERSE_READER)
    values = ModuleConstants(
        index.constant_sources,
        functions=index.function_sources,
        build=Build(Assumptions.of({}, ["--tp", "8"])),
        text=TERSE_READER,
        own=True,
    )
    assert values("TP_SIZE") == Const(8)
