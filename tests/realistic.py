"""The realistic kernel tree (tests/fixtures/realistic) and the verdict of each of its loops.

Each expectation is derived from the pass's rules (shared/spec/SKEW_RULES.md), not from
skewlsp's output; the reason is written next to it. Every kernel of the tree compiles with
the upstream compiler (e2d0f78ae, built locally), and its verdicts agree loop by loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "fixtures" / "realistic"
MODELS = ROOT / "models" / "tiny_llm"
PIPELINE_FOR = re.compile(r"^\s*for\b.*\bin\s+pl\.pipeline\(")


@dataclass(frozen=True)
class Expected:
    file: str
    line: int
    code: str
    depth: int | None
    trip: int | None
    cores: tuple[tuple[str, str, int | None], ...] = ()
    hints: tuple[str, ...] = ()  # findings reported next to the loop's own code


EXPECTED = [
    # QK -> softmax -> PV over SEQ_BLOCKS = 4096 // 1024 = 4 (config -> tiling -> attention):
    # the cube pushes QK first and pops the probabilities (producer, depth 2 at trip 4);
    # the vector pops the scores first and they feed the softmax (consumer role).
    Expected("attention.py", 23, "SKW001", 2, 4, (("aic", "SKW001", 2), ("aiv", "SKW020", None))),
    # Same shape over HEAD_TILES = 16 // 8 = 2: trip 2 < 2 x 2, the cube falls back to depth 1.
    Expected("attention.py", 47, "SKW002", 1, 2, (("aic", "SKW002", 1), ("aiv", "SKW020", None))),
    # Builder local rows = batch * 2 with batch's default DECODE_BATCH = 4: trip 8, depth 2.
    Expected("decode.py", 21, "SKW001", 2, 8),
    # odd_rows = 7: 7 % 2 != 0, so depth 1.
    Expected("decode.py", 27, "SKW002", 1, 7),
    # Pops first and the popped tile feeds the body: consumer role.
    Expected("decode.py", 36, "SKW020", None, 8),
    # Two tpush and two tpop per iteration.
    Expected("decode.py", 45, "SKW021", None, 8),
    # Under pl.unroll(2): the first copy runs 0..4 (each copy has trip 4).
    Expected("decode.py", 57, "SKW001", 2, 4),
    # Outer loop: cross-core only through its inner loop's depth-1 prologue/epilogue. The
    # inner steady loop's tpush is nested (not counted) and lands in the consumer half: after
    # the skew it follows the next 2 produces, so the FIFO to AIV is reordered (SKW060).
    Expected("decode.py", 64, "SKW001", 2, 4, hints=("SKW060",)),
    # Inner loop: trip 3, depth 1.
    Expected("decode.py", 65, "SKW002", 1, 3),
    # Stop from pl.dynamic("DECODE_ROWS"): a symbolic dimension, demoted.
    Expected("decode.py", 74, "SKW022", None, None),
    # stage=1 on a cross-core loop, trip ROWS_PER_BLOCK = 128 // 16 = 8.
    Expected("decode.py", 80, "SKW024", None, 8),
    # No message at all: left for LowerPipelineLoops.
    Expected("decode.py", 86, "SKW010", None, 8),
    # RMSNorm: vector ops only, nothing crosses; trip 1024 // 256 = 4.
    Expected("norm.py", 14, "SKW010", None, 4, (("aiv", "SKW010", None),)),
]

REWRITTEN = {"SKW001", "SKW002", "SKW020", "SKW021", "SKW022", "SKW024"}


def pipeline_lines() -> list[tuple[str, int]]:
    """Every ``for ... in pl.pipeline(`` line of the tree, found by text (not by skewlsp)."""
    found = []
    for path in sorted(MODELS.glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if PIPELINE_FOR.match(line):
                found.append((path.name, number))
    return found
