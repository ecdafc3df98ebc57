"""benchmarks/compiler_probe.py's loading of a kernel file, the part that needs no pypto: a
kernel imports its test harness and its runtime as the outside world, and reads its own
command line when it loads."""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.compiler_probe import as_its_own, load

KERNEL = """\
import sys
from pathlib import Path

from golden import TensorSpec, run_jit
from simpler_setup.pto_isa import ensure_pto_isa_root

INCLUDE = Path(ensure_pto_isa_root(verbose=True)) / "include"
SPEC = TensorSpec("x", [16, 128], "bf16")
ARGV = list(sys.argv)
"""


def write_kernel(tmp_path: Path, text: str = KERNEL) -> Path:
    path = tmp_path / "kernel_with_harness.py"
    path.write_text(text)
    return path


def test_a_kernel_importing_golden_and_simpler_setup_loads_with_stand_ins(tmp_path):
    path = write_kernel(tmp_path)
    with as_its_own(path):
        namespace = load(path)
    assert namespace["INCLUDE"].is_dir()
    assert callable(namespace["run_jit"])


def test_the_kernel_reads_its_own_command_line_not_the_probes(tmp_path):
    path = write_kernel(tmp_path)
    with as_its_own(path):
        namespace = load(path)
    assert namespace["ARGV"] == [str(path)]


def test_the_stand_ins_and_the_command_line_are_gone_after_the_file(tmp_path):
    path = write_kernel(tmp_path)
    argv = list(sys.argv)
    with as_its_own(path):
        load(path)
    assert "golden" not in sys.modules
    assert sys.argv == argv
    assert not any(type(f).__name__ == "StandIns" for f in sys.meta_path)


def test_a_stand_in_has_no_dunder_names_an_inspector_would_trust(tmp_path):
    path = write_kernel(tmp_path, "import golden\nHAS_FILE = hasattr(golden, '__wrapped__')\n")
    with as_its_own(path):
        namespace = load(path)
    assert namespace["HAS_FILE"] is False
