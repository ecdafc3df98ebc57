"""A copy's label quotes only the bindings that explain its verdict."""

from __future__ import annotations

from skewlsp.api import analyse

HELPER_AND_CALLS = """\
import pypto.language as pl

HIDDEN = 64
TILE = 16


@pl.jit.inline
def attend(q, k, o, blocks: pl.Scalar[pl.INT32], offset: pl.Scalar[pl.INT32], mode: pl.Scalar[pl.INT32]):
    rows = blocks * 1
    for hb in pl.pipeline(rows, stage=2):
        h0 = offset + hb * TILE
        s = pl.matmul(q[h0 : h0 + TILE, 0:HIDDEN], k, b_trans=True, out_dtype=pl.FP32)
        if mode > 0:
            s = pl.exp(s)
        p = pl.cast(s, target_type=pl.BF16, mode="rint")
        o[h0 : h0 + TILE, 0:HIDDEN] = pl.matmul(p, k, out_dtype=pl.FP32)
    return o


@pl.jit
def decode(q: pl.Tensor[[128, 64], pl.BF16], k: pl.Tensor[[64, 64], pl.BF16], o: pl.Out[pl.Tensor[[128, 64], pl.FP32]], offset: pl.Scalar[pl.INT32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        o = attend(q, k, o, 4, offset, 1)
        o = attend(q, k, o, 2, offset + 0, 0)
    return o
"""


def _labels() -> list[str]:
    reports = analyse(HELPER_AND_CALLS, "decode.py")
    assert len(reports) == 2, [r.message for r in reports]
    return [r.instance.label for r in reports if r.instance is not None]


def test_a_binding_that_sets_the_trip_through_a_local_is_quoted() -> None:
    labels = _labels()
    assert labels[0].startswith("called from `decode` (line 23) with blocks = 4")
    assert labels[1].startswith("called from `decode` (line 24) with blocks = 2")


def test_a_binding_that_picks_a_branch_is_quoted() -> None:
    assert [label.rsplit(", ", 1)[-1] for label in _labels()] == ["mode = 1", "mode = 0"]


def test_a_binding_that_only_feeds_an_index_or_passes_a_name_on_is_not_quoted() -> None:
    # `offset` only moves the tile (no bound, stage or branch); at the first call its
    # value is also just its own name.
    assert all("offset" not in label for label in _labels())


def test_the_data_keeps_every_binding() -> None:
    reports = analyse(HELPER_AND_CALLS, "decode.py")
    assert [name for name, _ in reports[0].instance.bindings] == ["q", "k", "o", "blocks", "offset", "mode"]
